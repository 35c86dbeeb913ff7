"""The uncompiled core (FERZ_PURE=1) gives the same perft counts and keys as the compiled one."""

from __future__ import annotations

import os

from ferz.board import Board
from ferz.core import compiled
from ferz.core.perft import perft
from tests.conftest import read_perft_epd
from tests.pure_core import run_pure

CASES = [(fen, 2 if counts[2] < 3000 else 1) for fen, counts in read_perft_epd("perft_cpw.epd")]
CASES += [(fen, 3) for fen, counts in read_perft_epd("perftsuite.epd")[2:8]]

SCRIPT = """
import json, sys
from ferz.core import compiled
from ferz.board import Board
from ferz.core.perft import perft
cases = json.loads(sys.stdin.read())
out = []
for fen, depth in cases:
    board = Board(fen)
    out.append([perft(board.position, depth), board.position.key])
print(json.dumps({"compiled": compiled(), "results": out}))
"""


def test_pure_matches_compiled() -> None:
    results = run_pure(SCRIPT, CASES)
    expected = []
    for fen, depth in CASES:
        board = Board(fen)
        expected.append([perft(board.position, depth), board.position.key])
    assert results == expected
    assert len(expected) == 13


def test_this_run_is_compiled_unless_pure() -> None:
    if os.environ.get("FERZ_PURE", "") in ("", "0"):
        assert compiled(), "the core is not compiled: run `pip install -e .` or `make build`"
