"""Test fixtures: test data, outside-program markers, and a guard against stale compiled modules."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.programs import need

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"  # test-only data (perft suites); sources in its README.md


def _stale_modules() -> list[str]:
    """Compiled core modules older than their source (they would hide the edit)."""
    core = ROOT / "ferz" / "core"
    stale = []
    for so in core.glob("*.so"):
        source = core / (so.name.split(".")[0] + ".py")
        pxd = source.with_suffix(".pxd")
        newest = (
            max(p.stat().st_mtime for p in (source, pxd) if p.exists()) if source.exists() else 0
        )
        if newest > so.stat().st_mtime + 1:
            stale.append(so.name)
    return stale


def pytest_report_header(config: pytest.Config) -> str | None:
    """Warn loudly about a stale build (a compiled module hides later edits of its source)."""
    if os.environ.get("FERZ_PURE", "") in ("", "0"):
        stale = _stale_modules()
        if stale:
            names = ", ".join(stale)
            return f"WARNING: compiled modules older than their source: {names}; run `make build`"
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip (or, under FERZ_REQUIRE_PROGRAMS, fail) a test whose `programs` marker names a
    missing program."""
    for marker in item.iter_markers("programs"):
        need(*marker.args)


@pytest.fixture(autouse=True, scope="module")
def _default_event_loop_policy() -> Iterator[None]:
    """Undo python-chess's global event-loop policy after each module.

    chess.engine.SimpleEngine installs its own policy, whose child watcher then refuses the
    subprocesses that Playwright starts from another thread in later modules.
    """
    yield
    asyncio.set_event_loop_policy(None)


def read_perft_epd(name: str) -> list[tuple[str, dict[int, int]]]:
    """Positions and their perft counts from a `FEN ;D1 n ;D2 n` file."""
    out = []
    for line in (DATA / name).read_text().splitlines():
        if not line.strip():
            continue
        fen, *fields = line.split(";")
        counts = {}
        for field in fields:
            tag, value = field.split()
            counts[int(tag[1:])] = int(value)
        out.append((fen.strip(), counts))
    return out
