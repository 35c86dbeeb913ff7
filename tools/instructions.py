#!/usr/bin/env python3
# ferz - a chess and chess-variant engine
# Copyright (C) 2026 the ferz authors
# SPDX-License-Identifier: GPL-3.0-or-later
"""Count the machine instructions of a fixed-depth search with valgrind's callgrind.

On a shared machine nodes/s moves by +-30 % between runs; the instructions a search executes
do not. A search to `--depth` and the same search to depth 1 run each under callgrind, and the
difference (the start-up and the first ply cancel) is the search's cost, printed with its
node count. Compare two builds by running the tool from each checkout (or with PYTHONPATH
pointing at it); the node counts must agree for the comparison to mean speed alone.

    python3 tools/instructions.py --variant shogi --moves "c3c4 g7g6 b2h8+ g9h8" --depth 8
    python3 tools/instructions.py --variant chess --depth 11 --top 10

Needs `valgrind` (Debian: apt install valgrind); a search of 150 000 nodes takes about a
minute under it. --top N lists the N functions with the most instructions of the deeper run
(its start-up included).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# One search in a child Python: the position after the moves, searched to the depth with the
# variant's shipped network and a 16 MB table, as `ferz bench` searches.
CHILD = """
import sys
from ferz.board import Board
from ferz.core import factory, nnue
from ferz.core.evaluate import Evaluator
from ferz.core.tt import TT
from ferz.variants import get
variant, moves, depth = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
board = Board(variant=variant)
for move in moves:
    board.push_uci(move)
rules = get(variant)
search = factory.search(rules, board.fen(), Evaluator(rules, net=nnue.bundled(rules)), TT(16))
search.set_root()
for _ in search.iterate(depth, 1):
    pass
print("nodes", search.nodes)
"""

COLLECTED = re.compile(r"Collected : (\d+)")
NODES = re.compile(r"^nodes (\d+)$", re.M)


def collected(stderr: str) -> int:
    """The instruction count that callgrind reports on stderr."""
    match = COLLECTED.search(stderr)
    if match is None:
        raise RuntimeError(f"callgrind reported no count:\n{stderr[-2000:]}")
    return int(match.group(1))


def run(variant: str, moves: str, depth: int, out: str) -> tuple[int, int]:
    """(nodes, instructions) of one search under callgrind, its profile written to `out`."""
    # sys.executable, not a `python3` wrapper script: callgrind must start the interpreter
    # itself (it does not follow the exec of a pyenv shim)
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    command += [sys.executable, "-c", CHILD, variant, moves, str(depth)]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    nodes = NODES.search(proc.stdout)
    if proc.returncode != 0 or nodes is None:
        raise RuntimeError(f"the search failed:\n{proc.stdout[-1000:]}{proc.stderr[-2000:]}")
    return int(nodes.group(1)), collected(proc.stderr)


def top(profile: str, count: int) -> str:
    """The `count` functions with the most instructions, from callgrind_annotate."""
    text = subprocess.run(
        ["callgrind_annotate", profile], capture_output=True, text=True, check=False
    ).stdout
    rows = [line for line in text.splitlines() if re.match(r"\s*[\d,]+ \(\s*[\d.]+%\)\s+\S", line)]
    return "\n".join(row[:150] for row in rows[1 : count + 1])  # (row 0: the program total)


def main(argv: list[str] | None = None) -> int:
    """Measure and print; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="chess", help="variant (default chess)")
    parser.add_argument("--moves", default="", help="UCI moves from the start position")
    parser.add_argument("--depth", type=int, default=9, help="search depth (default 9)")
    parser.add_argument("--top", type=int, default=0, help="list the N costliest functions")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("instructions: valgrind is not installed (apt install valgrind)", file=sys.stderr)
        return 2
    if args.depth < 2:
        parser.error("--depth must be at least 2 (depth 1 is the baseline)")
    with tempfile.TemporaryDirectory() as tmp:
        _, base = run(args.variant, args.moves, 1, os.path.join(tmp, "base.out"))
        nodes, total = run(args.variant, args.moves, args.depth, os.path.join(tmp, "deep.out"))
        search = total - base
        print(f"{args.variant} depth {args.depth}: {nodes} nodes, {search} instructions")
        print(f"  {search / max(nodes, 1):.0f} instructions a node (start-up: {base})")
        if args.top:
            print(top(os.path.join(tmp, "deep.out"), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
