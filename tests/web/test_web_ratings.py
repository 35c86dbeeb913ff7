"""Glicko-2 ratings in ferz web (issue #51): the paper's worked example, lichess's speeds, rated
and casual games, both players' changes as an independent computation gives them, ferz's bot
levels seeded from their calibrated Elo, and a rated game rated exactly once across restarts."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from ferz.engine import level_elo  # noqa: E402
from ferz.web import glicko2  # noqa: E402
from ferz.web.ratings import speed_of  # noqa: E402
from ferz.web.store import Store, StoredGame  # noqa: E402
from tests.web.test_web_people import (  # noqa: E402
    Person,
    app_for,
    error,
    friend_game,
    play,
    sockets,
    state,
)

pytestmark = pytest.mark.timeout(60)

BLITZ = {"initial_ms": 300_000, "increment_ms": 0}


@pytest.fixture()
def client(tmp_path):
    with TestClient(app_for(tmp_path)) as c:
        c.cookies.clear()
        yield c


# ---------------------------------------------------------------- an independent Glicko-2


def reference(r: float, rd: float, vol: float, opponents, tau: float = 0.5):
    """Glicko-2 written again from the paper for the test, the volatility found by bisection
    instead of the Illinois algorithm: (rating, RD, volatility) after one period."""
    k = 400 / math.log(10)
    mu, phi = (r - 1500) / k, rd / k
    terms = []
    for r_j, rd_j, s in opponents:
        g = 1 / math.sqrt(1 + 3 * (rd_j / k) ** 2 / math.pi**2)
        e = 1 / (1 + math.exp(-g * (mu - (r_j - 1500) / k)))
        terms.append((g, e, s))
    v = 1 / sum(g * g * e * (1 - e) for g, e, _ in terms)
    delta = v * sum(g * (s - e) for g, e, s in terms)
    a = math.log(vol**2)

    def f(x):
        return (math.exp(x) * (delta**2 - phi**2 - v - math.exp(x))) / (
            2 * (phi**2 + v + math.exp(x)) ** 2
        ) - (x - a) / tau**2

    low, high = a - 20, a + 20  # f falls from positive to negative across [low, high]
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if f(mid) > 0 else (low, mid)
    new_vol = math.exp(low / 2)
    phi_star = math.sqrt(phi**2 + new_vol**2)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = mu + new_phi**2 * sum(g * (s - e) for g, e, s in terms)
    return k * new_mu + 1500, k * new_phi, new_vol


def test_the_papers_worked_example():
    player = glicko2.Rating(1500, 200, 0.06)
    games = [
        (glicko2.Rating(1400, 30), 1.0),
        (glicko2.Rating(1550, 100), 0.0),
        (glicko2.Rating(1700, 300), 0.0),
    ]
    after = glicko2.update(player, games)
    # the paper rounds its steps and prints 1464.06 / 151.52 / 0.05999
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.vol == pytest.approx(0.05999, abs=0.00001)
    again = reference(1500, 200, 0.06, [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)])
    assert (after.rating, after.rd, after.vol) == pytest.approx(again, abs=1e-4)


def test_a_period_without_games_only_widens_the_deviation():
    after = glicko2.update(glicko2.Rating(1500, 200, 0.06), [])
    assert after.rating == 1500 and after.rd == pytest.approx(200.27, abs=0.01)


@pytest.mark.parametrize(
    ("minutes", "increment", "speed"),
    [
        (0.5, 0, "bullet"),
        (1, 0, "bullet"),
        (2, 1, "bullet"),  # 120 + 40 = 160 s
        (3, 0, "blitz"),  # 180 s: the first blitz
        (5, 3, "blitz"),  # 420 s
        (8, 0, "rapid"),  # 480 s: the first rapid
        (10, 5, "rapid"),
        (15, 10, "rapid"),  # 900 + 400 = 1300 s
        (20, 15, "classical"),  # 1200 + 600 = 1800 s
        (25, 0, "classical"),
        (None, 0, None),  # untimed: never rated
    ],
)
def test_speeds_split_as_lichess_does(minutes, increment, speed):
    initial = None if minutes is None else int(minutes * 60_000)
    assert speed_of(initial, increment * 1000) == speed


# ---------------------------------------------------------------- rated and casual games


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"opponent": "hotseat", "clock": BLITZ}, "hot-seat"),
        ({"opponent": "friend"}, "needs a clock"),
        ({"opponent": "engine", "movetime_ms": 100}, "needs a clock"),
        ({"opponent": "seek", "clock": BLITZ, "fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 1"}, "position"),
        ({"opponent": "engine", "clock": BLITZ, "show_pv": True}, "engine lines"),
    ],
)
def test_what_cannot_be_rated_is_refused(client, body, words):
    reply = Person(client).post("/api/games", {"rated": True, **body})
    assert reply.status_code == 400 and words in reply.json()["error"]


def rated_pair(client: TestClient, **body):
    """Ann (White) and Bob (Black) seated in a rated blitz friend game."""
    ann, bob = Person(client), Person(client)
    assert ann.post("/api/me/name", {"name": "Ann"}).status_code == 200
    assert bob.post("/api/me/name", {"name": "Bob"}).status_code == 200
    game = friend_game(ann, rated=True, **body)
    with bob.socket(f"/ws/games/{game['id']}") as wb:
        assert state(wb)["you"] == ["black"]
    return ann, bob, game


def resign(ws, watcher):
    ws.send_json({"type": "resign"})
    return state(watcher, lambda g: g["result"] is not None and g["rating_change"] is not None)


def ratings_of(person: Person) -> dict:
    return {(r["variant"], r["speed"]): r for r in person.get("/api/me").json()["ratings"]}


def test_a_rated_game_changes_both_ratings_by_the_glicko2_amounts(client, tmp_path):
    ann, bob, game = rated_pair(client)
    assert game["settings"]["rated"] is True and game["speed"] == "blitz"
    with sockets(ann, bob, game) as (wa, wb):
        begun = state(wa)
        assert begun["seats"]["white"]["rating"] == {
            "rating": 1500,
            "rd": 350,
            "provisional": True,
            "games": 0,
        }
        play(wa, wb, "e2e4", 0)
        play(wb, wa, "e7e5", 1)
        end = resign(wa, wb)  # Ann resigns: Bob wins
    white = reference(1500, 350, 0.06, [(1500, 350, 0)])
    black = reference(1500, 350, 0.06, [(1500, 350, 1)])
    change = end["rating_change"]
    assert change["speed"] == "blitz" and change["variant"] == "chess"
    assert change["white"]["before"] == 1500 and change["white"]["after"] == round(white[0])
    assert change["black"]["after"] == round(black[0]) and change["black"]["diff"] > 150
    assert change["white"]["diff"] == round(white[0]) - 1500
    mine, theirs = ratings_of(ann)[("chess", "blitz")], ratings_of(bob)[("chess", "blitz")]
    assert (mine["rating"], mine["rd"], mine["games"]) == (round(white[0]), round(white[1]), 1)
    assert (theirs["rating"], theirs["rd"], theirs["games"]) == (
        round(black[0]),
        round(black[1]),
        1,
    )
    # stored exactly, the next game starts from them
    rows = sqlite3.connect(tmp_path / "games.sqlite3").execute(
        "SELECT player, rating, rd, vol FROM ratings ORDER BY rating"
    )
    stored = rows.fetchall()
    assert [x for r in stored for x in r[1:]] == pytest.approx([*white, *black], abs=1e-4)
    again = friend_game(ann, rated=True, clock={"initial_ms": 180_000, "increment_ms": 2000})
    with bob.socket(f"/ws/games/{again['id']}") as wb:
        assert state(wb)["seats"]["white"]["rating"]["rating"] == round(white[0])
    # others see the ratings on the players' pages, and the casual games change nothing
    page = Person(client).get("/api/players/bob").json()
    assert page["name"] == "Bob" and page["ratings"][0]["rating"] == round(black[0])
    assert Person(client).get("/api/players/nobody").status_code == 404


def test_a_draw_between_equals_moves_neither_rating_but_narrows_both(client):
    ann, bob, game = rated_pair(client)
    with sockets(ann, bob, game) as (wa, wb):
        play(wa, wb, "e2e4", 0)
        play(wb, wa, "e7e5", 1)
        wa.send_json({"type": "draw"})
        state(wb, lambda g: g["offers"].get("draw"))
        wb.send_json({"type": "accept", "offer": "draw"})
        end = state(wa, lambda g: g["result"] == "1/2-1/2" and g["rating_change"])
    expected = reference(1500, 350, 0.06, [(1500, 350, 0.5)])
    for color in ("white", "black"):
        assert end["rating_change"][color]["diff"] == 0
        assert end["rating_change"][color]["rd"] == round(expected[1])


def test_a_casual_or_aborted_game_changes_nothing(client):
    ann, bob, game = rated_pair(client)
    with sockets(ann, bob, game) as (wa, wb):
        wa.send_json({"type": "abort"})
        end = state(wb, lambda g: g["result"] is not None)
        assert end["result"] == "*" and end["rating_change"] is None
    casual = friend_game(ann, clock=BLITZ)
    with sockets(ann, bob, casual) as (wa, wb):
        play(wa, wb, "e2e4", 0)
        wa.send_json({"type": "resign"})
        end = state(wb, lambda g: g["result"] is not None)
        assert end["settings"]["rated"] is False and end["rating_change"] is None
    assert ratings_of(ann) == {} and ratings_of(bob) == {}


def test_a_rated_game_against_ferz_rates_the_person_and_the_bot_level(client):
    ann = Person(client)
    game = ann.new_game(rated=True, elo=round(level_elo(5)), clock=BLITZ, color="white")
    assert game["black"] == "ferz level 5"
    seeded = game["seats"]["black"]["rating"]
    assert seeded["rating"] == round(level_elo(5)) and seeded["rd"] == 150
    with ann.socket(f"/ws/games/{game['id']}") as wa:
        state(wa)
        wa.send_json({"type": "move", "uci": "e2e4", "ply": 0})
        state(wa, lambda g: len(g["moves"]) == 2)
        wa.send_json({"type": "takeback"})  # no takebacks against ferz in a rated game
        assert "rated game" in error(wa)
        wa.send_json({"type": "resign"})
        end = state(wa, lambda g: g["result"] and g["rating_change"])
    person = reference(1500, 350, 0.06, [(level_elo(5), 150, 0)])
    bot = reference(level_elo(5), 150, 0.06, [(1500, 350, 1)])
    assert end["rating_change"]["white"]["after"] == round(person[0])
    assert end["rating_change"]["black"]["after"] == round(bot[0])
    lobby = ann.get("/api/seeks").json()["bots"]
    assert {b["name"]: b["ratings"]["blitz"] for b in lobby}["ferz level 3"] == round(level_elo(3))


def test_a_rated_game_is_rated_once_across_restarts(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        client.cookies.clear()
        ann, bob, game = rated_pair(client)
        with sockets(ann, bob, game) as (wa, wb):
            play(wa, wb, "e2e4", 0)
            resign(wb, wa)
        before = ratings_of(ann)
    for _ in range(2):  # a restart rates nothing again
        with TestClient(app_for(tmp_path)) as client:
            client.cookies.clear()
            assert ratings_of(Person(client, ann.token)) == before
            seen = Person(client, bob.token).get(f"/api/games/{game['id']}").json()
            assert seen["rating_change"]["black"]["diff"] < 0
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    assert db.execute("SELECT COUNT(*) FROM rated_games").fetchone()[0] == 1


def test_a_game_that_ended_unrated_before_a_stop_is_rated_at_the_next_start(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        client.cookies.clear()
        ann, bob, game = rated_pair(client)
    # as if the server had stopped between storing the result and rating it
    store = Store(tmp_path / "games.sqlite3")
    rec = store.load(game["id"])
    assert isinstance(rec, StoredGame)
    rec.moves, rec.result, rec.termination = ["e2e4"], "0-1", "resignation"
    store.save(rec)
    store.close()
    for _ in range(2):
        with TestClient(app_for(tmp_path)) as client:
            client.cookies.clear()
            mine = ratings_of(Person(client, ann.token))[("chess", "blitz")]
            assert mine["games"] == 1
            expected = reference(1500, 350, 0.06, [(1500, 350, 0)])
            assert mine["rating"] == round(expected[0])
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    changes = json.loads(db.execute("SELECT changes FROM rated_games").fetchone()[0])
    assert changes["white"]["diff"] == -changes["black"]["diff"]


def test_a_rated_lobby_seek_is_listed_as_rated_and_rates_both(client):
    ann, bob = Person(client), Person(client)
    seek = ann.new_game(opponent="seek", color="white", rated=True, clock=BLITZ)
    listed = bob.get("/api/seeks").json()["seeks"]
    assert [(s["rated"], s["rating"]["rating"]) for s in listed] == [(True, 1500)]
    assert bob.post(f"/api/seeks/{seek['id']}/accept").status_code == 200
    playing = bob.get(f"/api/games/{seek['id']}/pgn").text
    assert '[WhiteElo "1500"]' in playing and '[BlackElo "1500"]' in playing
    assert "RatingDiff" not in playing
    with sockets(ann, bob, seek) as (wa, wb):
        play(wa, wb, "e2e4", 0)
        end = resign(wb, wa)
    change = end["rating_change"]
    assert change["white"]["diff"] == -change["black"]["diff"] > 0
    # the PGN carries the ratings before the game and both changes, as lichess writes them
    text = Person(client).get(f"/api/games/{seek['id']}/pgn").text
    assert '[WhiteElo "1500"]' in text and '[BlackElo "1500"]' in text
    assert f'[WhiteRatingDiff "+{change["white"]["diff"]}"]' in text
    assert f'[BlackRatingDiff "-{change["white"]["diff"]}"]' in text
    # casual and hot-seat games: no rating diff; hot-seat: no ratings at all
    hot = ann.new_game(opponent="hotseat", clock=BLITZ)
    assert "Elo" not in ann.get(f"/api/games/{hot['id']}/pgn").text


# ---------------------------------------------------------------- rating periods


def test_the_deviation_grows_with_the_rating_periods_without_games():
    sigma = 0.06 * glicko2.SCALE  # the volatility in Glicko points
    week = glicko2.idle(glicko2.Rating(1700, 60, 0.06), 7)
    assert week.rating == 1700 and week.vol == 0.06
    assert week.rd == pytest.approx(math.sqrt(60**2 + sigma**2 * 7))
    assert glicko2.idle(glicko2.Rating(1700, 60, 0.06), 0).rd == 60
    assert glicko2.idle(glicko2.Rating(1700, 60, 0.06), 10_000).rd == 350  # at most a newcomer's
    from50 = glicko2.Rating(1700, 50, 0.06)  # about three years from 50 back to 350
    assert glicko2.idle(from50, 1100).rd < 349.5 and glicko2.idle(from50, 1105).rd == 350


class FakeClock:
    """Wall-clock seconds that move only when the test says."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_player_away_for_rating_periods_is_rated_with_the_grown_deviation(tmp_path):
    from ferz.web.game import GameSettings
    from ferz.web.ratings import PERIOD_S, Ratings
    from ferz.web.seats import Seat

    store = Store(tmp_path / "games.sqlite3")
    clock = FakeClock()
    ratings = Ratings(store, clock=clock)
    settings = GameSettings(opponent="friend", rated=True, initial_ms=300_000)
    ann, bob, cid = Seat(player="ann"), Seat(player="bob"), Seat(player="cid")
    try:
        # Ann and Bob play each other every day for ten days, winning in turn
        a = b = (1500.0, 350.0, 0.06)
        for day in range(10):
            clock.now += PERIOD_S if day else 0
            if day:  # a day (one period) since the last game: both deviations grew first
                a = (a[0], math.sqrt(a[1] ** 2 + (a[2] * glicko2.SCALE) ** 2), a[2])
                b = (b[0], math.sqrt(b[1] ** 2 + (b[2] * glicko2.SCALE) ** 2), b[2])
            won = day % 2 == 0
            result = "1-0" if won else "0-1"
            ratings.apply(f"g{day}", "chess", settings, {"white": ann, "black": bob}, result)
            a, b = reference(*a, [(b[0], b[1], won)]), reference(*b, [(a[0], a[1], 1 - won)])
        rows = dict(
            (p, (r, rd, v))
            for p, r, rd, v in store.query("SELECT player, rating, rd, vol FROM ratings")
        )
        assert rows["ann"] == pytest.approx(a, abs=1e-4)
        assert rows["bob"] == pytest.approx(b, abs=1e-4)
        settled = a[1]
        assert settled < 160

        # then Ann stays away for 30 days: shown and rated with RD' = sqrt(RD^2 + sigma^2 t)
        clock.now += 30 * PERIOD_S
        grown = math.sqrt(a[1] ** 2 + (a[2] * glicko2.SCALE) ** 2 * 30)
        assert grown > settled + 5
        now, games = ratings.get("ann", "chess", "blitz")
        assert games == 10 and now.rating == pytest.approx(a[0]) and now.rd == pytest.approx(grown)
        assert Ratings(store, clock=clock).of("ann")[0]["rd"] == round(grown)  # from the store too
        clock.now += PERIOD_S / 2  # half a period more counts as half
        grown = math.sqrt(a[1] ** 2 + (a[2] * glicko2.SCALE) ** 2 * 30.5)
        change = ratings.apply("late", "chess", settings, {"white": cid, "black": ann}, "1-0")
        expected = reference(a[0], grown, a[2], [(1500, 350, 0)])
        assert change["black"]["after"] == round(expected[0])
        stored = store.query("SELECT rating, rd, vol FROM ratings WHERE player = 'ann'")[0]
        assert stored == pytest.approx(expected, abs=1e-4)

        # after years away the deviation is a newcomer's again, never more
        clock.now += 5 * 365 * PERIOD_S
        assert ratings.get("ann", "chess", "blitz")[0].rd == 350
    finally:
        store.close()
