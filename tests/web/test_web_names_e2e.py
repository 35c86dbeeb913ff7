"""Names and ratings in a real browser (issue #51): two people choose their names at the first
visit, play a rated game through a friend's link with a spectator, see each other's names and
ratings, and the rating changes the test computes with its own Glicko-2; "my games" shows each
person only their own games; an account carries the name to another browser."""

from __future__ import annotations

import pytest

from tests.web.conftest import chromium_path
from tests.web.test_web_people_e2e import ARTIFACTS, banner, move
from tests.web.test_web_people_e2e import people as people  # noqa: F401 - the fixture
from tests.web.test_web_ratings import reference

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

chromium_path()  # skip the module (or fail in CI) without chromium or Playwright


def choose_name(page, server: str, name: str) -> None:
    """The first visit: the bar under the header asks for a name."""
    page.goto(server)
    page.wait_for_selector(".name-bar input[name=name]")
    page.fill(".name-bar input[name=name]", name)
    page.click(".name-bar [data-action=save-name]")
    page.wait_for_function(f"document.querySelector('#me').textContent === '{name}'")
    assert page.locator(".name-bar").is_hidden()


def open_rated_friend_game(alice, bob, server: str, minutes: str, increment: str) -> str:
    """Alice opens a rated friend game as White at minutes + increment; Bob joins through
    the link (returned); both boards are up and the link is gone from Alice's page."""
    alice.goto(server + "#/new")
    alice.wait_for_selector("form.new-game")
    alice.check("input[name=opponent][value=friend]")
    alice.check("input[name=color][value=white]")
    alice.fill("input[name=minutes]", minutes)
    alice.fill("input[name=increment]", increment)
    alice.check("input[name=rated]")
    alice.click("form.new-game button[type=submit]")
    alice.wait_for_function("location.hash.startsWith('#/game/')")
    link = alice.locator(".invite-link").input_value()
    bob.goto(link)
    bob.wait_for_selector(".game-view cg-board piece")
    alice.wait_for_function("!document.querySelector('.invite-link')")
    return link


def test_names_ratings_and_my_games_in_a_rated_game_between_two_browsers(people, server):
    alice, bob, carol = people(), people(), people()
    choose_name(alice, server, "Alice")
    choose_name(bob, server, "Bob")
    carol.goto(server)
    carol.wait_for_selector(".name-bar input[name=name]")
    carol.fill(".name-bar input[name=name]", "alice")  # taken, whatever the case
    carol.click(".name-bar [data-action=save-name]")
    carol.wait_for_function(
        "document.querySelector('.name-bar .name-error').textContent.includes('taken')"
    )

    link = open_rated_friend_game(alice, bob, server, "5", "0")
    assert alice.locator(".player.top .name").inner_text() == "● Bob 1500?"
    assert alice.locator(".player.bottom .name").inner_text() == "○ Alice 1500?"
    assert bob.locator(".player.top .name").inner_text() == "○ Alice 1500?"
    assert alice.locator(".game-mode").inner_text() == "Rated · blitz · Chess"
    carol.goto(link)
    carol.wait_for_selector(".game-view cg-board piece")
    assert carol.locator(".spectating").is_visible()
    names = carol.locator(".player .name").all_inner_texts()
    assert sorted(names) == ["○ Alice 1500?", "● Bob 1500?"]

    for n, (page, frm, to) in enumerate(
        [(alice, "f2", "f3"), (bob, "e7", "e5"), (alice, "g2", "g4"), (bob, "d8", "h4")]
    ):
        move(page, frm, to, n + 1)
    assert banner(bob) == "You won (checkmate) · 0-1"
    assert banner(carol) == "Bob (Black) won (checkmate) · 0-1"
    white = round(reference(1500, 350, 0.06, [(1500, 350, 0)])[0])
    black = round(reference(1500, 350, 0.06, [(1500, 350, 1)])[0])
    for page in (alice, bob, carol):
        page.wait_for_selector(".rating-change .rating-line")
        lines = page.locator(".rating-change .rating-line").all_inner_texts()
        assert f"1500 → {white}? (−{1500 - white})" in lines[0]
        assert f"1500 → {black}? (+{black - 1500})" in lines[1]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    bob.screenshot(path=str(ARTIFACTS / "rated-game.png"))
    game_id = alice.evaluate("location.hash").split("/")[-1]
    pgn = carol.request.get(f"{server}api/games/{game_id}/pgn").text()
    assert '[White "Alice"]' in pgn and '[Black "Bob"]' in pgn

    # my games: Alice sees her game with resume/delete links, Carol (a spectator) none
    alice.goto(server + "#/")
    alice.wait_for_selector(f"tr[data-game='{game_id}']")
    row = alice.locator(f"tr[data-game='{game_id}']")
    assert row.locator(".players").inner_text() == "Alice – Bob"
    assert row.locator("[data-action=delete]").count() == 1
    carol.goto(server + "#/")
    carol.wait_for_selector("text=You have no games yet.")
    carol.select_option("select[name=who]", "all")
    carol.wait_for_selector(f"tr[data-game='{game_id}']")
    assert carol.locator(f"tr[data-game='{game_id}'] [data-action=delete]").count() == 0

    # an account: Bob registers, then logs in from Carol's browser
    bob.goto(server + "#/account")
    bob.wait_for_selector("[data-form=register]")
    bob.fill("[data-form=register] input[name=password]", "bobs password")
    bob.click("[data-action=register]")
    bob.wait_for_selector("text=You have an account")
    carol.goto(server + "#/account")
    carol.wait_for_selector("[data-form=login]")
    carol.fill("input[name=login-name]", "bob")
    carol.fill("input[name=login-password]", "wrong password")
    carol.click("[data-action=login]")
    carol.wait_for_selector("text=wrong name or password")
    carol.fill("input[name=login-password]", "bobs password")
    carol.click("[data-action=login]")
    carol.wait_for_function("document.querySelector('#me').textContent === 'Bob'")
    carol.wait_for_selector(".ratings td.rating")
    assert carol.locator(".ratings td.rating").inner_text() == f"{black}?"
