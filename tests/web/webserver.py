"""Run ferz web on a free loopback port for tests: `ferz web --no-browser` as a real
process (running_server), or an app of the test's own under uvicorn in a thread (serving)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(
    db: Path, options: Sequence[str] = (), web_options: Sequence[str] = ()
) -> Iterator[int]:
    """Run the server with a fresh database until the block ends; yields its port.
    `options` go before `web` (ferz's own, e.g. --variants FILE), `web_options` after it
    (`ferz web`'s, e.g. --review-ms MS)."""
    port = free_port()
    cmd = [sys.executable, "-m", "ferz", *options, "web", "--no-browser", "--port", str(port)]
    cmd += ["--db", str(db), *web_options]
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


@contextlib.contextmanager
def serving(app: object) -> Iterator[int]:
    """Serve an ASGI app with uvicorn (as `ferz web` configures it) in a thread on a free
    loopback port until the block ends; yields the port. Real sockets, real frame limits,
    and the test can pass its own app (slots, think-time ceiling)."""
    import threading
    import time

    import uvicorn

    from ferz.web.server import MAX_FRAME

    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=MAX_FRAME
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(30)


# Headless Debian chromium as the browser tests launch it: no sandbox (root in CI), no GPU and
# nothing that reaches the network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextlib.contextmanager
def chromium(executable: str) -> Iterator[object]:
    """A headless chromium driven by Playwright, closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def until(ws: Any, pred: Callable[[dict[str, Any]], bool], limit: int = 60) -> dict[str, Any]:
    """Read a test client's WebSocket messages until one satisfies `pred` (at most `limit`)."""
    for _ in range(limit):
        message = ws.receive_json()
        if pred(message):
            return message
    raise AssertionError("expected message never came")


def state(ws: Any, cond: Callable[[dict[str, Any]], bool] = lambda g: True, limit: int = 60):
    """The next game state satisfying `cond`."""
    return until(ws, lambda m: m["type"] == "state" and cond(m["game"]), limit)["game"]


def error(ws: Any, limit: int = 60) -> str:
    """The next error message's text."""
    return until(ws, lambda m: m["type"] == "error", limit)["message"]
