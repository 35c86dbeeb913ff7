"""`ferz bench [DEPTH]`: the search's signature (node count) and speed over fixed positions."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `ferz bench`."""
    parser.add_argument(
        "depth", type=int, nargs="?", default=None, help="search depth (default 10)"
    )


def main(args: argparse.Namespace) -> int:
    """Run the bench (ferz.bench.report) and print its signature."""
    from ..bench import report

    report(args.depth)
    return 0
