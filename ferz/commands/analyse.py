"""`ferz analyse`: annotate the games of a PGN file, on local processes or Ray tasks."""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from ..analyse import VERIFY_FACTOR
from . import option_pairs

if TYPE_CHECKING:
    from ..match.engines import MoveLimits


EXAMPLES = """\
examples:
  ferz analyse games.pgn -o annotated.pgn                  (ferz, 100 ms a move)
  ferz analyse games.pgn --depth 14 --multipv 2 --jobs 2 -o annotated.pgn
  ferz analyse games.pgn --engine /usr/games/stockfish --movetime 200 -o sf.pgn
  ferz analyse games.pgn --ray auto -o annotated.pgn       (one Ray task per game)

Marks: ?! inaccuracy, ? mistake, ?? blunder (lichess's thresholds on winning chances);
per side: average centipawn loss and accuracy (definitions in docs/match.md)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `ferz analyse`."""
    parser.add_argument("games", metavar="GAMES.pgn", help="the games to annotate")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--movetime", type=int, metavar="MS", help="time per move (default 100)")
    limit.add_argument("--depth", type=int, help="search depth per move")
    limit.add_argument("--nodes", type=int, help="nodes per move")
    parser.add_argument("--multipv", type=int, default=1, metavar="N", help="lines per position")
    parser.add_argument(
        "--verify",
        type=int,
        default=VERIFY_FACTOR,
        metavar="N",
        help=f"search a move near a mark's threshold again, N times longer (default "
        f"{VERIFY_FACTOR}; 1: never)",
    )
    parser.add_argument(
        "--engine", metavar="CMD", help="a UCI engine's command line (default: ferz itself)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option of the engine (repeatable)",
    )
    parser.add_argument(
        "--syzygy",
        metavar="FOLDERS",
        help="Syzygy tables (folders separated by ':'): the engine's SyzygyPath, and each "
        "position they cover gets their verdict in its comment",
    )
    run = parser.add_mutually_exclusive_group()
    run.add_argument("--jobs", type=int, default=1, metavar="N", help="games at once (default 1)")
    run.add_argument("--ray", metavar="ADDRESS", help="one Ray task per game (auto, local)")
    parser.add_argument("-o", "--output", metavar="OUT.pgn", help="write here (default: stdout)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")


@dataclass(frozen=True)
class Settings:
    """How to analyse: the engine, the limit, the lines; plain data for Ray."""

    command: tuple[str, ...]  # empty: this ferz
    options: tuple[tuple[str, str], ...]
    movetime: int | None
    depth: int | None
    nodes: int | None
    multipv: int
    label: str
    verify: int = VERIFY_FACTOR  # 1: no verifying search
    syzygy: str = ""  # Syzygy folders (SyzygyPath)


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the arguments; ValueError for bad input."""
    import shlex

    for name in ("movetime", "depth", "nodes"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise ValueError(f"--{name} must be positive")
    if args.multipv < 1:
        raise ValueError("--multipv must be at least 1")
    if args.verify < 1:
        raise ValueError("--verify must be at least 1")
    if args.jobs < 1:
        raise ValueError("--jobs must be at least 1")
    options = option_pairs(args.option)
    syzygy = args.syzygy or ""
    if syzygy:
        from ..syzygy import open_tablebase, parse_path

        open_tablebase(parse_path(syzygy)).close()  # a missing folder: the one-line error
        options.append(("SyzygyPath", syzygy))
    movetime = args.movetime if args.movetime or args.depth or args.nodes else 100
    try:
        command = tuple(shlex.split(args.engine)) if args.engine else ()
    except ValueError as error:
        raise ValueError(f"--engine {args.engine!r}: {error}") from None
    limit = f"{movetime} ms" if movetime else f"depth {args.depth}" if args.depth else ""
    limit = limit or f"{args.nodes} nodes"
    name = command[0].rsplit("/", 1)[-1] if command else "ferz"
    return Settings(
        command,
        tuple(options),
        movetime,
        args.depth,
        args.nodes,
        args.multipv,
        f"{name} {limit}",
        args.verify,
        syzygy,
    )


def verify_limits(settings: Settings) -> MoveLimits:
    """The limits of the verifying search: `verify` times the time or nodes, or the depth plus
    log2 of it (a ply roughly doubles a search)."""
    from ..match.engines import MoveLimits

    factor = settings.verify
    return MoveLimits(
        movetime=settings.movetime * factor if settings.movetime else None,
        depth=settings.depth + math.ceil(math.log2(factor)) if settings.depth else None,
        nodes=settings.nodes * factor if settings.nodes else None,
    )


def annotate_text(settings: Settings, text: str, on_move: Callable[[], None] | None = None) -> str:
    """Annotate every game of a PGN text (one engine process); the annotated PGN text."""
    from .. import pgn
    from ..analyse import Line, annotate
    from ..match.engines import EngineError, EngineSpec, MoveLimits
    from ..match.launch import launch

    games = pgn.read_games(text)  # one at a time
    tables = None
    if settings.syzygy:
        from ..syzygy import open_tablebase, parse_path

        tables = open_tablebase(parse_path(settings.syzygy))
    spec = EngineSpec(list(settings.command), options=dict(settings.options))
    limits = MoveLimits(movetime=settings.movetime, depth=settings.depth, nodes=settings.nodes)
    longer = verify_limits(settings)
    out = []
    engine = None
    variant = ""
    try:
        for game in games:
            if engine is None or not engine.alive() or variant != game.variant:
                if engine is not None:
                    engine.quit()
                variant = game.variant
                engine = launch(spec, variant)
            board = game.board()
            engine.new_game(board.fen(), True, [], board.ranks)

            def analyse(fen: str, moves: list[str], engine=engine, limits=limits) -> list[Line]:
                """The engine's lines for a position."""
                replies = engine.analyse(fen, moves, limits, settings.multipv)
                return [Line(r.score or 0, r.depth or 0, tuple(r.pv)) for r in replies]

            def verify(fen: str, moves: list[str]) -> list[Line]:
                """The engine's lines from the longer search."""
                return analyse(fen, moves, limits=longer)

            checker = verify if settings.verify > 1 else None
            annotate(game, analyse, settings.label, on_move, checker, tables)
            out.append(pgn.write(game))
    except EngineError as error:
        raise ValueError(f"the engine failed: {error}") from None
    finally:
        if engine is not None:
            engine.quit()
        if tables is not None:
            tables.close()
    return "".join(out)


class _Bar:
    """A progress line on stderr: games and positions done (of `games` in the file)."""

    def __init__(self, games: int, quiet: bool) -> None:
        self.games = games
        self.done_games = self.done_positions = 0
        self.quiet = quiet
        self.lock = threading.Lock()
        self.started = time.monotonic()

    def position(self) -> None:
        """One more position searched."""
        with self.lock:
            self.done_positions += 1
            if sys.stderr.isatty() and not self.quiet:
                self._show()

    def game(self, positions: int = 0) -> None:
        """One more game finished (`positions`: those not counted by position())."""
        with self.lock:
            self.done_games += 1
            self.done_positions += positions
            if not self.quiet:
                self._show(final=not sys.stderr.isatty())

    def _show(self, final: bool = False) -> None:
        """Write the line."""
        share = self.done_games / max(1, self.games)
        width = 24
        bar = "#" * round(width * share) + "-" * (width - round(width * share))
        text = (
            f"[{bar}] {self.done_games}/{self.games} games, "
            f"{self.done_positions} positions, {time.monotonic() - self.started:.0f} s"
        )
        sys.stderr.write(text + "\n" if final else "\r" + text)
        sys.stderr.flush()


class _Later:
    """The output file, created at the first game written: a run that writes no game leaves
    no file (and an existing one as it was); a folder that cannot take it is refused first."""

    def __init__(self, path: str) -> None:
        folder = os.path.dirname(os.path.abspath(path))
        if os.path.isdir(path) or not os.access(folder, os.W_OK):
            raise ValueError(f"cannot write {path}: not a writable file")
        self.path = path
        self.handle: TextIO | None = None

    def write(self, text: str) -> int:
        """Write, creating the file first if it is not open yet."""
        if self.handle is None:
            try:
                self.handle = open(self.path, "w", encoding="utf-8")  # noqa: SIM115
            except OSError as error:
                raise ValueError(f"cannot write {self.path}: {error.strerror}") from None
        return self.handle.write(text)

    def flush(self) -> None:
        """Flush what was written (nothing before the first game)."""
        if self.handle is not None:
            self.handle.flush()

    def close(self) -> None:
        """Close the file if it was created."""
        if self.handle is not None:
            self.handle.close()


class _InOrder:
    """Annotated games written as they finish, in the order of the input (a game that finishes
    early waits for those before it), each flushed: a stopped run keeps what it did."""

    def __init__(self, out: TextIO | _Later) -> None:
        self.out = out
        self.waiting: dict[int, str] = {}
        self.next = 0
        self.lock = threading.Lock()

    def put(self, index: int, text: str) -> None:
        """The annotated text of the index-th good game."""
        with self.lock:
            self.waiting[index] = text
            while self.next in self.waiting:
                self.out.write(self.waiting.pop(self.next))
                self.out.flush()
                self.next += 1


def _games(path: str, bad: list[str]) -> Iterator[tuple[int, str, int]]:
    """(number, PGN text, positions) of each good game of a file, read one at a time; the
    errors of bad games (reported at once on stderr, then skipped) go to `bad`."""
    from .. import pgn

    number = 0
    with _open(path) as handle:
        for game in pgn.stream_games(handle):
            if game.errors:
                bad.append(game.errors[0])
                print(
                    f"ferz analyse: {path}: skipped a bad game: {game.errors[0]}", file=sys.stderr
                )
                continue
            yield number, pgn.write(game), len(game.mainline_moves()) + 1
            number += 1


def _open(path: str) -> TextIO:
    """A PGN file opened for reading; ValueError if it cannot be."""
    try:
        return open(path, encoding="utf-8-sig", errors="replace")  # noqa: SIM115
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None


def _count(path: str) -> int:
    """The games of a file (pgn.skip_game: the moves are not read)."""
    from .. import pgn

    count = 0
    with _open(path) as handle:
        while pgn.skip_game(handle):
            count += 1
    return count


def main(args: argparse.Namespace) -> int:
    """Run `ferz analyse`: the games are read one at a time and each annotated game is written
    as it finishes (in the input's order); bad games are reported and skipped."""
    settings = settings_from(args)
    total = _count(args.games)
    if not total:
        raise ValueError(f"{args.games}: no games")
    bar = _Bar(total, args.quiet)
    bad: list[str] = []
    out: TextIO | _Later = _Later(args.output) if args.output else sys.stdout
    try:
        writer = _InOrder(out)
        games = _games(args.games, bad)
        if args.ray:
            _run_ray(settings, games, writer, bar, args.ray)
        else:
            _run_local(settings, games, writer, bar, args.jobs, total)
    finally:
        if out is not sys.stdout:
            out.close()
    if not args.quiet and sys.stderr.isatty():
        sys.stderr.write("\n")
    if bad and not writer.next:
        raise ValueError(f"no game of {args.games} could be read: {bad[0]}")
    return 0


#: Ray tasks in flight at once (the games read ahead of the cluster)
RAY_WINDOW = 64


def _run_ray(
    settings: Settings,
    games: Iterator[tuple[int, str, int]],
    writer: _InOrder,
    bar: _Bar,
    address: str,
) -> None:
    """Annotate each game as a Ray task (one CPU each), at most RAY_WINDOW at a time."""
    from ..match.cluster import session

    with session(address) as ray:
        remote = ray.remote(num_cpus=1, max_retries=3)(annotate_text)
        refs: dict = {}
        for item in itertools.chain(games, [None]):
            if item is not None:
                number, text, positions = item
                refs[remote.remote(settings, text)] = (number, positions)
            while refs and (item is None or len(refs) >= RAY_WINDOW):
                done, _ = ray.wait(list(refs), num_returns=1)
                number, positions = refs.pop(done[0])
                writer.put(number, ray.get(done[0]))
                bar.game(positions)


def _run_local(
    settings: Settings,
    games: Iterator[tuple[int, str, int]],
    writer: _InOrder,
    bar: _Bar,
    jobs: int,
    total: int,
) -> None:
    """Annotate the games on `jobs` threads (each with its own engine process), each taking
    the next game from the file."""
    from ..match.runner import on_threads

    lock = threading.Lock()

    def work(_: int) -> None:
        """Annotate the next game."""
        with lock:
            item = next(games, None)
        if item is None:
            return
        number, text, _positions = item
        writer.put(number, annotate_text(settings, text, bar.position))
        bar.game()

    on_threads(total, jobs, work)
