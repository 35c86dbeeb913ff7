"""A real GUI: Debian's XBoard under Xvfb runs ferz natively (CECP) and through PolyGlot (UCI).

The two ferz engines play each other; the test waits for a few moves in XBoard's debug log
(all engine traffic), saves a screenshot under test-artifacts/, and checks the log for errors.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.protocol.proc import ROOT
from tests.protocol.xboard_gui import ENGINE, POLYGLOT, play_in_xboard

pytestmark = pytest.mark.e2e


@pytest.mark.programs("xboard", "polyglot", "Xvfb")
def test_xboard_plays_ferz_native_against_ferz_via_polyglot(tmp_path: Path) -> None:
    # 8 moves on a 6 s clock (a fortieth of it a move): play on the clock, in a moment
    second = ["-scp", f"{ENGINE} uci", "-sUCI"]
    run_xboard(tmp_path, second, "xboard-ferz-vs-ferz-polyglot", tc="0:06")


@pytest.mark.variant
@pytest.mark.programs("xboard", "Xvfb")
def test_xboard_xiangqi_ranks_from_zero(tmp_path: Path) -> None:
    # XBoard numbers the ranks of a 10-rank board 0-9; a wrong translation forfeits at once.
    # Moves at depth 3 (XBoard's sd 3), each in a moment: the ranks are what is checked here,
    # play on the clock is the test above's.
    second = ["-scp", f"{ENGINE} xboard", "-variant", "xiangqi", "-depth", "3"]
    run_xboard(tmp_path, second, "xboard-xiangqi")


def run_xboard(tmp_path: Path, extra: list[str], name: str, tc: str = "0:30") -> None:
    """XBoard, ferz (CECP) first and `extra` naming the second engine: 8 clean moves."""
    adapter = f'{POLYGLOT or "polyglot"} -noini -ec "%fcp" -ed "%fd"'
    options = ["-fcp", f"{ENGINE} xboard", "-fd", str(ROOT), "-sd", str(ROOT), *extra]
    play_in_xboard(tmp_path, [*options, "-adapterCommand", adapter], name, tc)
