"""`ferz check FILE`: validate a variants.ini (or Fairy-Max fmax.ini) file, a line per game."""

from __future__ import annotations

import argparse

from .. import variants


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `ferz check`."""
    parser.add_argument("file")


def main(args: argparse.Namespace) -> int:
    """Print `NAME: ok (...)` per variant and `NAME: skipped (...)` per Fairy-Max game that
    ferz cannot express; a refused file is the DefinitionError (a ValueError) naming its line."""
    compiled, skipped = variants.check_file(args.file)
    for name, rules in compiled.items():
        fairymax = rules.description.startswith("Fairy-Max")
        origin = f"; {rules.description}" if fairymax else ""
        print(f"{name}: ok ({variants.summary(rules)}{origin})")
    for name, line, reason in skipped:
        print(f"{name}: skipped ({args.file}:{line}: {reason})")
    if not compiled and not skipped:
        print(f"{args.file}: no variants defined")
    return 0
