"""ferz web's findings of the probe, at the HTTP/WebSocket level (stand-in engines): a restart
resumes the engine, flags fall by the rules, play before analysis, idle engines released,
exports and imports, the games list, the PV hidden in play, the game-over fields, rematch."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from ferz.web.game import GameSettings, LiveGame  # noqa: E402
from ferz.web.server import create_app  # noqa: E402
from tests.web import webserver  # noqa: E402
from tests.web.web_standin import TEST_POLICY, Limits, Stats, factory  # noqa: E402

until = partial(webserver.until, limit=200)

pytestmark = pytest.mark.timeout(60)

SCHOLAR = """[Event "Club night"]
[White "Alice"]
[Black "Bob"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0
"""
KQ_VS_K = "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"  # White can mate, Black cannot


def app_for(db: Path, stats: Stats | None = None, engine: dict[str, Any] | None = None, **kw):
    """An app on the SQLite file `db` with stand-in engines."""
    kw.setdefault("slots", 1)
    kw.setdefault("max_think_ms", 5000)
    return create_app(
        db,
        engine_factory=factory(stats or Stats(), **(engine or {})),
        limits_type=Limits,
        policy=TEST_POLICY,
        **kw,
    )


def poll(client: TestClient, game_id: str, pred, seconds: float = 5) -> dict[str, Any]:
    """GET the game until `pred` holds (no socket is opened)."""
    end = time.monotonic() + seconds
    while True:
        game = client.get(f"/api/games/{game_id}").json()
        if pred(game) or time.monotonic() > end:
            return game
        time.sleep(0.02)


# ---------------------------------------------------------------- restarts and clocks


def test_after_a_restart_the_engine_thinks_before_any_browser_connects(tmp_path):
    db = tmp_path / "g.sqlite3"
    clock = {"initial_ms": 60_000, "increment_ms": 0}
    with TestClient(app_for(db, engine={"think_ms": 60_000})) as client:
        game = client.post("/api/games", json={"clock": clock}).json()
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            ws.receive_json()
            ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
            until(ws, lambda m: m["type"] == "state" and m["game"]["thinking"])
    # The server stopped while the engine was to move; a new one must go on by itself.
    stats = Stats()
    with TestClient(app_for(db, stats)) as client:
        replied = poll(client, game["id"], lambda g: len(g["moves"]) == 2)
        assert len(replied["moves"]) == 2 and replied["result"] is None
        assert stats.searches, "the engine never searched"
        assert replied["clock"]["black"] > 55_000  # thought at once, not after a connect


def test_a_flag_that_fell_while_the_server_was_down_decides_the_game(tmp_path):
    db = tmp_path / "g.sqlite3"
    with TestClient(app_for(db)) as client:
        game = client.post("/api/games", json={"clock": {"initial_ms": 1000}}).json()
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            ws.receive_json()
            ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
            until(ws, lambda m: m["type"] == "state" and len(m["game"]["moves"]) == 2)
    time.sleep(1.2)  # White's clock runs out while no server runs
    with TestClient(app_for(db)) as client:
        over = client.get(f"/api/games/{game['id']}").json()
        assert over["result"] == "0-1" and over["clock"]["white"] == 0
        assert over["termination"] == "time forfeit while the server was down"
        assert "won" in over["outcome_text"]


def test_a_flag_against_a_lone_king_is_a_draw(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as client:
        body = {"clock": {"initial_ms": 1000}, "fen": KQ_VS_K}
        game = client.post("/api/games", json=body).json()
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            ws.receive_json()
            ws.send_json({"type": "move", "uci": "a1a2", "ply": 0})
            over = until(ws, lambda m: m["type"] == "state" and m["game"]["result"])["game"]
    assert over["result"] == "1/2-1/2"
    assert over["termination"] == "time forfeit against insufficient material"


def test_clocks_never_go_below_zero():
    game = LiveGame.create(GameSettings(initial_ms=1000), "chess", None)
    game.play("e2e4", 100.0)  # the first move starts the clocks: Black's runs from t=100
    assert game.remaining("black", 100.5) == 500
    assert game.remaining("black", 105.0) == 0  # five seconds on a one-second clock
    assert game.to_json(105.0)["clock"]["black"] == 0


# ---------------------------------------------------------------- engine time is fair


def test_a_game_move_takes_the_slot_of_a_running_analysis(tmp_path):
    stats = Stats()
    with TestClient(app_for(tmp_path / "g.sqlite3", stats, max_think_ms=8000)) as client:
        with client.websocket_connect("/ws/analysis") as board:
            board.send_json({"type": "analyse", "seq": 1})
            until(board, lambda m: m["type"] == "info")  # the only slot is analysing
            asked = time.monotonic()
            game = client.post("/api/games", json={"color": "black", "movetime_ms": 50}).json()
            replied = poll(client, game["id"], lambda g: len(g["moves"]) == 1, seconds=8)
            waited = time.monotonic() - asked
            assert len(replied["moves"]) == 1 and waited < 2, waited
            # The analysis heard it had to wait, then thinks again.
            queued = until(board, lambda m: m["type"] == "queue" and m["position"] > 0)
            assert queued["seq"] == 1
            until(board, lambda m: m["type"] == "info")
        figures = client.get("/api/stats").json()
        assert figures["preemptions"] >= 1 and figures["play_wait_ms"]["max"] < 2000


def test_analyses_share_one_slot(tmp_path):
    app = app_for(tmp_path / "g.sqlite3", max_think_ms=20_000, analysis_slice_s=0.3)
    with (
        TestClient(app) as client,
        client.websocket_connect("/ws/analysis") as first,
        client.websocket_connect("/ws/analysis") as second,
    ):
        first.send_json({"type": "analyse", "seq": 1})
        until(first, lambda m: m["type"] == "info")
        second.send_json({"type": "analyse", "seq": 1})
        assert until(second, lambda m: m["type"] == "queue")["position"] == 1
        start = time.monotonic()
        until(second, lambda m: m["type"] == "info")  # its turn comes after a slice
        assert time.monotonic() - start < 3


def test_analyses_leave_a_slot_to_games_that_just_searched(tmp_path):
    app = app_for(tmp_path / "g.sqlite3", slots=2, max_think_ms=20_000)
    with TestClient(app) as client:
        game = client.post("/api/games", json={"color": "black", "movetime_ms": 50}).json()
        assert poll(client, game["id"], lambda g: len(g["moves"]) == 1)["moves"]
        with (
            client.websocket_connect("/ws/analysis") as first,
            client.websocket_connect("/ws/analysis") as second,
        ):
            first.send_json({"type": "analyse", "seq": 1})
            until(first, lambda m: m["type"] == "info")
            second.send_json({"type": "analyse", "seq": 1})
            # One slot is free, but a game searched a moment ago: it stays free for games.
            assert until(second, lambda m: m["type"] == "queue")["position"] == 1
            assert client.get("/api/stats").json()["running"] == 1
            start = time.monotonic()
            until(second, lambda m: m["type"] == "info")  # once the games have gone quiet
            assert 0.2 < time.monotonic() - start < 5


def test_a_board_runs_one_search_at_a_time(tmp_path):
    stats = Stats()
    with TestClient(app_for(tmp_path / "g.sqlite3", stats, slots=2)) as client:
        line = client.post("/api/import", json={"text": SCHOLAR}).json()
        with client.websocket_connect("/ws/analysis") as ws:
            ws.send_json({"type": "analyse", "seq": 1, "moves": line["moves"], "ply": 2})
            until(ws, lambda m: m["type"] == "info")
            ws.send_json({"type": "review", "moves": line["moves"]})
            until(ws, lambda m: m["type"] == "review_done")
            until(ws, lambda m: m["type"] == "info")  # the analysis resumed after the review
        assert stats.peak == 1


def test_the_queue_position_of_a_waiting_engine_move_is_shown(tmp_path):
    engine = {"think_ms": 600}
    with TestClient(app_for(tmp_path / "g.sqlite3", engine=engine)) as client:
        first = client.post("/api/games", json={"color": "black", "movetime_ms": 600}).json()
        second = client.post("/api/games", json={"color": "black", "movetime_ms": 600}).json()
        assert second["thinking"]  # both engines started at once, without a browser
        with client.websocket_connect(f"/ws/games/{second['id']}") as ws:
            shown = ws.receive_json()["game"]
            assert shown["thinking"] and shown["queue"] == 1  # behind the first game's move
            until(ws, lambda m: m["type"] == "queue" and m["position"] == 0)
        assert poll(client, first["id"], lambda g: len(g["moves"]) == 1)["moves"]


def test_idle_engines_are_released(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3", idle_release_s=0.2)) as client:
        game = client.post("/api/games", json={"color": "black", "movetime_ms": 50}).json()
        assert poll(client, game["id"], lambda g: len(g["moves"]) == 1)["moves"]
        assert client.get("/api/stats").json()["engines"] == 1
        time.sleep(0.6)
        figures = client.get("/api/stats").json()
        assert figures["engines"] == 0 and figures["engines_released"] >= 1
        assert figures["rss_mb"] is None or figures["rss_mb"] > 0


# ---------------------------------------------------------------- exports and imports


def test_an_imported_game_is_stored_with_its_tags(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as client:
        line = client.post("/api/import", json={"text": SCHOLAR}).json()
        assert line["id"]
        listed = client.get("/api/games?status=imported").json()
        assert [(g["id"], g["white"], g["black"], g["result"]) for g in listed["games"]] == [
            (line["id"], "Alice", "Bob", "1-0")
        ]
        game = client.get(f"/api/games/{line['id']}").json()
        assert game["imported"] and game["legal"] == [] and game["tags"]["Event"] == "Club night"
        text = client.get(f"/api/games/{line['id']}/pgn").text
        for tag in ('[Event "Club night"]', '[White "Alice"]', '[Black "Bob"]', '[Result "1-0"]'):
            assert tag in text
        with client.websocket_connect(f"/ws/games/{line['id']}") as ws:
            ws.receive_json()
            ws.send_json({"type": "move", "uci": "e2e4", "ply": 8})
            assert "imported" in until(ws, lambda m: m["type"] == "error")["message"]


def test_an_analysis_export_keeps_tags_result_and_mates(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as client:
        line = client.post("/api/import", json={"text": SCHOLAR}).json()
        evals = [{"score_cp": 20}] * 6 + [{"score_mate": 1}, None]
        body = {"moves": line["moves"], "tags": line["tags"], "evals": evals}
        text = client.post("/api/export", json=body).json()["pgn"]
        assert '[White "Alice"]' in text and '[Event "Club night"]' in text
        assert '[Result "1-0"]' in text and text.rstrip().endswith("1-0")  # the mate decides
        assert "[%eval #1]" in text and "1000.00" not in text
        # An unfinished line keeps the result it came with (a resigned game's).
        body = {"moves": ["e2e4", "e7e5"], "tags": {"White": "Ann"}, "result": "0-1"}
        text = client.post("/api/export", json=body).json()["pgn"]
        assert '[Result "0-1"]' in text and '[White "Ann"]' in text


# ---------------------------------------------------------------- the games list


def test_the_games_list_pages_filters_and_deletes(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as client:
        ids = [client.post("/api/games", json={"depth": 1}).json()["id"] for _ in range(205)]
        page = client.get("/api/games?limit=50&offset=200").json()
        assert page["total"] == 205 and len(page["games"]) == 5
        first = client.get("/api/games").json()
        assert len(first["games"]) == 50 and first["limit"] == 50
        assert client.get("/api/games?limit=201").status_code == 400
        assert client.get("/api/games?status=won").status_code == 400
        with client.websocket_connect(f"/ws/games/{ids[0]}") as ws:
            ws.receive_json()
            ws.send_json({"type": "resign"})
            until(ws, lambda m: m["type"] == "state" and m["game"]["result"])
        finished = client.get("/api/games?status=finished").json()
        assert [g["id"] for g in finished["games"]] == [ids[0]]
        assert client.get("/api/games?status=playing").json()["total"] == 204
        assert client.get("/api/games?variant=xiangqi").json()["total"] == 0
        with client.websocket_connect(f"/ws/games/{ids[1]}") as ws:
            ws.receive_json()
            assert client.delete(f"/api/games/{ids[1]}").status_code == 204
            assert "deleted" in ws.receive_json()["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4410
        assert client.get(f"/api/games/{ids[1]}").status_code == 404
        assert client.delete(f"/api/games/{ids[1]}").status_code == 404
        assert client.get("/api/games").json()["total"] == 204


# ---------------------------------------------------------------- play


def test_the_engines_lines_are_hidden_in_play_unless_asked_for(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as client:
        for show in (False, True):
            body = {"movetime_ms": 50, "show_pv": show}
            game = client.post("/api/games", json=body).json()
            with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
                ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
                info = until(ws, lambda m: m["type"] == "info")["info"]
            assert ("pv_san" in info) is show and ("score_cp" in info) is show
            assert info["depth"] == 1


def test_game_over_says_who_won_and_a_rematch_swaps_colours(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as client:
        game = client.post("/api/games", json={"movetime_ms": 50, "elo": 1500}).json()
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            ws.receive_json()
            ws.send_json({"type": "resign"})
            over = until(ws, lambda m: m["type"] == "state" and m["game"]["result"])["game"]
        assert over["outcome_text"] == "ferz level 3 won (resignation)"
        again = client.post(f"/api/games/{game['id']}/rematch")
        assert again.status_code == 201
        rematch = again.json()
        assert rematch["human"] == "black" and rematch["settings"]["elo"] == 1500
        assert rematch["id"] != game["id"] and rematch["start_fen"] == game["start_fen"]


def test_a_game_move_takes_the_slot_kept_for_games_without_stopping_an_analysis():
    import asyncio

    from ferz.web.searches import ANALYSIS, PLAY, SearchPool

    pool = SearchPool(2, 10_000, factory(Stats()), Limits)
    start = {"fen": None, "moves": [], "options": {}}

    async def scenario() -> tuple[float, int, list[int]]:
        """A game searched; analysis A runs, B waits (a slot kept); a game's move comes."""
        await pool.search(owner="g1", variant="chess", limits={"movetime": 20}, **start)
        a = asyncio.create_task(
            pool.search(
                owner="a", variant="chess", limits={"infinite": True}, priority=ANALYSIS, **start
            )
        )
        await asyncio.sleep(0.1)
        places: list[int] = []
        b = asyncio.create_task(
            pool.search(
                owner="b",
                variant="chess",
                limits={"infinite": True},
                priority=ANALYSIS,
                on_queue=places.append,
                **start,
            )
        )
        await asyncio.sleep(0.1)
        asked = time.monotonic()
        await pool.search(
            owner="g2", variant="chess", limits={"movetime": 20}, priority=PLAY, **start
        )
        waited = time.monotonic() - asked
        preempted = pool.preemptions
        for task in (a, b):
            task.cancel()
        await asyncio.gather(a, b, return_exceptions=True)
        return waited, preempted, places

    waited, preempted, places = asyncio.run(scenario())
    assert places[0] == 1  # B was told it waits although a slot was free
    assert waited < 0.5 and preempted == 0  # the game's move took the kept slot at once
