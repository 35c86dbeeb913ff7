# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/vmatch.py: notation helpers, and short xboard matches (ferz vs fairymax, ferz vs ferz)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.variant

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "vmatch.py"
FERZ_XBOARD = f"{sys.executable} -m ferz xboard"

pyffish = pytest.importorskip("pyffish")


def load_tool():
    """Import tools/vmatch.py as a module."""
    spec = importlib.util.spec_from_file_location("vmatch", TOOL)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["vmatch"] = mod  # dataclasses look their module up here
    spec.loader.exec_module(mod)
    return mod


def test_rank_shift_and_promotion_spelling() -> None:
    vm = load_tool()
    assert vm.shift_ranks("h2e2", -1) == "h1e1"
    assert vm.shift_ranks("a9a8", 1) == "a10a9"
    assert vm.board_ranks(pyffish.start_fen("xiangqi")) == 10
    legal = pyffish.legal_moves("makruk", "8/7k/P7/8/8/8/8/K7 w - - 0 1", [])
    # fairymax-style spellings of the met promotion map to pyffish's a6a7m
    assert vm.match_legal("a6a7", legal) == "a6a7m"
    assert vm.match_legal("a6a7q", legal) == "a6a7m"
    assert vm.match_legal("a6a8", legal) is None
    capa = pyffish.legal_moves("capablanca", "10/P8k/10/10/10/10/10/K9 w - - 0 1", [])
    assert vm.match_legal("a7a8", capa) is None  # ambiguous: several promotion pieces


def test_random_openings_are_seeded_and_legal() -> None:
    vm = load_tool()
    a = vm.random_openings("xiangqi", 3, 4, seed=7)
    b = vm.random_openings("xiangqi", 3, 4, seed=7)
    assert [o.moves for o in a] == [o.moves for o in b]
    assert all(len(o.moves) == 4 for o in a)
    assert len({tuple(o.moves) for o in a}) == 3


def run_match(tmp_path: Path, variant: str, engine_b: str, name_b: str) -> tuple[str, str]:
    """Two short games ferz (A) vs engine_b over xboard; returns (stdout, pgn)."""
    pgn = tmp_path / f"{variant}.pgn"
    done = subprocess.run(
        [
            sys.executable,
            str(TOOL),
            "--variant",
            variant,
            "--games",
            "2",
            "--tc",
            "2+0.05",
            "--max-moves",
            "5",
            "--timemargin",
            "500",
            "--engine-a",
            FERZ_XBOARD,
            "--proto-a",
            "xboard",
            "--name-a",
            "ferz",
            "--engine-b",
            engine_b,
            "--proto-b",
            "xboard",
            "--name-b",
            name_b,
            "--pgn",
            str(pgn),
            "--log",
            str(tmp_path / f"{variant}.log"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, pgn.read_text()


@pytest.mark.e2e
def test_ferz_vs_fairymax_shatranj(tmp_path: Path) -> None:
    fairymax = shutil.which("fairymax") or "/usr/games/fairymax"
    if not Path(fairymax).exists():
        pytest.skip("fairymax is not installed")
    out, pgn = run_match(tmp_path, "shatranj", fairymax, "fairymax")
    assert "2 games finished" in out, out
    assert "Engine failures: none" in out, out
    assert pgn.count('[Variant "shatranj"]') == 2
    assert '[White "ferz"]' in pgn and '[White "fairymax"]' in pgn
    assert "WARNING" not in (tmp_path / "shatranj.log").read_text()


@pytest.mark.e2e
def test_ferz_vs_ferz_xiangqi(tmp_path: Path) -> None:
    out, pgn = run_match(tmp_path, "xiangqi", FERZ_XBOARD, "ferz2")
    assert "2 games finished" in out, out
    assert "Engine failures: none" in out, out
    assert pgn.count('[Variant "xiangqi"]') == 2
    assert pgn.count("[FEN ") == 2 and pgn.count('[Result "') == 2


def test_referee_names_the_end() -> None:
    vm = load_tool()
    bare = "4k3/8/8/8/8/8/8/R3KN2 b - - 0 1"
    legal = pyffish.legal_moves("shatranj", bare, [])
    assert vm.referee("shatranj", bare, [], legal) == ("1-0", "bare king")
    start = pyffish.start_fen("shatranj")
    moves = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2
    legal = pyffish.legal_moves("shatranj", start, moves)
    assert vm.referee("shatranj", start, moves, legal) == ("1/2-1/2", "draw by repetition")
