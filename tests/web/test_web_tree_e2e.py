"""The analysis board's move tree in a real browser: variations made on the board and kept
across a reload, a PGN with variations that goes in and comes out whole, the native notation of
shogi and xiangqi in the move list, fairy pieces drawn as images (Debian's chromium, Playwright,
a real `ferz web`; the page fixture is test_web_e2e's)."""

from __future__ import annotations

import io
import json
import urllib.request

import chess.pgn
import pytest

from tests.web import test_web_e2e as e2e

page = e2e.page  # a fresh page per test (server and browser: conftest.py)
click_move = e2e.click_move

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

NESTED = """[Event "tree"]
[White "A"]
[Black "B"]

{ start } 1. e4 e5 ( 1... c5 { the Sicilian } 2. Nf3 ( 2. c3 d5 ) 2... d6 $1 ) 2. Nf3 $5 Nc6
3. Bb5 ( 3. Bc4 { Italian } Bc5 ( 3... Nf6 4. Ng5 ) ) 3... a6 *
"""


def moves_text(page) -> str:
    """The move list's text."""
    return page.locator(".moves.tree").inner_text()


def test_a_variation_made_on_the_board_is_kept_across_a_reload(page, server):
    page.goto(server + "#/analysis")
    page.wait_for_selector("cg-board piece")
    page.fill("textarea[aria-label='PGN or FEN']", "1. e4 e5 2. Nf3 Nc6 *")
    page.click("[data-action=load]")
    page.wait_for_selector(".move[data-ply='4']")
    page.wait_for_function("location.hash.startsWith('#/analysis/')")
    page.click(".move[data-ply='2']")  # after 1... e5
    page.wait_for_selector(".move.current[data-ply='2']")
    click_move(page, "f1", "c4")  # not the line's 2. Nf3: a variation, the line stays
    page.wait_for_selector(".variation .move.current")
    assert page.locator(".move[data-ply]").count() == 4
    assert "(2. Bc4)" in moves_text(page).replace("\n", " ")
    page.keyboard.press("ArrowUp")  # the other move played there: 2. Nf3
    page.wait_for_selector(".move.current[data-ply='3']")
    page.keyboard.press("ArrowDown")
    page.wait_for_selector(".variation .move.current")
    page.fill("input[name=comment]", "the Italian way")
    page.click("[data-action=comment]")
    page.wait_for_selector(".variation .comment")
    page.reload()
    page.wait_for_selector(".variation .move")
    text = moves_text(page)
    assert "Bc4" in text and "the Italian way" in text
    assert page.locator(".move[data-ply]").count() == 4
    # Promoted, the variation becomes the main line (and is kept so).
    page.click(".variation .move")
    page.wait_for_selector(".variation .move.current")
    page.click("[data-action=promote]")
    page.wait_for_function("document.querySelector(\".move[data-ply='3']\").textContent === 'Bc4'")
    page.reload()
    page.wait_for_selector(".move[data-ply='3']")
    assert page.locator(".move[data-ply='3']").inner_text() == "Bc4"
    assert page.locator(".variation .move").first.inner_text() == "Nf3"
    # Deleted, the variation is gone.
    page.click(".variation .move")
    page.click("[data-action=delete]")
    page.wait_for_function("!document.querySelector('.variation')")
    assert page.locator(".move[data-ply]").count() == 3


def test_a_pgn_with_variations_goes_in_and_comes_out_whole(page, server):
    page.goto(server + "#/analysis")
    page.wait_for_selector("cg-board piece")
    page.fill("textarea[aria-label='PGN or FEN']", NESTED)
    page.click("[data-action=load]")
    page.wait_for_selector(".variation .variation .move")
    text = moves_text(page)
    assert "the Sicilian" in text and "Italian" in text and "!?" in text
    page.click(".variation .variation .move")  # 2. c3 in the Sicilian
    page.wait_for_selector(".variation .variation .move.current")
    e2e.docs_screenshot(page, "analysis-tree.png")
    with page.expect_download() as download:
        page.click("[data-action=pgn]")
    with open(download.value.path(), encoding="utf-8") as handle:
        exported = handle.read()
    ours = chess.pgn.read_game(io.StringIO(exported))
    theirs = chess.pgn.read_game(io.StringIO(NESTED))
    assert _tree(ours) == _tree(theirs)


def _tree(game) -> list:
    """A python-chess game as nested lists of (move, comment, nags, children)."""

    def walk(node) -> list:
        return [
            (child.move.uci(), child.comment, sorted(child.nags), walk(child))
            for child in node.variations
        ]

    return [game.comment, walk(game)]


@pytest.mark.parametrize(
    ("variant", "frm", "to", "text"),
    [("xiangqi", "h3", "e3", "C2=5"), ("shogi", "c3", "c4", "P-7f")],
)
def test_shogi_and_xiangqi_moves_are_written_as_their_players_write_them(
    page, server, variant, frm, to, text
):
    page.goto(server + "#/analysis")
    page.wait_for_selector("cg-board piece")
    page.select_option("select[name=variant]", variant)
    page.wait_for_selector(f".board-wrap.family-{variant}")
    box = page.locator("cg-board").bounding_box()
    files, ranks = (9, 10) if variant == "xiangqi" else (9, 9)
    size = box["width"] / files

    def at(name: str) -> tuple[float, float]:
        f, r = ord(name[0]) - 97, int(name[1:]) - 1
        return box["x"] + (f + 0.5) * size, box["y"] + (ranks - 1 - r + 0.5) * size

    page.mouse.click(*at(frm))
    page.mouse.click(*at(to))
    page.wait_for_selector(".move[data-ply='1']")
    assert page.locator(".move[data-ply='1']").inner_text() == text


@pytest.mark.slow  # every built-in variant's board drawn in chromium (about 17 s)
def test_every_fairy_piece_of_the_builtin_variants_is_an_image(page, server):
    """Each piece of each built-in variant, on a board, is drawn by an SVG of its own, never
    its letter."""
    meta = json.load(urllib.request.urlopen(server + "api/meta"))
    page.goto(server + "#/analysis")
    page.wait_for_selector("cg-board piece")
    letters: list[str] = []
    for variant in meta["variants"]:
        page.select_option("select[name=variant]", variant)
        page.wait_for_function(
            "(v) => document.querySelector('select[name=variant]').value === v", arg=variant
        )
        page.wait_for_timeout(150)
        found = page.evaluate(
            """() => [...document.querySelectorAll('cg-board piece, .pocket-box piece')]
                 .map((p) => [p.className, getComputedStyle(p).backgroundImage.slice(0, 30),
                              getComputedStyle(p, '::after').content])"""
        )
        for cls, image, letter in found:
            # an image of its own (fairy artwork or the chess set), and no letter drawn over it
            if not image.startswith("url(") or letter not in ("none", "normal"):
                letters.append(f"{variant}: {cls} {image} {letter}")
    assert letters == []


def test_the_tree_and_its_tools_fit_a_phone(browser, server):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, bypass_csp=True
    )
    phone = context.new_page()
    try:
        phone.goto(server + "#/analysis")
        phone.wait_for_selector("cg-board piece")
        phone.fill("textarea[aria-label='PGN or FEN']", NESTED)
        phone.click("[data-action=load]")
        phone.wait_for_selector(".variation .variation .move")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        for selector in (".moves.tree", ".node-tools", "input[name=comment]"):
            box = phone.locator(selector).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        e2e.ARTIFACTS.mkdir(parents=True, exist_ok=True)
        phone.screenshot(path=str(e2e.ARTIFACTS / "analysis-tree-phone.png"), full_page=True)
    finally:
        context.close()
