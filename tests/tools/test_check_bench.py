"""The bench-signature check reads the newest `Bench:` line and `ferz bench`'s node count."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import check_bench  # noqa: E402


def test_newest_bench_line_wins() -> None:
    """The first `Bench:` in `git log` order (newest first) is the announced count, in any of
    the forms commit messages use."""
    log = (
        "docs: typo\n\n"
        "position: split (refactor, Bench: 2295047 unchanged)\n\n"
        "search: more pruning\n\nBench: 2319323\n"
    )
    assert check_bench.announced(log) == 2295047
    assert check_bench.announced("search: x\n\nBench: 12\n") == 12
    assert check_bench.announced("no signature here\nWorkbench: 5\n") is None


def test_bench_output_is_read() -> None:
    """The count comes from the `Nodes searched:` line of `ferz bench`."""
    out = "Positions: 40  depth: 10  time: 2383 ms\nNodes searched: 2295047\nNodes/second: 1\n"
    assert check_bench.measured(out) == 2295047
    assert check_bench.measured("Traceback (most recent call last):\n") is None
