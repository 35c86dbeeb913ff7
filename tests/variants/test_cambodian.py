"""Cambodian chess (Ouk Khmer) and Kar Ouk: the king's and met's first leaps (cambodianMoves,
with gates in the castling field) and Cambodian counting limits, compared with Fairy-Stockfish
(pyffish 0.0.90): legal moves, FENs with their count fields, and results. Counting playouts
and the search's view of a count running out are in test_counting.py, with makruk's.

Debian's fairy-stockfish 11.1 is an older oracle for these leaps (its met may capture with its
jump, and a rook aimed at a king does not take the king's leap away): test_fsf_perft.py
compares with it only once every gate is closed, and the start-position counts from 4 plies on
are pyffish's (tests/data/startpos-perft.jsonl).
"""

from __future__ import annotations

import pytest

from ferz.board import Board
from tests.variants.oracle import pyffish
from tests.variants.test_pyffish import play

pytestmark = pytest.mark.variant

START = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1"


def _same_moves(variant: str, fen: str, moves: list[str] | None = None) -> list[str]:
    """ferz's legal moves after `moves`, asserted equal to FSF's (and the FEN too)."""
    moves = moves or []
    board = Board(fen, variant=variant)
    for move in moves:
        board.push_uci(move)
    ours = sorted(m.text for m in board.legal_moves)
    sf = pyffish()
    assert ours == sorted(sf.legal_moves(variant, fen, moves))
    assert board.fen() == sf.get_fen(variant, fen, moves)
    return ours


def test_start_position_has_the_gates() -> None:
    board = Board(variant="cambodian")
    assert board.fen() == START
    moves = _same_moves("cambodian", START)
    assert len(moves) == 25 and {"d1b2", "d1f2"} <= set(moves)  # the king's leaps
    assert "e1e3" not in moves  # the met's jump is blocked by its own pawn
    assert "e1e3" in _same_moves("cambodian", START, ["e3e4", "d6d5"])
    assert Board(variant="karouk").fen() == START.replace(" - 0 1", " - 1+1 0 1")


@pytest.mark.parametrize(
    ("fen", "moves", "present", "absent"),
    [
        # a king in check may not leap; the met's jump may block the check, never capture
        ("3k4/8/8/8/8/8/8/3KM3 w DE - 0 1", [], {"d1b2", "d1f2", "e1e3"}, set()),
        ("4k3/8/8/8/8/2n5/8/3KM3 w DE - 0 1", [], set(), {"d1b2", "d1f2", "e1e3"}),
        ("4k3/8/8/8/8/4r3/8/3KM3 w DE - 0 1", [], set(), {"e1e3"}),
        # a rook move onto the king's file or rank takes the leap away, pieces between or not
        ("4k3/8/8/4p3/8/8/8/R5K1 w e - 0 1", ["a1e1"], set(), {"e8c7", "e8g7"}),
        ("4k3/8/8/4p3/8/8/8/R5K1 w e - 0 1", ["g1g2"], {"e8c7", "e8g7"}, set()),
        # moving the king (or the met) closes its gate for good
        ("4k3/8/8/8/8/8/8/3KM3 w DE - 0 1", ["d1c2", "e8e7", "c2d1", "e7e8"], set(), {"d1b2"}),
    ],
)
def test_first_leaps_like_fsf(fen: str, moves: list[str], present: set, absent: set) -> None:
    legal = set(_same_moves("cambodian", fen, moves))
    assert present <= legal and not absent & legal


def test_gates_are_not_hashed_so_a_closed_gate_still_repeats() -> None:
    """As in FSF, only the pieces, not the gates, decide whether a position repeats: the start
    position occurs again once both kings went out and back, although they lost their leaps."""
    cycle = ["d1c2", "e8e7", "c2d1", "e7e8"]
    board = Board(variant="cambodian")
    for move in cycle * 2:
        board.push_uci(move)
    assert board.fen().split()[2] == "Ed"  # the mets keep theirs
    assert pyffish().is_optional_game_end("cambodian", START, cycle * 2)[0]
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None and outcome.termination == "threefold_repetition"


def test_first_check_wins_kar_ouk() -> None:
    fen = "4k3/8/8/8/8/8/8/R2K4 w - - 0 1"
    board = Board(fen, variant="karouk")
    board.push_uci("a1a8")
    assert board.fen() == pyffish().get_fen("karouk", fen, ["a1a8"])
    over, value = pyffish().is_immediate_game_end("karouk", fen, ["a1a8"])
    assert over and value < 0
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is True


@pytest.mark.parametrize("name", ["cambodian", "karouk"])
def test_random_games_agree_with_fsf(name: str) -> None:
    """Moves, FENs and results at every ply of seeded random games (more than the generic
    test gives a non-core variant: the leaps matter in the opening)."""
    assert sum(play(name, seed, plies=60) for seed in range(200, 204)) >= 40


@pytest.mark.parametrize(
    ("fen", "move", "after"),
    [
        # board's honour: three men (a pawn counts) against more, pawns on the board or not
        ("4k3/3p4/2p5/8/8/2P5/3PP2K/8 w - - 0 1", "h2h3", "b - 126 0 1"),
        # pieces' honour, one move shorter than makruk's: 15 with a rook, 43 with a khon
        ("4k3/8/8/8/8/8/7K/R7 w - - 0 1", "h2h3", "b - 30 6 1"),
        ("4k3/8/8/8/8/8/7K/S7 w - - 0 1", "h2h3", "b - 86 6 1"),
        ("4k3/8/8/8/8/8/7K/RR6 w - - 0 1", "h2h3", "b - 14 8 1"),
        # four men do not count
        ("4k3/3p4/2p5/1p6/8/2P5/3PP2K/8 w - - 0 1", "h2h3", "b - - 1 1"),
    ],
)
def test_count_limits(fen: str, move: str, after: str) -> None:
    board = Board(fen, variant="cambodian")
    board.push_uci(move)
    assert board.fen() == pyffish().get_fen("cambodian", fen, [move])
    assert board.fen().endswith(after)
