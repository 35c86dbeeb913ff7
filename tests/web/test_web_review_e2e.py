"""The game review in a real browser (issue #51): the evaluation graph under the board (one
point per move, a click goes to that move), each side's inaccuracies, mistakes, blunders,
average centipawn loss and accuracy, and marks equal to `ferz analyse`'s on the same game.

The scores must be the same for both (a real engine's depend on its hash table and timing):
the server runs a stand-in engine whose "search" is one ply of material (the side to move
takes the most valuable piece it can), and ferz.analyse.annotate gets the same function as
its analyser, so any difference in the marks or the figures is a difference of judgement.
Screenshots go to test-artifacts/web; with FERZ_SCREENSHOTS=1 they also replace
docs/screenshots/review.png and review-phone.png (a plain run leaves the repository as it is)."""

from __future__ import annotations

import os
import shutil
import threading

import pytest

from ferz import pgn
from ferz.analyse import NAG_WORDS, Line, annotate
from ferz.board import Board
from ferz.engine import Info
from tests.web.conftest import chromium_path
from tests.web.test_web_e2e import ARTIFACTS, ROOT
from tests.web.web_standin import StandIn, Stats
from tests.web.webserver import serving

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

chromium_path()  # skip the module (or fail in CI) without chromium or Playwright

VALUES = {"p": 100, "n": 300, "b": 300, "r": 500, "q": 900}
# Legal's mate, with a hanging piece or two on the way: marks for both sides
GAME = "1. e4 e5 2. Nf3 d6 3. Bc4 Bg4 4. Nc3 g6 5. Nxe5 Bxd1 6. Bxf7+ Ke7 7. Nd5# 1-0"
TAGS = '[White "Legal"]\n[Black "Saint Brie"]\n\n'
MARKS = {"inaccuracy": 6, "mistake": 2, "blunder": 4}


def material(board: Board) -> int:
    """White's material minus Black's, in centipawns."""
    placement = board.fen().split()[0]
    return sum(
        VALUES.get(c.lower(), 0) * (1 if c.isupper() else -1) for c in placement if c.isalpha()
    )


def greedy(board: Board) -> tuple[int, str | None]:
    """The side to move's score after its best capture (one ply) and that move (the first in
    UCI order among equals)."""
    sign = 1 if board.turn else -1
    best: tuple[int, str | None] = (-(10**6), None)
    for move in sorted(board.legal_moves, key=board.uci):
        board.push(move)
        score = sign * material(board)
        board.pop()
        if score > best[0]:
            best = (score, board.uci(move))
    return best


class Greedy(StandIn):
    """A stand-in whose one line is greedy()'s."""

    def _search(self, limits, on_info, on_bestmove) -> None:
        score, best = greedy(self.board)
        if on_info:
            on_info(Info(depth=1, multipv=1, score_cp=score, pv=[best] if best else []))
        if limits.infinite:
            self._stop.wait(60)
        if on_bestmove:
            on_bestmove(best, None)


def analyser(fen: str, moves: list[str]) -> list[Line]:
    """greedy() as ferz.analyse's analyser."""
    board = Board(fen, variant="chess")
    for uci in moves:
        board.push_uci(uci)
    score, best = greedy(board)
    return [Line(score, 1, (best,) if best else ())]


@pytest.fixture(scope="module")
def greedy_server(tmp_path_factory):
    from ferz.web.server import create_app

    stats = Stats()
    lock = threading.Lock()

    def make(variant: str) -> Greedy:
        with lock:
            return Greedy(variant, stats)

    app = create_app(
        tmp_path_factory.mktemp("review") / "games.sqlite3",
        slots=1,
        review_ms=20,
        engine_factory=make,
    )
    with serving(app) as port:
        yield f"http://127.0.0.1:{port}/"


def test_the_review_judges_as_ferz_analyse_and_graphs_every_move(browser, greedy_server):
    game = pgn.read_game(TAGS + GAME)
    summaries = annotate(game, analyser)
    nodes = list(game.mainline())
    expected = {
        ply: next((n for n in node.nags if n in NAG_WORDS), None)
        for ply, node in enumerate(nodes, 1)
    }
    assert sum(v is not None for v in expected.values()) >= 4  # a game worth reviewing

    context = browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(greedy_server + "#/analysis")
        page.wait_for_selector(".pv", timeout=15_000)
        page.fill("textarea", TAGS + GAME)
        page.click("[data-action=load]")
        page.wait_for_selector(f".move[data-ply='{len(nodes)}']")
        page.click("[data-action=review]")
        page.wait_for_function(
            "document.querySelector('.engine-row .status').textContent === 'review done'",
            timeout=60_000,
        )
        page.wait_for_selector(".review-summary table.summary")
        # the marks on the moves are ferz analyse's NAGs, move by move
        shown = page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll('.move[data-ply]')].map(
              (m) => [m.dataset.ply, ['inaccuracy', 'mistake', 'blunder'].find(
                (c) => m.classList.contains(c)) || null]))"""
        )
        marks = {int(ply): MARKS.get(cls) for ply, cls in shown.items()}
        assert marks == expected
        # the summary is ferz analyse's, side by side
        for side, colour in (("White", "white"), ("Black", "black")):
            ours = summaries[side]
            cells = page.evaluate(
                f"""() => Object.fromEntries([...document.querySelectorAll(
                  "tr[data-side='{colour}'] td")].map((c) => [c.dataset.count, c.textContent]))"""
            )
            assert cells == {
                "inaccuracies": str(ours.nags.get(6, 0)),
                "mistakes": str(ours.nags.get(2, 0)),
                "blunders": str(ours.nags.get(4, 0)),
                "acpl": f"{ours.acpl():.0f}",
                "accuracy": f"{ours.accuracy():.1f} %",
            }, side
            assert game.headers[f"{side}ACPL"] == cells["acpl"]
        who = page.locator("tr[data-side='white'] th").inner_text()
        assert who == "Legal (White)"
        # the graph: one point per move; a click on a point goes to that move
        points = page.locator(".eval-graph circle[data-ply]")
        assert points.count() == len(nodes)
        assert sorted(int(p) for p in points.evaluate_all("ps => ps.map(p => p.dataset.ply)")) == (
            list(range(1, len(nodes) + 1))
        )
        for ply in (3, 8, 1):
            box = page.locator(f".eval-graph circle[data-ply='{ply}']").bounding_box()
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.wait_for_selector(f".move.current[data-ply='{ply}']")
            assert page.locator(f".eval-graph circle[data-ply='{ply}'].current").count() == 1
        page.click(".move[data-ply='10']")  # 5... Bxd1?? (takes the queen into a mate)
        page.wait_for_selector(".eval-graph circle[data-ply='10'].current")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "review-greedy.png"))
        # no evaluation is wrapped inside a number, on a desktop or on a phone
        for width, height in ((1280, 860), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(300)
            broken = page.evaluate(
                """() => [...document.querySelectorAll('.move small.eval')]
                  .filter((e) => e.getClientRects().length !== 1).map((e) => e.textContent)"""
            )
            assert broken == [], width
            assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(ARTIFACTS / "review-greedy-phone.png"), full_page=True)
    finally:
        context.close()
    assert errors == []


# The Blackburne Shilling gambit's trap: White's greed is punished by a mate
SHILLING = (
    '[White "Greedy"]\n[Black "Trapper"]\n\n'
    "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 Qxg2 6. Rf1 Qxe4+ 7. Be2 Nf3# 0-1"
)


def test_a_review_by_ferz_itself(browser, server):
    """The real engine (150 ms a position: conftest's server): every move graphed, both
    sides summed up, White's fifth move at least a mistake; the screenshots
    docs/screenshots/review.png and, on a phone, review-phone.png."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(server + "#/analysis")
        page.wait_for_selector(".pv", timeout=15_000)
        page.fill("textarea", SHILLING)
        page.click("[data-action=load]")
        page.wait_for_selector(".move[data-ply='14']")
        page.click("[data-action=review]")
        page.wait_for_function(
            "document.querySelector('.engine-row .status').textContent === 'review done'",
            timeout=90_000,
        )
        assert page.locator(".eval-graph circle[data-ply]").count() == 14
        white = page.locator("tr[data-side='white'] th").inner_text()
        assert white == "Greedy (White)"
        assert page.locator(".move[data-ply='9'].mistake, .move[data-ply='9'].blunder").count()
        assert int(page.locator("tr[data-side='white'] td[data-count='acpl']").inner_text()) > 50
        box = page.locator(".eval-graph circle[data-ply='9']").bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_selector(".move.current[data-ply='9']")
        page.wait_for_selector(".pv", timeout=15_000)
        page.wait_for_timeout(1500)  # the engine's lines and arrows for the shown position
        page.fill("textarea", "")  # the pasted PGN, half scrolled, said nothing in the picture
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "review.png"))
        # the same review on a phone (390x844): board, graph and summary one under another,
        # nothing wider than the screen
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(800)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        graph = page.locator(".eval-graph svg").bounding_box()
        assert graph is not None and graph["width"] > 300 and graph["x"] + graph["width"] <= 390
        assert page.locator(".eval-graph circle[data-ply]").count() == 14
        page.screenshot(path=str(ARTIFACTS / "review-phone.png"), full_page=True)
        if os.environ.get("FERZ_SCREENSHOTS") and (ROOT / "docs" / "screenshots").is_dir():
            for name in ("review.png", "review-phone.png"):  # FERZ_SCREENSHOTS=1: refresh docs
                shutil.copy(ARTIFACTS / name, ROOT / "docs" / "screenshots" / name)
    finally:
        context.close()
    assert errors == []
