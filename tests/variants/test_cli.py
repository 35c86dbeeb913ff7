"""The variant commands of the `ferz` command line: check, variants, --variants FILE, perft."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.variant

TINY = """\
[tinyhoppel:chess]
maxFile = 6
maxRank = 6
knight = -
bishop = -
knibis = n
biskni = b
startFen = rnbqkr/pppppp/6/6/PPPPPP/RNBQKR w - - 0 1
promotionRegionWhite = *6
promotionRegionBlack = *1
promotionPieceTypes = nbrq
doubleStep = false
castling = false
"""


def ferz(*args: str) -> subprocess.CompletedProcess:
    """Run `python -m ferz` with the arguments."""
    return subprocess.run(
        [sys.executable, "-m", "ferz", *args], capture_output=True, text=True, timeout=60
    )


def test_check_accepts_a_good_file(tmp_path) -> None:
    path = tmp_path / "tiny.ini"
    path.write_text(TINY)
    done = ferz("check", str(path))
    assert done.returncode == 0, done.stderr
    assert "tinyhoppel: ok (6x6, pieces PRQKNB)" in done.stdout


def test_check_refuses_a_bad_file_with_its_line(tmp_path) -> None:
    path = tmp_path / "bad.ini"
    path.write_text(TINY.replace("knight = -\n", ""))
    done = ferz("check", str(path))
    assert done.returncode != 0
    assert f"{path}:5: knibis: letter 'n' is already used by knight" in done.stderr


def test_user_variant_plays_through_the_command_line(tmp_path) -> None:
    path = tmp_path / "tiny.ini"
    path.write_text(TINY)
    done = ferz("--variants", str(path), "perft", "4", "--variant", "tinyhoppel")
    assert done.returncode == 0, done.stderr
    assert "Nodes searched: 6919" in done.stdout  # Fairy-Stockfish 11.1 and pyffish agree
    listed = ferz("--variants", str(path), "variants")
    assert "tinyhoppel" in listed.stdout and "(user)" in listed.stdout


def test_builtin_variant_perft_and_listing() -> None:
    done = ferz("perft", "3", "--variant", "xiangqi")
    assert done.returncode == 0 and "Nodes searched: 79666" in done.stdout
    listed = ferz("variants").stdout.splitlines()
    assert listed[0].startswith("chess ") and any(x.startswith("shogi ") for x in listed)
