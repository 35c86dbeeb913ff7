"""Fair starts between people in ferz web, as on lichess (issue #51): a friend's game or a lobby
seek begins only when both seats are held, no clock runs until each side has made its first
move, a first move not made in time aborts the game (no result), no offer goes to an empty
seat, and an aborted game has no rematch; games against ferz and hot-seat keep their clocks."""

from __future__ import annotations

import time
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from ferz.web.rooms.timer import FIRST_MOVE_S  # noqa: E402
from tests.web.test_web_people import (  # noqa: E402
    Person,
    app_for,
    error,
    friend_game,
    play,
    plies,
    sockets,
    state,
)

pytestmark = pytest.mark.timeout(60)

WAITING = "waiting for an opponent"


@pytest.fixture()
def client(tmp_path):
    """An app with the default time for a first move (no abort during these tests)."""
    with TestClient(app_for(tmp_path)) as c:
        c.cookies.clear()
        yield c


@pytest.fixture()
def hasty(tmp_path):
    """An app whose players have 0.5 s for their first move."""
    with TestClient(app_for(tmp_path, first_move_s=0.5)) as c:
        c.cookies.clear()
        yield c


def seated(client: TestClient, **body: Any) -> tuple[Person, Person, dict[str, Any]]:
    """A friend's game with White (a) and Black (b) seated."""
    a, b = Person(client), Person(client)
    game = friend_game(a, **body)
    with b.socket(f"/ws/games/{game['id']}") as wb:
        assert state(wb)["you"] == ["black"]
    return a, b, game


def test_the_constant_is_lichess_like():
    assert FIRST_MOVE_S == 30.0


# ---------------------------------------------------------------- the game begins when seated


def test_a_friend_game_takes_no_move_before_the_friend_is_seated(client):
    a, b = Person(client), Person(client)
    game = friend_game(a, clock={"initial_ms": 60_000, "increment_ms": 0})
    assert game["legal"] == [] and game["first_move"] is None
    path = f"/ws/games/{game['id']}"
    with a.socket(path) as wa:
        assert state(wa)["legal"] == []
        wa.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        assert WAITING in error(wa)
        time.sleep(0.2)
        waiting = a.get(f"/api/games/{game['id']}").json()
        assert waiting["moves"] == [] and waiting["clock"]["running"] is None
        assert waiting["clock"]["white"] == waiting["clock"]["black"] == 60_000
        with b.socket(path) as wb:
            begun = state(wa, lambda g: not g["seats"]["black"]["open"])
            assert "e2e4" in begun["legal"] and begun["first_move"]["color"] == "white"
            assert begun["first_move_s"] == FIRST_MOVE_S
            state(wb)
            assert play(wa, wb, "e2e4", 0)["moves"][0]["uci"] == "e2e4"


def test_a_lobby_seek_takes_no_move_before_it_is_accepted(client):
    a, b = Person(client), Person(client)
    seek = a.new_game(opponent="seek", color="white", clock={"initial_ms": 60_000})
    path = f"/ws/games/{seek['id']}"
    with a.socket(path) as wa:
        state(wa)
        wa.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        assert WAITING in error(wa)
        wa.send_json({"type": "resign"})  # nothing to resign: the game has not begun
        assert WAITING in error(wa)
        accepted = b.post(f"/api/seeks/{seek['id']}/accept")
        assert accepted.status_code == 200 and accepted.json()["first_move"]["color"] == "white"
        assert "e2e4" in state(wa, lambda g: not g["seats"]["black"]["open"])["legal"]
        wa.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        assert state(wa, plies(1))["clock"]["running"] is None


def test_the_creator_may_still_abort_a_game_nobody_joined(client):
    a = Person(client)
    game = friend_game(a)
    with a.socket(f"/ws/games/{game['id']}") as wa:
        state(wa)
        wa.send_json({"type": "abort"})
        end = state(wa, lambda g: g["result"])
        assert end["result"] == "*" and end["termination"] == "aborted"


# ---------------------------------------------------------------- clocks


def test_no_clock_runs_until_both_sides_have_moved(client):
    a, b, game = seated(client, clock={"initial_ms": 1000, "increment_ms": 2000})
    with sockets(a, b, game) as (wa, wb):
        after_white = play(wa, wb, "e2e4", 0)
        assert after_white["clock"]["running"] is None
        # no increment before the clocks start (as on lichess)
        assert after_white["clock"]["white"] == after_white["clock"]["black"] == 1000
        time.sleep(1.2)  # Black's 1 s would have run out had its clock run
        assert a.get(f"/api/games/{game['id']}").json()["result"] is None
        after_black = play(wb, wa, "e7e5", 1)
        assert after_black["result"] is None and after_black["clock"]["running"] == "white"
        assert after_black["clock"]["black"] == 1000 and after_black["first_move"] is None
        after_white = play(wa, wb, "g1f3", 2)  # from here on: clock and increment
        assert after_white["clock"]["running"] == "black"
        assert 2000 < after_white["clock"]["white"] <= 3000


def test_a_restart_does_not_start_a_clock_before_both_sides_moved(tmp_path):
    with TestClient(app_for(tmp_path)) as c:
        c.cookies.clear()
        a, b, game = seated(c, clock={"initial_ms": 1000, "increment_ms": 0})
        with sockets(a, b, game) as (wa, wb):
            play(wa, wb, "e2e4", 0)
    time.sleep(1.2)
    with TestClient(app_for(tmp_path)) as c:
        again = Person(c, a.token).get(f"/api/games/{game['id']}").json()
        assert again["result"] is None and again["clock"]["running"] is None
        assert again["first_move"]["color"] == "black"


# ---------------------------------------------------------------- the first move's time limit


def test_white_not_moving_in_time_aborts_the_game(hasty):
    a, b, game = seated(hasty)
    with sockets(a, b, game) as (wa, wb):
        end = state(wb, lambda g: g["result"])  # pushed by the server, nobody asked
        assert end["result"] == "*" and end["termination"] == "aborted"
        assert end["outcome_text"] == "Game aborted" and end["moves"] == []
        assert state(wa, lambda g: g["result"])["result"] == "*"


def test_black_not_moving_in_time_aborts_with_nobody_connected(hasty):
    a, b, game = seated(hasty)
    with sockets(a, b, game) as (wa, wb):
        moved = play(wa, wb, "e2e4", 0)
        assert moved["first_move"]["color"] == "black"
        assert 0 < moved["first_move"]["ms"] <= 500
    time.sleep(0.8)
    done = a.get(f"/api/games/{game['id']}").json()
    assert done["result"] == "*" and done["termination"] == "aborted"
    assert done["moves"][0]["uci"] == "e2e4"


def test_a_late_first_move_is_refused_and_aborts(hasty):
    a, b, game = seated(hasty)
    path = f"/ws/games/{game['id']}"
    with a.socket(path) as wa:
        state(wa)
        time.sleep(0.7)
        wa.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        assert "aborted" in error(wa)
    done = a.get(f"/api/games/{game['id']}").json()
    assert done["result"] == "*" and done["moves"] == []


def test_no_abort_once_both_moved_nor_while_waiting_nor_untimed(hasty):
    a, b, game = seated(hasty)
    with sockets(a, b, game) as (wa, wb):
        play(wa, wb, "e2e4", 0)
        play(wb, wa, "e7e5", 1)
    waiting = friend_game(Person(hasty))  # nobody took the other seat
    untimed = Person(hasty)
    untimed_game = untimed.new_game(opponent="friend", color="white")
    with Person(hasty).socket(f"/ws/games/{untimed_game['id']}") as wb:
        joined = state(wb)
        assert joined["you"] == ["black"] and joined["first_move"] is None
    time.sleep(0.8)
    assert a.get(f"/api/games/{game['id']}").json()["result"] is None
    assert a.get(f"/api/games/{waiting['id']}").json()["result"] is None
    assert untimed.get(f"/api/games/{untimed_game['id']}").json()["result"] is None


# ---------------------------------------------------------------- offers and rematches


def test_no_offer_goes_to_an_empty_seat(client):
    a = Person(client)
    game = friend_game(a)
    with a.socket(f"/ws/games/{game['id']}") as wa:
        state(wa)
        wa.send_json({"type": "draw"})
        assert "no draw offer to an empty seat" in error(wa)
        wa.send_json({"type": "takeback"})
        assert "no takeback offer to an empty seat" in error(wa)
    assert a.get(f"/api/games/{game['id']}").json()["offers"] == {}


def test_an_aborted_game_has_no_rematch(client, hasty):
    a, b, game = seated(client)
    with sockets(a, b, game) as (wa, wb):
        wa.send_json({"type": "abort"})
        state(wb, lambda g: g["result"])
        wa.send_json({"type": "rematch"})
        assert "an aborted game has no rematch" in error(wa)
        wb.send_json({"type": "rematch"})
        assert "an aborted game has no rematch" in error(wb)
    refused = a.post(f"/api/games/{game['id']}/rematch")
    assert refused.status_code == 409 and "aborted" in refused.json()["error"]
    assert a.get(f"/api/games/{game['id']}").json()["offers"] == {}
    a, b, game = seated(hasty)  # aborted for want of a first move: no rematch either
    time.sleep(0.8)
    with a.socket(f"/ws/games/{game['id']}") as wa:
        assert state(wa)["termination"] == "aborted"
        wa.send_json({"type": "rematch"})
        assert "an aborted game has no rematch" in error(wa)


def test_a_finished_game_between_people_still_has_its_rematch(client):
    a, b, game = seated(client)
    with sockets(a, b, game) as (wa, wb):
        play(wa, wb, "e2e4", 0)
        play(wb, wa, "e7e5", 1)
        wb.send_json({"type": "resign"})
        state(wa, lambda g: g["result"])
        wa.send_json({"type": "rematch"})
        assert state(wb, lambda g: g["offers"])["offers"] == {"rematch": "white"}


# ---------------------------------------------------------------- ferz and hot-seat as before


def test_against_ferz_and_hot_seat_the_first_move_starts_the_clocks(hasty):
    a = Person(hasty)
    clock = {"initial_ms": 60_000, "increment_ms": 1000}
    hot = a.new_game(opponent="hotseat", clock=clock)
    assert hot["legal"] and hot["first_move"] is None
    with a.socket(f"/ws/games/{hot['id']}") as wa:
        state(wa)
        wa.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        g = state(wa, plies(1))
        assert g["clock"]["running"] == "black" and g["clock"]["white"] == 61_000
    versus = a.new_game(color="white", clock=clock)
    assert versus["legal"] and versus["seats"]["black"]["kind"] == "engine"
    with a.socket(f"/ws/games/{versus['id']}") as wa:
        state(wa)
        wa.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        g = state(wa, plies(2))  # ferz answered: its clock ran, White's runs
        assert g["clock"]["running"] == "white" and 60_000 < g["clock"]["white"] <= 61_000
    time.sleep(0.7)  # no first-move limit against ferz or in hot-seat
    assert a.get(f"/api/games/{hot['id']}").json()["result"] is None
    assert a.get(f"/api/games/{versus['id']}").json()["result"] is None
