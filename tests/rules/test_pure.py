"""The uncompiled core (FERZ_PURE=1) gives the same perft counts and keys as the compiled one."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ferz.board import Board
from ferz.core import compiled
from ferz.core.perft import perft
from tests.conftest import ROOT, read_perft_epd

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
    env = dict(os.environ, FERZ_PURE="1")
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        input=json.dumps(CASES),
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    pure = json.loads(proc.stdout)
    assert pure["compiled"] is False
    expected = []
    for fen, depth in CASES:
        board = Board(fen)
        expected.append([perft(board.position, depth), board.position.key])
    assert pure["results"] == expected
    assert len(expected) == 13


def test_this_run_is_compiled_unless_pure() -> None:
    if os.environ.get("FERZ_PURE", "") in ("", "0"):
        assert compiled(), "the core is not compiled: run `pip install -e .` or `make build`"
