"""`ferz uci`, `ferz xboard`, `ferz usi`, `ferz ucci` (and `ferz` alone): speak a GUI protocol."""

from __future__ import annotations

import argparse
import sys

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


def refuse(mode: str | None, message: str) -> None:
    """Answer the GUI's first line with why ferz cannot start (a bad FERZ_PARAMS), in its
    protocol's words, so that the GUI's log (and `ferz match`) shows the reason and not only
    an exit code: `info string error: ...` (UCI, USI), `info message error: ...` (UCCI),
    `tellusererror ...` (xboard). The caller then stops the program."""
    if sys.stdin is None or sys.stdin.isatty():
        return  # a person at a terminal reads the error line itself
    first = ""
    for line in sys.stdin:
        if line.split():
            first = line.split()[0]
            break
    mode = mode or (first if first in ("xboard", "usi", "ucci") else "uci")
    text = " ".join(message.split())
    if mode == "xboard":
        reply = f"tellusererror {text}"
    elif mode == "ucci":
        reply = f"info message error: {text}"
    else:
        reply = f"info string error: {text}"
    print(reply, flush=True)
