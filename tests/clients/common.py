"""Shared helpers of the client conformance suite: how to start ferz, and launchers for
clients that take a single executable path."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: ferz as a client starts it: the interpreter running the tests, on this checkout.
COMMAND = [sys.executable, "-m", "ferz"]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def launcher(folder: Path, *args: str) -> Path:
    """An executable script in `folder` that runs ferz with `args` (for clients that take
    one program path and no arguments, such as cshogi)."""
    path = folder / ("ferz-" + "-".join(args or ("uci",)))
    path.write_text(
        f"#!/bin/sh\nPYTHONPATH='{ROOT}' exec '{sys.executable}' -m ferz {' '.join(args)}\n"
    )
    path.chmod(0o755)
    return path


def run_group(command: list[str], timeout: float, **kwargs) -> subprocess.CompletedProcess:
    """Run `command` in its own process group; on timeout kill the whole group (a GUI's
    engines and X server too) and raise TimeoutExpired."""
    proc = subprocess.Popen(command, start_new_session=True, **kwargs)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise
    finally:
        kill_group(proc)  # whatever it left behind (engines outliving the GUI)
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the process group that `proc` leads (its own, from start_new_session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
