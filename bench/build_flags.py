"""Search speed of differently built cores, `ferz bench` alternately in one run.

Usage: python bench/build_flags.py [--runs N] [--depth D] NAME=TREE [NAME=TREE ...]

Each TREE is a copy of the source with its core compiled one way, for instance

    git ls-files | cpio -pdm /tmp/flags/O2 && cd /tmp/flags/O2 &&
    CFLAGS="-O2" python setup.py -q build_ext --inplace        # or: make pgo

The benches run round-robin (A B C, A B C, ...) so that a change of machine load hits every
build alike; the load average is printed before and after. Every run must search the same
number of nodes (compiler flags must not change the search), else the script stops.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path


def bench(tree: Path, depth: int | None) -> tuple[int, int]:
    """(nodes, nodes per second) of one `python -m ferz bench` with the core of a tree."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("FERZ_PURE", None)
    command = [sys.executable, "-m", "ferz", "bench"] + ([str(depth)] if depth else [])
    out = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=True)
    nodes = re.search(r"Nodes searched: (\d+)", out.stdout)
    speed = re.search(r"Nodes/second: (\d+)", out.stdout)
    if nodes is None or speed is None:
        raise SystemExit(f"{tree}: no bench figures in {out.stdout!r}")
    return int(nodes.group(1)), int(speed.group(1))


def load() -> str:
    """The load averages (1, 5, 15 minutes)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    """Alternate the benches and print each build's speeds, median and ratio to the first."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", metavar="NAME=TREE")
    parser.add_argument("--runs", type=int, default=5, help="benches per build (default 5)")
    parser.add_argument("--depth", type=int, default=None, help="bench depth (default: bench's)")
    args = parser.parse_args()
    trees = {}
    for item in args.trees:
        name, _, path = item.partition("=")
        if not path or not (Path(path) / "ferz").is_dir():
            parser.error(f"{item!r}: expected NAME=TREE, a tree holding ferz/")
        trees[name] = Path(path)
    print(f"load before: {load()}")
    speeds: dict[str, list[int]] = {name: [] for name in trees}
    counts = set()
    for run in range(args.runs):
        for name, tree in trees.items():
            nodes, speed = bench(tree, args.depth)
            counts.add(nodes)
            if len(counts) > 1:
                raise SystemExit(f"node counts differ: {sorted(counts)} ({name}, run {run + 1})")
            speeds[name].append(speed)
            print(f"run {run + 1} {name:>8}: {speed} nodes/s", flush=True)
    print(f"load after: {load()}; every run searched {counts.pop()} nodes")
    first = statistics.median(next(iter(speeds.values())))
    for name, values in speeds.items():
        median = statistics.median(values)
        listed = ", ".join(f"{v / 1e3:.0f}" for v in values)
        print(f"{name:>8}: median {median / 1e3:.0f} k nodes/s ({listed}); {median / first:.3f}x")


if __name__ == "__main__":
    main()
