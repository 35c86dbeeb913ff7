"""Moves of the new variants entered on the web board in a real browser (Debian chromium and
Playwright against `ferz web`): janggi's pass, kyoto shogi's drop of a piece's promoted side,
seirawan and S-House gating, castling with gating on the king's or the rook's square."""

from __future__ import annotations

import pytest

from tests.web import test_web_e2e as e2e

page = e2e.page  # a fresh page per test (server and browser: conftest.py)
pieces, square, start_game = e2e.pieces, e2e.square, e2e.start_game

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

CASTLES = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[HEhe] w KQBCDFGkqbcdfg - 0 1"


def moves_of(page) -> list[dict]:
    """The game's moves as the server has them."""
    game = page.url.rsplit("/", 1)[1]
    return page.evaluate(f"fetch('/api/games/{game}').then(r => r.json())")["moves"]


def choices(page) -> dict[str, str]:
    """The chooser's moves (UCI) and what each button says."""
    page.wait_for_selector(".promotion")
    return dict(
        page.locator(".promo-choice").evaluate_all(
            "els => els.map(e => [e.dataset.uci, e.getAttribute('title')])"
        )
    )


@pytest.mark.parametrize(
    # the same button and move in both (the default run keeps janggi's)
    "variant",
    ["janggi", pytest.param("janggimodern", marks=pytest.mark.slow)],
)
def test_janggi_pass_button(page, server, variant):
    # Kings on different files (no bikjang); White a chariot up, so that the engine does not
    # answer the pass with a pass (two passes end the game, and the material count would lose).
    start_game(page, server, variant=variant, fen="3k5/9/9/8p/9/9/P8/9/4K4/R8 w - - 0 1")
    button = page.locator(".pass-move")
    button.wait_for(state="visible")
    button.click()
    page.wait_for_selector(".move[data-ply='1']")
    assert page.locator(".move[data-ply='1']").inner_text() == "pass"
    assert moves_of(page)[0]["uci"] == "e2e2"
    # Hidden on the engine's turn: read in one step with the move list, since a fast reply
    # may already have given the turn (and the button) back.
    hidden_or_replied = page.evaluate(
        "document.querySelector(\".move[data-ply='2']\") !== null"
        " || document.querySelector('.pass-move').hidden"
    )
    assert hidden_or_replied
    page.wait_for_selector(".move[data-ply='2']", timeout=10_000)  # its reply
    assert moves_of(page)[1]["san"] != "pass"
    button.wait_for(state="visible")  # a pass is legal again


def test_no_pass_button_when_no_pass_is_legal(page, server):
    start_game(page, server, variant="janggi", fen="3k5/9/9/9/9/4r4/9/9/4K4/9 w - - 0 1")
    game = page.url.rsplit("/", 1)[1]
    legal = page.evaluate(f"fetch('/api/games/{game}').then(r => r.json())")["legal"]
    assert legal and "e2e2" not in legal
    assert page.locator(".pass-move").is_hidden()  # in check: no pass
    start_game(page, server)
    assert page.locator(".pass-move").is_hidden()  # chess has none


@pytest.mark.parametrize("side", ["+", ""])
def test_kyoto_drop_asks_which_side_up(page, server, side):
    start_game(page, server, variant="kyotoshogi", fen="p+nks+l/5/5/5/1SK+NP[L] w - - 0 1")
    lance = page.locator(".pocket-box piece[data-role='l-piece'][data-color='white']")
    assert lance.get_attribute("data-nb") == "1"
    lance.click()
    page.mouse.click(*square(page, "c3"))
    assert set(choices(page)) == {"L@c3", "+L@c3"}
    # Either side as it is: the lance (香), or its other side, the tokin (と), not 杏.
    sides = page.locator(".promo-choice piece").evaluate_all(
        "els => els.map(e => decodeURIComponent(getComputedStyle(e).backgroundImage))"
    )
    assert any("香" in s or ">L<" in s for s in sides)
    assert any("と" in s or ">T<" in s for s in sides)
    assert not any("杏" in s or "+L" in s for s in sides)
    e2e.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(e2e.ARTIFACTS / "kyoto-drop-chooser.png"))
    page.click(f".promo-choice[data-uci='{side}L@c3']")
    page.wait_for_selector(".move[data-ply='1']")
    assert moves_of(page)[0]["uci"] == f"{side}L@c3"


def test_seirawan_gating_chooser(page, server):
    start_game(page, server, variant="seirawan")
    page.mouse.click(*square(page, "b1"))
    page.mouse.click(*square(page, "c3"))
    offered = choices(page)
    assert offered == {"b1c3": "no gating", "b1c3h": "hawk on b1", "b1c3e": "elephant on b1"}
    page.click(".promo-choice[data-uci='b1c3h']")
    page.wait_for_selector(".move[data-ply='1']")
    assert page.locator(".move[data-ply='1']").inner_text() == "Nc3/H"
    seen = pieces(page)
    assert seen["b1"] == "white h-piece" and seen["c3"] == "white n-piece"


@pytest.mark.parametrize(
    ("variant", "uci", "san", "gated"),
    [
        ("seirawan", "h1e1h", "O-O/Hh1", "h1"),
        ("seirawan", "e1g1e", "O-O/Ee1", "e1"),
        ("seirawan", "e1g1", "O-O", ""),
        # S-House's chooser is Seirawan's: one castle in the default run, the others slow
        ("shouse", "h1e1h", "O-O/Hh1", "h1"),
        pytest.param("shouse", "e1g1e", "O-O/Ee1", "e1", marks=pytest.mark.slow),
        pytest.param("shouse", "e1g1", "O-O", "", marks=pytest.mark.slow),
    ],
)
def test_castling_with_gating(page, server, variant, uci, san, gated):
    start_game(page, server, variant=variant, fen=CASTLES)
    page.mouse.click(*square(page, "e1"))
    page.mouse.click(*square(page, "g1"))
    assert choices(page) == {
        "e1g1": "no gating",
        "e1g1h": "hawk on e1",
        "e1g1e": "elephant on e1",
        "h1e1h": "hawk on h1",
        "h1e1e": "elephant on h1",
    }
    e2e.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(e2e.ARTIFACTS / f"gating-chooser-{variant}.png"))
    page.click(f".promo-choice[data-uci='{uci}']")
    page.wait_for_selector(".move[data-ply='1']")
    assert page.locator(".move[data-ply='1']").inner_text() == san
    assert moves_of(page)[0]["uci"] == uci
    seen = pieces(page)
    assert seen["g1"] == "white k-piece" and seen["f1"] == "white r-piece"
    if gated:
        assert seen[gated] == f"white {uci[-1]}-piece"
    else:
        assert "e1" not in seen and "h1" not in seen


def test_the_rook_does_not_land_on_its_king(page, server):
    """The rook-square gating castles are offered with the king's move, not as a rook move."""
    start_game(page, server, variant="seirawan", fen=CASTLES)
    page.mouse.click(*square(page, "h1"))
    page.mouse.click(*square(page, "e1"))  # selects the king instead
    page.mouse.click(*square(page, "c1"))
    offered = choices(page)
    assert {"e1c1", "a1e1h", "a1e1e"} <= set(offered) and offered["a1e1h"] == "hawk on a1"
