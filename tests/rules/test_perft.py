"""Perft suites: every position's published counts, capped by default and in full under `slow`."""

from __future__ import annotations

import pytest

from ferz.board import Board
from ferz.core.perft import perft
from tests.conftest import read_perft_epd

SUITES = read_perft_epd("perftsuite.epd") + read_perft_epd("perft_cpw.epd")
QUICK_CAP = 1_000_000  # nodes per position in the default run
SLOW_CAP = 1_000_000_000  # nodes per position under -m slow (the two counts above are skipped)


def _run(cap: int) -> tuple[int, int]:
    """Check every suite position at its deepest count under cap; return (positions, nodes)."""
    ran = nodes = 0
    for fen, counts in SUITES:
        depths = [d for d, n in counts.items() if n <= cap]
        if not depths:
            continue
        depth = max(depths)
        board = Board(fen)
        assert perft(board.position, depth) == counts[depth], f"{fen} depth {depth}"
        assert board.fen().split()[:4] == fen.split()[:4] or board.position.ep == 0
        ran += 1
        nodes += counts[depth]
    return ran, nodes


def test_perft_suites_capped() -> None:
    ran, nodes = _run(QUICK_CAP)
    assert ran == len(SUITES) == 134
    assert nodes > 10_000_000


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_perft_suites_full() -> None:
    ran, _ = _run(SLOW_CAP)
    assert ran == 134


def test_perft_depth_zero_and_one() -> None:
    board = Board()
    assert perft(board.position, 0) == 1
    assert perft(board.position, 1) == 20
