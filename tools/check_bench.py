#!/usr/bin/env python3
# ferz - a chess and chess-variant engine
# Copyright (C) 2026 the ferz authors
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check the search's signature: `ferz bench` must print the node count of the newest `Bench:`
line in the git log.

Every commit that changes search or evaluation ends its message with `Bench: N` (the node count
that `ferz bench` prints); a change of the search that does not announce its new count fails
here. Run by .ci/run from the repository root; exit 0 when they agree, 1 when they differ, 2 when
the check cannot run (no git history with a `Bench:` line, a ferz that would run uncompiled,
such as the source tree of a checkout beside a plain `pip install .`, or a bench that prints no
count).
"""

from __future__ import annotations

import re
import subprocess
import sys

BENCH_LINE = re.compile(r"\bBench: (\d+)")
NODES_LINE = re.compile(r"^Nodes searched: (\d+)", re.M)


def announced(log: str) -> int | None:
    """The node count of the newest `Bench: N` in `git log` text (newest commit first)."""
    match = BENCH_LINE.search(log)
    return int(match.group(1)) if match else None


def measured(output: str) -> int | None:
    """The node count that `ferz bench` printed."""
    match = NODES_LINE.search(output)
    return int(match.group(1)) if match else None


def uncompiled() -> str:
    """Why the ferz that `python -m ferz` imports here would run uncompiled (ferz's own
    warning: a source tree shadowing the installed ferz, say), or "" when it is compiled or
    FERZ_PURE asked for plain Python."""
    code = "from ferz.commands import pure_warning; print(pure_warning() or '')"
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if probe.returncode:
        last = (probe.stderr.strip().splitlines() or ["no message"])[-1]
        return f"ferz cannot be imported: {last}"
    return probe.stdout.strip()


def main() -> int:
    """Compare the announced and the measured signature; print the verdict."""
    slow = uncompiled()
    if slow:
        # the bench of an uncompiled core runs for more than ten minutes: refuse at once
        print(f"check_bench: not run: {slow}")
        return 2
    log = subprocess.run(
        ["git", "log", "--format=%B"], capture_output=True, text=True, check=False
    ).stdout
    expected = announced(log)
    if expected is None:
        shallow = subprocess.run(
            ["git", "rev-parse", "--is-shallow-repository"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if shallow == "true":  # the history that announces the count was not cloned
            print("check_bench: a shallow clone without a `Bench:` line; nothing to compare")
            return 0
        print("check_bench: no `Bench: N` line in the git log")
        return 2
    bench = subprocess.run(
        [sys.executable, "-m", "ferz", "bench"], capture_output=True, text=True, check=False
    )
    nodes = measured(bench.stdout)
    if nodes is None:
        print(f"check_bench: `ferz bench` printed no node count:\n{bench.stdout}{bench.stderr}")
        return 2
    if nodes != expected:
        print(
            f"check_bench: `ferz bench` searched {nodes} nodes, but the newest `Bench:` line in "
            f"the git log says {expected}: a change of search or evaluation must end its commit "
            f"message with `Bench: {nodes}`"
        )
        return 1
    print(f"check_bench: Bench: {nodes} as announced")
    return 0


if __name__ == "__main__":
    sys.exit(main())
