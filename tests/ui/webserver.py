"""Start `ferz web --no-browser` as a real process on a free loopback port, for e2e tests."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(db: Path) -> Iterator[int]:
    """Run the server with a fresh database until the block ends; yields its port."""
    port = free_port()
    cmd = [sys.executable, "-m", "ferz", "web", "--no-browser", "--port", str(port)]
    cmd += ["--db", str(db)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        seen = []
        assert proc.stdout is not None
        for line in proc.stdout:  # warnings may come first; EOF means the server died
            if "serving on" in line:
                break
            seen.append(line)
        else:
            pytest.fail("ferz web did not start:\n" + "".join(seen))
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
