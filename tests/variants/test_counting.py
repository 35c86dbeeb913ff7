"""Counting rules of makruk (board's and pieces' honour), ASEAN chess (pieces' honour; asean,
sittuyin) and Cambodian chess (cambodian, karouk), compared with Fairy-Stockfish.

The count is kept in FSF's FEN form: while it runs, the e.p. field holds the limit in plies
and the halfmove field the count (`4k3/8/8/8/8/7K/8/R7 b - 32 6 1`). When the count passes
the limit the game is drawn, unless the move that got there mated.
"""

from __future__ import annotations

import random

import pytest

from ferz.board import Board, InvalidFenError
from ferz.engine import Engine, Limits
from tests.variants.oracle import pyffish
from tests.variants.placement import placement

pytestmark = pytest.mark.variant

# Pieces' honour: the strong side's pieces against a bare king -> limit in plies, count at start
HONOUR = [
    ("R", 32, 6),
    ("RR", 16, 8),
    ("RRR", 16, 10),
    ("S", 88, 6),
    ("SS", 44, 8),
    ("SSN", 44, 10),
    ("N", 128, 6),
    ("NN", 64, 8),
    ("NS", 88, 8),
    ("RN", 32, 8),
    ("M", 128, 6),
    ("SM", 88, 8),
]

# Endgames and middlegames whose random playouts pass through every way a count starts:
# on a move, on the capture that bares a king, on the last promotion, on a bare king taking
# the last pawn, board's honour turning into pieces' honour, and counts given in the FEN.
PLAYOUTS = [
    ("makruk", "8/8/8/4k3/8/8/8/R3K3 b - - 0 1"),
    ("makruk", "4k3/8/8/8/8/8/7K/R6n w - - 0 1"),
    ("makruk", "8/8/8/8/4p3/3K4/8/5r1k w - - 0 1"),
    ("makruk", "4k3/8/8/3P4/8/8/7K/R7 w - - 0 1"),
    ("makruk", "4k3/8/2s5/3P4/8/1n6/7K/RS5n w - - 0 1"),
    ("makruk", "r1s1k3/8/8/3p4/3P4/8/7K/RNS4n w - - 0 1"),
    ("makruk", "4k3/8/8/8/8/8/2SM3K/1RN5 b - 32 12 1"),
    ("makruk", "4k3/8/8/8/8/8/2SS3K/1NN5 w - 128 100 1"),
    ("asean", "4k3/8/2b5/3P4/8/1n6/7K/RB5n w - - 0 1"),
    ("asean", "r1b1k3/8/8/3p4/3P4/8/7K/RNQ4n w - - 0 1"),
    ("sittuyin", "4k3/8/2s5/3P4/8/1n6/7K/RS5n[] w - - 0 1"),
    ("sittuyin", "4k3/8/8/8/8/8/2SF3K/1RN5[] b - 32 12 1"),
    # Cambodian: board's honour from three men down (pawns too), pieces' honour 7 to 63 moves
    ("cambodian", "8/8/8/4k3/8/8/8/R3K3 b - - 0 1"),
    ("cambodian", "4k3/8/8/8/8/8/7K/R6n w - - 0 1"),
    ("cambodian", "8/8/8/8/4p3/3K4/8/5r1k w - - 0 1"),
    ("cambodian", "4k3/8/8/3P4/8/8/7K/R7 w - - 0 1"),
    ("cambodian", "4k3/8/2s5/3P4/8/1n6/7K/RS5n w - - 0 1"),
    ("cambodian", "r1s1k3/8/8/3p4/3P4/8/7K/RNS4n w - - 0 1"),
    ("cambodian", "4k3/8/8/8/8/8/2SM3K/1RN5 b - 30 12 1"),
    ("cambodian", "4k3/8/8/8/8/8/2SS3K/1NN5 w - 126 100 1"),
    ("cambodian", "4k3/3p4/2p5/8/8/2P5/3PP2K/8 w - - 0 1"),
    ("karouk", "4k3/8/2s5/3P4/8/1n6/7K/RS5n w - - 0 1"),
]

# ASEAN counting (asean: khon `b`, met `q`): only a bare king counts, from 0
ASEAN = [("R", "32"), ("RR", "32"), ("B", "88"), ("BB", "88"), ("N", "128"), ("BN", "88")]
ASEAN += [("RN", "32"), ("Q", "-"), ("QQ", "-"), ("QN", "128")]


@pytest.mark.parametrize(("pieces", "limit", "count"), HONOUR)
def test_pieces_honour_limits(pieces: str, limit: int, count: int) -> None:
    """The limit depends on the strongest pieces left; the count starts at twice the men."""
    fen = f"4k3/8/8/8/8/8/7K/{pieces}{8 - len(pieces)} w - - 0 1"
    board = Board(fen, variant="makruk")
    board.push_uci("h2h3")
    expected = f"4k3/8/8/8/8/7K/8/{pieces}{8 - len(pieces)} b - {limit} {count} 1"
    assert board.fen() == expected
    assert board.fen() == pyffish().get_fen("makruk", fen, ["h2h3"])


def test_no_count_while_a_pawn_stands_or_against_a_bare_king() -> None:
    board = Board("4k3/8/8/3p4/3P4/8/7K/R7 w - - 0 1", variant="makruk")
    board.push_uci("h2h3")
    assert board.fen().endswith(" - - 1 1")
    # the bare king moved: the side to move (the strong one) does not count
    board = Board("8/8/8/4k3/8/8/8/R3K3 b - - 0 1", variant="makruk")
    board.push_uci("e5f4")
    assert board.fen() == "8/8/8/8/5k2/8/8/R3K3 w - - 1 2"
    board.push_uci("a1a8")
    assert board.fen() == "R7/8/8/8/5k2/8/8/4K3 b - 32 6 2"


def test_board_honour_then_pieces_honour() -> None:
    """With pieces on both sides the count runs to 128 plies from 0; taking the last piece
    starts pieces' honour afresh."""
    board = Board("4k3/8/8/8/8/8/7K/R6n w - - 0 1", variant="makruk")
    board.push_uci("h2h3")
    assert board.fen() == "4k3/8/8/8/8/7K/8/R6n b - 128 0 1"
    board.push_uci("e8d8")
    board.push_uci("a1h1")
    assert board.fen() == "3k4/8/8/8/8/7K/8/7R b - 32 6 2"


def test_count_runs_out_as_a_draw_but_mate_comes_first() -> None:
    sf = pyffish()
    fen = "7k/8/6K1/8/8/8/8/R6n w - 128 128 60"
    board = Board(fen, variant="makruk")
    board.push_uci("a1a8")  # mate as the count passes 128
    assert board.is_checkmate() and board.result() == "1-0"
    assert sf.game_result("makruk", fen, ["a1a8"]) < 0
    fen = "7k/8/6K1/8/8/8/8/R6n w - 128 128 60"
    board = Board(fen, variant="makruk")
    board.push_uci("a1a2")
    outcome = board.outcome()
    assert outcome is not None and outcome.termination == "counting_rule"
    assert board.result() == "1/2-1/2"
    assert sf.is_optional_game_end("makruk", fen, ["a1a2"])[0]


def test_count_fields_read_back_and_bad_ones_are_refused() -> None:
    fen = "4k3/8/8/8/8/7K/8/R7 b - 32 20 1"
    assert Board(fen, variant="makruk").fen() == fen
    for bad in ("4k3/8/8/8/8/7K/8/R7 b - 0 20 1", "4k3/8/8/8/8/7K/8/R7 b - 5000 20 1"):
        with pytest.raises(InvalidFenError):
            Board(bad, variant="makruk")
    with pytest.raises(InvalidFenError):  # chess has no counting: a number is no e.p. square
        Board("4k3/8/8/8/8/7K/8/R7 b - 32 20 1")


@pytest.mark.parametrize(("pieces", "limit"), ASEAN)
def test_asean_counts_only_a_bare_king(pieces: str, limit: str) -> None:
    fen = f"4k3/8/8/8/8/8/7K/{pieces}{8 - len(pieces)} w - - 0 1"
    board = Board(fen, variant="asean")
    board.push_uci("h2h3")
    assert board.fen().split()[3:5] == ([limit, "0"] if limit != "-" else ["-", "1"])
    assert board.fen() == pyffish().get_fen("asean", fen, ["h2h3"])
    board = Board("4k3/8/8/8/8/8/7K/R6n w - - 0 1", variant="asean")
    board.push_uci("h2h3")
    assert board.fen().endswith(" - - 1 1")  # no board's honour


# Two seeds a position in the default run, four with -m slow (each seed reaches counting
# events the others may not: the slow run keeps them all).
SEEDS = [0, 1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("variant", "fen"), PLAYOUTS)
def test_random_playouts_count_like_fsf(variant: str, fen: str, seed: int) -> None:
    """FEN (count fields included), legal moves and the counting draw agree with FSF after
    every move, until a count runs out or the game ends otherwise (Kar Ouk: the first check).

    FSF is stepped from its own FEN (which carries the count), one move at a time."""
    sf = pyffish()
    rng = random.Random(seed)
    board = Board(fen, variant=variant)
    theirs = sf.get_fen(variant, fen, [])
    for _ in range(200):
        assert board.fen() == theirs
        legal = sf.legal_moves(variant, theirs, [])
        fields = theirs.split()  # the count: limit in the e.p. field, plies in the halfmove
        passed = fields[3].isdigit() and int(fields[-2]) > int(fields[3])
        outcome = board.outcome()
        ended = sf.is_immediate_game_end(variant, theirs, [])[0]
        if legal and not ended:
            assert sorted(m.text for m in board.legal_moves) == sorted(legal), theirs
            assert (outcome is not None and outcome.termination == "counting_rule") == passed
            assert not passed or sf.is_optional_game_end(variant, theirs, [])[0]
        if not legal or passed or ended:
            break
        captures = [m for m in legal if board.piece_at(m[2:4]) is not None]
        move = rng.choice(captures if captures and rng.random() < 0.3 else legal)
        board.push_uci(move)
        theirs = sf.get_fen(variant, theirs, [move])


@pytest.mark.parametrize(("variant", "limit"), [("makruk", 32), ("cambodian", 30)])
def test_search_sees_the_count_run_out(variant: str, limit: int) -> None:
    """Rook against bare king is won, but not with one move left on the count: a draw."""
    scores = {}
    for count in (6, limit - 1):
        engine = Engine(variant=variant)
        engine.set_position(f"8/8/8/3k4/8/8/8/R3K3 w - {limit} {count} 1")
        infos: list = []
        engine.go(Limits(depth=6), on_info=infos.append)
        assert engine.wait(30)
        scores[count] = infos[-1].score_cp
    assert scores[6] > 300 and scores[limit - 1] == 0


def _sittuyin_king_and_pawn(rng: random.Random) -> str:
    """A random sittuyin FEN (no pieces in hand) where White has its king and one pawn on a
    promotion square and Black a king and a few pieces."""
    files = "abcdefgh"
    cells = {f"{rng.choice(files)}{rng.randrange(1, 9)}": "K"}
    cells.setdefault(rng.choice(["a8", "b7", "c6", "d5", "e5", "f6", "g7", "h8"]), "P")
    for piece in "k" + "".join(rng.sample("rrssnnf", rng.randrange(1, 5))):
        cells.setdefault(f"{rng.choice(files)}{rng.randrange(1, 9)}", piece)
    grid = [[cells.get(f"{file}{rank}", "") for file in files] for rank in range(1, 9)]
    return placement(grid) + "[] w - - 0 40"


def test_sittuyin_king_and_pawn_with_only_promotions_is_a_draw() -> None:
    """A lone king and pawn whose every legal move is a promotion (not in check) draws, as
    FSF's optional game end; ferz ends the game there. Checked on random positions."""
    sf = pyffish()
    rng = random.Random(5)
    draws = others = 0
    for _ in range(3000):
        fen = _sittuyin_king_and_pawn(rng)
        if "k" not in fen.split("[")[0] or sf.validate_fen(fen, "sittuyin") != 1:
            continue
        try:
            board = Board(fen, variant="sittuyin")
        except InvalidFenError:
            continue
        if not board.legal_moves:
            continue
        over, value = sf.is_optional_game_end("sittuyin", fen, [])
        outcome = board.outcome()
        assert (outcome is not None and outcome.termination == "promotions_only") == over, fen
        if over:
            assert value == 0
            draws += 1
        else:
            others += 1
    assert draws >= 3 and others >= 100
