"""The search's fast check test (attacks.checks) agrees with playing the move and looking."""

from __future__ import annotations

import random

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core.attacks import checks, in_check
from tests.conftest import read_perft_epd

FENS = [fen for fen, _ in read_perft_epd("perftsuite.epd")]
EXTRA = [
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",  # castling rook checks
    "8/7b/8/8/3pP3/8/8/1K2k3 b - e3 0 1",  # e.p. that uncovers a check
    "3k4/8/8/8/3K4/8/3R4/3Q4 w - - 0 1",  # x-rays of two riders on one file
    "7k/5P2/8/8/8/8/8/4K3 w - - 0 1",  # promotions to every piece, checking or not
    "k7/8/8/8/8/8/6N1/K6Q w - - 0 1",  # a knight unmasks the queen
]


def _disagreements(board: Board, limit: int = 3) -> list[str]:
    """Legal moves of the board's position where checks(m) differs from make + in_check."""
    pos = board.position
    wrong = []
    for m in pos.legal_moves():
        fast = checks(pos, m)
        pos.make(m)
        slow = in_check(pos)
        pos.unmake()
        if fast != slow:
            wrong.append(f"{board.fen()} move {m:#x}: checks={fast} real={slow}")
            if len(wrong) >= limit:
                break
    return wrong


def _random_positions(variant: str, games: int, plies: int, seed: int):
    """Boards met in seeded random games of a variant."""
    rng = random.Random(seed)
    for _ in range(games):
        board = Board(variant=variant)
        for _ in range(plies):
            yield board
            moves = board.legal_moves
            if not moves or board.outcome() is not None:
                break
            board.push(rng.choice(moves))


def test_checks_on_perft_suite_and_special_moves() -> None:
    wrong = []
    for fen in FENS + EXTRA:
        wrong += _disagreements(Board(fen))
    assert not wrong, wrong[:5]


def test_checks_in_random_chess_games() -> None:
    wrong = []
    for board in _random_positions("chess", 60, 120, seed=11):
        wrong += _disagreements(board)
    assert not wrong, wrong[:5]


@pytest.mark.variant
@pytest.mark.parametrize("variant", variants.builtins())
def test_checks_in_every_variant(variant: str) -> None:
    wrong = []
    for board in _random_positions(variant, 6, 80, seed=5):
        wrong += _disagreements(board)
    assert not wrong, wrong[:5]
