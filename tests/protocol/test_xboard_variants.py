"""xboard/CECP variants: the `setup` and `piece` lines that teach XBoard a variant, the GUI's
`setup`, drops, `+` promotions and boards with more than 9 ranks, through the real engine."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import ferz.variants as variants
from ferz.board import Board
from ferz.protocol.xboard import Xboard, shift_ranks
from ferz.protocol.xsetup import XBOARD_KNOWS, parse_setup, setup_lines, xboard_betza
from tests.protocol.proc import ROOT, EngineProcess
from tests.protocol.test_xboard_transcript import handshake, ping
from tests.protocol.xboard_gui import play_in_xboard

pytestmark = pytest.mark.variant

USER_INI = """\
[nightrider5:gardner]
description = Gardner's minichess with nightriders for knights
customPiece1 = h:NN
knight = -
startFen = rhbqk/ppppp/5/PPPPP/RHBQK w - - 0 1
promotionPieceTypes = qrbh
"""
SWAPPED_INI = """\
[swapped:gardner]
description = Gardner with the rook's and the knight's moves swapped (letters kept)
rook = -
knight = -
customPiece1 = r:N
customPiece2 = n:R
promotionPieceTypes = qrbn
"""

POCKET_INI = """\
[pocketshogi:minishogi]
description = Minishogi with a gold and a silver in each hand
startFen = rbsgk/4p/5/P4/KGSBR[GSgs] w - - 0 1
"""


def lines_for(name: str) -> list[str]:
    """What ferz sends after `variant NAME` (NAME a built-in)."""
    return setup_lines(variants.get(name), variants.betza_of(name), name, True)


# ---------------------------------------------------------------- setup lines (pure)


def test_gardner_setup_is_what_xboard_needs() -> None:
    lines = lines_for("gardner")
    table = "PNBRQ" + "." * 16 + "K"
    assert lines[0] == (
        f"setup ({table}{table.lower()}) 5x5+0_fairy rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"
    )
    # no double step, no en passant on a 5x5 board; the queen as XBoard spells it
    assert lines[1:] == [
        "piece P& fmWfcF",
        "piece N& N",
        "piece B& B",
        "piece R& R",
        "piece Q& RB",
        "piece K& K",
    ]


def test_losalamos_leaves_the_bishop_out_of_the_table() -> None:
    head = lines_for("losalamos")[0]
    assert head.startswith("setup (PN.RQ" + "." * 16 + "Kpn.rq") and " 6x6+0_fairy " in head


def test_hoppelpoppel_pieces_and_castling_king() -> None:
    pieces = lines_for("hoppelpoppel")[1:]
    assert "piece N& mNcB" in pieces and "piece B& mBcN" in pieces
    assert "piece K& KO2" in pieces and "piece P& fmWfceFifmnD" in pieces
    assert "piece K& KO3" in lines_for("capahouse")  # capablanca's king castles three files


def test_minishogi_uses_the_shogi_parent_with_promoted_slots() -> None:
    lines = lines_for("minishogi")
    white = "P.BR.S...G.+.++.+K"  # promoted forms 11 slots above their pieces
    assert lines[0] == (
        f"setup ({white}{white.lower()}) 5x5+5_shogi rbsgk/4p/5/P4/KGSBR[-] w - - 0 1"
    )
    for line in ("piece +P& WfF", "piece +B& BW", "piece +R& RF", "piece S& FfW"):
        assert line in lines
    assert not any(x.startswith(("piece H", "piece D")) for x in lines)  # never on the board


def test_cambodian_pieces_carry_their_first_leaps() -> None:
    """The king's and the met's first leaps, as Fairy-Stockfish describes them to XBoard (its
    met may also capture by the jump there; ferz's, as pyffish 0.0.90's, may not)."""
    for name in ("cambodian", "karouk"):
        pieces = lines_for(name)[1:]
        assert "piece K& KismN" in pieces and "piece M& FifmD" in pieces
    assert "piece K& K" in lines_for("ai-wok")[1:]  # no leaps without cambodianMoves


def test_variants_xboard_knows_get_no_setup() -> None:
    for name in ("grand", "shogi", "xiangqi", "capablanca", "crazyhouse", "makruk"):
        assert name in XBOARD_KNOWS and lines_for(name) == []


@pytest.mark.parametrize("name", variants.builtins())
def test_every_builtin_setup_is_consistent(name: str) -> None:
    rules = variants.get(name)
    lines = lines_for(name)
    if name in XBOARD_KNOWS:
        return
    head = lines[0].split(" ", 3)
    table = head[1].strip("()")
    assert len(table) % 2 == 0 and 12 <= len(table) <= 88
    white, black = table[: len(table) // 2], table[len(table) // 2 :]
    assert head[2].startswith(f"{rules.files}x{rules.ranks}+")
    fen_board = head[3].split()[0].split("[")[0]
    for char in fen_board:
        if char.isalpha():  # every piece on the board has its letter in the table
            assert char in (white if char.isupper() else black), (name, char)
    letters = set((white + black.upper()).replace(".", "").replace("+", ""))
    for line in lines[1:]:
        word, letter, betza = line.split(" ")
        assert word == "piece" and letter.endswith("&") and betza
        assert letter[:-1].lstrip("+") in letters
        assert "Q" not in betza and "NN" not in betza
    Board(head[3].replace("[-]", "[]"), rules=rules)  # the FEN sent is one ferz reads back


def test_xboard_betza() -> None:
    assert xboard_betza("NN") == "N0"
    assert xboard_betza("mNNcQ") == "mN0cRcB"
    assert xboard_betza("Q4") == "R4B4"
    assert xboard_betza("fmWfceFifmnD") == "fmWfceFifmnD"


def test_parse_setup() -> None:
    assert parse_setup("(PNBRQK) 5x5+0_fairy rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1") == (
        (5, 5),
        "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1",
    )
    assert parse_setup("rbsgk/4p/5/P4/KGSBR[-] w 0 1") == (None, "rbsgk/4p/5/P4/KGSBR[] w 0 1")
    assert parse_setup("(PNBRQK) 8/8 w") == (None, "8/8 w")
    for bad in ("", "(PNBRQK)", "(PNBRQK) 5x5+0_fairy"):
        with pytest.raises(ValueError, match="setup needs a FEN"):
            parse_setup(bad)


def test_shift_ranks_two_digit_ranks() -> None:
    assert shift_ranks("a16a15", -1) == "a15a14" and shift_ranks("P@j10", -1) == "P@j9"
    assert shift_ranks("a0b9+", 1) == "a1b10+"


# ---------------------------------------------------------------- transcripts


@pytest.fixture
def xb() -> Iterator[EngineProcess]:
    engine = EngineProcess("xboard")
    handshake(engine)
    yield engine
    assert engine.close() == 0


def engine_move(engine: EngineProcess) -> str:
    """The engine's next move, with no error before it."""
    lines = engine.expect("move ", timeout=20)
    assert not [x for x in lines if x.startswith(("Illegal", "Error", "tellusererror"))], lines
    return lines[-1].split()[1]


def test_gardner_game(xb: EngineProcess) -> None:
    xb.send("new", "variant gardner")
    lines = ping(xb, 1)
    assert lines[0].startswith("setup (PNBRQ") and " 5x5+0_fairy " in lines[0]
    assert "piece Q& RB" in lines
    xb.send("sd 3", "usermove b2b3")
    reply = engine_move(xb)
    board = Board(rules=variants.get("gardner"))
    board.push_uci("b2b3")
    assert reply in {board.uci(m) for m in board.legal_moves}


def test_courier_goes_by_another_name(xb: EngineProcess) -> None:
    # XBoard's own courier has another start position and ignores an engine's setup for it
    xb.send("variant courier", "variant courier-fsf")
    lines = ping(xb, 1)
    assert lines[0].startswith("Error (variant courier is not supported)")
    assert lines[1].startswith("setup (") and " 12x8+0_fairy rnebmk1wbenr/" in lines[1]


def test_results_follow_the_variant(xb: EngineProcess) -> None:
    """A stalemated side loses in xiangqi, and a bared king in shatranj: ferz says so."""
    xb.send("new", "variant xiangqi", "setboard 5k3/3r5/9/9/9/9/9/9/r8/4K4 w - - 0 1", "go")
    assert "0-1 {Stalemate: Black wins}" in ping(xb, 1)
    xb.send("new", "variant shatranj", "setboard 8/8/8/8/3k4/8/8/3K3R b - - 0 1", "go")
    assert "1-0 {Variant rule: White wins}" in ping(xb, 2)


def test_a_bared_king_is_claimed_after_its_reply(xb: EngineProcess) -> None:
    """XBoard judges a bared king only after its reply (an earlier claim is false): ferz claims
    the win when that reply comes, instead of calling the reply illegal."""
    fen = "8/8/8/1K4Q1/7p/5P2/6k1/2B5 w - - 0 62"  # Qxh4 bares the king: no way back
    xb.send("new", "variant shatranj", f"setboard {fen}", "sd 3", "go")
    lines = ping(xb, 1)
    assert "move g5h4" in lines
    assert not [x for x in lines if x.startswith(("1-0", "0-1", "1/2-1/2"))], lines
    xb.send("usermove g2g3")
    lines = ping(xb, 2)
    assert "1-0 {Variant rule: White wins}" in lines
    assert not [x for x in lines if x.startswith("Illegal move")], lines
    # force mode (the GUI replaying a game) refuses such a move as before
    xb.send("new", "variant shatranj", f"setboard {fen}", "force", "usermove g5h4", "g2g3")
    assert "Illegal move: g2g3" in ping(xb, 3)


def test_a_bared_king_that_can_bare_back_plays_on(xb: EngineProcess) -> None:
    """With a king and one piece left the bared king may take it (FSF, XBoard): no claim."""
    xb.send("new", "variant shatranj", "setboard 8/8/2k5/3q4/8/8/8/3R3K w - - 0 1", "force")
    xb.send("usermove d1d5", "go")
    lines = ping(xb, 1)
    assert "move c6d5" in lines  # the only move that does not lose
    assert not [x for x in lines if x.startswith(("1-0", "0-1", "1/2-1/2"))], lines


def test_grand_ranks_from_zero(xb: EngineProcess) -> None:
    # 10x10: XBoard numbers the ranks 0-9; ferz's a3 is XBoard's a2, its a10 XBoard's a9.
    xb.send("new", "variant grand", "force", "usermove a2a3", "usermove a9a8")
    lines = ping(xb, 2)
    assert not [x for x in lines if not x.startswith("pong")], lines  # no setup, no errors
    xb.send("usermove a9a8")  # a10a9 again: the rook already left a10
    assert any(x.startswith("Illegal move") for x in ping(xb, 3))
    xb.send("sd 2", "go")
    reply = engine_move(xb)
    board = Board(rules=variants.get("grand"))
    for move in ("a3a4", "a10a9"):
        board.push_uci(move)
    assert shift_ranks(reply, 1) in {board.uci(m) for m in board.legal_moves}


def test_minishogi_drops_and_promotions(xb: EngineProcess) -> None:
    xb.send("new", "variant minishogi", "force")
    xb.send("setboard 2sgk/1P3/5/5/KGSRB[Pp] w 0 1")  # XBoard's shogi FEN: no castling field
    # promotion with +, Black's drop as XBoard may write it, White's drop, deferral with =
    xb.send("usermove b4b5+", "usermove p@c4", "usermove P@c2", "usermove c4c3")
    lines = ping(xb, 4)
    assert not [x for x in lines if not x.startswith(("pong", "setup", "piece"))], lines
    xb.send("usermove d1d4=", "sd 2", "go")
    reply = engine_move(xb)
    board = Board("2sgk/1P3/5/5/KGSRB[Pp] w - - 0 1", rules=variants.get("minishogi"))
    for move in ("b4b5+", "P@c4", "P@c2", "c4c3", "d1d4"):
        board.push_uci(move)
    assert reply in {board.uci(m) for m in board.legal_moves}
    assert "+P" in board.fen()


def test_user_variant_with_custom_piece(tmp_path: Path) -> None:
    path = tmp_path / "nightrider.ini"
    path.write_text(USER_INI)
    engine = EngineProcess("--variants", str(path), "xboard")
    features = handshake(engine)
    assert "nightrider5" in features["variants"].split(",")
    engine.send("new", "variant nightrider5")
    lines = ping(engine, 1)
    assert lines[0].startswith("setup (P.BRQ") and " 5x5+0_fairy rhbqk/" in lines[0]
    assert "piece H& N0" in lines  # the nightrider in XBoard's Betza
    engine.send("force", "usermove b1d5", "usermove b4b3", "sd 3", "go")
    reply = engine_move(engine)
    assert reply
    assert engine.close() == 0


def test_setup_from_the_gui(xb: EngineProcess) -> None:
    xb.send("new", "variant gardner", "force")
    ping(xb, 1)
    fen = "4k/5/5/5/1Q2K w - - 0 1"
    xb.send(f"setup (PNBRQ................Kpnbrq................k) 5x5+0_fairy {fen}")
    xb.send("setup (PNBRQK) 6x6+0_fairy rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1")
    xb.send("setup", "setup 4k/5/5/5/X3K w - - 0 1")
    lines = ping(xb, 2)
    assert any(x.startswith("Error (setup board 6x6 does not fit") for x in lines), lines
    assert any(x.startswith("Error (setup needs a FEN)") for x in lines), lines
    assert any(x.startswith("tellusererror Illegal position") for x in lines), lines
    xb.send("sd 3", "go")  # the position of the first, valid setup stays
    reply = engine_move(xb)
    board = Board(fen, rules=variants.get("gardner"))
    assert reply in {board.uci(m) for m in board.legal_moves}


# ---------------------------------------------------------------- real XBoard (e2e)


@pytest.mark.e2e
@pytest.mark.programs("xboard", "Xvfb")
# gardner's setup lines and a game of it are checked without XBoard above; shako runs by default
@pytest.mark.parametrize("variant", [pytest.param("gardner", marks=pytest.mark.slow), "shako"])
def test_xboard_plays_variants_it_does_not_know(tmp_path: Path, variant: str) -> None:
    # XBoard learns the board (5x5; 10x10 with ranks numbered from 0) and the pieces (shako's
    # cannon and fers-alfil) from ferz's setup and piece lines.
    play_variant(tmp_path, [], variant, f"xboard-{variant}")


@pytest.mark.e2e
@pytest.mark.programs("xboard", "Xvfb")
@pytest.mark.parametrize(("text", "variant"), [(USER_INI, "nightrider5"), (SWAPPED_INI, "swapped")])
def test_xboard_plays_a_user_variant(tmp_path: Path, text: str, variant: str) -> None:
    # A nightrider (Betza NN, XBoard's N0), and an R that leaps like a knight while N slides
    # like a rook: XBoard would forfeit ferz if it judged them by its own R and N.
    path = tmp_path / "user.ini"
    path.write_text(text)
    play_variant(tmp_path, ["--variants", str(path)], variant, f"xboard-user-{variant}")


@pytest.mark.e2e
@pytest.mark.programs("xboard", "Xvfb")
def test_xboard_plays_minishogi_with_drops(tmp_path: Path) -> None:
    # Minishogi with pieces in hand from the start (a user variant): ferz's setup carries the
    # holdings, and drops (S@b3, uppercase for both sides) must pass XBoard's legality test.
    path = tmp_path / "pocketshogi.ini"
    path.write_text(POCKET_INI)
    moves = play_variant(tmp_path, ["--variants", str(path)], "pocketshogi", "xboard-minishogi")
    assert any("@" in move for move in moves), moves


def play_variant(tmp_path: Path, args: list[str], variant: str, name: str) -> list[str]:
    """XBoard runs two ferz engines (CECP) in a variant: 8 moves, no errors, a screenshot."""
    engine = " ".join([sys.executable, "-m", "ferz", *args, "xboard"])
    options = ["-fcp", engine, "-fd", str(ROOT), "-scp", engine, "-sd", str(ROOT)]
    # XBoard's `sd 3`: each move in a moment instead of a share of the clock (what is checked
    # is the variant's setup, pieces and moves; a game on the clock is test_gui_e2e's)
    options += ["-depth", "3"]
    text, moves = play_in_xboard(tmp_path, [*options, "-variant", variant], name)
    assert re.search(r"<first\s*: setup \(", text), "ferz sent no setup line"
    return moves


def test_bare_moves_xboard_may_send() -> None:
    # without usermove=1 XBoard sends moves bare: drops and two-digit ranks are moves too
    for word in ("e2e4", "a10a9", "e7e8q", "b4b5+", "d1d4=", "P@e4", "p@c10"):
        assert Xboard._looks_like_move(word), word
    for word in ("e2xyz", "hello", "e2e4qq", "@e4", "P@"):
        assert not Xboard._looks_like_move(word), word
