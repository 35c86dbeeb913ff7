"""`ferz perft` as a user runs it: output format, divide, exit codes."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def _ferz(*args: str) -> subprocess.CompletedProcess:
    """Run `python -m ferz` with arguments."""
    return subprocess.run(
        [sys.executable, "-m", "ferz", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_perft_output() -> None:
    proc = _ferz("perft", "4")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-2] == "Nodes searched: 197281"
    assert lines[-1].startswith("Nodes/second: ") and int(lines[-1].split()[-1]) > 0


def test_perft_divide_with_fen() -> None:
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    proc = _ferz("perft", "2", "--fen", fen, "--divide")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    divide = dict(line.split(": ") for line in lines[:-3])
    assert lines[-3] == ""
    assert len(divide) == 48
    assert divide["e1g1"] == "43" and divide["e1c1"] == "43"
    assert sum(int(v) for v in divide.values()) == 2039
    assert lines[-2] == "Nodes searched: 2039"


def test_perft_bad_fen_fails_clearly() -> None:
    proc = _ferz("perft", "2", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1")
    assert proc.returncode == 2
    assert "en passant" in proc.stderr and "Traceback" not in proc.stderr
    proc = _ferz("perft", "0")
    assert proc.returncode == 2 and "depth" in proc.stderr
