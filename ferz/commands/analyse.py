"""`ferz analyse`: annotate the games of a PGN file, on local processes or Ray tasks."""

from __future__ import annotations

import argparse
import math
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..match.engines import MoveLimits

#: how much longer the verifying search of a doubtful move is (time, nodes; depth + log2)
VERIFY_FACTOR = 3

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
    options = []
    for option in args.option:
        name, sep, value = option.partition("=")
        if not sep:
            raise ValueError(f"--option {option!r}: expected NAME=VALUE")
        options.append((name, value))
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

    games = list(pgn.read_games(text))
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
    """A progress line on stderr: games and positions done."""

    def __init__(self, games: int, positions: int, quiet: bool) -> None:
        self.games, self.positions = games, positions
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

    def game(self) -> None:
        """One more game finished."""
        with self.lock:
            self.done_games += 1
            if not self.quiet:
                self._show(final=not sys.stderr.isatty())

    def _show(self, final: bool = False) -> None:
        """Write the line."""
        share = self.done_positions / max(1, self.positions)
        width = 24
        bar = "#" * round(width * share) + "-" * (width - round(width * share))
        text = (
            f"[{bar}] {self.done_games}/{self.games} games, "
            f"{self.done_positions}/{self.positions} positions, "
            f"{time.monotonic() - self.started:.0f} s"
        )
        sys.stderr.write(text + "\n" if final else "\r" + text)
        sys.stderr.flush()


def main(args: argparse.Namespace) -> int:
    """Run `ferz analyse`."""
    from .. import pgn

    settings = settings_from(args)
    games = pgn.read_file(args.games)
    if not games:
        raise ValueError(f"{args.games}: no games")
    texts = [pgn.write(game) for game in games]
    positions = sum(len(game.mainline_moves()) + 1 for game in games)
    bar = _Bar(len(games), positions, args.quiet)
    results: list[str | None] = [None] * len(texts)
    if args.ray:
        _run_ray(
            settings, texts, results, bar, args.ray, [len(g.mainline_moves()) + 1 for g in games]
        )
    else:
        _run_local(settings, texts, results, bar, args.jobs)
    if not args.quiet and sys.stderr.isatty():
        sys.stderr.write("\n")
    output = "".join(text or "" for text in results)
    if args.output:
        from ..files import write_atomically

        try:
            write_atomically(args.output, output)  # a stopped run leaves no half a file
        except OSError as error:
            raise ValueError(f"cannot write {args.output}: {error.strerror}") from None
    else:
        sys.stdout.write(output)
    return 0


def _run_ray(
    settings: Settings,
    texts: list[str],
    results: list[str | None],
    bar: _Bar,
    address: str,
    sizes: list[int],
) -> None:
    """Annotate each game as a Ray task (one CPU each)."""
    from ..match.cluster import session

    with session(address) as ray:
        remote = ray.remote(num_cpus=1, max_retries=3)(annotate_text)
        refs = {remote.remote(settings, text): index for index, text in enumerate(texts)}
        while refs:
            done, _ = ray.wait(list(refs), num_returns=1)
            index = refs.pop(done[0])
            results[index] = ray.get(done[0])
            bar.done_positions += sizes[index]
            bar.game()


def _run_local(
    settings: Settings, texts: list[str], results: list[str | None], bar: _Bar, jobs: int
) -> None:
    """Annotate the games on `jobs` threads (each with its own engine process)."""
    from ..match.runner import on_threads

    def work(index: int) -> None:
        """Annotate one game."""
        results[index] = annotate_text(settings, texts[index], bar.position)
        bar.game()

    on_threads(len(texts), jobs, work)
