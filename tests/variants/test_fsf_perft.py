"""Perft on positions from random play against Debian's `fairy-stockfish` (11.1) CLI."""

from __future__ import annotations

import random

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core.perft import perft
from tests.variants.oracle import fairy_stockfish, fsf_name
from tests.variants.test_pyffish import chess960_fen

pytestmark = pytest.mark.variant

CHECK_AT = (6, 16, 30, 50, 80)  # plies of the random game at which perft is compared
NODE_CAP = 300_000  # deepest depth compared is the first whose count exceeds this


@pytest.fixture(scope="module")
def fsf():
    """One fairy-stockfish process for the module."""
    engine = fairy_stockfish()
    yield engine
    engine.close()


def _compare(fsf, name: str, seed: int, cap: int) -> int:
    """Play a seeded random game and compare perft at a few plies; returns positions checked."""
    rules = variants.get(name)
    rng = random.Random(seed)
    start = chess960_fen(rng) if rules.chess960 and rules.files == 8 else rules.start_fen
    board = Board(start, rules=rules, chess960=rules.chess960)
    checked = 0
    for ply in range(max(CHECK_AT) + 1):
        moves = board.legal_moves
        if not moves:
            break
        if ply in CHECK_AT and not (name in GATES_DIFFERENT and board.position.gates):
            history = [m.text for m in board.move_stack]
            for depth in (1, 2, 3):
                ours = perft(board.position, depth)
                theirs = fsf.perft(fsf_name(name), start, history, depth)
                assert ours == theirs, f"{name} {start} moves {' '.join(history)} depth {depth}"
                if ours > cap:
                    break
            checked += 1
        if name in GATES_DIFFERENT and board.position.gates and rng.random() < 0.5:
            moves = _closing(board, moves) or moves
        board.push(rng.choice(moves))
    return checked


def _closing(board: Board, moves: list) -> list:
    """The moves that close a gate (a king or met leaving its gate square)."""
    out = []
    for move in moves:
        gates = board.position.gates
        board.push(move)
        if board.position.gates != gates:
            out.append(move)
        board.pop()
    return out


# Variants whose rules changed between FSF 11.1 (this oracle) and pyffish 0.0.90 (the one ferz
# follows): their start-position counts agree, positions after promotions do not.
VERSION_DIFFERENT = {
    "chigorin": "FSF 11.1 lets both sides promote to q, c, r, b, n",
    "atomic": "FSF 11.1 has no atomic (pyffish 0.0.90 is the oracle: test_pyffish.py)",
}


# Variants whose first leaps (cambodianMoves) changed between FSF 11.1 and pyffish 0.0.90: in
# 11.1 the met's jump may capture and a rook aimed at a king on its gate leaves it its leap.
# Positions are compared only once every gate is closed (the rest of the rules agree).
GATES_DIFFERENT = {"cambodian", "karouk"}


def _params() -> list:
    """Built-in names, those whose rules changed between the two oracles skipped."""
    return [
        pytest.param(n, marks=pytest.mark.skip(reason=VERSION_DIFFERENT[n]))
        if n in VERSION_DIFFERENT
        else n
        for n in variants.builtins()
    ]


@pytest.mark.parametrize("name", _params())
def test_perft_after_random_play_matches_fsf(fsf, name: str) -> None:
    """Two random games a variant in the default run (up to ten positions); the slow test
    below compares ten more games, deeper."""
    assert sum(_compare(fsf, name, seed, NODE_CAP) for seed in range(2)) >= 2


@pytest.mark.slow
@pytest.mark.parametrize("name", _params())
def test_deeper_perft_after_random_play_matches_fsf(fsf, name: str) -> None:
    for seed in range(10, 20):
        _compare(fsf, name, seed, 5_000_000)
