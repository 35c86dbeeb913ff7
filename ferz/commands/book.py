"""`ferz book`: build a Polyglot opening book from PGN games, and list a book's moves."""

from __future__ import annotations

import argparse
import sys
import time
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field

from .. import book, pgn
from ..board import Board
from ..core.rules import Rules

EXAMPLES = """examples:
  ferz book build games.pgn -o book.bin --max-ply 16 --min-games 3
  ferz book build a.pgn b.pgn -o book.bin --uniform --quiet
  ferz book probe book.bin                       # the start position's moves
  ferz book probe book.bin --moves e2e4 e7e5     # after 1. e4 e5
  ferz book probe book.bin --fen "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"

build weights moves as `polyglot make-book` does: each game through a move adds 2 when the
mover won, 1 for a draw or an unknown result, 0 for a loss; moves seen in fewer than
--min-games games, or with no score, are left out. Books cover standard chess (and Chess960).
Only the first --max-ply moves of each game's main line are read (variations, comments and
the moves after them are passed by unread); the counts take 12 bytes a ply, in temporary
files past 2 million plies, so a database of any size is read in bounded memory; a bad game
is reported and left out; a run of more than a few seconds shows its progress on stderr
(--quiet: none)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `book build` and `book probe` sub-commands."""
    sub = parser.add_subparsers(dest="book_command", metavar="ACTION", required=True)
    build = sub.add_parser("build", help="build a Polyglot book from PGN games")
    build.add_argument("pgn", nargs="+", metavar="GAMES.pgn")
    build.add_argument("-o", "--out", required=True, metavar="BOOK.bin", help="the book to write")
    build.add_argument("--max-ply", type=int, default=1024, help="plies of each game (1024)")
    build.add_argument("--min-games", type=int, default=3, help="games a move needs (3)")
    build.add_argument("--uniform", action="store_true", help="every kept move weighs 1")
    build.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    probe = sub.add_parser("probe", help="list a book's moves for a position")
    probe.add_argument("book", metavar="BOOK.bin")
    probe.add_argument("--fen", help="the position (default: the start)")
    probe.add_argument("--moves", nargs="*", default=[], help="UCI moves played from it")


@dataclass
class _Read:
    """What _games has read so far: the games it gave, and the errors of those it skipped."""

    games: int = 0
    errors: list[str] = field(default_factory=list)
    quiet: bool = True
    seen: int = 0  # games read, good or bad, of any variant
    started: float = field(default_factory=time.monotonic)
    shown: float = 0.0  # when the progress line was last written

    def progress(self, final: bool = False) -> None:
        """The progress line on stderr after the first two seconds: rewritten once a second on
        a terminal, a new line every ten seconds otherwise (a log)."""
        if self.quiet:
            return
        now = time.monotonic()
        if not final and now - self.started < 2:
            return  # (before isatty: a system call, and this runs once a game)
        every = 1 if sys.stderr.isatty() else 10
        if not final and now - self.shown < every:
            return
        if final and not self.shown:
            return  # a quick run: no line
        self.shown = now
        tty = sys.stderr.isatty()
        text = (
            f"ferz book: {self.seen} games read, {self.games} in the book, "
            f"{len(self.errors)} bad, {now - self.started:.0f} s"
        )
        sys.stderr.write(("\r" + text + ("\n" if final else "")) if tty else text + "\n")
        sys.stderr.flush()


def _games(
    paths: list[str], read: _Read, max_ply: int
) -> Iterator[tuple[str, Rules, bool, array, str]]:
    """(start FEN, Rules, Chess960, core codes of the main line's first `max_ply` moves,
    result) of every standard chess game of the files, a game at a time (the book keeps
    counts, not games; the rest of each game is passed by unread); games of other variants
    are skipped, and so are bad games, their errors kept in `read`."""
    for path in paths:
        try:
            handle = open(path, encoding="utf-8-sig", errors="replace")  # noqa: SIM115
        except OSError as error:
            raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
        with handle:
            for game in pgn.stream_mainlines(handle, max_plies=max_ply):
                read.seen += 1
                read.progress()
                if game.errors:
                    read.errors.append(f"{path}: {game.errors[0]}")
                    continue
                rules = game.rules
                if rules is None or rules.name not in ("chess", "chess960"):
                    continue
                read.games += 1
                fen = game.headers.get("FEN") or rules.start_fen
                yield fen, rules, rules.chess960, game.codes, game.headers["Result"]


def main(args: argparse.Namespace) -> int:
    """Run `ferz book build` or `ferz book probe`; ValueError for bad input."""
    if args.book_command == "build":
        if args.max_ply < 1 or args.min_games < 1:
            raise ValueError("--max-ply and --min-games must be at least 1")
        read = _Read(quiet=args.quiet)
        with book.BookBuilder(args.max_ply, args.min_games, args.uniform) as builder:
            for line in _games(args.pgn, read, args.max_ply):
                builder.add(*line)
            read.progress(final=True)
            if not read.games:
                first = f" ({read.errors[0]})" if read.errors else ""
                raise ValueError(
                    f"no standard chess or Chess960 game in {', '.join(args.pgn)}: no book "
                    f"written{first}"
                )
            try:
                entries, positions = builder.write(args.out)
            except OSError as error:
                raise ValueError(f"cannot write {args.out}: {error.strerror}") from None
        if not entries:
            raise ValueError(
                f"no move of the {read.games} games was played, with a score, in --min-games "
                f"{args.min_games} of them: no book written (lower --min-games)"
            )
        for error in read.errors:  # the book is made of the others
            print(f"ferz book: skipped a bad game: {error}", file=sys.stderr)
        print(f"{args.out}: {entries} moves in {positions} positions from {read.games} games")
        return 0
    board = Board(args.fen) if args.fen else Board()
    for text in args.moves:
        board.push_uci(text)
    entries = book.Book(args.book).entries(board)
    total = sum(e.weight for e in entries) or 1
    for entry in sorted(entries, key=lambda e: -e.weight):
        share = 100 * entry.weight / total
        print(f"{board.san(entry.move):8} {entry.move.uci():6} {entry.weight:6} {share:5.1f} %")
    if not entries:
        print("no book moves")
    return 0
