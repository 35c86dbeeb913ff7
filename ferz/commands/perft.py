"""`ferz perft DEPTH`: count the leaves of the legal move tree, with its speed."""

from __future__ import annotations

import argparse
import time

from ..board import Board
from ..perft import check_depth, count, divide_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `ferz perft`."""
    parser.add_argument("depth", type=int)
    parser.add_argument("--fen", help="position (default: the variant's start position)")
    parser.add_argument("--divide", action="store_true", help="print the count below each move")
    parser.add_argument("--variant", default="chess", help="variant to play (default: chess)")


def main(args: argparse.Namespace) -> int:
    """Print the divide lines (if asked), then `Nodes searched` and `Nodes/second`."""
    check_depth(args.depth)
    board = Board(args.fen, variant=args.variant)
    start = time.perf_counter()
    if args.divide:
        line = ""
        for line in divide_lines(board, args.depth):
            print(line, flush=True)
        total = int(line.split()[-1])
    else:
        total = count(board, args.depth)
        print(f"Nodes searched: {total}")
    elapsed = max(time.perf_counter() - start, 1e-9)
    print(f"Nodes/second: {int(total / elapsed)}")
    return 0
