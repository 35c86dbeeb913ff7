"""Run a real XBoard under Xvfb for the GUI tests: two engines play, the debug log is checked."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tests.programs import find
from tests.protocol.proc import ROOT

XBOARD = find("xboard")
POLYGLOT = find("polyglot")
XVFB = find("Xvfb")
SHOT = find("import")  # ImageMagick: a screenshot of the board when it can take one
ARTIFACTS = ROOT / "test-artifacts"
ENGINE = f"{sys.executable} -m ferz"
#: How many moves the game must reach, and how long it may take.
MOVES = 8
SECONDS = 60


def start_xvfb() -> tuple[subprocess.Popen, int]:
    """An Xvfb server on a display it chose itself (`-displayfd`: two tests starting one at
    the same moment, as pytest-xdist's workers do, never pick the same number)."""
    assert XVFB
    read, write = os.pipe()
    server = subprocess.Popen(
        [XVFB, "-displayfd", str(write), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        pass_fds=(write,),
    )
    os.close(write)
    with os.fdopen(read) as answer:
        number = answer.readline().strip()  # written once the server accepts clients
    if not number.isdigit():
        server.kill()
        raise RuntimeError("Xvfb did not start")
    return server, int(number)


def play_in_xboard(
    tmp_path: Path, options: list[str], name: str, tc: str = "0:30"
) -> tuple[str, list[str]]:
    """XBoard with `options` (engines, variant) plays a TwoMachines game of MOVES moves at
    `tc` (minutes:seconds, no increment).

    Fails if a move was refused, the game stopped short or an engine sent an error; then
    saves a screenshot and the debug log as test-artifacts/NAME.*. Returns (log, moves).
    """
    assert XBOARD
    server, display = start_xvfb()
    env = dict(os.environ, DISPLAY=f":{display}", PYTHONPATH=str(ROOT))
    debug = tmp_path / "xboard.debug"
    command = [XBOARD, *options, "-mode", "TwoMachines", "-tc", tc, "-inc", "0"]
    command += ["-debug", "-nameOfDebugFile", str(debug), "-saveSettingsOnExit", "false"]
    command += ["-settingsFile", str(tmp_path / "xboardrc"), "-popupExitMessage", "false"]
    command += ["-size", "medium"]
    gui = None
    try:
        gui = subprocess.Popen(
            command, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + SECONDS
        moves: list[str] = []
        text = ""
        while time.monotonic() < deadline:
            text = debug.read_text(errors="replace") if debug.exists() else ""
            moves = re.findall(r"^\d*\s*<(?:first|second)\s*: move (\S+)", text, re.MULTILINE)
            if len(moves) >= MOVES or gui.poll() is not None or "Forfeit" in text:
                break
            time.sleep(0.5)
        assert "invalid move" not in text, "XBoard refused a move of ferz: " + text[-1500:]
        assert len(moves) >= MOVES, f"only {moves} after {SECONDS} s; log tail: {text[-1500:]}"
        engine_lines = re.findall(r"^\d*\s*<(?:first|second)\s*: (.*)$", text, re.MULTILINE)
        bad = [x for x in engine_lines if x.startswith(("Illegal move", "Error", "tellusererror"))]
        assert not bad, bad
        if SHOT:
            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / f"{name}.png"
            shoot = [SHOT, "-display", f":{display}", "-window", "root", str(shot)]
            subprocess.run(shoot, check=True, timeout=20)
            assert shot.stat().st_size > 1000
            shutil.copy(debug, ARTIFACTS / f"{name}.debug")
        return text, moves
    finally:
        for process in (gui, server):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
