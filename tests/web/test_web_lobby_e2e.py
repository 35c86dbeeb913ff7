"""Two people meet through the lobby in a real browser (issue #51): Alice creates a rated seek,
Bob accepts it from his own browser context (a 390x844 phone); no clock runs until both have
moved, names and ratings are on both screens, a spectator's (a third context) and in the PGN
tags, and the game changes both ratings by the Glicko-2 amounts the test computes with its
own implementation; a second seek accepted and not played is aborted for want of a first
move (the server's first-move limit made short for the test: 8 s, and 4 s where the test
waits for the abort) and changes no rating. Through a friend's link, Black not moving in
time aborts the game too."""

from __future__ import annotations

import re
import time

import pytest

from tests.web.conftest import chromium_path
from tests.web.test_web_names_e2e import choose_name, open_rated_friend_game
from tests.web.test_web_people_e2e import ARTIFACTS, banner, move
from tests.web.test_web_people_e2e import people as people  # noqa: F401 - the fixture
from tests.web.test_web_ratings import reference
from tests.web.webserver import serving

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

chromium_path()  # skip the module (or fail in CI) without chromium or Playwright

FIRST_MOVE_S = 8.0  # each side's time for its first move here (30 s in ferz web)
#: ... and in the games that wait for the abort, set just before the first move is due
ABORT_S = 4.0


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """ferz web's app (stand-in engines: nobody plays ferz here) whose first moves are due
    within FIRST_MOVE_S."""
    from tests.web.test_web_people import app_for

    return app_for(tmp_path_factory.mktemp("lobby"), first_move_s=FIRST_MOVE_S, policy=None)


@pytest.fixture(scope="module")
def server(app):
    """The app served on a free loopback port."""
    with serving(app) as port:
        yield f"http://127.0.0.1:{port}/"


@pytest.fixture
def short_first_move(app):
    """A function that makes the first moves due within ABORT_S from then on (the games
    that wait for an abort), FIRST_MOVE_S again after the test."""
    games = app.state.context.games

    def shorten() -> None:
        games.first_move_s = ABORT_S

    yield shorten
    games.first_move_s = FIRST_MOVE_S


def seek(page, server: str) -> str:
    """Alice's rated 5+0 seek as White from the lobby's form; the game's id."""
    page.goto(server + "#/lobby")
    page.wait_for_selector("form.seek-form")
    page.fill(".seek-form input[name=minutes]", "5")
    page.fill(".seek-form input[name=increment]", "0")
    page.select_option(".seek-form select[name=color]", "white")
    page.check(".seek-form input[name=rated]")
    page.click("[data-action=create-seek]")
    page.wait_for_function("location.hash.startsWith('#/game/')")
    page.wait_for_selector("[data-action=cancel-seek]")
    return page.evaluate("location.hash").split("/")[-1]


def accept(page, server: str, game_id: str, rating: str = "1500?") -> None:
    """Bob accepts the seek from the lobby's list (Alice listed with her `rating`)."""
    page.goto(server + "#/lobby")
    row = page.locator(f"tr[data-seek='{game_id}']")
    row.wait_for()
    assert row.locator(".seeker").inner_text() == f"Alice {rating}"
    assert row.locator(".seek-mode").inner_text() == "rated"
    assert row.locator(".seek-clock").inner_text() == "5+0"
    row.locator("[data-action=accept-seek]").click()
    page.wait_for_function(f"location.hash === '#/game/{game_id}'")
    page.wait_for_selector(".game-view cg-board piece")


def clocks(page) -> tuple[str, str, int]:
    """White's and Black's clocks as shown, and how many run."""
    white = page.locator(".clock[data-color=white]").inner_text()
    black = page.locator(".clock[data-color=black]").inner_text()
    return white, black, page.locator(".clock.running").count()


def first_move(page) -> str:
    """The notice of whose first move is due."""
    return page.locator(".first-move-text").inner_text()


def seconds(page) -> int:
    """The seconds left for the first move, as the notice counts them."""
    return int(re.search(r"(\d+) s", first_move(page)).group(1))


def ratings(page, server: str) -> dict:
    """This person's ratings by (variant, speed), as /api/me gives them."""
    me = page.request.get(server + "api/me").json()
    return {(r["variant"], r["speed"]): r for r in me["ratings"]}


def test_a_rated_seek_accepted_in_the_lobby_from_two_browsers(people, server, short_first_move):
    alice, bob, carol = people(), people(), people()
    choose_name(alice, server, "Alice")
    choose_name(bob, server, "Bob")
    choose_name(carol, server, "Carol")
    bob.set_viewport_size({"width": 390, "height": 844})  # Bob plays on a phone

    game_id = seek(alice, server)
    assert alice.locator(".player.top .name").inner_text().endswith("waiting for a player…")
    accept(bob, server, game_id)
    alice.wait_for_function("!document.querySelector('[data-action=cancel-seek]')")
    alice.wait_for_function(
        "document.querySelector('.player.top .name').textContent === '● Bob 1500?'"
    )

    # each screen says whose first move is due and counts the seconds down
    assert first_move(alice).startswith("Make your first move: ")
    assert first_move(bob).startswith("White has ")
    assert 0 < seconds(alice) <= FIRST_MOVE_S
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    alice.screenshot(path=str(ARTIFACTS / "first-move.png"))

    # White's first move: still no clock runs, for either side, on either screen
    move(alice, "f2", "f3", 1)
    bob.wait_for_function(
        "(document.querySelector('.first-move-text') || {}).textContent"
        "?.startsWith('Make your first move')"
    )
    assert first_move(alice).startswith("Black has ")
    bob.wait_for_selector(".move[data-ply='1']")
    before = {page: clocks(page) for page in (alice, bob)}
    assert all(c == ("5:00", "5:00", 0) for c in before.values()), before
    time.sleep(1.2)
    assert {page: clocks(page) for page in (alice, bob)} == before
    # names and ratings on both players' screens
    assert alice.locator(".player.bottom .name").inner_text() == "○ Alice 1500?"
    assert bob.locator(".player.top .name").inner_text() == "○ Alice 1500?"
    assert bob.locator(".player.bottom .name").inner_text() == "● Bob 1500?"
    for page in (alice, bob):
        assert page.locator(".game-mode").inner_text() == "Rated · blitz · Chess"

    # Black's first move: now White's clock runs
    move(bob, "e7", "e5", 2)
    alice.wait_for_selector(".move[data-ply='2']")
    alice.wait_for_selector(".clock.running[data-color=white]")
    for page in (alice, bob):  # no first move due any more
        page.wait_for_selector(".first-move", state="detached")
    assert alice.locator(".clock.running").count() == 1
    first = alice.locator(".clock[data-color=white]").inner_text()
    time.sleep(1.2)
    assert alice.locator(".clock[data-color=white]").inner_text() != first

    # a spectator sees both names and ratings
    carol.goto(f"{server}#/game/{game_id}")
    carol.wait_for_selector(".game-view cg-board piece")
    assert carol.locator(".spectating").is_visible()
    assert sorted(carol.locator(".player .name").all_inner_texts()) == [
        "○ Alice 1500?",
        "● Bob 1500?",
    ]
    assert carol.locator(".game-mode").inner_text() == "Rated · blitz · Chess"
    playing = carol.request.get(f"{server}api/games/{game_id}/pgn").text()
    assert '[White "Alice"]' in playing and '[Black "Bob"]' in playing
    assert '[WhiteElo "1500"]' in playing and '[BlackElo "1500"]' in playing

    move(alice, "g2", "g4", 3)
    move(bob, "d8", "h4", 4)
    assert banner(alice) == "You lost (checkmate) · 0-1"
    assert banner(bob) == "You won (checkmate) · 0-1"
    assert banner(carol) == "Bob (Black) won (checkmate) · 0-1"

    # both ratings move by Glicko-2's amounts, computed here independently
    white = reference(1500, 350, 0.06, [(1500, 350, 0)])
    black = reference(1500, 350, 0.06, [(1500, 350, 1)])
    lost, won = 1500 - round(white[0]), round(black[0]) - 1500
    assert lost > 150 and won > 150
    for page in (alice, bob, carol):
        page.wait_for_selector(".rating-change .rating-line")
        lines = page.locator(".rating-change .rating-line").all_inner_texts()
        assert f"1500 → {round(white[0])}? (−{lost})" in lines[0]
        assert f"1500 → {round(black[0])}? (+{won})" in lines[1]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    carol.screenshot(path=str(ARTIFACTS / "lobby-rated-spectator.png"))
    assert bob.evaluate("document.documentElement.scrollWidth") <= 390
    bob.evaluate("window.scrollTo(0, 0)")
    bob.screenshot(path=str(ARTIFACTS / "game-phone.png"), full_page=True)  # docs/screenshots
    mine, theirs = (
        ratings(alice, server)[("chess", "blitz")],
        ratings(bob, server)[("chess", "blitz")],
    )
    assert (mine["rating"], mine["rd"], mine["games"]) == (round(white[0]), round(white[1]), 1)
    assert (theirs["rating"], theirs["rd"], theirs["games"]) == (
        round(black[0]),
        round(black[1]),
        1,
    )
    text = carol.request.get(f"{server}api/games/{game_id}/pgn").text()
    assert '[White "Alice"]' in text and '[Black "Bob"]' in text and '[Result "0-1"]' in text
    assert '[WhiteElo "1500"]' in text and '[BlackElo "1500"]' in text
    assert f'[WhiteRatingDiff "-{lost}"]' in text and f'[BlackRatingDiff "+{won}"]' in text

    # a second rated seek, accepted, in which White never moves: aborted, nobody rated
    short_first_move()
    again = seek(alice, server)
    accept(bob, server, again, f"{round(white[0])}?")
    shown = f"○ Alice {round(white[0])}?"
    assert bob.locator(".player.top .name").inner_text() == shown
    assert clocks(bob) == ("5:00", "5:00", 0)
    started = time.monotonic()
    for page in (alice, bob):
        page.locator(".game-over-text").wait_for(state="visible", timeout=(ABORT_S + 10) * 1000)
        assert "aborted" in banner(page)
    assert time.monotonic() - started > ABORT_S - 3  # not before its time
    assert alice.locator(".rating-change .rating-line").count() == 0
    for page in (alice, bob):  # no rematch offered after an abort
        assert page.locator(".game-over [data-action=rematch]").is_hidden()
    assert ratings(alice, server)[("chess", "blitz")]["games"] == 1
    assert ratings(bob, server)[("chess", "blitz")]["games"] == 1
    aborted = alice.request.get(f"{server}api/games/{again}").json()
    assert aborted["result"] == "*" and aborted["termination"] == "aborted"
    assert aborted["moves"] == [] and aborted["rating_change"] is None


def test_through_a_friend_link_black_not_moving_in_time_aborts(people, server, short_first_move):
    """The other way to meet (a friend's link) and the other first move: White moves, Black
    does not, and the game is aborted on both screens with White's move kept."""
    alice, bob = people(), people()
    choose_name(alice, server, "Ann")
    choose_name(bob, server, "Ben")
    link = open_rated_friend_game(alice, bob, server, "3", "2")
    assert alice.locator(".player.top .name").inner_text() == "● Ben 1500?"
    assert bob.locator(".player.top .name").inner_text() == "○ Ann 1500?"
    short_first_move()  # (White's move is due within ABORT_S of Bob's joining too)
    move(alice, "e2", "e4", 1)
    bob.wait_for_selector(".move[data-ply='1']")
    assert clocks(bob) == ("3:00", "3:00", 0)  # no increment, no clock before both moved
    started = time.monotonic()
    for page in (alice, bob):
        page.locator(".game-over-text").wait_for(state="visible", timeout=(ABORT_S + 10) * 1000)
        assert "aborted" in banner(page)
        assert page.locator(".game-over [data-action=rematch]").is_hidden()
    assert time.monotonic() - started > ABORT_S - 3
    game_id = link.split("/")[-1]
    done = bob.request.get(f"{server}api/games/{game_id}").json()
    assert done["result"] == "*" and [m["uci"] for m in done["moves"]] == ["e2e4"]
    assert done["rating_change"] is None and ratings(alice, server) == {}
