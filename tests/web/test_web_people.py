"""People play people in ferz web, in process: seats and spectators, the player cookie, friend
links, hot-seat, offers (draw, takeback, rematch), abort, abandonment, server-side clocks,
the lobby, the stored games' migration, and hostile input (engine: tests/web/web_standin.py)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from ferz.web.players import PLAYER_COOKIE, new_token, player_id  # noqa: E402
from ferz.web.server import create_app  # noqa: E402
from ferz.web.store import Store  # noqa: E402
from tests.web import webserver  # noqa: E402
from tests.web.web_standin import TEST_POLICY, Limits, Stats, factory  # noqa: E402

pytestmark = pytest.mark.timeout(60)

SPECTATING = "you are spectating this game"


def app_for(tmp_path: Path, stats: Stats | None = None, **kw: Any):
    """An app on a fresh SQLite file with stand-in engines."""
    kw.setdefault("slots", 2)
    kw.setdefault("max_think_ms", 2000)
    kw.setdefault("policy", TEST_POLICY)
    return create_app(
        tmp_path / "games.sqlite3",
        engine_factory=factory(stats or Stats()),
        limits_type=Limits,
        **kw,
    )


class Person:
    """One browser: its player token, sent as the cookie with every request and socket."""

    def __init__(self, client: TestClient, token: str | None = None) -> None:
        self.client = client
        self.token = token or new_token()
        self.headers = {"cookie": f"{PLAYER_COOKIE}={self.token}"}

    def get(self, path: str):
        return self.client.get(path, headers=self.headers)

    def post(self, path: str, body: dict[str, Any] | None = None):
        return self.client.post(path, json=body or {}, headers=self.headers)

    def delete(self, path: str):
        return self.client.delete(path, headers=self.headers)

    def new_game(self, **body: Any) -> dict[str, Any]:
        response = self.post("/api/games", body)
        assert response.status_code == 201, response.text
        return response.json()

    def socket(self, path: str):
        return self.client.websocket_connect(path, headers=self.headers)


@contextlib.contextmanager
def sockets(a: Person, b: Person, game: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
    """White's and Black's sockets on a seated game, each one's first state read."""
    path = f"/ws/games/{game['id']}"
    with a.socket(path) as wa, b.socket(path) as wb:
        state(wa), state(wb)
        yield wa, wb


def play(mover: Any, watcher: Any, uci: str, ply: int) -> dict[str, Any]:
    """`mover` plays `uci` as move `ply`; the state `watcher` gets once it has seen it."""
    mover.send_json({"type": "move", "uci": uci, "ply": ply})
    return state(watcher, plies(ply + 1))


# games between people answer within 40 messages
until = partial(webserver.until, limit=40)
state = partial(webserver.state, limit=40)
error = partial(webserver.error, limit=40)


def plies(n: int):
    return lambda g: len(g["moves"]) == n


@pytest.fixture()
def client(tmp_path):
    with TestClient(app_for(tmp_path, abandon_s=0.5)) as c:
        c.cookies.clear()
        yield c


def friend_game(a: Person, **body: Any) -> dict[str, Any]:
    """A friend's game created by `a` as White (5+0 unless told)."""
    body.setdefault("clock", {"initial_ms": 300_000, "increment_ms": 0})
    return a.new_game(opponent="friend", color="white", **body)


# ---------------------------------------------------------------- identity and seats


def test_the_first_visit_sets_an_httponly_lax_cookie_kept_across_requests(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        first = client.get("/api/meta")
        cookie = first.headers["set-cookie"]
        assert cookie.startswith(f"{PLAYER_COOKIE}=") and "HttpOnly" in cookie
        assert "SameSite=Lax" in cookie and "Max-Age=" in cookie
        again = client.get("/api/meta")  # the browser sends it back: no new token
        assert "set-cookie" not in again.headers
        game = client.post("/api/games", json={"movetime_ms": 50}).json()
        assert game["you"] == ["white"]
        assert client.get(f"/api/games/{game['id']}").json()["you"] == ["white"]
    # the store keeps the token's hash, never the token
    token = client.cookies[PLAYER_COOKIE]
    rows = sqlite3.connect(tmp_path / "games.sqlite3").execute("SELECT seats FROM games")
    seats = json.loads(rows.fetchone()[0])
    assert seats["white"]["player"] == player_id(token) and token not in json.dumps(seats)
    assert seats["black"] == {"kind": "engine", "player": None, "elo": None}


def test_a_friend_link_seats_the_first_visitor_and_the_rest_spectate(client):
    a, b, c = Person(client), Person(client), Person(client)
    game = friend_game(a)
    assert game["you"] == ["white"] and game["seats"]["black"]["open"]
    with a.socket(f"/ws/games/{game['id']}") as wa:
        assert state(wa)["you"] == ["white"]
        with b.socket(f"/ws/games/{game['id']}") as wb:
            joined = state(wb)
            assert joined["you"] == ["black"] and not joined["seats"]["black"]["open"]
            assert state(wa, lambda g: not g["seats"]["black"]["open"])["you"] == ["white"]
            with c.socket(f"/ws/games/{game['id']}") as wc:
                watched = state(wc)
                assert watched["you"] == [] and watched["legal"]  # sees it, cannot move
                for message in (
                    {"type": "move", "uci": "e2e4", "ply": 0},
                    {"type": "draw"},
                    {"type": "takeback"},
                    {"type": "resign"},
                    {"type": "abort"},
                    {"type": "claim", "result": "win"},
                    {"type": "accept", "offer": "draw"},
                ):
                    wc.send_json(message)
                    assert SPECTATING in error(wc)
                # White's move reaches Black and the spectator at once
                assert play(wa, wb, "e2e4", 0)["moves"][0]["san"] == "e4"
                assert state(wc, plies(1))["you"] == []
                wa.send_json({"type": "move", "uci": "d2d4", "ply": 1})
                assert error(wa) == "it is not your turn"
            assert c.get(f"/api/games/{game['id']}").json()["you"] == []
            assert c.post(f"/api/games/{game['id']}/rematch").status_code == 403
            assert c.delete(f"/api/games/{game['id']}").status_code == 403
            assert a.delete(f"/api/games/{game['id']}").status_code == 409  # being played


def test_a_game_against_ferz_keeps_its_seats_and_spectators_cannot_move(client):
    a, c = Person(client), Person(client)
    game = a.new_game(movetime_ms=50, color="white", elo=1500)
    assert game["seats"]["black"] == {
        "kind": "engine",
        "elo": 1500,
        "open": False,
        "name": "ferz level 3",
        "rating": None,  # untimed: no rating
    }
    with c.socket(f"/ws/games/{game['id']}") as wc:
        assert state(wc)["you"] == []  # no open seat: the engine's game is not taken over
        wc.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        assert SPECTATING in error(wc)
    with a.socket(f"/ws/games/{game['id']}") as wa:
        wa.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        assert len(state(wa, lambda g: len(g["moves"]) == 2)["moves"]) == 2


def test_hot_seat_one_person_plays_both_sides(client):
    a, c = Person(client), Person(client)
    game = a.new_game(opponent="hotseat", flip=True, clock={"initial_ms": 60_000})
    assert game["you"] == ["white", "black"] and game["settings"]["flip"] is True
    with a.socket(f"/ws/games/{game['id']}") as wa:
        state(wa)
        wa.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        state(wa, plies(1))
        wa.send_json({"type": "move", "uci": "e7e5", "ply": 1})
        g = state(wa, plies(2))
        assert g["clock"]["running"] == "white" and not g["thinking"]
        wa.send_json({"type": "takeback"})  # agreed at once: one ply
        assert [m["uci"] for m in state(wa, plies(1))["moves"]] == ["e2e4"]
        wa.send_json({"type": "draw"})
        assert state(wa, lambda g: g["result"])["termination"] == "agreement"
    with c.socket(f"/ws/games/{game['id']}") as wc:
        assert state(wc)["you"] == []


def test_play_a_friend_needs_no_engine_settings(client):
    a = Person(client)
    refused = a.post("/api/games", {"opponent": "friend", "movetime_ms": 100})
    assert refused.status_code == 400 and "against ferz" in refused.json()["error"]
    untimed = a.new_game(opponent="friend", color="black")
    assert untimed["clock"] is None and untimed["you"] == ["black"]
    assert a.post("/api/games", {"opponent": "bot"}).status_code == 400


# ---------------------------------------------------------------- offers between people


def seated(client, **body: Any):
    """A friend's game with White (a) and Black (b) seated; yields persons and game."""
    a, b = Person(client), Person(client)
    game = friend_game(a, **body)
    with b.socket(f"/ws/games/{game['id']}") as wb:
        assert state(wb)["you"] == ["black"]
    return a, b, game


def test_draw_offer_declined_then_accepted(client):
    a, b, game = seated(client)
    with sockets(a, b, game) as (wa, wb):
        wa.send_json({"type": "draw"})
        assert state(wb, lambda g: g["offers"])["offers"] == {"draw": "white"}
        wa.send_json({"type": "draw"})
        assert "waiting for an answer" in error(wa)
        wa.send_json({"type": "accept", "offer": "draw"})
        assert "your own draw offer" in error(wa)
        wb.send_json({"type": "decline", "offer": "draw"})
        declined = until(wa, lambda m: m["type"] == "declined")
        assert declined == {"type": "declined", "offer": "draw", "by": "black"}
        assert state(wa, lambda g: not g["offers"])["result"] is None
        wb.send_json({"type": "accept", "offer": "draw"})
        assert "no draw offer" in error(wb)
        wb.send_json({"type": "draw"})
        state(wa, lambda g: g["offers"] == {"draw": "black"})
        wa.send_json({"type": "accept", "offer": "draw"})
        end = state(wb, lambda g: g["result"])
        assert end["result"] == "1/2-1/2" and end["termination"] == "agreement"


def test_takeback_request_accepted_and_a_move_declines_an_offer(client):
    a, b, game = seated(client)
    with sockets(a, b, game) as (wa, wb):
        wa.send_json({"type": "takeback"})
        assert "no move of yours" in error(wa)
        play(wa, wb, "e2e4", 0)
        play(wb, wa, "e7e5", 1)
        wa.send_json({"type": "takeback"})  # White's turn: White's move and the reply
        assert state(wb, lambda g: g["offers"])["offers"] == {"takeback": "white"}
        wb.send_json({"type": "accept", "offer": "takeback"})
        back = state(wa, plies(0))
        assert back["turn"] == "white" and back["offers"] == {}
        # a takeback request the opponent answers with a move is declined by it
        play(wa, wb, "d2d4", 0)
        wa.send_json({"type": "takeback"})
        state(wb, lambda g: g["offers"] == {"takeback": "white"})
        assert play(wb, wa, "d7d5", 1)["offers"] == {}


def test_abort_before_both_sides_moved_and_not_after(client):
    a, b, game = seated(client)
    with sockets(a, b, game) as (wa, wb):
        play(wa, wb, "e2e4", 0)
        wb.send_json({"type": "abort"})  # Black has not moved yet
        end = state(wa, lambda g: g["result"])
        assert end["result"] == "*" and end["outcome_text"] == "Game aborted"
    a, b, game = seated(client)
    with sockets(a, b, game) as (wa, wb):
        play(wa, wb, "e2e4", 0)
        play(wb, wa, "e7e5", 1)
        wa.send_json({"type": "abort"})
        assert "can no longer be aborted" in error(wa)
        wb.send_json({"type": "resign"})
        end = state(wa, lambda g: g["result"])
        assert end["result"] == "1-0" and end["termination"] == "resignation"
        assert end["outcome_text"] == "White won (resignation)"


def test_a_player_who_stays_away_can_be_claimed_against(client):
    a, b, game = seated(client)  # abandon_s = 0.5 in this app
    path = f"/ws/games/{game['id']}"
    with a.socket(path) as wa:
        first = state(wa)
        assert "black" in first["away"] and first["abandon_s"] == 0.5
        wa.send_json({"type": "claim", "result": "win"})
        assert "a claim is possible after" in error(wa)
        with b.socket(path) as wb:
            assert state(wb)["away"] == {}
            assert state(wa, lambda g: g["away"] == {})["away"] == {}
            wa.send_json({"type": "claim", "result": "win"})
            assert "your opponent is here" in error(wa)
        assert "black" in state(wa, lambda g: g["away"])["away"]  # Black left again
        time.sleep(0.6)
        wa.send_json({"type": "claim", "result": "win"})
        end = state(wa, lambda g: g["result"])
        assert end["result"] == "1-0" and end["termination"] == "abandonment"


def test_the_server_flags_a_clock_with_nobody_connected(client):
    a, b, game = seated(client, clock={"initial_ms": 1000, "increment_ms": 0})
    with sockets(a, b, game) as (wa, wb):
        play(wa, wb, "e2e4", 0)
        play(wb, wa, "e7e5", 1)  # both have moved: White's clock runs from here
    time.sleep(1.3)
    done = a.get(f"/api/games/{game['id']}").json()
    assert done["result"] == "0-1" and done["termination"] == "time forfeit"


def test_rematch_offered_declined_then_accepted_swaps_colours(client):
    a, b, game = seated(client)
    with sockets(a, b, game) as (wa, wb):
        wa.send_json({"type": "rematch"})
        assert "not over" in error(wa)
        wb.send_json({"type": "resign"})
        state(wa, lambda g: g["result"])
        assert a.post(f"/api/games/{game['id']}/rematch").status_code == 409
        wa.send_json({"type": "rematch"})
        assert state(wb, lambda g: g["offers"])["offers"] == {"rematch": "white"}
        wb.send_json({"type": "decline", "offer": "rematch"})
        assert until(wa, lambda m: m["type"] == "declined")["offer"] == "rematch"
        wb.send_json({"type": "rematch"})
        state(wa, lambda g: g["offers"] == {"rematch": "black"})
        wa.send_json({"type": "accept", "offer": "rematch"})
        again = until(wb, lambda m: m["type"] == "rematch")["id"]
        assert until(wa, lambda m: m["type"] == "rematch")["id"] == again
        wb.send_json({"type": "rematch"})  # once agreed, a rematch leads to the same game
        assert until(wb, lambda m: m["type"] == "rematch")["id"] == again
    assert a.get(f"/api/games/{again}").json()["you"] == ["black"]
    assert b.get(f"/api/games/{again}").json()["you"] == ["white"]


# ---------------------------------------------------------------- the lobby


@pytest.fixture()
def patient(tmp_path):
    """A client of an app whose players may be away 30 s (seeks stay listed that long)."""
    with TestClient(app_for(tmp_path, abandon_s=30)) as c:
        c.cookies.clear()
        yield c


def test_lobby_seek_create_accept_cancel_live(patient):
    client = patient
    a, b, c = Person(client), Person(client), Person(client)
    with b.socket("/ws/lobby") as lobby:
        first = lobby.receive_json()
        assert first["type"] == "seeks" and first["seeks"] == []
        assert [b["name"] for b in first["bots"] if b["elo"] is None] == ["ferz"]
        clock = {"initial_ms": 180_000, "increment_ms": 2000}
        seek = a.new_game(opponent="seek", color="white", variant="crazyhouse", clock=clock)
        shown = until(lobby, lambda m: m["type"] == "seeks" and m["seeks"])["seeks"]
        assert shown == [
            {
                "id": seek["id"],
                "variant": "crazyhouse",
                "clock": clock,
                "color": "white",
                "name": "Anonymous",
                "rated": False,
                "rating": {"rating": 1500, "rd": 350, "provisional": True, "games": 0},
                "created": seek["created"],
                "mine": False,
            }
        ]
        assert a.get("/api/seeks").json()["seeks"][0]["mine"] is True
        with b.socket(f"/ws/games/{seek['id']}") as wb:  # opening a seek does not take it
            assert state(wb)["you"] == []
        assert a.post(f"/api/seeks/{seek['id']}/accept").status_code == 409  # own seek
        accepted = b.post(f"/api/seeks/{seek['id']}/accept")
        assert accepted.status_code == 200 and accepted.json()["you"] == ["black"]
        assert until(lobby, lambda m: m["type"] == "seeks")["seeks"] == []
        late = c.post(f"/api/seeks/{seek['id']}/accept")
        assert late.status_code == 409 and "already accepted" in late.json()["error"]
        other = a.new_game(opponent="seek", color="black")
        until(lobby, lambda m: m["type"] == "seeks" and m["seeks"])
        assert c.delete(f"/api/seeks/{other['id']}").status_code == 403
        assert a.delete(f"/api/seeks/{other['id']}").status_code == 204
        assert until(lobby, lambda m: m["type"] == "seeks")["seeks"] == []
        assert a.get(f"/api/games/{other['id']}").status_code == 404
        lobby.send_json({"type": "join", "player": "x"})
        assert lobby.receive_json()["type"] == "error"


def test_a_seek_whose_creator_left_leaves_the_lobby(client):
    a, b = Person(client), Person(client)  # abandon_s = 0.5 in this app
    seek = a.new_game(opponent="seek", color="white")
    with a.socket(f"/ws/games/{seek['id']}") as wa:
        state(wa)
        time.sleep(0.6)  # its creator is on its page: still listed
        assert [s["id"] for s in b.get("/api/seeks").json()["seeks"]] == [seek["id"]]
    with b.socket("/ws/lobby") as lobby:
        if lobby.receive_json()["seeks"]:  # listed for 0.5 s more, then pushed away
            assert until(lobby, lambda m: m["type"] == "seeks")["seeks"] == []
    refused = b.post(f"/api/seeks/{seek['id']}/accept")
    assert refused.status_code == 409 and "expired" in refused.json()["error"]
    with a.socket(f"/ws/games/{seek['id']}") as wa:  # the creator is back
        state(wa)
        accepted = b.post(f"/api/seeks/{seek['id']}/accept")
        assert accepted.status_code == 200 and accepted.json()["you"] == ["black"]


# ---------------------------------------------------------------- hostile input


def test_forged_seats_and_tokens_are_refused(client):
    a, b, game = seated(client)
    path = f"/ws/games/{game['id']}"
    forged = [
        Person(client, "not-a-token"),  # malformed: treated as no cookie on the socket
        Person(client, new_token()),  # someone else's made-up token: a spectator
        Person(client, player_id(a.token)),  # the stored hash is not the token
    ]
    for person in forged:
        with person.socket(path) as ws:
            assert state(ws)["you"] == []
            ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
            assert SPECTATING in error(ws)
    with b.socket(path) as wb:
        state(wb)
        for message in (
            {"type": "move", "uci": "e2e4", "ply": 0, "color": "white"},
            {"type": "move", "uci": "e2e4", "ply": 0, "player": player_id(a.token)},
            {"type": "accept", "offer": "resign"},
            {"type": "claim", "result": "loss"},
            {"type": "accept"},
            {"type": "rematch", "seats": {"white": "me"}},
        ):
            wb.send_json(message)
            assert error(wb)
        wb.send_text("{" * 50)
        assert "nested" in error(wb)
        wb.send_text(json.dumps({"type": "draw", "pad": "x" * 20_000}))
        assert "over" in error(wb)
        wb.send_json({"type": "move", "uci": "e2e4", "ply": 0})  # Black: not its turn
        assert error(wb) == "it is not your turn"
    assert a.post("/api/games", {"opponent": "friend", "seats": {}}).status_code == 400
    assert a.post("/api/seeks/zzzz/accept").status_code == 404
    assert a.get(f"/api/games/{game['id']}").json()["moves"] == []


# ---------------------------------------------------------------- storage


def test_games_stored_before_seats_are_migrated_without_loss(tmp_path):
    path = tmp_path / "games.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(
        """CREATE TABLE games (id TEXT PRIMARY KEY, created REAL NOT NULL, updated REAL NOT
        NULL, variant TEXT NOT NULL, start_fen TEXT NOT NULL, settings TEXT NOT NULL, moves
        TEXT NOT NULL DEFAULT '', clock_white INTEGER, clock_black INTEGER, result TEXT,
        termination TEXT, evals TEXT NOT NULL DEFAULT '{}', turn_started_at REAL, tags TEXT
        NOT NULL DEFAULT '{}');"""
    )
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    settings = json.dumps({"human": "black", "elo": 1800, "movetime_ms": 50})
    old.execute(
        "INSERT INTO games (id, created, updated, variant, start_fen, settings, moves, evals)"
        " VALUES (?,?,?,?,?,?,?,?)",
        ("0123456789ab", 1.0, 2.0, "chess", start, settings, "e2e4", '{"1": "0.30"}'),
    )
    old.commit()
    old.close()
    store = Store(path)
    rec = store.load("0123456789ab")
    assert rec is not None and rec.moves == ["e2e4"] and rec.evals == {1: "0.30"}
    assert rec.seats == {
        "white": {"kind": "engine", "player": None, "elo": 1800},
        "black": {"kind": "person", "player": None, "elo": None},
    }
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 3
    with TestClient(app_for(tmp_path)) as client:
        client.cookies.clear()
        first, second = Person(client), Person(client)
        with first.socket("/ws/games/0123456789ab") as ws:  # the first visitor takes it
            g = state(ws)
            assert g["you"] == ["black"] and g["white"] == "ferz level 8"
            ws.send_json({"type": "move", "uci": "e7e5", "ply": 1})
            assert len(state(ws, lambda g: len(g["moves"]) == 3)["moves"]) == 3
        with second.socket("/ws/games/0123456789ab") as ws:
            assert state(ws)["you"] == []


def test_the_book_option_reaches_the_engine(tmp_path):
    stats = Stats()
    with TestClient(app_for(tmp_path, stats)) as client:
        game = client.post("/api/games", json={"movetime_ms": 50, "color": "black", "book": True})
        assert game.status_code == 201 and game.json()["settings"]["book"] is True
        plain = client.post("/api/games", json={"movetime_ms": 50, "color": "black"}).json()
        for gid in (game.json()["id"], plain["id"]):
            with client.websocket_connect(f"/ws/games/{gid}") as ws:
                state(ws, lambda g: len(g["moves"]) == 1 and not g["thinking"])
    books = [options["OwnBook"] for _, options in stats.searches]
    assert sorted(books) == [False, True]
