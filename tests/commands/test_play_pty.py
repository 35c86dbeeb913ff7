"""`ferz play` on a real (pseudo-)terminal: prompt, glyphs, moves and exit work interactively."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pty = pytest.importorskip("pty", reason="pseudo-terminals are POSIX only")


def read_until(fd: int, text: str, timeout: float = 30) -> str:
    """Read the terminal until text appears."""
    seen = b""
    deadline = time.monotonic() + timeout
    while text.encode() not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {text!r} on the terminal; got {seen.decode(errors='replace')[-500:]}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:  # the program closed the terminal
                break
    return seen.decode("utf-8", errors="replace")


def test_interactive_game_on_a_terminal() -> None:
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "ferz", "play", "--depth", "1"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=ROOT,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    try:
        assert "♖" in read_until(master, "Your move: ")
        os.write(master, b"e4\n")
        screen = read_until(master, "Your move: ")
        assert "ferz plays" in screen and "[♙]" in screen
        os.write(master, b"quit\n")
        assert process.wait(10) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
