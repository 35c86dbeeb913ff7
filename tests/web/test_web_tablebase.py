"""ferz web --syzygy: /api/tablebase in lichess's shape, the worker engines with SyzygyPath,
and bad requests."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from ferz.board import Board  # noqa: E402
from ferz.syzygy import open_tablebase  # noqa: E402
from ferz.web.server import create_app  # noqa: E402
from ferz.web.workers import WorkerSpec  # noqa: E402
from tests.conftest import DATA  # noqa: E402
from tests.programs import need_library  # noqa: E402
from tests.web.web_standin import TEST_POLICY  # noqa: E402

pytestmark = pytest.mark.timeout(120)
TABLES = str(DATA / "syzygy")


@pytest.fixture
def client(tmp_path):
    """A server with the test tables."""
    need_library("fathom", "libfathom1")
    app = create_app(
        tmp_path / "g.sqlite3",
        slots=1,
        max_think_ms=500,
        policy=TEST_POLICY,
        tables=open_tablebase(TABLES),
    )
    with TestClient(app) as test_client:
        yield test_client


def test_a_won_position_and_its_moves(client) -> None:
    """KQvK: a win with its DTZ; the moves best first, the first one a loss for the other."""
    answer = client.get("/api/tablebase", params={"fen": "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1"})
    assert answer.status_code == 200
    data = answer.json()
    assert (data["category"], data["dtz"]) == ("win", 11)
    first = data["moves"][0]
    assert (first["uci"], first["san"], first["category"], first["dtz"]) == (
        "c1f4",
        "Qf4",
        "loss",
        -11,
    )
    assert {m["category"] for m in data["moves"]} <= {"loss", "draw", "win"}
    assert len(data["moves"]) == len(Board("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1").legal_moves)


def test_draw_unknown_and_cursed(client) -> None:
    """A draw, a position with too many men, and a win spoiled by the fifty-move counter."""
    drawn = client.get("/api/tablebase", params={"fen": "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"})
    assert drawn.json()["category"] == "draw"
    start = client.get(
        "/api/tablebase", params={"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}
    )
    assert start.json() == {"category": "unknown", "dtz": None, "moves": []}
    late = client.get("/api/tablebase", params={"fen": "8/8/8/8/8/3k4/8/K1Q5 w - - 95 80"})
    assert late.json()["category"] == "cursed-win"
    atomic = client.get(
        "/api/tablebase", params={"fen": "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1", "variant": "atomic"}
    )
    assert atomic.status_code == 404  # no tables of any kind for atomic


def test_bad_requests(client, tmp_path) -> None:
    """Bad FENs, unknown variants and missing fields are 400s; no tables is a 404."""
    assert client.get("/api/tablebase").status_code == 400
    assert client.get("/api/tablebase", params={"fen": "garbage"}).status_code == 400
    bad = client.get(
        "/api/tablebase", params={"fen": "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1", "variant": "nope"}
    )
    assert bad.status_code == 400
    assert client.get("/api/tablebase", params={"fen": "x" * 400}).status_code == 400
    plain = create_app(tmp_path / "p.sqlite3", slots=1, policy=TEST_POLICY)
    with TestClient(plain) as other:
        missing = other.get("/api/tablebase", params={"fen": "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1"})
        assert missing.status_code == 404 and "--syzygy" in missing.json()["error"]


def test_workers_get_the_tables(tmp_path) -> None:
    """The worker engines start with SyzygyPath: a game from KQvK is played by the tables."""
    need_library("fathom", "libfathom1")
    app = create_app(
        tmp_path / "g.sqlite3",
        slots=1,
        max_think_ms=500,
        policy=TEST_POLICY,
        workers=WorkerSpec(syzygy=TABLES, nice=0),
    )
    with TestClient(app) as client, client.websocket_connect("/ws/analysis") as ws:
        ws.send_json(
            {"type": "analyse", "seq": 1, "fen": "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1", "moves": []}
        )
        info = None
        while True:
            message = ws.receive_json()
            assert message["type"] != "error", message
            if message["type"] == "done":
                break
            if message["type"] == "info":
                info = message["info"]
    assert info is not None and info["pv_uci"][0] == "c1f4", info


def test_variants_are_answered_from_the_bundled_tables(tmp_path) -> None:
    """Xiangqi, without --syzygy: ferz's own bundled tables answer with the distance to mate
    in plies; the first move is the fastest mate; a position off the tables is unknown."""
    plain = create_app(tmp_path / "x.sqlite3", slots=1, policy=TEST_POLICY)
    with TestClient(plain) as client:
        fen = "4k4/9/9/9/9/9/9/9/9/3K4R w - - 0 1"
        answer = client.get("/api/tablebase", params={"fen": fen, "variant": "xiangqi"})
        assert answer.status_code == 200
        data = answer.json()
        assert (data["category"], data["dtm"]) == ("win", 3)
        first = data["moves"][0]
        assert (first["category"], first["dtm"]) == ("loss", -2)
        # each move also as the page writes it: WXF (R1+8), beside its SAN (Ri9)
        assert all(re.fullmatch(r"[RK][1-9][-+=.][1-9]", m["text"]) for m in data["moves"])
        assert all(m["san"] for m in data["moves"])
        assert Board(fen, variant="xiangqi").parse_uci(first["uci"])
        start = client.get(
            "/api/tablebase", params={"fen": Board(variant="xiangqi").fen(), "variant": "xiangqi"}
        )
        assert start.json() == {"category": "unknown", "dtm": None, "moves": []}
        # a loss by the perpetual-check rule: no distance to mate, the rule instead
        lost = "9/5k3/9/9/4N4/9/9/3r5/4K4/9 w - - 0 1"  # the horse must check forever
        data = client.get("/api/tablebase", params={"fen": lost, "variant": "xiangqi"}).json()
        rule = "perpetual check or chase"
        assert (data["category"], data["dtm"], data["rule"]) == ("loss", None, rule)
        check = data["moves"][0]
        assert (check["uci"], check["category"], check["rule"]) == ("e6g7", "win", data["rule"])
        assert all(m["dtm"] is not None for m in data["moves"][1:])  # the rest are mated
        none = client.get(
            "/api/tablebase",
            params={"fen": Board(variant="crazyhouse").fen(), "variant": "crazyhouse"},
        )
        assert none.status_code == 404
