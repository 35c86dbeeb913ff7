"""`ferz uci`, `ferz xboard`, `ferz usi`, `ferz ucci` (and `ferz` alone): speak a GUI protocol."""

from __future__ import annotations

import argparse

#: the protocol commands and their one-line help
PROTOCOLS = {
    "uci": "speak UCI on stdin/stdout",
    "xboard": "speak xboard/CECP v2 on stdin/stdout",
    "usi": "speak USI (shogi GUIs) on stdin/stdout",
    "ucci": "speak UCCI (xiangqi GUIs) on stdin/stdout",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The protocol commands take no options."""


def main(args: argparse.Namespace) -> int:
    """Run the protocol named by the command (None: told by the first line read)."""
    from ..protocol import run

    return run(args.command)
