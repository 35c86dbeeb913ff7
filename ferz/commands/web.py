"""`ferz web`: serve the browser app (its options here, apart from the server, so that
`ferz --help` needs no Starlette)."""

from __future__ import annotations

import argparse
import math

DESCRIPTION = """\
Serves the browser app on http://HOST:PORT/ and keeps every game in SQLite, so a restart
resumes them (the engine thinks again at once when it is to move).

security:
  By default the server listens on 127.0.0.1 only and answers only requests whose Host is
  a loopback name or address (localhost, 127.0.0.1, [::1]) and whose Origin, if any, is
  the server itself: a web page from elsewhere cannot read, start, move or resign games,
  not even through DNS rebinding. Every response forbids framing (no clickjacking) and
  runs scripts and connections from this server only (Content-Security-Policy).

  Any other --host (e.g. 0.0.0.0 for the local network) prints a warning: everyone who
  can reach the port could play and read the games. Such a server needs a secret for every
  API call and socket: --token, or one generated and printed at start in a link that sets
  it as a cookie. Names by which it is reached (e.g. mybox.lan) must be given with
  --allow-host; IP addresses are accepted as they are.

players:
  Each browser gets a random player token in an HttpOnly cookie on its first visit (no
  sign-up); a game's two seats hold players (or ferz), everyone else spectates."""


def port(text: str) -> int:
    """An argparse type: a TCP port, 1 to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, got {value}")
    return value


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1 (and at most a billion)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= 10**9:
        raise argparse.ArgumentTypeError(f"expected 1 to 1000000000, got {value}")
    return value


def seconds(text: str) -> float:
    """An argparse type: a finite, non-negative number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"seconds must be finite and at least 0, got {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of `ferz web` on its sub-parser."""
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; any other "
        "address needs a token and prints a warning)",
    )
    parser.add_argument(
        "--port", type=port, default=8765, help="TCP port to listen on (default 8765)"
    )
    parser.add_argument(
        "--allow-host",
        metavar="NAME",
        action="append",
        default=[],
        help="also answer requests whose Host header is NAME (repeatable); loopback names "
        "are always allowed",
    )
    parser.add_argument(
        "--token",
        metavar="SECRET",
        help="access secret required for every API call and socket (always when --host "
        "is not loopback: then a random one is printed at start if none is given)",
    )
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument(
        "--syzygy",
        metavar="FOLDERS",
        help="Syzygy tables (folders separated by ':'): the engines play and analyse chess "
        "endgames from them, and /api/tablebase answers from them",
    )
    parser.add_argument(
        "--db", metavar="PATH", help="SQLite file for games (default: user data dir)"
    )
    review = parser.add_mutually_exclusive_group()
    review.add_argument(
        "--review-ms",
        metavar="MS",
        type=positive,
        default=300,
        help="a review searches each position this long, doubtful moves 3 times longer, "
        "as `ferz analyse --movetime MS` does (default 300)",
    )
    review.add_argument(
        "--review-nodes",
        metavar="N",
        type=positive,
        help="a review searches each position N nodes instead: the marks of "
        "`ferz analyse --nodes N`, the same on every run",
    )
    parser.add_argument(
        "--abandon-after",
        metavar="SECONDS",
        type=seconds,
        default=60.0,
        help="in a game between two people, a player whose pages have all been closed this "
        "long may be claimed against: the opponent can take the win or a draw (default 60)",
    )


def main(args: argparse.Namespace) -> int:
    """Serve the app until interrupted."""
    from ..web.server import main as serve

    return serve(args)
