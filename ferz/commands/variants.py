"""`ferz variants`: list the known variants with their boards and pieces."""

from __future__ import annotations

import argparse

from .. import variants


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`ferz variants` takes no options."""


def main(args: argparse.Namespace) -> int:
    """Print every known variant: name, board and pieces, `(user)` for a user's, description."""
    for name in variants.names():
        rules = variants.get(name)
        tag = "" if variants.is_builtin(name) else " (user)"
        text = f"{name:14} {variants.summary(rules)}{tag}"
        print(f"{text:48} {rules.description}".rstrip())
    return 0
