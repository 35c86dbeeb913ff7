"""ferz web in a real browser: Debian's chromium driven by Playwright against `ferz web`.

Starts `python -m ferz web --no-browser` on a free loopback port with a fresh database, then
plays through the page as a person would. Screenshots go to test-artifacts/web/.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from pathlib import Path

import pytest

from tests.web.conftest import chromium_path

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
PROMOTION = "8/4P3/8/8/8/8/k7/6K1 w - - 0 1"

chromium_path()  # skip the module (or fail in CI) without chromium or Playwright

# Where each piece stands, read from chessgroundx's DOM (translate() of every piece element).
PIECES_JS = """() => {
  const board = document.querySelector('cg-board');
  const size = board.getBoundingClientRect().width / 8;
  const white = document.querySelector('.cg-board-el').classList.contains('orientation-white');
  const out = {};
  for (const p of board.querySelectorAll('piece')) {
    if (p.classList.contains('ghost')) continue;
    const m = /translate\\(([-\\d.]+)px,\\s*([-\\d.]+)px\\)/.exec(p.style.transform);
    if (!m) continue;
    let f = Math.round(parseFloat(m[1]) / size), r = 7 - Math.round(parseFloat(m[2]) / size);
    if (!white) { f = 7 - f; r = 7 - r; }
    if (p.classList.contains('fading')) continue;
    const role = [...p.classList].find((c) => c.endsWith('-piece'));
    out['abcdefgh'[f] + (r + 1)] = (p.classList.contains('white') ? 'white ' : 'black ') + role;
  }
  return out;
}"""


@pytest.fixture()
def page(browser, request):
    """A fresh page; page errors fail the test; a screenshot is kept whatever happens."""
    # Playwright evaluates string predicates with eval, which the app's CSP forbids; these
    # tests bypass it (test_web_pages.py runs with the CSP enforced and no console errors).
    context = browser.new_context(
        viewport={"width": 1200, "height": 820}, accept_downloads=True, bypass_csp=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
    context.close()
    assert errors == []


def square(page, name: str) -> tuple[float, float]:
    """Screen coordinates of a square's centre (board seen from White or Black, any size)."""
    box = page.locator("cg-board").bounding_box()
    white = "orientation-white" in (page.locator(".cg-board-el").get_attribute("class") or "")
    files, ranks = page.evaluate(
        "() => ['--files', '--ranks'].map((v) => +document.querySelector('.board-wrap')"
        ".style.getPropertyValue(v))"
    )
    f, r = ord(name[0]) - 97, int(name[1:]) - 1
    if not white:
        f, r = files - 1 - f, ranks - 1 - r
    size = box["width"] / files
    return box["x"] + (f + 0.5) * size, box["y"] + (ranks - 1 - r + 0.5) * size


def click_move(page, frm: str, to: str) -> None:
    """Play a move by clicking the piece, then the destination. The piece is clicked again
    while the board shows no selection (up to 5 times): a click that lands while the board
    is still being drawn anew (after a socket message or a jump in the move list) picks
    nothing up."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(5):
        page.mouse.click(*square(page, frm))
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_selector("cg-board square.selected", timeout=2_000)
            break
    page.mouse.click(*square(page, to))


def start_game(
    page, url: str, fen: str = "", movetime: str = "0.2", color: str = "white", variant: str = ""
):
    """Fill the new-game dialog and wait for the board."""
    page.goto(url + "#/new")
    page.wait_for_selector("form.new-game")
    if variant:
        page.select_option("select[name=variant]", variant)
    page.check(f"input[name=color][value={color}]")
    page.check("input[name=mode][value=movetime]")
    page.check("input[name=full]")  # these tests watch ferz at full strength (not the default)
    if page.locator("input[name=book]").is_visible():  # offered in chess only
        page.uncheck("input[name=book]")  # these tests watch the engine think from the first move
    page.fill("input[name=movetime]", movetime)
    page.fill("input[name=fen]", fen)
    page.click("form.new-game button[type=submit]")
    page.wait_for_function("location.hash.startsWith('#/game/')")
    page.wait_for_selector(".game-view cg-board piece")  # the dialog's preview is gone


def pieces(page) -> dict[str, str]:
    """The board's pieces by square, once the move animation (150 ms) is over."""
    time.sleep(0.3)
    return page.evaluate(PIECES_JS)


def plies(page) -> int:
    return page.locator(".moves .move[data-ply]").count()


def test_first_page_load_is_fast(page, server):
    page.goto(server)  # warm the server once; the measured load is the second
    page.wait_for_selector("h1")
    start = time.monotonic()
    page.goto(server + "#/new")
    page.wait_for_selector("form.new-game")
    elapsed = time.monotonic() - start
    timing = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
    print(f"page load: {elapsed * 1000:.0f} ms to the form, load event at {timing:.0f} ms")
    assert elapsed < 2.0  # target 1 s; the margin keeps a busy CI machine from failing it


# Time stamps of the page's WebSocket traffic: when a move went out, when each state came in.
SOCKET_CLOCK_JS = """(() => {
  window.wsLog = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    window.wsLog.push(['send', performance.now(), data]);
    if (!this.logged) {
      this.logged = true;
      this.addEventListener('message', (ev) => {
        window.wsLog.push(['recv', performance.now(), ev.data]);
      });
    }
    return send.call(this, data);
  };
  // The person's last press, and when the engine's reply showed up in the move list.
  document.addEventListener('mousedown', () => { window.lastPress = performance.now(); }, true);
  new MutationObserver(() => {
    if (!window.replyShown && document.querySelector(".move[data-ply='2']")) {
      window.replyShown = performance.now();
    }
  }).observe(document, { childList: true, subtree: true });
})();"""


def test_play_moves_by_clicking_and_the_engine_replies(page, server):
    page.add_init_script(SOCKET_CLOCK_JS)
    start_game(page, server, movetime="1")
    start = time.monotonic()
    click_move(page, "e2", "e4")
    page.wait_for_selector(".move[data-ply='2']", timeout=10_000)
    shown = time.monotonic() - start
    log = page.evaluate("window.wsLog")
    log = [(kind, t, json.loads(data)) for kind, t, data in log]
    sent = next(t for kind, t, m in log if kind == "send" and m["type"] == "move")
    came = next(
        t
        for kind, t, m in log
        if kind == "recv"
        and m["type"] == "state"
        and len(m["game"]["moves"]) == 2
        and not m["game"]["thinking"]
    )
    press, seen = page.evaluate("[window.lastPress, window.replyShown]")
    print(
        f"first engine reply at 1 s think: {came - sent:.0f} ms from the move leaving the page "
        f"to the reply arriving; {seen - press:.0f} ms from the click that made the move to "
        f"the reply in the move list ({shown * 1000:.0f} ms with Playwright's own overhead)"
    )
    assert came - sent < 2500  # target 1.2 s (measured ~1.0 s); margin for a busy machine
    assert page.locator(".move[data-ply='1']").inner_text() == "e4"
    seen = pieces(page)
    assert "e2" not in seen and seen["e4"] == "white p-piece"
    click_move(page, "g1", "f3")
    page.wait_for_selector(".move[data-ply='4']", timeout=10_000)
    assert pieces(page)["f3"] == "white n-piece"


def test_an_illegal_drag_snaps_back(page, server):
    start_game(page, server)
    before = pieces(page)
    page.mouse.move(*square(page, "e2"))
    page.mouse.down()
    page.mouse.move(*square(page, "e5"), steps=8)
    page.mouse.up()
    time.sleep(0.4)
    assert pieces(page) == before
    assert plies(page) == 0
    # and a legal drag is played
    page.mouse.move(*square(page, "d2"))
    page.mouse.down()
    page.mouse.move(*square(page, "d4"), steps=8)
    page.mouse.up()
    page.wait_for_selector(".move[data-ply='2']", timeout=10_000)
    assert page.locator(".move[data-ply='1']").inner_text() == "d4"


def test_promotion_chooser(page, server):
    start_game(page, server, fen=PROMOTION)
    click_move(page, "e7", "e8")
    page.wait_for_selector(".promotion")
    choices = page.locator(".promo-choice").evaluate_all("els => els.map(e => e.dataset.piece)")
    assert choices == ["q", "n", "r", "b"]
    page.screenshot(path=str(ARTIFACTS / "promotion-chooser.png"))
    page.click(".promo-choice[data-piece=n]")
    page.wait_for_selector(".move[data-ply='1']")
    assert page.locator(".move[data-ply='1']").inner_text() == "e8=N"
    assert pieces(page)["e8"] == "white n-piece"


def test_checkmate_shows_the_result(page, server):
    start_game(page, server, fen=MATE_IN_ONE)
    click_move(page, "a1", "a8")
    banner = page.locator(".game-over-text")
    banner.wait_for(state="visible")
    assert banner.inner_text() == "You won (checkmate) · 1-0"
    assert page.locator(".move[data-ply='1']").inner_text() == "Ra8#"


def test_reload_resumes_and_pgn_downloads(page, server):
    start_game(page, server)
    click_move(page, "c2", "c4")
    page.wait_for_selector(".move[data-ply='2']", timeout=10_000)
    url = page.url
    moves = page.locator(".moves").inner_text()
    page.reload()
    page.wait_for_selector(".move[data-ply='2']")
    assert page.url == url and page.locator(".moves").inner_text() == moves
    click_move(page, "b1", "c3")
    page.wait_for_selector(".move[data-ply='4']", timeout=10_000)
    with page.expect_download() as download:
        page.click("[data-action=pgn]")
    text = Path(download.value.path()).read_text()
    eval_ = r"\{ \[%eval [-+#.\d]+\] \}"
    assert re.search(rf"^1\. c4 \S+ {eval_} 2\. Nc3 \S+ {eval_} \*$", text, re.M), text
    assert '[White "Anonymous"]' in text
    page.goto(server)
    page.wait_for_selector(f"tr[data-game='{url.rsplit('/', 1)[1]}']")


def test_analysis_board_with_pgn_and_review(page, server):
    page.goto(server + "#/analysis")
    page.wait_for_selector(".pv", timeout=15_000)
    page.fill("textarea", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0")
    page.click("[data-action=load]")
    page.wait_for_selector(".move[data-ply='7']")
    page.click(".move[data-ply='4']")
    page.wait_for_selector(".pv", timeout=15_000)
    assert page.locator(".move.current").inner_text().startswith("Nc6")
    page.click("[data-action=review]")
    page.wait_for_function(
        "document.querySelector('.engine-row .status').textContent === 'review done'",
        timeout=60_000,
    )
    assert page.locator(".move.blunder").count() >= 1  # 3... Nf6?? allows mate


def test_phone_layout(browser, server):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, bypass_csp=True
    )
    page = context.new_page()
    page.goto(server + "#/new")
    page.wait_for_selector(".variant-preview cg-board piece")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "phone-new-game.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.click("form.new-game button[type=submit]")
    page.wait_for_selector(".game-view cg-board piece")
    width = page.evaluate("document.documentElement.scrollWidth")
    board = page.locator(".game-view cg-board").bounding_box()
    page.screenshot(path=str(ARTIFACTS / "phone.png"), full_page=True)
    context.close()
    assert width <= 390 and board["width"] > 300


def test_premove_is_played_after_the_engine_replies(page, server):
    start_game(page, server, movetime="3")  # time enough to premove even on a busy machine
    click_move(page, "e2", "e4")
    page.wait_for_selector(".move[data-ply='1']")
    time.sleep(0.3)  # let the pawn land
    click_move(page, "d2", "d4")  # the engine is still thinking: this is a premove
    page.wait_for_selector("square.current-premove")  # drawn on the next animation frame
    assert page.locator("square.current-premove").count() == 2
    page.wait_for_selector(".move[data-ply='3']", timeout=15_000)
    assert page.locator(".move[data-ply='3']").inner_text() == "d4"


def test_takeback_flip_and_resign(page, server):
    page.on("dialog", lambda dialog: dialog.accept())
    start_game(page, server)
    click_move(page, "e2", "e4")
    page.wait_for_selector(".move[data-ply='2']", timeout=10_000)
    page.click("[data-action=takeback]")
    page.wait_for_function("document.querySelectorAll('.move[data-ply]').length === 0")
    assert pieces(page)["e2"] == "white p-piece"
    page.click("[data-action=flip]")
    assert "orientation-black" in page.locator(".cg-board-el").get_attribute("class")
    assert pieces(page)["e2"] == "white p-piece"  # same squares, seen from Black
    page.click("[data-action=resign]")
    banner = page.locator(".game-over-text")
    banner.wait_for(state="visible")
    assert banner.inner_text() == "You lost (resignation) · 0-1"


@pytest.mark.parametrize(
    "variant, fen, king, rook",
    [
        ("chess", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", "e1", "g1"),
        ("chess960", "bqnbrkr1/pppppppp/8/8/8/8/PPPPPPPP/BQNBRK1R w KQkq - 0 1", "f1", "h1"),
    ],
)
def test_castling_by_clicking(page, server, variant, fen, king, rook):
    start_game(page, server, fen=fen, variant=variant)
    click_move(page, king, rook)
    page.wait_for_selector(".move[data-ply='1']")
    assert page.locator(".move[data-ply='1']").inner_text() == "O-O"
    seen = pieces(page)
    assert seen["g1"] == "white k-piece" and seen["f1"] == "white r-piece"


def test_crazyhouse_drop_from_the_pocket(page, server):
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[N] w KQkq - 0 1"
    start_game(page, server, fen=fen, variant="crazyhouse")
    knight = page.locator(".pocket-box piece[data-role='n-piece'][data-color='white']")
    assert knight.get_attribute("data-nb") == "1"
    knight.click()
    page.mouse.click(*square(page, "e4"))
    page.wait_for_selector(".move[data-ply='1']")
    assert page.locator(".move[data-ply='1']").inner_text() == "N@e4"
    assert pieces(page)["e4"] == "white n-piece"
    page.wait_for_selector(".move[data-ply='2']", timeout=10_000)
    assert knight.get_attribute("data-nb") == "0"


def test_new_game_dialog_shows_the_chosen_variant(page, server):
    """The dialog draws the variant's start position with its board, pieces and pockets."""
    page.goto(server + "#/new")
    page.wait_for_selector(".variant-preview cg-board piece")
    about = page.locator(".variant-about")
    assert about.inner_text().startswith("8×8. Standard chess")
    page.select_option("select[name=variant]", "xiangqi")
    page.wait_for_selector(".variant-preview .board-wrap.family-xiangqi cg-board piece")
    assert about.inner_text().startswith("9×10.")
    page.select_option("select[name=variant]", "crazyhouse")
    page.wait_for_selector(".variant-preview .pocket-box piece[data-role='q-piece']")
    assert "drops" in about.inner_text()
    page.select_option("select[name=variant]", "shogi")
    page.wait_for_selector(".variant-preview .board-wrap.family-shogi .pocket-box piece")
    assert len(page.locator(".variant-preview cg-board piece").all()) == 40
    page.set_viewport_size({"width": 1100, "height": 760})
    page.select_option("select[name=variant]", "capablanca")
    page.wait_for_selector(".variant-preview cg-board piece.a-piece")
    page.locator(".variant-card").scroll_into_view_if_needed()
    docs_screenshot(page, "new-game.png")


def test_sittuyin_sets_up_from_the_pocket(page, server):
    """Sittuyin starts with every piece but the pawns in hand, the king too."""
    start_game(page, server, variant="sittuyin")
    king = page.locator(".pocket-box piece[data-role='k-piece'][data-color='white']")
    assert king.get_attribute("data-nb") == "1"
    rooks = page.locator(".pocket-box piece[data-role='r-piece'][data-color='white']")
    assert rooks.get_attribute("data-nb") == "2"
    king.click()
    page.mouse.click(*square(page, "e2"))
    page.wait_for_selector(".move[data-ply='1']")
    assert page.locator(".move[data-ply='1']").inner_text() == "K@e2"
    assert pieces(page)["e2"] == "white k-piece"
    assert king.get_attribute("data-nb") == "0"


def test_shogi_promotion_is_optional(page, server):
    fen = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL[] w - - 0 3"
    start_game(page, server, fen=fen, variant="shogi")
    box = page.locator("cg-board").bounding_box()
    size = box["width"] / 9
    at = lambda f, r: (box["x"] + (f + 0.5) * size, box["y"] + (8 - r + 0.5) * size)  # noqa: E731
    page.mouse.click(*at(1, 1))  # b2, the bishop
    page.mouse.click(*at(7, 7))  # h8, the black bishop
    page.wait_for_selector(".promotion")
    choices = page.locator(".promo-choice").evaluate_all("els => els.map(e => e.dataset.piece)")
    assert choices == ["+", "="]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "shogi-promotion.png"))
    page.click(".promo-choice[data-piece='+']")
    page.wait_for_selector(".move[data-ply='1']")
    game = page.url.rsplit("/", 1)[1]
    moves = page.evaluate(f"fetch('/api/games/{game}').then(r => r.json())")["moves"]
    assert moves[0]["uci"] == "b2h8+"


# ------------------------------------------------ boards and pieces of the variant families

# The computed look of the board and of one piece: board family, board background, the
# piece's image and what its ::after shows (the letter of a piece without artwork).
LOOK_JS = """(sel) => {
  const wrap = document.querySelector('.board-wrap');
  const piece = document.querySelector(sel);
  return {
    family: wrap.dataset.family,
    classes: wrap.className,
    board: getComputedStyle(document.querySelector('cg-board')).backgroundImage,
    piece: piece ? getComputedStyle(piece).backgroundImage : null,
    letter: piece ? getComputedStyle(piece, '::after').content : null,
  };
}"""


def look(page, selector: str) -> dict[str, str]:
    """The board's family, background and the image of the first piece matching `selector`."""
    return page.evaluate(LOOK_JS, selector)


def docs_screenshot(page, name: str) -> None:
    """A screenshot at the size of the ones in docs/screenshots (copied there by hand)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    time.sleep(0.4)  # the last move's animation
    page.screenshot(path=str(ARTIFACTS / name))


def test_xiangqi_board_has_lines_river_and_chinese_pieces(page, server):
    page.set_viewport_size({"width": 1100, "height": 760})
    start_game(page, server, variant="xiangqi", movetime="0.3")
    seen = look(page, "cg-board piece.k-piece.white")
    assert seen["family"] == "xiangqi" and "family-xiangqi" in seen["classes"]
    # The board is the drawn one (lines, river, palaces), not the chess checkering.
    assert seen["board"].startswith('url("data:image/svg+xml,') and "conic" not in seen["board"]
    assert "%E6%A5%9A" in seen["board"] or "%3Cpath" in seen["board"]  # 楚 (or no CJK font)
    # Red's general is a disc with 帥 (or its letter where no CJK font is installed).
    assert "%3Ccircle" in seen["piece"] and (
        "%E5%B8%A5" in seen["piece"] or "%3EK%3C" in seen["piece"]
    )
    assert seen["letter"] == "none"
    black = look(page, "cg-board piece.k-piece.black")["piece"]
    assert "%E5%B0%87" in black or "%3EK%3C" in black  # 將
    # The pieces stand on the intersections: a piece's centre is its square's centre, which
    # the board's lines go through.
    box = page.locator("cg-board").bounding_box()
    king = page.locator("cg-board piece.k-piece.white").bounding_box()
    cx, cy = king["x"] + king["width"] / 2, king["y"] + king["height"] / 2
    assert abs(cx - (box["x"] + 4.5 * box["width"] / 9)) < 1.5
    assert abs(cy - (box["y"] + 9.5 * box["height"] / 10)) < 1.5
    # A move (central cannon) by clicking, and the engine's reply.
    size = box["width"] / 9
    at = lambda f, r: (box["x"] + (f + 0.5) * size, box["y"] + (9 - r + 0.5) * size)  # noqa: E731
    page.mouse.click(*at(7, 2))  # h3
    page.mouse.click(*at(4, 2))  # e3
    page.wait_for_selector(".move[data-ply='2']", timeout=15_000)
    docs_screenshot(page, "xiangqi.png")


SHOGI_FEN = "lns1kg1nl/1+B1g3s1/1p1ppp1pp/p5p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL[RPb] b - - 0 5"


def test_shogi_board_has_koma_pointing_at_the_opponent_and_hands(page, server):
    page.set_viewport_size({"width": 1100, "height": 760})
    page.goto(server + "#/analysis")
    page.wait_for_selector("cg-board piece")
    page.select_option("select[name=variant]", "shogi")
    page.wait_for_selector(".board-wrap.family-shogi")
    # A FEN with a hand ("[RPb]") is pasted inside a PGN: the import reads a bare FEN only
    # when it has no "[".
    page.fill("textarea", f'[Variant "shogi"]\n[SetUp "1"]\n[FEN "{SHOGI_FEN}"]\n\n*')
    page.click("[data-action=load]")
    page.wait_for_selector(".pocket-box piece[data-role='r-piece'][data-nb='1']")
    page.wait_for_selector(".pv", timeout=15_000)
    seen = look(page, "cg-board piece.p-piece.white")
    assert seen["family"] == "shogi" and "conic" not in seen["board"]
    assert "%3Cpath" in seen["board"] and seen["letter"] == "none"
    # Sente (White, below) points up; Gote's koma are the same piece turned by 180 degrees.
    # 歩 and 馬 (or the letters P and +B on a machine without a Japanese font).
    pawn, gote = "%E6%AD%A9", look(page, "cg-board piece.p-piece.black")["piece"]
    if pawn not in seen["piece"]:
        pawn = "%3EP%3C"
    assert "rotate(180" not in seen["piece"] and pawn in seen["piece"]
    assert "rotate(180" in gote and pawn in gote
    # The promoted bishop is red; the hands show what each side holds.
    horse = look(page, "cg-board piece.pb-piece.white")["piece"]
    assert ("%E9%A6%AC" in horse or "%2BB" in horse) and "%23c1261b" in horse
    hand = page.locator(".pocket-box piece[data-role='b-piece'][data-color='black']")
    assert hand.get_attribute("data-nb") == "1"
    assert "rotate(180" in page.evaluate(
        "(el) => getComputedStyle(el).backgroundImage", hand.element_handle()
    )
    # Flipped, Gote is below and points up.
    page.click("[data-action=flip]")
    assert "rotate(180" not in look(page, "cg-board piece.p-piece.black")["piece"]
    assert "rotate(180" in look(page, "cg-board piece.p-piece.white")["piece"]
    page.click("[data-action=flip]")
    docs_screenshot(page, "shogi-analysis.png")


# The board's SVG as the page drew it (the background's data URL, decoded).
BOARD_SVG_JS = """() => {
  const url = getComputedStyle(document.querySelector('cg-board')).backgroundImage;
  return decodeURIComponent(url.slice(url.indexOf(',') + 1, url.lastIndexOf('"')));
}"""


def test_janggi_board_has_no_river(page, server):
    """Janggi's board: the files run through the middle, palaces with their diagonals, and
    neither the river's text nor xiangqi's cannon and soldier marks."""
    page.set_viewport_size({"width": 1100, "height": 760})
    start_game(page, server, variant="xiangqi")
    xiangqi = page.evaluate(BOARD_SVG_JS)
    assert "M150 50V450M150 550V950" in xiangqi  # a file broken by the river
    start_game(page, server, variant="janggi")
    janggi = page.evaluate(BOARD_SVG_JS)
    assert look(page, "cg-board piece.k-piece.white")["family"] == "xiangqi"
    assert "M150 50V950" in janggi and "V450M150 550" not in janggi  # files go through
    assert "<text" not in janggi and "楚" not in janggi  # no river text
    assert "M350 50L550 250M550 50L350 250" in janggi  # Black's palace and its diagonals
    assert "M350 750L550 950M550 750L350 950" in janggi  # White's
    assert "H171" not in janggi and "H129" not in janggi  # none of the marks around x = 150
    assert "H171" in xiangqi and "H129" in xiangqi  # which the xiangqi board has
    docs_screenshot(page, "janggi.png")


def glyph(page, selector: str, kanji: str, letter: str) -> bool:
    """Whether the piece matching `selector` shows `kanji` (or `letter` without CJK fonts)."""
    from urllib.parse import quote

    image = look(page, selector)["piece"] or ""
    return quote(kanji) in image or f"%3E{quote(letter)}%3C" in image


def test_kyoto_and_micro_pieces_turn_over_into_their_own_pieces(page, server):
    """Kyoto shogi's lance turns into a tokin (と), its knight into a gold, its silver into a
    bishop and its pawn into a rook: drawn as those pieces, not as promoted ones (杏 圭 全 と),
    on the board and in the move list; micro shogi's likewise."""
    page.set_viewport_size({"width": 1100, "height": 760})
    start_game(page, server, variant="kyotoshogi", fen="p+nks+l/5/5/5/+L+SK+N+P[LN] w - - 0 1")
    for color in ("white", "black"):
        assert glyph(page, f"cg-board piece.pl-piece.{color}", "と", "T")
        assert glyph(page, f"cg-board piece.pn-piece.{color}", "金", "G")
    assert glyph(page, "cg-board piece.ps-piece.white", "角", "B")
    assert glyph(page, "cg-board piece.pp-piece.white", "飛", "R")
    assert glyph(page, "cg-board piece.s-piece.black", "銀", "S")
    assert glyph(page, "cg-board piece.p-piece.black", "歩", "P")
    assert glyph(page, ".pocket-box piece.l-piece.white", "香", "L")  # the hand: a lance
    assert glyph(page, ".pocket-box piece.n-piece.white", "桂", "N")  # and a knight
    click_move(page, "a1", "a2")  # the tokin steps forward and turns into a lance
    page.wait_for_selector(".move[data-ply='1']")
    assert page.locator(".move[data-ply='1']").inner_text() == "T-5d"
    page.wait_for_selector(".move[data-ply='2']", timeout=15_000)
    docs_screenshot(page, "kyotoshogi.png")
    start_game(page, server, variant="micro")
    assert glyph(page, "cg-board piece.pr-piece.white", "金", "G")
    assert glyph(page, "cg-board piece.pl-piece.white", "銀", "S")
    assert glyph(page, "cg-board piece.b-piece.white", "角", "B")
    assert glyph(page, "cg-board piece.p-piece.white", "歩", "P")


def test_fairy_pieces_have_their_own_images_and_chess_keeps_its_set(page, server):
    page.set_viewport_size({"width": 1100, "height": 760})
    start_game(page, server, variant="chess")
    chess_queen = look(page, "cg-board piece.q-piece.white")
    assert chess_queen["family"] == "chess" and "conic" in chess_queen["board"]
    assert page.locator(".board-wrap style").inner_text().strip() == ""
    start_game(page, server, variant="capablanca", movetime="0.3")
    seen = look(page, "cg-board piece.a-piece.white")
    assert seen["family"] == "chess" and "conic" in seen["board"]
    assert seen["piece"].startswith('url("data:image/svg+xml,') and seen["letter"] == "none"
    chancellor = look(page, "cg-board piece.c-piece.black")["piece"]
    assert chancellor.startswith('url("data:image/svg+xml,') and chancellor != seen["piece"]
    # The chess pieces of a fairy variant are the chess set's.
    assert look(page, "cg-board piece.q-piece.white")["piece"] == chess_queen["piece"]
    click_move(page, "e2", "e4")
    page.wait_for_selector(".move[data-ply='2']", timeout=15_000)
    click_move(page, "c1", "d3")  # the archbishop's knight leap
    page.wait_for_selector(".move[data-ply='4']", timeout=15_000)
    docs_screenshot(page, "capablanca.png")
