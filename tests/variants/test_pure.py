"""The uncompiled core (FERZ_PURE=1) plays every built-in variant exactly like the compiled one."""

from __future__ import annotations

import random

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core import compiled, endrules
from ferz.core.perft import perft
from tests.pure_core import run_pure

pytestmark = pytest.mark.variant

SCRIPT = """
import json, sys
from ferz import variants
from ferz.core import compiled, endrules
from ferz.board import Board
from ferz.core.perft import perft
out = []
for name, fen, depth in json.loads(sys.stdin.read()):
    board = Board(fen, variant=name)
    pos = board.position
    out.append([perft(pos, depth), pos.key, endrules.end_value(pos)])
print(json.dumps({"compiled": compiled(), "results": out}))
"""


def _cases() -> list[tuple[str, str, int]]:
    """Per variant: a position after 30 seeded random plies, perft depth 2 (1 if wide)."""
    cases = []
    rng = random.Random(7)
    for name in variants.builtins():
        board = Board(variant=name)
        for _ in range(30):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
        depth = 2 if len(board.legal_moves) < 60 else 1
        cases.append((name, board.fen(), depth))
    return cases


@pytest.mark.skipif(not compiled(), reason="compares the compiled core with the pure one")
def test_pure_core_matches_compiled_in_every_variant() -> None:
    cases = _cases()
    results = run_pure(SCRIPT, cases)
    expected = []
    for name, fen, depth in cases:
        board = Board(fen, variant=name)
        pos = board.position
        expected.append([perft(pos, depth), pos.key, endrules.end_value(pos)])
    for case, mine, theirs in zip(cases, expected, results, strict=True):
        assert theirs == mine, case
