"""The opening explorer in a real browser: a PGN database imported through the analysis board,
the panel's counts for the shown position, a click on a move plays it (Debian's chromium,
Playwright, a real `ferz web`; the page fixture is test_web_e2e's)."""

from __future__ import annotations

import pytest

from tests.web import test_web_e2e as e2e

page = e2e.page  # a fresh page per test (server and browser: conftest.py)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

GAMES = "".join(
    f'[Event "{n}"]\n[WhiteElo "{elo}"]\n[BlackElo "{elo}"]\n[Result "{result}"]\n\n'
    f"{moves} {result}\n\n"
    for n, (moves, result, elo) in enumerate(
        [
            ("1. e4 e5 2. Nf3 Nc6", "1-0", 2000),
            ("1. e4 c5 2. Nf3 d6", "0-1", 2100),
            ("1. e4 e5 2. Bc4 Nf6", "1/2-1/2", 2200),
            ("1. d4 d5 2. c4 e6", "1-0", 1800),
            ("1. e4 e5 2. Ke3", "1-0", 1500),  # illegal: reported, left out
        ]
    )
)


def test_an_imported_database_shows_in_the_explorer_and_a_click_plays(page, server, tmp_path):
    path = tmp_path / "club.pgn"
    path.write_text(GAMES)
    page.goto(server + "#/analysis")
    page.wait_for_selector("cg-board piece")
    assert page.locator(".explorer").is_hidden()  # no games yet: no panel
    page.set_input_files("input[name=database]", str(path))
    page.wait_for_selector(".import-status:has-text('Imported 4 games')")
    status = page.locator(".import-status").inner_text()
    assert "1 bad game left out" in status and "line 34" in status and "Ke3" in status
    page.wait_for_selector(".explorer:not([hidden]) .ex-move")
    rows = page.locator(".explorer .ex-move")
    assert rows.count() == 2
    first = rows.nth(0)
    assert first.get_attribute("data-uci") == "e2e4"
    assert first.locator(".ex-san").inner_text() == "e4"
    assert first.locator(".ex-count").inner_text() == "3"
    assert first.locator(".ex-rating").inner_text() == "2100"
    assert page.locator(".explorer .ex-total").inner_text() == "4 games"
    assert rows.nth(1).locator(".ex-san").inner_text() == "d4"
    first.click()  # plays 1. e4: the panel follows with Black's replies
    page.wait_for_selector(".move[data-ply='1']")
    assert page.locator(".move[data-ply='1']").inner_text() == "e4"
    page.wait_for_function(
        "document.querySelector('.explorer .ex-move') &&"
        " document.querySelector('.explorer .ex-move').dataset.uci === 'e7e5'"
    )
    replies = page.locator(".explorer .ex-move")
    assert [replies.nth(i).locator(".ex-san").inner_text() for i in range(2)] == ["e5", "c5"]
    assert replies.nth(0).locator(".ex-count").inner_text() == "2"
    page.click(".explorer .ex-move[data-uci='c7c5']")
    page.wait_for_selector(".move[data-ply='2']")
    assert page.locator(".move[data-ply='2']").inner_text() == "c5"
