"""Drive a real `python -m ferz` process line by line, with timeouts (for transcript tests),
through ferz's one engine-process driver (ferz.match.engines.Process)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ferz.match.engines import EngineError, Process

ROOT = Path(__file__).resolve().parents[2]


class EngineProcess(Process):
    """A ferz subprocess: send lines, wait for output lines matching a condition; a failure
    is an AssertionError that shows what came (and the engine's stderr once it exited)."""

    def __init__(self, *args: str) -> None:
        super().__init__()
        self.started = time.monotonic()
        self.output: list[str] = []  # every line read so far
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        command = [sys.executable, "-m", "ferz", *args]
        self.spawn(command, env=env, cwd=ROOT, stderr=subprocess.PIPE)

    def send(self, *lines: str) -> None:
        """Write lines to the engine (in one write)."""
        self.send_bytes(b"".join(line.encode() + b"\n" for line in lines))

    def expect(self, match: str | Callable[[str], bool], timeout: float = 10.0) -> list[str]:
        """Read until a line starts with `match` (or satisfies it); returns the lines read."""
        test = match if callable(match) else (lambda line: line.startswith(match))

        def seen(line: str) -> bool:
            self.output.append(line)
            return test(line)

        try:
            return super().expect(seen, timeout, repr(match))
        except EngineError as error:
            if error.kind == "stall":
                raise AssertionError(str(error)) from None
            raise AssertionError(f"engine exited; stderr: {self.stderr()[-2000:]}") from None

    def quiet(self, seconds: float) -> list[str]:
        """Lines that arrive within `seconds` (to check that nothing unexpected comes)."""
        got: list[str] = []
        deadline = time.monotonic() + seconds
        try:
            while (line := self.readline(deadline)) is not None:
                got.append(line[1])
        except EngineError:  # the output ended
            pass
        self.output += got
        return got

    def close(self, timeout: float = 5.0) -> int:
        """Send quit and wait for the exit; returns the exit code (kills after timeout)."""
        assert self.proc is not None
        with contextlib.suppress(EngineError, OSError):  # it may have exited already
            self.send("quit")
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("engine did not quit in time") from None

    def stderr(self) -> str:
        """What the engine wrote to stderr (after it exited)."""
        if self.proc is None or self.proc.poll() is None or self.proc.stderr is None:
            return ""
        return self.proc.stderr.read()
