"""ferz web's HTTP API and game WebSocket, in process: lifecycle, validation, clocks,
persistence across a restart, queueing and concurrency (engine: tests/web/web_standin.py)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from ferz.web.messages import MAX_MESSAGE  # noqa: E402
from ferz.web.routes.common import MAX_BODY  # noqa: E402
from ferz.web.server import create_app  # noqa: E402
from ferz.web.store import Store  # noqa: E402
from tests.web.web_standin import TEST_POLICY, Limits, Stats, factory  # noqa: E402
from tests.web.webserver import error, state, until  # noqa: E402

pytestmark = pytest.mark.timeout(60)

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#
PROMOTION = "8/4P3/8/8/8/8/k7/6K1 w - - 0 1"


def app_for(tmp_path: Path, stats: Stats | None = None, **kw: Any):
    """An app on a fresh SQLite file with stand-in engines."""
    overrides = kw.pop("engine", {})
    kw.setdefault("slots", 2)
    kw.setdefault("max_think_ms", 2000)
    kw.setdefault("policy", TEST_POLICY)
    return create_app(
        tmp_path / "games.sqlite3",
        engine_factory=factory(stats or Stats(), **overrides),
        limits_type=Limits,
        **kw,
    )


def settled(plies: int):
    """A condition: the game has `plies` moves and the engine is not thinking."""
    return lambda g: len(g["moves"]) == plies and not g["thinking"]


def listed(client: TestClient, query: str = "") -> list[dict[str, Any]]:
    """The games on the first page of the games list."""
    response = client.get("/api/games" + query)
    assert response.status_code == 200, response.text
    return response.json()["games"]


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    if not {"clock", "depth", "movetime_ms"} & set(body):
        body["movetime_ms"] = 50
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


@contextlib.contextmanager
def opened(client: TestClient, **body: Any) -> Iterator[tuple[dict[str, Any], Any]]:
    """A new game (as new_game) and its WebSocket, the first state already read."""
    game = new_game(client, **body)
    with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        state(ws)
        yield game, ws


# ---------------------------------------------------------------- static files and pages


def test_index_and_bundle_are_served(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        page = client.get("/")
        assert page.status_code == 200 and "/static/app.js" in page.text
        for name in ("app.js", "app.css"):
            assert client.get(f"/static/{name}").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/static/../server.py",
        "/static/%2e%2e/server.py",
        "/static/..%2fserver.py",
        "/server.py",
        "/static/../../pyproject.toml",
        "/etc/passwd",
    ],
)
def test_nothing_outside_the_static_folder(tmp_path, path):
    with TestClient(app_for(tmp_path)) as client:
        response = client.get(path)
        assert response.status_code == 404
        assert "import" not in response.text


# ---------------------------------------------------------------- a game's lifecycle


def test_lifecycle_move_engine_reply_takeback_resign(tmp_path):
    stats = Stats()
    with TestClient(app_for(tmp_path, stats)) as client:
        game = new_game(client, color="white", elo=1500, show_pv=True)
        assert game["moves"] == [] and "e2e4" in game["legal"] and game["turn"] == "white"
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            assert state(ws)["id"] == game["id"]
            ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
            after = state(ws, lambda g: len(g["moves"]) == 1)
            assert after["thinking"] and after["legal"] == []
            info = until(ws, lambda m: m["type"] == "info")["info"]
            assert info["pv_san"] and info["score_cp"] is not None
            reply = state(ws, settled(2))
            assert reply["moves"][0]["san"] == "e4" and reply["turn"] == "white"
            limits, options = stats.searches[-1]
            assert limits.movetime == 50
            assert options["UCI_LimitStrength"] is True and options["UCI_Elo"] == 1500
            ws.send_json({"type": "takeback"})
            assert state(ws, settled(0))["fen"] == game["fen"]
            ws.send_json({"type": "resign"})
            over = state(ws, lambda g: g["result"] is not None)
            assert (over["result"], over["termination"]) == ("0-1", "resignation")
            ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
            assert "over" in error(ws)
        assert [(g["id"], g["result"]) for g in listed(client)] == [(game["id"], "0-1")]


def test_engine_moves_first_when_the_person_plays_black(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        game = new_game(client, color="black", depth=3)
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            first = state(ws, settled(1))
            assert first["human"] == "black" and first["turn"] == "black" and first["legal"]
            ws.send_json({"type": "takeback"})
            assert "no move of yours" in error(ws)


def test_checkmate_ends_the_game_and_the_engine_stays_quiet(tmp_path):
    stats = Stats()
    with TestClient(app_for(tmp_path, stats)) as client:
        with opened(client, fen=MATE_IN_ONE) as (game, ws):
            ws.send_json({"type": "move", "uci": "a1a8", "ply": 0})
            over = state(ws, lambda g: g["result"] is not None)
            assert over["result"] == "1-0" and over["termination"] == "checkmate"
            assert over["moves"][-1]["san"] == "Ra8#" and not over["thinking"]
        pgn = client.get(f"/api/games/{game['id']}/pgn")
        assert pgn.headers["content-disposition"].startswith("attachment")
        assert '[Result "1-0"]' in pgn.text and '[FEN "' + MATE_IN_ONE in pgn.text
        assert "1. Ra8# 1-0" in pgn.text
    assert stats.searches == []


def test_promotion_to_a_knight(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        game = new_game(client, fen=PROMOTION)
        assert {"e7e8q", "e7e8n", "e7e8r", "e7e8b"} <= set(game["legal"])
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            state(ws)
            ws.send_json({"type": "move", "uci": "e7e8n", "ply": 0})
            after = state(ws, lambda g: len(g["moves"]) == 1)
            assert after["moves"][0]["san"] == "e8=N" and after["fen"].startswith("4N3/")


# ---------------------------------------------------------------- bad input changes nothing


@pytest.mark.parametrize(
    "message, expected",
    [
        ({"type": "move", "uci": "e2e5", "ply": 0}, "illegal move e2e5"),
        ({"type": "move", "uci": "e7e5", "ply": 0}, "illegal move e7e5"),
        ({"type": "move", "uci": "zz", "ply": 0}, "not a move"),
        ({"type": "move", "uci": 42, "ply": 0}, "uci must be a string"),
        ({"type": "move", "uci": "e2e4", "ply": 3}, "out of date"),
        ({"type": "fly"}, "unknown message type"),
        ({"no": "type"}, "unknown message type"),
    ],
)
def test_bad_moves_and_messages_get_errors(tmp_path, message, expected):
    with TestClient(app_for(tmp_path)) as client:
        with opened(client) as (game, ws):
            ws.send_json(message)
            assert expected in error(ws)
            ws.send_json({"type": "sync"})
            assert state(ws)["moves"] == []  # the socket still works, nothing changed
        assert client.get(f"/api/games/{game['id']}").json()["moves"] == []


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("not json", "must be JSON"),
        ("[1, 2]", "JSON objects"),
        (json.dumps({"type": "move", "uci": "e2e4" + " " * MAX_MESSAGE}), "over"),
    ],
)
def test_malformed_and_oversized_messages(tmp_path, raw, expected):
    with (
        TestClient(app_for(tmp_path)) as client,
        opened(client) as (game, ws),
    ):
        ws.send_text(raw)
        assert expected in error(ws)
        ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        assert state(ws, settled(2))["moves"][0]["uci"] == "e2e4"


def test_moving_out_of_turn_while_the_engine_thinks(tmp_path):
    with (
        TestClient(app_for(tmp_path, engine={"think_ms": 400})) as client,
        opened(client, movetime_ms=400) as (game, ws),
    ):
        ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        state(ws, lambda g: len(g["moves"]) == 1 and g["thinking"])
        ws.send_json({"type": "move", "uci": "d2d4", "ply": 1})
        assert error(ws) == "it is not your turn"
        assert [m["uci"] for m in state(ws, settled(2))["moves"]][0] == "e2e4"


def test_unknown_game_ids(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        for gid in ("0123456789ab", "nothex", "x" * 500):
            assert client.get(f"/api/games/{gid}").status_code == 404
            assert client.get(f"/api/games/{gid}/pgn").status_code == 404
        with client.websocket_connect("/ws/games/0123456789ab") as ws:
            assert "no game" in ws.receive_json()["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4404


def test_elo_range_is_the_engines():
    """Every Elo the new-game form offers is one the real engine's UCI_Elo accepts."""
    from ferz.engine import Engine
    from ferz.web.game import ELO_MAX, ELO_MIN

    engine = Engine()
    for elo in (ELO_MIN, ELO_MAX):
        engine.set_option("UCI_Elo", elo)  # raises ValueError outside the option's range
    option = engine.options["UCI_Elo"]
    assert (option.min, option.max) == (ELO_MIN, ELO_MAX)


@pytest.mark.parametrize(
    "body, expected",
    [
        ({"color": "green", "movetime_ms": 100}, "color"),
        ({"elo": 99, "movetime_ms": 100}, "elo"),
        ({"elo": 2850, "movetime_ms": 100}, "elo"),
        ({"elo": True, "movetime_ms": 100}, "elo"),
        ({"movetime_ms": 100, "depth": 3}, "exactly one"),
        ({}, "exactly one"),
        ({"movetime_ms": 10**9}, "movetime_ms"),
        ({"depth": 0}, "depth"),
        ({"clock": {"initial_ms": 10}}, "initial_ms"),
        ({"clock": {"initial_ms": 60000, "increment_ms": -1}}, "increment_ms"),
        ({"clock": "5+3"}, "clock"),
        ({"movetime_ms": 100, "fen": "rnbqkbnr/pppppppp/8/8 w"}, "FEN"),
        ({"movetime_ms": 100, "fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, "FEN"),
        ({"movetime_ms": 100, "fen": "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"}, "decided"),
        ({"movetime_ms": 100, "variant": "nochess"}, "unknown variant"),
        ({"movetime_ms": 100, "variant": 7}, "variant must be a string"),
    ],
)
def test_new_game_validation(tmp_path, body, expected):
    with TestClient(app_for(tmp_path)) as client:
        response = client.post("/api/games", json=body)
        assert response.status_code == 400
        assert expected in response.json()["error"]
        assert listed(client) == []


def test_request_body_limits(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        assert client.post("/api/games", content=b"{nope").status_code == 400
        assert client.post("/api/games", content=b"[1]").status_code == 400
        big = json.dumps({"movetime_ms": 100, "pad": "x" * MAX_BODY})
        response = client.post("/api/games", content=big)
        assert response.status_code == 413 and "over" in response.json()["error"]
        assert listed(client) == []


# ---------------------------------------------------------------- clocks


def test_clock_runs_out_and_the_server_flags_it(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        game = new_game(client, clock={"initial_ms": 1000, "increment_ms": 0})
        assert game["clock"] == {"white": 1000, "black": 1000, "increment_ms": 0, "running": None}
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            state(ws)
            ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
            replied = state(ws, settled(2))
            assert replied["clock"]["running"] == "white" and replied["clock"]["black"] < 1000
            over = state(ws, lambda g: g["result"] is not None)
            assert (over["result"], over["termination"]) == ("0-1", "time forfeit")
            assert over["clock"]["white"] == 0
            ws.send_json({"type": "move", "uci": "d2d4", "ply": 2})
            assert "over" in error(ws)


def test_engine_gets_the_clock_as_search_limits(tmp_path):
    stats = Stats()
    with TestClient(app_for(tmp_path, stats)) as client:
        clock = {"initial_ms": 60000, "increment_ms": 2000}
        with opened(client, clock=clock) as (game, ws):
            ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
            done = state(ws, settled(2))
        limits, _ = stats.searches[-1]
        assert limits.binc == limits.winc == 2000
        assert 59000 < limits.btime <= 60000 and 60000 <= limits.wtime <= 62000
        assert done["clock"]["white"] > 60000  # the increment was added after White's move


# ---------------------------------------------------------------- persistence


def test_games_survive_a_server_restart(tmp_path):
    app = app_for(tmp_path, engine={"think_ms": 30})
    with TestClient(app) as client:
        with opened(client) as (game, ws):
            ws.send_json({"type": "move", "uci": "d2d4", "ply": 0})
            before = state(ws, settled(2))
        token = client.cookies["ferz_player"]
    # A second app on the same file: the game is listed and resumes where it stood; the
    # same browser (its player cookie) still holds its seat.
    with TestClient(app_for(tmp_path), cookies={"ferz_player": token}) as client:
        assert [g["id"] for g in listed(client)] == [game["id"]]
        resumed = client.get(f"/api/games/{game['id']}").json()
        assert resumed["moves"] == before["moves"] and resumed["legal"] == before["legal"]
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            state(ws)
            ws.send_json({"type": "move", "uci": "c2c4", "ply": 2})
            assert [m["san"] for m in state(ws, settled(4))["moves"]][:3] == [
                "d4",
                before["moves"][1]["san"],
                "c4",
            ]


def test_an_interrupted_engine_turn_resumes_after_restart(tmp_path):
    with (
        TestClient(app_for(tmp_path, engine={"think_ms": 60_000})) as client,
        opened(client, movetime_ms=1000) as (game, ws),
    ):
        ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        state(ws, lambda g: len(g["moves"]) == 1 and g["thinking"])
    rows = sqlite3.connect(tmp_path / "games.sqlite3").execute("SELECT moves FROM games").fetchall()
    assert rows == [("e2e4",)]
    client = TestClient(app_for(tmp_path))
    with client, client.websocket_connect(f"/ws/games/{game['id']}") as ws:
        assert len(state(ws, settled(2))["moves"]) == 2


def test_a_corrupt_database_is_refused(tmp_path):
    (tmp_path / "games.sqlite3").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ValueError, match="cannot open the games database"):
        app_for(tmp_path)


def test_a_database_whose_folder_cannot_be_made_is_refused(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(ValueError, match="cannot open the games database .*file/g.sqlite3"):
        Store(tmp_path / "file" / "g.sqlite3")


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["--port", "0"], "a port is 1 to 65535, got 0"),
        (["--port", "99999"], "a port is 1 to 65535, got 99999"),
        (["--port", "http"], "not a port number: 'http'"),
        (["--abandon-after", "-5"], "seconds must be finite and at least 0, got -5"),
        (["--abandon-after", "nan"], "seconds must be finite and at least 0, got nan"),
        (["--abandon-after", "soon"], "not a number of seconds: 'soon'"),
    ],
)
def test_bad_web_options_are_refused_by_name(words, message, capsys):
    from ferz.commands import main

    with pytest.raises(SystemExit) as exit_:
        main(["web", "--no-browser", *words])
    assert exit_.value.code == 2
    assert f"argument {words[0]}: {message}" in capsys.readouterr().err


# ---------------------------------------------------------------- concurrency and limits


def test_two_games_at_once(tmp_path):
    with TestClient(app_for(tmp_path, engine={"think_ms": 100})) as client:
        a, b = new_game(client), new_game(client, color="white", fen=PROMOTION)
        with (
            client.websocket_connect(f"/ws/games/{a['id']}") as wa,
            client.websocket_connect(f"/ws/games/{b['id']}") as wb,
        ):
            state(wa), state(wb)
            wa.send_json({"type": "move", "uci": "g1f3", "ply": 0})
            wb.send_json({"type": "move", "uci": "e7e8q", "ply": 0})
            ga, gb = state(wa, settled(2)), state(wb, settled(2))
        assert ga["moves"][0]["san"] == "Nf3" and gb["moves"][0]["san"] == "e8=Q"
        assert ga["id"] != gb["id"]


def test_searches_beyond_the_slots_wait_in_line(tmp_path):
    stats = Stats()
    app = app_for(tmp_path, stats, slots=1, engine={"think_ms": 150})
    with TestClient(app) as client:
        games = [new_game(client, movetime_ms=150) for _ in range(3)]
        sockets = [client.websocket_connect(f"/ws/games/{g['id']}") for g in games]
        try:
            for ws in sockets:
                ws.__enter__()
                state(ws)
            for ws in sockets:
                ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
            for ws in sockets:
                state(ws, settled(2))
        finally:
            for ws in sockets:
                ws.__exit__(None, None, None)
    assert stats.peak == 1 and len(stats.searches) == 3


def test_think_time_ceiling_stops_a_runaway_search(tmp_path):
    app = app_for(tmp_path, max_think_ms=300, engine={"think_ms": 60_000})
    with (
        TestClient(app) as client,
        opened(client, movetime_ms=300) as (game, ws),
    ):
        start = time.monotonic()
        ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        state(ws, settled(2))
        assert time.monotonic() - start < 3


def test_draw_offers(tmp_path):
    with (
        TestClient(app_for(tmp_path, engine={"score_cp": -500})) as client,
        opened(client) as (game, ws),
    ):
        ws.send_json({"type": "draw"})
        assert until(ws, lambda m: m["type"] == "draw")["accepted"] is False  # no score yet
        ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        state(ws, settled(2))
        ws.send_json({"type": "draw"})  # the engine now thinks it is 5 pawns down
        assert until(ws, lambda m: m["type"] == "draw")["accepted"] is True
        over = state(ws, lambda g: g["result"] is not None)
        assert (over["result"], over["termination"]) == ("1/2-1/2", "agreement")


def test_a_closed_socket_does_not_break_the_game(tmp_path):
    with TestClient(app_for(tmp_path, engine={"think_ms": 200})) as client:
        with opened(client, movetime_ms=200) as (game, ws):
            ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
            state(ws, lambda g: g["thinking"])
        deadline = time.monotonic() + 5
        while len(client.get(f"/api/games/{game['id']}").json()["moves"]) < 2:
            assert time.monotonic() < deadline, "the engine's move was lost with the socket"
            time.sleep(0.05)
        assert threading.active_count() < 50


def test_main_refuses_a_busy_port(tmp_path, capsys):
    import argparse
    import socket

    from ferz.web.server import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = argparse.Namespace(
            host="127.0.0.1",
            port=port,
            no_browser=True,
            db=str(tmp_path / "g.sqlite3"),
            allow_host=[],
            token=None,
        )
        assert main(args) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_requests_from_other_sites_are_refused(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        evil = {"origin": "http://evil.example"}
        response = client.post("/api/games", json={"movetime_ms": 100}, headers=evil)
        assert response.status_code == 403 and listed(client) == []
        game = new_game(client)
        url = f"/ws/games/{game['id']}"
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(url, headers=evil),
        ):
            pass
        assert refused.value.code == 4403
        same = {"origin": "http://testserver"}
        assert client.post("/api/games", json={"depth": 2}, headers=same).status_code == 201


def test_chess960_games_start_from_a_random_legal_setup(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        ranks = {
            new_game(client, variant="chess960")["start_fen"].split("/")[-1].split()[0]
            for _ in range(8)
        }
    assert len(ranks) > 1  # eight draws from 960 setups are very unlikely to be all equal
    for rank in ranks:
        assert sorted(rank) == sorted("RNBQKBNR")
        bishops = [i for i, p in enumerate(rank) if p == "B"]
        assert (bishops[0] + bishops[1]) % 2 == 1  # on squares of both colours
        assert rank.index("R") < rank.index("K") < rank.rindex("R")


def test_a_damaged_stored_game_gets_a_clear_error(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        game = new_game(client)
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    db.execute("UPDATE games SET moves = 'e2e4 e2e4' WHERE id = ?", (game["id"],))
    db.commit()
    db.close()
    with TestClient(app_for(tmp_path)) as client:
        response = client.get(f"/api/games/{game['id']}")
        assert response.status_code == 500 and "cannot be loaded" in response.json()["error"]
        assert new_game(client)["moves"] == []  # the server keeps serving
        assert client.delete(f"/api/games/{game['id']}").status_code == 204  # it can go
        assert client.get(f"/api/games/{game['id']}").status_code == 404


def test_a_database_from_before_evals_is_upgraded(tmp_path):
    from ferz.web.store import Store

    path = tmp_path / "games.sqlite3"
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE games (id TEXT PRIMARY KEY, created REAL NOT NULL, updated REAL NOT NULL,"
        " variant TEXT NOT NULL, start_fen TEXT NOT NULL, settings TEXT NOT NULL,"
        " moves TEXT NOT NULL DEFAULT '', clock_white INTEGER, clock_black INTEGER,"
        " result TEXT, termination TEXT)"
    )
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    old.execute(
        "INSERT INTO games VALUES ('0123456789ab', 1, 2, 'chess', ?, ?, 'e2e4 e7e5', NULL, NULL,"
        " NULL, NULL)",
        (fen, json.dumps({"human": "white", "movetime_ms": 100})),
    )
    old.commit()
    old.close()
    rec = Store(path).load("0123456789ab")
    assert rec is not None and rec.moves == ["e2e4", "e7e5"] and rec.evals == {}


def test_drop_variants_send_pockets_and_accept_drops(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[N] w KQkq - 0 1"
        game = new_game(client, variant="crazyhouse", fen=fen)
        assert game["pockets"] == ["P", "N", "B", "R", "Q"] and "N@e4" in game["legal"]
        assert new_game(client)["pockets"] is None
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            state(ws)
            ws.send_json({"type": "move", "uci": "Q@e4", "ply": 0})
            assert "illegal move Q@e4" in error(ws)  # no queen in hand
            ws.send_json({"type": "move", "uci": "N@e4", "ply": 0})
            after = state(ws, lambda g: len(g["moves"]) == 1)
            assert after["moves"][0]["san"] == "N@e4" and "[]" in after["fen"]


def test_variant_cards_for_the_new_game_dialog(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        card = client.get("/api/variants/xiangqi").json()
        assert (card["files"], card["ranks"], card["pockets"]) == (9, 10, None)
        assert card["look"]["family"] == "xiangqi" and card["fen"].startswith("rnbakabnr/")
        assert client.get("/api/variants/crazyhouse").json()["pockets"] == ["P", "N", "B", "R", "Q"]
        for bad in ("nosuch", "x" * 5000, "%3Cscript%3E"):
            reply = client.get(f"/api/variants/{bad}")
            assert reply.status_code == 404 and "unknown variant" in reply.json()["error"]
        assert client.get("/api/variants/..%2F..%2Fetc").status_code == 404


def test_sittuyin_pockets_hold_the_pieces_to_set_up(tmp_path):
    """Sittuyin starts with its pieces, the king too, in hand: the page must offer them."""
    with TestClient(app_for(tmp_path)) as client:
        game = new_game(client, variant="sittuyin")
        assert game["pockets"] == ["N", "S", "F", "R", "K"]
        assert "K@e2" in game["legal"] and "R@a1" in game["legal"]
        assert new_game(client, variant="pocketknight")["pockets"] == ["N"]


def test_games_send_the_board_family_and_piece_names(tmp_path):
    """The page draws xiangqi and shogi boards and fairy pieces from the game's look."""
    from ferz import variants
    from ferz.web.boards import board_look

    families = {n: board_look(n)["family"] for n in variants.names()}
    xiangqi = {"xiangqi", "minixiangqi", "manchu"}
    assert {n for n, f in families.items() if f == "xiangqi"} >= xiangqi
    shogi = {"shogi", "minishogi", "gorogoro", "euroshogi", "judkins"}
    assert {n for n, f in families.items() if f == "shogi"} >= shogi
    assert families["chess"] == families["shako"] == families["crazyhouse"] == "chess"
    assert board_look("capablanca")["pieces"]["a"] == "archbishop"
    assert board_look("amazon")["pieces"]["a"] == "amazon"
    assert board_look("xiangqi")["pieces"]["a"] == "fers"
    with TestClient(app_for(tmp_path)) as client:
        game = new_game(client, variant="xiangqi")
        assert game["look"] == board_look("xiangqi")
        assert new_game(client)["look"]["pieces"]["q"] == "queen"


def test_the_xiangqi_board_has_a_river_and_janggis_has_none(tmp_path):
    """The river and the palaces come from the rules: xiangqi's elephant and soldier change at
    the middle of the board, janggi's pieces do not; the palaces are where the kings stay."""
    from ferz import variants
    from ferz.web.boards import board_look, palaces, river

    palace = [[3, 0, 5, 2], [3, 7, 5, 9]]
    for name in ("xiangqi", "manchu"):
        assert (board_look(name)["river"], board_look(name)["palaces"]) == (True, palace)
    for name in ("janggi", "janggitraditional", "janggimodern", "janggicasual"):
        assert (board_look(name)["river"], board_look(name)["palaces"]) == (False, palace)
    assert board_look("minixiangqi")["palaces"] == [[2, 0, 4, 2], [2, 4, 4, 6]]
    assert not board_look("minixiangqi")["river"]  # 7 ranks: no middle line to split
    assert (board_look("chess")["river"], board_look("chess")["palaces"]) == (False, [])
    # A user's variant based on janggi is drawn as janggi, whatever its name.
    mine = variants.parse_text("[koreanlike:janggi]\nbikjangRule = false\n")["koreanlike"]
    assert (river(mine), palaces(mine)) == (False, palace)
    with TestClient(app_for(tmp_path)) as client:
        card = client.get("/api/variants/janggi").json()
        assert card["look"]["river"] is False and card["look"]["palaces"] == palace


def test_kyoto_and_micro_pieces_turn_over_into_pieces_of_their_own(tmp_path):
    """In kyoto and micro shogi a turned-over piece is another piece (kyoto's lance is a
    tokin on its other side), not a promoted lance: the look names it, the moves call it so."""
    from ferz import variants
    from ferz.web.boards import board_look, turned_faces

    def faces(name: str) -> dict[str, str]:
        return {k: v["name"] + "/" + v["letter"] for k, v in board_look(name)["faces"].items()}

    kyoto = {"+p": "rook/R", "+s": "bishop/B", "+l": "tokin/T", "+n": "gold/G"}
    micro = {"+p": "shogiKnight/N", "+l": "silver/S", "+b": "tokin/T", "+r": "gold/G"}
    assert faces("kyotoshogi") == kyoto and faces("micro") == micro
    for name in ("shogi", "minishogi", "dobutsu", "chess", "xiangqi"):
        assert board_look(name)["faces"] == {}  # promoted forms stay promoted forms there
    mine = variants.parse_text("[kyotolike:kyotoshogi]\ndropNoDoubled = p\n")["kyotolike"]
    assert {k: v["name"] for k, v in turned_faces(mine).items()}["+l"] == "tokin"
    with TestClient(app_for(tmp_path)) as client:
        game = new_game(client, variant="kyotoshogi")
        assert game["look"]["faces"]["+l"] == {"name": "tokin", "letter": "T"}
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            state(ws)
            ws.send_json({"type": "move", "uci": "a1a2-", "ply": 0})  # the tokin turns over
            after = state(ws, lambda g: len(g["moves"]) >= 1)
        move = after["moves"][0]
        assert (move["san"], move["text"]) == ("+La2=L", "T-5d")


def test_engines_are_kept_per_variant_up_to_a_ceiling(tmp_path):
    from ferz.web.searches import SearchPool

    made: list[str] = []

    def make(variant: str):
        made.append(variant)
        return factory(Stats())(variant)

    pool = SearchPool(1, 1000, make, Limits, max_engines=2)

    async def play() -> list[str | None]:
        best = []
        for variant in ("chess", "chess", "capablanca", "chess", "xiangqi", "chess"):
            result = await pool.search(
                owner="x", variant=variant, fen=None, moves=[], limits={"depth": 1}, options={}
            )
            best.append(result.best)
        return best

    import asyncio

    assert asyncio.run(play())[:2] == ["a2a3", "a2a3"]
    # chess is kept while capablanca is played; xiangqi replaces the least recently used.
    assert made == ["chess", "capablanca", "xiangqi"]
    assert pool.engines() == 2
