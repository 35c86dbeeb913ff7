"""People play people in a real browser: Debian's chromium driven by Playwright against
`ferz web`, one browser context per person (each its own player cookie): a full game through
a friend's link with a spectator, a hot-seat game, a lobby seek accepted, a rematch."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.web.conftest import chromium_path

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"

chromium_path()  # skip the module (or fail in CI) without chromium or Playwright


@pytest.fixture()
def people(browser, request):
    """A factory of pages, each in its own context (its own cookie: its own person)."""
    made: list[tuple[object, object, list[str]]] = []

    def person():
        context = browser.new_context(viewport={"width": 1100, "height": 800}, bypass_csp=True)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("dialog", lambda d: d.accept())
        made.append((context, page, errors))
        return page

    yield person
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for n, (context, page, errors) in enumerate(made):
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-{n}.png"))
        context.close()
        assert errors == []


def square(page, name: str) -> tuple[float, float]:
    """Screen coordinates of a square's centre (8x8 board, either orientation)."""
    box = page.locator(".game-view cg-board").bounding_box()
    white = "orientation-white" in (page.locator(".cg-board-el").get_attribute("class") or "")
    f, r = ord(name[0]) - 97, int(name[1:]) - 1
    if not white:
        f, r = 7 - f, 7 - r
    size = box["width"] / 8
    return box["x"] + (f + 0.5) * size, box["y"] + (7 - r + 0.5) * size


def move(page, frm: str, to: str, ply: int) -> None:
    """Click a move and wait until the server has it (ply moves in the list)."""
    page.mouse.click(*square(page, frm))
    page.mouse.click(*square(page, to))
    page.wait_for_selector(f".move[data-ply='{ply}']", timeout=10_000)


def wait_plies(page, n: int) -> None:
    page.wait_for_function(
        f"document.querySelectorAll('.moves .move[data-ply]').length === {n}", timeout=10_000
    )


def new_game(page, server: str, opponent: str, color: str = "white", minutes: str = "5"):
    """Fill the new-game form for a game between people."""
    page.goto(server + "#/new")
    page.wait_for_selector("form.new-game")
    page.check(f"input[name=opponent][value={opponent}]")
    page.check(f"input[name=color][value={color}]")
    page.check("input[name=mode][value=clock]")
    page.fill("input[name=minutes]", minutes)
    page.fill("input[name=increment]", "0")
    page.click("form.new-game button[type=submit]")
    page.wait_for_function("location.hash.startsWith('#/game/')")
    page.wait_for_selector(".game-view cg-board piece")


def banner(page) -> str:
    text = page.locator(".game-over-text")
    text.wait_for(state="visible", timeout=10_000)
    return text.inner_text()


def test_a_full_game_through_a_friend_link_with_a_spectator_and_a_rematch(people, server):
    alice, bob, carol = people(), people(), people()
    new_game(alice, server, "friend")
    link = alice.locator(".invite-link").input_value()
    assert re.search(r"#/game/[0-9a-f]{12}$", link)
    assert alice.locator(".player.top .name").inner_text().endswith("waiting for a player…")
    bob.goto(link)
    bob.wait_for_selector(".game-view cg-board piece")
    assert "orientation-black" in bob.locator(".cg-board-el").get_attribute("class")
    alice.wait_for_function("!document.querySelector('.invite-link')")
    assert alice.locator(".player.top .name").inner_text() == "● Anonymous 1500?"
    carol.goto(link)
    carol.wait_for_selector(".game-view cg-board piece")
    assert carol.locator(".spectating").is_visible()
    assert carol.locator("[data-action=resign]").is_disabled()

    move(alice, "f2", "f3", 1)
    wait_plies(bob, 1)
    assert bob.locator(".clock.running").count() == 0  # no clock before both have moved
    carol.mouse.click(*square(carol, "e7"))  # the spectator cannot move
    carol.mouse.click(*square(carol, "e5"))
    time.sleep(0.5)
    assert carol.locator(".moves .move[data-ply]").count() == 1
    move(bob, "e7", "e5", 2)
    wait_plies(carol, 2)
    wait_plies(alice, 2)
    clock = alice.locator(".clock.running")
    assert clock.get_attribute("data-color") == "white"
    before = clock.inner_text()
    time.sleep(1.2)
    assert alice.locator(".clock.running").inner_text() != before  # White's clock runs
    move(alice, "g2", "g4", 3)

    # a takeback request, accepted
    alice.click("[data-action=takeback]")
    bob.click("[data-action=accept-takeback]")
    wait_plies(alice, 2)
    wait_plies(bob, 2)
    move(alice, "g2", "g4", 3)
    wait_plies(bob, 3)

    # a draw offer, declined
    bob.click("[data-action=draw]")
    alice.wait_for_selector("[data-action=decline-draw]")
    alice.click("[data-action=decline-draw]")
    bob.wait_for_function("document.querySelector('.error').textContent.includes('declines')")
    assert "Your opponent declines the draw." in bob.locator(".error").inner_text()

    move(bob, "d8", "h4", 4)
    assert banner(bob) == "You won (checkmate) · 0-1"
    assert banner(alice) == "You lost (checkmate) · 0-1"
    assert banner(carol) == "Black won (checkmate) · 0-1"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    bob.screenshot(path=str(ARTIFACTS / "people.png"))  # copied by hand to docs/screenshots

    # a rematch: offered by Alice, accepted by Bob, colours swapped
    old = alice.evaluate("location.hash")
    alice.click(".game-over [data-action=rematch]")
    bob.wait_for_selector("[data-action=accept-rematch]")
    bob.click("[data-action=accept-rematch]")
    for page in (alice, bob):
        page.wait_for_function(f"location.hash !== '{old}'")
        page.wait_for_selector(".game-view cg-board piece")
    assert alice.evaluate("location.hash") == bob.evaluate("location.hash")
    assert "orientation-black" in alice.locator(".cg-board-el").get_attribute("class")
    move(bob, "e2", "e4", 1)
    wait_plies(alice, 1)


def test_a_hot_seat_game_on_one_screen(people, server):
    page = people()
    new_game(page, server, "hotseat")
    assert page.locator(".player.bottom .name").inner_text() == "○ White"
    for n, (frm, to) in enumerate([("f2", "f3"), ("e7", "e5"), ("g2", "g4"), ("d8", "h4")]):
        move(page, frm, to, n + 1)
    assert banner(page) == "Black won (checkmate) · 0-1"


def test_a_lobby_seek_is_accepted_with_one_click(people, server):
    alice, bob = people(), people()
    bob.goto(server + "#/lobby")
    bob.wait_for_selector("table.seeks")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    alice.goto(server + "#/lobby")
    alice.wait_for_selector("form.seek-form")
    alice.select_option("select[name=color]", "white")
    alice.click("[data-action=create-seek]")
    alice.wait_for_function("location.hash.startsWith('#/game/')")
    alice.wait_for_selector("[data-action=cancel-seek]")
    bob.wait_for_selector("[data-action=accept-seek]")  # live: no reload
    bob.screenshot(path=str(ARTIFACTS / "lobby.png"))  # copied by hand to docs/screenshots
    bob.click("[data-action=accept-seek]")
    bob.wait_for_function("location.hash.startsWith('#/game/')")
    assert bob.evaluate("location.hash") == alice.evaluate("location.hash")
    alice.wait_for_function("!document.querySelector('[data-action=cancel-seek]')")
    bob.wait_for_selector(".game-view cg-board piece")
    move(alice, "e2", "e4", 1)
    wait_plies(bob, 1)
