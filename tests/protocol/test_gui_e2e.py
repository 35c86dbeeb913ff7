"""A real GUI: Debian's XBoard under Xvfb runs ferz natively (CECP) and through PolyGlot (UCI).

The two ferz engines play each other; the test waits for a few moves in XBoard's debug log
(all engine traffic), saves a screenshot under test-artifacts/, and checks the log for errors.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.protocol.proc import ROOT

pytestmark = pytest.mark.e2e

XBOARD = shutil.which("xboard") or (
    "/usr/games/xboard" if Path("/usr/games/xboard").exists() else None
)
POLYGLOT = shutil.which("polyglot") or (
    "/usr/games/polyglot" if Path("/usr/games/polyglot").exists() else None
)
XVFB = shutil.which("Xvfb")
SHOT = shutil.which("import")  # ImageMagick
ARTIFACTS = ROOT / "test-artifacts"
ENGINE = f"{sys.executable} -m ferz"


def free_display() -> int:
    """A display number no X server uses."""
    for number in range(90, 200):
        if (
            not Path(f"/tmp/.X11-unix/X{number}").exists()
            and not Path(f"/tmp/.X{number}-lock").exists()
        ):
            return number
    raise RuntimeError("no free X display")


@pytest.mark.skipif(
    not (XBOARD and POLYGLOT and XVFB), reason="needs Debian's xboard, polyglot and xvfb"
)
def test_xboard_plays_ferz_native_against_ferz_via_polyglot(tmp_path: Path) -> None:
    second = ["-scp", f"{ENGINE} uci", "-sUCI"]
    run_xboard(tmp_path, second, "xboard-ferz-vs-ferz-polyglot")


@pytest.mark.variant
@pytest.mark.skipif(not (XBOARD and XVFB), reason="needs Debian's xboard and xvfb")
def test_xboard_xiangqi_ranks_from_zero(tmp_path: Path) -> None:
    # XBoard numbers the ranks of a 10-rank board 0-9; a wrong translation forfeits at once.
    second = ["-scp", f"{ENGINE} xboard", "-variant", "xiangqi"]
    run_xboard(tmp_path, second, "xboard-xiangqi")


def run_xboard(tmp_path: Path, extra: list[str], name: str) -> None:
    """XBoard, ferz (CECP) first: wait for 8 moves, save a screenshot, check the log."""
    assert XBOARD and XVFB
    display = free_display()
    env = dict(os.environ, DISPLAY=f":{display}", PYTHONPATH=str(ROOT))
    server = subprocess.Popen(
        [XVFB, f":{display}", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    debug = tmp_path / "xboard.debug"
    adapter = f'{POLYGLOT or "polyglot"} -noini -ec "%fcp" -ed "%fd"'
    command = [XBOARD, "-fcp", f"{ENGINE} xboard", "-fd", str(ROOT), "-sd", str(ROOT), *extra]
    command += ["-adapterCommand", adapter, "-mode", "TwoMachines", "-tc", "0:30", "-inc", "0"]
    command += ["-debug", "-nameOfDebugFile", str(debug), "-saveSettingsOnExit", "false"]
    command += ["-settingsFile", str(tmp_path / "xboardrc"), "-popupExitMessage", "false"]
    command += ["-size", "medium"]
    gui = None
    try:
        time.sleep(0.5)
        gui = subprocess.Popen(
            command, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        moves: list[str] = []
        text = ""
        while time.monotonic() < deadline:
            text = debug.read_text(errors="replace") if debug.exists() else ""
            moves = re.findall(r"^\d*\s*<(?:first|second)\s*: move (\S+)", text, re.MULTILINE)
            if len(moves) >= 8 or gui.poll() is not None:
                break
            time.sleep(0.5)
        assert len(moves) >= 8, f"only {moves} after 60 s; log tail: {text[-1500:]}"
        if SHOT:
            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / f"{name}.png"
            command = [SHOT, "-display", f":{display}", "-window", "root", str(shot)]
            subprocess.run(command, check=True, timeout=20)
            assert shot.stat().st_size > 1000
            shutil.copy(debug, ARTIFACTS / f"{name}.debug")
        engine_lines = re.findall(r"^\d*\s*<(?:first|second)\s*: (.*)$", text, re.MULTILINE)
        bad = [x for x in engine_lines if x.startswith(("Illegal move", "Error", "tellusererror"))]
        assert not bad, bad
        assert "invalid move" not in text, "XBoard refused a move of ferz"
    finally:
        for process in (gui, server):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
