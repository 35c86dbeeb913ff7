"""ferz web with the real Engine (no stand-in): chess and a 10x8 variant, analysis lines."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from ferz.board import Board  # noqa: E402
from ferz.web.server import create_app  # noqa: E402
from tests.web.web_standin import TEST_POLICY  # noqa: E402

pytestmark = pytest.mark.timeout(120)


def until(ws, pred, limit: int = 2000) -> dict[str, Any]:
    for _ in range(limit):
        message = ws.receive_json()
        assert message["type"] != "error", message
        if pred(message):
            return message
    raise AssertionError("expected message never came")


@pytest.mark.parametrize(
    "variant, opening",
    [
        ("chess", "e2e4"),
        ("capablanca", "f2f4"),
        ("xiangqi", "b3e3"),
        ("crazyhouse", "e2e4"),
        ("shogi", "c3c4"),
    ],
)
def test_the_real_engine_answers_with_a_legal_move(tmp_path, variant, opening):
    with TestClient(
        create_app(tmp_path / "g.sqlite3", slots=1, max_think_ms=2000, policy=TEST_POLICY)
    ) as client:
        game = client.post("/api/games", json={"variant": variant, "movetime_ms": 100}).json()
        assert (game["files"], game["ranks"]) == (
            Board(variant=variant).files,
            Board(variant=variant).ranks,
        )
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            ws.send_json({"type": "move", "uci": opening, "ply": 0})
            done = until(
                ws,
                lambda m: (
                    m["type"] == "state"
                    and len(m["game"]["moves"]) == 2
                    and not m["game"]["thinking"]
                ),
            )["game"]
    board = Board(variant=variant)
    board.push_uci(opening)
    reply = done["moves"][1]["uci"]
    assert reply in {board.uci(m) for m in board.legal_moves}


def test_real_analysis_gives_distinct_multipv_lines(tmp_path):
    app = create_app(tmp_path / "g.sqlite3", slots=1, max_think_ms=700, policy=TEST_POLICY)
    with TestClient(app) as client, client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "seq": 1, "moves": ["e2e4", "e7e5"], "multipv": 3})
        lines: dict[tuple[int, int], dict[str, Any]] = {}  # (depth, multipv) -> info
        while True:
            message = until(ws, lambda m: m["type"] in ("info", "done"))
            if message["type"] == "done":
                break
            info = message["info"]
            lines[info["depth"], info["multipv"]] = info
    complete = [d for d in {d for d, _ in lines} if all((d, k) in lines for k in (1, 2, 3))]
    assert complete, "no depth reported all three lines"
    deepest = max(complete)
    firsts = {lines[deepest, k]["pv_san"][0] for k in (1, 2, 3)}
    assert len(firsts) == 3 and deepest >= 3
