"""Mates are found with the right distance (`mate N`), and finished games get no move."""

from __future__ import annotations

import chess
import pytest

from ferz.data import suite
from tests.search.helpers import read_epd, scored, think

MATE_FILES = [("mate_in_1.epd", 1, 8), ("mate_in_2.epd", 2, 12), ("mate_in_3.epd", 3, 4)]


def _cases():
    for name, n, limit in MATE_FILES:
        for fen, ops in read_epd(suite(name), limit):
            yield pytest.param(fen, ops, n, id=f"{ops.get('id', fen)}")


@pytest.mark.parametrize(("fen", "ops", "n"), list(_cases()))
def test_mate_found_with_distance(engine, fen, ops, n):
    """`go mate N` finds a mating move and reports `mate N` (no shorter, no longer)."""
    best, infos = think(engine, fen, mate=n, depth=2 * n + 8)
    last = scored(infos)[-1]
    assert last.score_mate == n, f"{fen}: reported {last.score_mate} / {last.score_cp}"
    board = chess.Board(fen)
    move = chess.Move.from_uci(best)
    assert move in board.legal_moves
    # the engine's move really mates in n (checked with python-chess by its PV)
    for text in last.pv[: 2 * n - 1]:
        board.push_uci(text)
    assert board.is_checkmate(), f"{fen}: PV {' '.join(last.pv)} does not mate"


def test_getting_mated_reports_negative_mate(engine):
    """The side that is mated in 1 sees `mate -1`."""
    # Black to move; whatever Black does, Qg7# follows.
    best, infos = think(engine, "7k/8/5K2/8/8/8/8/6Q1 b - - 0 1", depth=6)
    assert best is not None
    assert scored(infos)[-1].score_mate == -1


@pytest.mark.parametrize(
    "fen",
    [
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
        "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",  # checkmate
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1",  # bare kings: insufficient material
    ],
)
def test_no_move_in_finished_game(engine, fen):
    """A finished game gets bestmove None and no search."""
    best, _ = think(engine, fen, depth=5)
    assert best is None


def test_quiescence_sees_a_quiet_mating_check(engine):
    """At depth 1, grabbing a pawn that allows a back-rank Re1# is refused.

    Only the quiet checks of the first quiescence ply can see the non-capturing mate here.
    """
    fen = "4r1k1/p4ppp/8/8/3Q4/8/5PPP/6K1 w - - 0 1"
    best, infos = think(engine, fen, depth=1)
    board = chess.Board(fen)
    board.push(chess.Move.from_uci(best))
    mates = [m for m in board.legal_moves if board.gives_check(m) and _mates(board, m)]
    assert not mates, f"{best} allows {mates}"
    assert scored(infos)[-1].score_cp > 0


def _mates(board: chess.Board, move: chess.Move) -> bool:
    """Whether `move` checkmates."""
    board.push(move)
    try:
        return board.is_checkmate()
    finally:
        board.pop()
