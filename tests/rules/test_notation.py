"""Native move notation: WXF for xiangqi and Western (Hodges) for shogi, written and read.

The worked examples are the Fairy-Stockfish library's own (pyffish's tests, which
pychess-variants shows its players) and the notations' conventions: WXF files from each
player's right, `+ - =` directions, tandem pieces `+`/`-`, numbered pawns; Hodges files from
Sente's right, ranks a-i from Gote's side, `x` captures, `*` drops, `+`/`=` (declined)
promotion, the origin square when two pieces of a kind can reach the target.
"""

from __future__ import annotations

import random

import pytest

from ferz import notation
from ferz.board import Board, IllegalMoveError

XIANGQI = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
SHOGI = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[] w - - 0 1"


def written(variant: str, fen: str, uci: str) -> str:
    """The native text of a move, checked to read back as the same move."""
    board = Board(fen, variant=variant)
    move = board.parse_uci(uci)
    text = notation.move_text(board, move)
    assert notation.parse(board, text) == move
    return text


def test_the_start_of_a_xiangqi_game_in_wxf():
    board = Board(XIANGQI, variant="xiangqi")
    line = ["h3e3", "h10g8", "h1g3", "c10e8", "a1a3", "i10h10"]
    texts = []
    for uci in line:
        move = board.parse_uci(uci)
        texts.append(notation.move_text(board, move))
        board.push(move)
    assert texts == ["C2=5", "H8+7", "H2+3", "E3+5", "R9+2", "R9=8"]


@pytest.mark.parametrize(
    ("fen", "uci", "text"),
    [
        (XIANGQI, "h1g3", "H2+3"),
        (XIANGQI, "c1e3", "E7+5"),
        (XIANGQI, "h3h10", "C2+7"),  # a capture is written as any move
        ("4k4/4a3R/9/9/9/9/9/9/4K4/9 w - - 0 1", "i9e9", "R1=5"),  # check is not marked
        ("4k4/4a3R/9/9/9/9/9/9/4K4/9 w - - 0 1", "i9i10", "R1+1"),
        # advisors and elephants keep their file; horses and pawns in tandem are + and -
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/4P4/1NB6/P1P1P3P/1C1A3C1/9/RNBAK4 w - - 0 1", "c5e3", "E7-5"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/4P4/1NB6/P1P1P3P/1C1A3C1/9/RNBAK4 w - - 0 1", "d1e2", "A6+5"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/4P4/1NB6/P1P1P3P/1C1A3C1/9/RNBAK4 w - - 0 1", "b5c7", "H++7"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/4P4/1NB6/P1P1P3P/1C1A3C1/9/RNBAK4 w - - 0 1", "e6e7", "P++1"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/4P4/1NB6/P1P1P3P/1C1A3C1/9/RNBAK4 w - - 0 1", "e4e5", "P-+1"),
        # three pawns on a file are numbered from the front, without the letter
        ("rnbakabnr/9/1c5c1/p1p1P1p1p/4P4/9/P3P3P/1C5C1/9/RNBAKABNR w - - 0 1", "e7d7", "15=6"),
        ("rnbakabnr/9/1c5c1/p1p1P1p1p/4P4/9/P3P3P/1C5C1/9/RNBAKABNR w - - 0 1", "e6d6", "25=6"),
        ("rnbakabnr/9/1c5c1/p1p1P1p1p/4P4/9/P3P3P/1C5C1/9/RNBAKABNR w - - 0 1", "e4e5", "35+1"),
        # two files with two pawns each: numbered too
        ("5k3/9/3P5/3P1P1P1/5P3/9/9/9/9/4K4 w - - 0 1", "d7e7", "26=5"),
        ("5k3/9/3P5/3P1P1P1/5P3/9/9/9/9/4K4 w - - 0 1", "f6e6", "24=5"),
        # Black counts the files from its own right: file a is its 1
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1", "b8e8", "C2=5"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1", "a7a6", "P1+1"),
    ],
)
def test_wxf_examples(fen, uci, text):
    assert written("xiangqi", fen, uci) == text


@pytest.mark.parametrize(
    ("fen", "uci", "text"),
    [
        (SHOGI, "c3c4", "P-7f"),
        (SHOGI, "i3i4", "P-1f"),
        (SHOGI, "f1e2", "G4i-5h"),  # both golds reach 5h: the origin square is written
        (
            "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - - 0 1",
            "b2h8",
            "Bx2b=",
        ),
        (
            "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - - 0 1",
            "b2h8+",
            "Bx2b+",
        ),
        (
            "lnsgkg1nl/1r5s1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL[Bb] w - - 0 1",
            "B@g7",
            "B*3c",
        ),
        (
            "lnsgkg1nl/1r4s+B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL[B] w - - 0 1",
            "h8g7",
            "+B-3c",
        ),
        (
            "lnk2gsnl/7b1/p1p+SGp1pp/6p2/1pP6/4P4/PP3PPPP/1S2G2R1/L2GK1bNL[PRppns] w - - 0 1",
            "d7d8",
            "+S-6b",
        ),
        ("4k4/9/9/9/4S4/9/9/9/4K4[] w - - 0 1", "e5e6", "S-5d"),
    ],
)
def test_hodges_examples(fen, uci, text):
    assert written("shogi", fen, uci) == text


def test_a_drop_in_minishogi_counts_files_on_its_own_board():
    board = Board(variant="minishogi")
    assert notation.style(board.rules) == "hodges"
    move = board.parse_uci("a2a3")  # Sente's pawn on the 5-file
    assert notation.move_text(board, move) == "P-5c"


@pytest.mark.parametrize(
    "variant", ["xiangqi", "minixiangqi", "shogi", "minishogi", "judkins", "gorogoro", "euroshogi"]
)
def test_every_legal_move_has_its_own_text_that_reads_back(variant):
    """Along random games every legal move's text is unique in its position and parses back."""
    rng = random.Random(7)
    board = Board(variant=variant)
    for _ in range(16):
        moves = board.legal_moves
        if not moves:
            break
        texts = [notation.move_text(board, m) for m in moves]
        assert len(set(texts)) == len(texts), (board.fen(), sorted(texts))
        for move, text in zip(moves, texts, strict=True):
            assert notation.parse(board, text) == move
        board.push(rng.choice(moves))


def test_input_may_use_dots_and_lower_case_and_the_full_origin():
    board = Board(XIANGQI, variant="xiangqi")
    assert notation.parse(board, "c2.5") == board.parse_uci("h3e3")
    shogi = Board(SHOGI, variant="shogi")
    assert notation.parse(shogi, "p-7f") == shogi.parse_uci("c3c4")
    assert notation.parse(shogi, "P7g-7f") == shogi.parse_uci("c3c4")


@pytest.mark.parametrize(
    ("variant", "text"),
    [("xiangqi", "C2+9"), ("xiangqi", "X1+1"), ("shogi", "P-7e"), ("shogi", "")],
)
def test_a_text_no_legal_move_has_is_refused(variant, text):
    board = Board(variant=variant)
    before = board.fen()
    with pytest.raises(IllegalMoveError):
        notation.parse(board, text)
    assert board.fen() == before


def test_manchu_keeps_san_since_wxf_cannot_write_its_banner():
    assert notation.style(Board(variant="manchu").rules) == "san"
    assert notation.style(Board(variant="minixiangqi").rules) == "wxf"


def test_chess_and_other_variants_keep_san():
    board = Board(variant="capablanca")
    assert notation.style(board.rules) == "san"
    assert notation.move_text(board, board.parse_uci("e2e4")) == "e4"
    assert notation.parse(board, "e4") == board.parse_uci("e2e4")
