"""The analysis board in a real browser (issue #51, "analysis as good as lichess's"): the
evaluation bar exactly as tall as the board at the desktop and phone layouts and at the end of
its scale for a mate; engine lines with move numbers that play on a click. Screenshots go to
test-artifacts/web."""

from __future__ import annotations

import pytest

from tests.web.conftest import chromium_path
from tests.web.test_web_e2e import ARTIFACTS, MATE_IN_ONE

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

chromium_path()  # skip the module (or fail in CI) without chromium or Playwright

MATED = "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"


def open_board(browser, width: int, height: int):
    """A fresh context and page at a screen size; the page's errors are collected."""
    context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page, errors


@pytest.fixture()
def page(browser, request):
    context, page, errors = open_board(browser, 1280, 860)
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
    context.close()
    assert errors == []


def load(page, text: str) -> None:
    page.fill("textarea", text)
    page.click("[data-action=load]")


def bar_and_board(page) -> tuple[dict, dict]:
    return (
        page.locator(".eval-bar").bounding_box(),
        page.locator(".game-view cg-board").bounding_box(),
    )


@pytest.mark.parametrize("size", [(1280, 860), (390, 844)], ids=["desktop", "phone"])
def test_the_bar_is_as_tall_as_the_board(browser, server, size):
    context, page, errors = open_board(browser, *size)
    try:
        page.goto(server + "#/analysis")
        page.wait_for_selector(".pv", timeout=15_000)
        page.wait_for_timeout(400)  # the bar's transition, the layout settled
        bar, board = bar_and_board(page)
        page.screenshot(path=str(ARTIFACTS / f"analysis-bar-{size[0]}.png"))
        assert abs(bar["height"] - board["height"]) <= 2, (bar, board)
        assert abs(bar["y"] - board["y"]) <= 2, (bar, board)
        assert bar["x"] + bar["width"] <= board["x"] + 1  # beside the board, at its left
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
        # a crazyhouse board (pockets above and below) too: the bar spans the squares
        page.select_option("select[name=variant]", "crazyhouse")
        page.wait_for_selector(".pocket-box")
        page.wait_for_timeout(400)
        bar, board = bar_and_board(page)
        assert abs(bar["height"] - board["height"]) <= 2, (bar, board)
        assert abs(bar["y"] - board["y"]) <= 2, (bar, board)
    finally:
        context.close()
    assert errors == []


def white_share(page) -> float:
    """How much of the bar White's part fills, as drawn (0..1)."""
    return page.evaluate(
        "() => document.querySelector('.bar-white').getBoundingClientRect().height"
        " / document.querySelector('.eval-bar').getBoundingClientRect().height"
    )


def test_a_mate_puts_the_bar_at_the_end_of_the_scale(page, server):
    page.goto(server + "#/analysis")
    page.wait_for_selector(".pv", timeout=15_000)
    load(page, MATE_IN_ONE)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.pv .score')].some((s) => s.textContent === '#1')",
        timeout=30_000,
    )
    page.wait_for_timeout(500)  # the bar's transition (0.3 s)
    assert page.locator(".eval-bar").get_attribute("data-share") == "1.000"
    assert white_share(page) > 0.99
    # the mated position itself: no line to show, the result puts the bar at White's end
    load(page, MATED)
    page.wait_for_selector(".move[data-ply='7'].current")
    page.wait_for_timeout(500)
    assert page.locator(".eval-bar").get_attribute("data-share") == "1.000"
    assert white_share(page) > 0.99
    assert page.locator(".bar-label").inner_text().replace("\n", "") == "1-0"


def pv_texts(page) -> list[str]:
    return page.evaluate("() => [...document.querySelectorAll('.pv')].map((p) => p.textContent)")


def test_engine_lines_have_move_numbers_and_play_on_a_click(page, server):
    page.goto(server + "#/analysis")
    page.wait_for_selector(".pv .pv-move[data-index='3']", timeout=15_000)
    # from the start: "1. e4 e5 2. Nf3 ..."; the best line's arrow is drawn with its own brush
    line = page.locator(".pv[data-multipv='1']").inner_text()
    assert " 1. " in line and " 2. " in line, line
    page.wait_for_function("document.querySelectorAll('.pv').length >= 2", timeout=15_000)
    page.wait_for_timeout(300)
    arrows = page.evaluate(
        """() => [...document.querySelectorAll('svg line[marker-end]')].map((l) => [
          l.getAttribute('marker-end'), +l.getAttribute('opacity'),
          +l.getAttribute('stroke-width')])"""
    )
    by_key = {marker: (opacity, width) for marker, opacity, width in arrows}
    best = by_key.get("url(#arrowhead-pv1)")
    assert best is not None, arrows
    others = [v for k, v in by_key.items() if k != "url(#arrowhead-pv1)"]
    assert others and all(o < best[0] and w < best[1] for o, w in others), arrows
    # a click on the third move of a line plays the line up to it (three moves on the tree)
    moves = page.evaluate(
        """() => {
          const pv = document.querySelector(".pv[data-multipv='1']");
          const moves = [...pv.querySelectorAll('.pv-move')].slice(0, 3).map((m) => m.textContent);
          pv.querySelector(".pv-move[data-index='2']").click();
          return moves;
        }"""
    )
    page.wait_for_selector(".move[data-ply='3'].current", timeout=15_000)
    played = page.locator(".move[data-ply]").all_inner_texts()
    assert [m.split()[0] for m in played] == moves, (played, moves)
    # now Black is to move: the lines start "2... " and a click on a line plays its first move
    page.wait_for_function(
        "() => { const pv = document.querySelector(\".pv[data-multipv='1']\");"
        " return pv && pv.textContent.includes('2...'); }",
        timeout=15_000,
    )
    first = page.evaluate(
        """() => {
          const pv = document.querySelector(".pv[data-multipv='1']");
          const first = pv.querySelector('.pv-move').textContent;
          pv.querySelector('.score').click();
          return first;
        }"""
    )
    page.wait_for_selector(".move[data-ply='4'].current", timeout=15_000)
    assert page.locator(".move[data-ply='4']").inner_text().split()[0] == first


XIANGQI_KRVK = "4k4/9/9/9/9/9/9/9/9/3K4R w - - 0 1"


def test_the_tablebase_panel_for_a_xiangqi_ending(page, server):
    """ferz's own xiangqi tables (bundled): KR v K is a mate in 2 (3 plies); the panel lists the
    best moves first, and a click plays one (then Black is mated in 1). Chess without
    --syzygy has no tables: no panel."""
    page.goto(server + "#/analysis")
    page.wait_for_selector(".pv", timeout=15_000)
    load(page, "8/8/8/4k3/8/8/8/R3K3 w - - 0 1")  # chess KRvK: this server has no Syzygy
    page.wait_for_selector(".pv", timeout=15_000)
    page.wait_for_timeout(500)
    assert page.locator(".tablebase").is_hidden()
    page.select_option("select[name=variant]", "xiangqi")
    page.wait_for_selector(".board-wrap.family-xiangqi")
    load(page, XIANGQI_KRVK)
    page.wait_for_selector(".tablebase .tb-verdict", timeout=15_000)
    assert page.locator(".tablebase .tb-verdict").inner_text() == "Tablebase: win, mate in 2"
    first = page.locator(".tablebase .tb-move").first
    assert first.inner_text().endswith("win, mate in 2")
    san = first.locator(".tb-san").inner_text()
    first.click()
    page.wait_for_selector(".move[data-ply='1'].current")
    assert page.locator(".move[data-ply='1']").inner_text().split()[0] == san
    page.wait_for_function(
        "() => { const v = document.querySelector('.tablebase .tb-verdict');"
        " return v && v.textContent === 'Tablebase: loss, mated in 1'; }",
        timeout=15_000,
    )
    page.screenshot(path=str(ARTIFACTS / "analysis-tablebase.png"))
