"""`ferz perft` as a user runs it: output format, divide, exit codes."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from ferz import perft
from ferz.board import Board
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


def _session(protocol: str, commands: list[str]) -> list[str]:
    """The output lines of `ferz PROTOCOL` fed the commands, then quit."""
    proc = subprocess.run(
        [sys.executable, "-m", "ferz", protocol],
        input="\n".join([*commands, "quit", ""]),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def _divide(lines: list[str]) -> list[str]:
    """The divide block of some output: from the first `move: n` line to `Nodes searched`."""
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"\S+: \d+", line))
    end = next(i for i, line in enumerate(lines) if line.startswith("Nodes searched"))
    return lines[start : end + 1]


@pytest.mark.parametrize(
    ("variant", "fen"),
    [
        ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        ("crazyhouse", "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[Pp] w KQkq - 0 1"),
    ],
)
def test_every_front_end_prints_the_same_divide(variant: str, fen: str) -> None:
    """`ferz perft --divide`, UCI `go perft`, xboard `perft` and the Python API agree line for
    line (one compiled perft behind all of them)."""
    cli = _divide(
        _ferz("perft", "3", "--fen", fen, "--divide", "--variant", variant).stdout.splitlines()
    )
    uci = _divide(
        _session(
            "uci",
            [f"setoption name UCI_Variant value {variant}", f"position fen {fen}", "go perft 3"],
        )
    )
    xboard = _divide(
        _session(
            "xboard",
            ["protover 2", "new", f"variant {variant}", "force", f"setboard {fen}", "perft 3"],
        )
    )
    assert cli == uci == xboard
    board = Board(fen, variant=variant)
    api = [f"{move}: {nodes}" for move, nodes in perft.divide(board, 3)]
    assert api == cli[:-2]
    assert board.perft(3) == int(cli[-1].split()[-1])
    assert board.fen() == Board(fen, variant=variant).fen()  # the count leaves the board as it was
