"""ferz web's page-level findings in Debian's chromium (Playwright): framing blocked, the
game-over panel, the engine's lines hidden in play with a thinking sign, the phone layout,
the games list's pages and delete, two tabs on one game. Screenshots: test-artifacts/web/."""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.programs("chromium"), pytest.mark.timeout(180)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#
# One person: the games these tests set up through the API are theirs in every page opened.
PLAYER = secrets.token_urlsafe(24)


@contextlib.contextmanager
def opened(browser, name: str, width: int = 1200, height: int = 820) -> Iterator[Any]:
    """A fresh page; page errors fail the test; a screenshot is kept whatever happens."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_cookies([{"name": "ferz_player", "value": PLAYER, "url": "http://127.0.0.1"}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        yield page
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
        context.close()
    assert errors == []


def api(server: str, path: str, body: dict[str, Any] | None = None, method: str = "") -> Any:
    """Call the server's API directly (to set up games quickly)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        server.rstrip("/") + path,
        data=data,
        method=method or ("POST" if data else "GET"),
        headers={"content-type": "application/json", "cookie": f"ferz_player={PLAYER}"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read()
    return json.loads(text) if text else None


def square(page, name: str) -> tuple[float, float]:
    """Screen coordinates of a square's centre on an 8x8 board (either orientation)."""
    box = page.locator("cg-board").bounding_box()
    white = "orientation-white" in (page.locator(".cg-board-el").get_attribute("class") or "")
    f, r = ord(name[0]) - 97, int(name[1:]) - 1
    if not white:
        f, r = 7 - f, 7 - r
    size = box["width"] / 8
    return box["x"] + (f + 0.5) * size, box["y"] + (7 - r + 0.5) * size


def click_move(page, frm: str, to: str, ply: int) -> None:
    """Click a move (test_web_e2e's click_move, which clicks the piece again while the board
    shows no selection) and wait until the server has it: `ply` moves listed."""
    from tests.web import test_web_e2e

    test_web_e2e.click_move(page, frm, to)
    page.wait_for_selector(f".move[data-ply='{ply}']", timeout=10_000)


def open_game(page, server: str, game_id: str) -> None:
    """Open a game's page and wait until its socket has sent the position."""
    page.goto(f"{server}#/game/{game_id}")
    page.wait_for_selector("cg-board piece")
    page.wait_for_function(
        "() => { const s = document.querySelector('.status'); return s && !s.textContent; }"
    )


def test_another_site_cannot_frame_the_game_page(server, browser):
    game = api(server, "/api/games", {"movetime_ms": 100})
    target = f"{server}#/game/{game['id']}"

    class Framer(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            """Serve the page that frames the game."""
            body = f'<iframe id="f" src="{target}" width="900" height="700"></iframe>'.encode()
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            """Quiet."""
            pass

    evil = ThreadingHTTPServer(("127.0.0.1", 0), Framer)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"http://localhost:{evil.server_address[1]}/")
        page.wait_for_timeout(1500)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "framing-blocked.png"))
        frame = page.frame_locator("#f")
        assert frame.locator("button[data-action=resign]").count() == 0
        assert frame.locator("#app").count() == 0
        context.close()
    finally:
        evil.shutdown()


def test_game_over_panel_says_who_won_and_offers_what_next(server, browser):
    game = api(server, "/api/games", {"movetime_ms": 100, "fen": MATE_IN_ONE})
    with opened(browser, "game-over-panel") as page:
        open_game(page, server, game["id"])
        assert page.locator(".game-over").is_hidden()
        click_move(page, "a1", "a8", 1)
        panel = page.locator(".game-over")
        panel.wait_for(state="visible")
        assert "You won (checkmate)" in panel.inner_text() and "1-0" in panel.inner_text()
        for action in ("takeback", "draw", "resign"):
            assert page.locator(f"button[data-action={action}]").is_disabled(), action
        for action in ("rematch", "new-game", "analyse-game"):
            assert panel.locator(f"[data-action={action}]").is_visible(), action
        page.click(".game-over [data-action=rematch]")
        page.wait_for_function(f"() => !location.hash.includes('{game['id']}')")
        rematch = page.evaluate("() => location.hash.split('/').pop()")
        again = api(server, f"/api/games/{rematch}")
        assert again["human"] == "black" and again["start_fen"] == game["start_fen"]


def test_the_engines_lines_are_hidden_and_its_thinking_shown(server, browser):
    game = api(server, "/api/games", {"movetime_ms": 1500})
    with opened(browser, "thinking-without-pv") as page:
        open_game(page, server, game["id"])
        page.mouse.click(*square(page, "e2"))
        page.mouse.click(*square(page, "e4"))
        badge = page.locator(".thinking-badge")
        badge.wait_for(state="visible", timeout=1000)  # at once, before any engine output
        assert "thinking" in badge.inner_text()
        page.wait_for_function(
            "() => /depth/.test((document.querySelector('.thinking') || {}).textContent || '')"
        )
        seen = set()
        while page.locator(".thinking-badge").is_visible():
            seen.add(page.locator(".thinking").inner_text())
            time.sleep(0.1)
        lines = {text for text in seen if text}
        assert lines and all(re.fullmatch(r"depth \d+", text) for text in lines), lines
        assert page.locator(".thinking-badge").is_hidden()


def test_the_phone_layout_does_not_overflow(server, browser):
    for _ in range(6):
        api(server, "/api/games", {"depth": 1, "variant": "capablanca"})
    game = api(server, "/api/games", {"movetime_ms": 100})
    with opened(browser, "phone-games", 390, 844) as page:
        page.goto(server)
        page.wait_for_selector("table.games tbody tr")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        open_game(page, server, game["id"])
        assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_games_list_pages_and_deletes(server, browser):
    total = api(server, "/api/games")["total"]
    for _ in range(max(0, 30 - total)):
        api(server, "/api/games", {"depth": 1})
    total = api(server, "/api/games")["total"]
    with opened(browser, "games-list-pages") as page:
        page.goto(server)
        page.wait_for_selector("table.games tbody tr")
        assert page.locator("table.games tbody tr").count() == 25
        assert page.locator(".pager").inner_text().count(f"of {total}") == 1
        page.click("button[data-action=older]")
        pager = "((document.querySelector('.pager') || {}).textContent || '')"
        page.wait_for_function(f"() => {pager}.includes('26–{total}')")
        assert page.locator("table.games tbody tr").count() == total - 25
        first = page.locator("table.games tbody tr").first.get_attribute("data-game")
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("table.games tbody tr").first.locator("[data-action=delete]").click()
        page.wait_for_function(f"() => !document.querySelector('[data-game=\"{first}\"]')")
        assert api(server, "/api/games")["total"] == total - 1
        finished = api(server, "/api/games?status=finished")["total"]
        page.select_option("select[name=status]", "finished")
        if finished:  # the game-over test finished some on this server
            page.wait_for_function(f"() => {pager}.includes('of {finished}')")
            results = page.locator("table.games td.result").all_inner_texts()
            assert results and "playing" not in results
        else:
            page.wait_for_selector("table.games", state="detached")


def test_a_piece_picked_in_one_tab_is_not_played_after_the_other_moved(server, browser):
    game = api(server, "/api/games", {"movetime_ms": 100})
    with opened(browser, "tab-a") as tab_a, opened(browser, "tab-b") as tab_b:
        open_game(tab_a, server, game["id"])
        open_game(tab_b, server, game["id"])
        tab_a.mouse.click(*square(tab_a, "e2"))  # picked up in tab A...
        tab_a.wait_for_selector("cg-board square.selected")  # drawn on the next frame
        tab_b.mouse.click(*square(tab_b, "d2"))  # ...while tab B plays d4
        tab_b.mouse.click(*square(tab_b, "d4"))
        tab_a.wait_for_function("() => document.querySelectorAll('ol.moves .move').length === 2")
        assert tab_a.locator("cg-board square.selected").count() == 0
        tab_a.mouse.click(*square(tab_a, "e4"))  # the old selection must not play e2e4
        time.sleep(0.5)
        assert [m["uci"] for m in api(server, f"/api/games/{game['id']}")["moves"]][0] == "d2d4"
        assert len(api(server, f"/api/games/{game['id']}")["moves"]) == 2
