"""Drive a real `python -m ferz` process line by line, with timeouts (for transcript tests)."""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class EngineProcess:
    """A ferz subprocess: send lines, wait for output lines matching a condition."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ferz", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env=env,
        )
        self.output: list[str] = []  # every line read so far
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        """Move stdout lines to the queue; None at end of output."""
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self._queue.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        self._queue.put(None)

    def send(self, *lines: str) -> None:
        """Write lines to the engine."""
        self.send_bytes(b"".join(line.encode() + b"\n" for line in lines))

    def send_bytes(self, data: bytes) -> None:
        """Write raw bytes to the engine."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def expect(self, match: str | Callable[[str], bool], timeout: float = 10.0) -> list[str]:
        """Read until a line starts with `match` (or satisfies it); returns the lines read."""
        test = match if callable(match) else (lambda line: line.startswith(match))
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._queue.get(timeout=max(0.0, left))
            except queue.Empty:
                raise AssertionError(f"no {match!r} within {timeout} s; got {got[-15:]}") from None
            if line is None:
                raise AssertionError(f"engine exited; stderr: {self.stderr()[-2000:]}")
            got.append(line)
            self.output.append(line)
            if test(line):
                return got

    def quiet(self, seconds: float) -> list[str]:
        """Lines that arrive within `seconds` (to check that nothing unexpected comes)."""
        got: list[str] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            got.append(line)
            self.output.append(line)
        return got

    def close(self, timeout: float = 5.0) -> int:
        """Send quit and wait for the exit; returns the exit code (kills after timeout)."""
        with contextlib.suppress(BrokenPipeError, OSError):  # it may have exited already
            self.send("quit")
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("engine did not quit in time") from None

    def stderr(self) -> str:
        """What the engine wrote to stderr (after it exited)."""
        if self.proc.poll() is None or self.proc.stderr is None:
            return ""
        return self.proc.stderr.read().decode("utf-8", errors="replace")
