"""The `ferz` command line: engine protocols, terminal and browser play, perft, bench, tools."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

DESCRIPTION = """\
ferz: a chess and chess-variant engine.

With no command, ferz speaks UCI (or xboard/CECP, USI or UCCI if the first line it reads is
`xboard`, `usi` or `ucci`), so a chess, shogi or xiangqi GUI can run it as it is."""


ENVIRONMENT = """environment:
  FERZ_PARAMS=name=value,...  change search, time or evaluation numbers of ferz/params.py
                              for this run (docs/engine.md); drops.name=value: a search
                              or time number for games with drops only; palace.name=value:
                              a search number for games with a palace (xiangqi, janggi);
                              an unknown name is an error
  FERZ_PURE=1                 run the core as plain Python (slow, same results)"""


# Tool commands, each in a module that gives EXAMPLES, add_arguments(parser) and main(args):
# name -> (module, one-line help, description or None).
TOOLS: dict[str, tuple[str, str, str | None]] = {
    "match": (
        "ferz.match.cli",
        "play a match between two engines (UCI or xboard; local or Ray)",
        "Play games between engines A and B, each opening twice with colours reversed, "
        "refereed by ferz; print W/D/L, Elo, LOS, pentanomial pairs and an SPRT.",
    ),
    "analyse": (
        "ferz.analyse_cli",
        "annotate the games of a PGN file with an engine's evaluations",
        "Annotate every move of every game: [%eval] comments, ?!, ? and ?? for mistakes with "
        "the better line as a variation, and a per-side summary.",
    ),
    "book": (
        "ferz.book_cli",
        "build a Polyglot opening book from PGN games, or list a book's moves",
        None,
    ),
    "spsa": (
        "ferz.spsa_cli",
        "tune an engine's numbers by SPSA over game pairs (resumable; local or Ray)",
        "Tune parameters as fishtest does: each iteration plays a game pair between the\n"
        "engine nudged up and nudged down, and moves every parameter towards the winner.",
    ),
    "datagen": (
        "ferz.datagen.cli",
        "generate training positions from engine self-play (resumable, reproducible)",
        "Play self-play games of an engine at a node budget from randomised\n"
        "openings and keep their quiet positions with search scores and game results, in\n"
        "chunked binary files that the same command regenerates from its seed.",
    ),
}


def _add_tools(sub: argparse._SubParsersAction, named: Sequence[str] | None) -> None:
    """The tool commands of TOOLS, each with its module's options and examples; with `named`
    (the command line's words), only the tools named there import their modules and options,
    the rest are listed by their summaries (a GUI starting `ferz` loads no tool)."""
    for name, (module, summary, description) in TOOLS.items():
        if named is not None and name not in named:
            sub.add_parser(name, help=summary)
            continue
        tool = importlib.import_module(module)
        parser = sub.add_parser(
            name,
            help=summary,
            description=description,
            epilog=tool.EXAMPLES,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        tool.add_arguments(parser)


def _add_variant(parser: argparse.ArgumentParser) -> None:
    """The --variant option shared by every command that starts a game."""
    parser.add_argument("--variant", default="chess", help="variant to play (default: chess)")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand; given the command line `argv`, only the tool
    commands that it names are built in full."""
    parser = argparse.ArgumentParser(
        prog="ferz",
        description=DESCRIPTION,
        epilog=ENVIRONMENT,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ferz {_version()}")
    parser.add_argument(
        "--variants", metavar="FILE", help="load extra variant definitions (variants.ini format)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sub.add_parser("uci", help="speak UCI on stdin/stdout")
    sub.add_parser("xboard", help="speak xboard/CECP v2 on stdin/stdout")
    sub.add_parser("usi", help="speak USI (shogi GUIs) on stdin/stdout")
    sub.add_parser("ucci", help="speak UCCI (xiangqi GUIs) on stdin/stdout")

    play = sub.add_parser("play", help="play a game in the terminal")
    _add_variant(play)
    play.add_argument("--color", choices=["white", "black", "random"], default="white")
    play.add_argument("--fen", help="start from this position")
    play.add_argument("--movetime", type=int, default=1000, help="engine ms per move")
    play.add_argument("--depth", type=int, help="engine search depth instead of time")
    play.add_argument("--elo", type=int, help="limit the engine's strength to this Elo (1340-2500)")
    play.add_argument("--ascii", action="store_true", help="letters instead of chess glyphs")
    play.add_argument("--pgn", metavar="FILE", help="append the finished game to this PGN file")
    play.add_argument(
        "--book",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the engine opens from ferz's opening book (standard chess; default: on)",
    )

    from .web.command import add_arguments as web_arguments

    web_arguments(sub.add_parser("web", help="play and analyse in the browser"))

    perft = sub.add_parser("perft", help="count the leaf nodes of the move tree")
    perft.add_argument("depth", type=int)
    perft.add_argument("--fen", help="position (default: the variant's start position)")
    perft.add_argument("--divide", action="store_true", help="print the count below each move")
    _add_variant(perft)

    bench = sub.add_parser("bench", help="search a fixed set of positions (the search's signature)")
    bench.add_argument("depth", type=int, nargs="?", default=None, help="search depth (default 10)")

    epd = sub.add_parser("epd", help="run a test suite of EPD positions (bm/am)")
    epd.add_argument(
        "file", help="an EPD file, or a bundled suite: wac, bk, ecmgcp, arasan20, mate_in_2, ..."
    )
    epd.add_argument("--movetime", type=int, default=1000, help="ms per position")
    epd.add_argument("--nodes", type=int, help="fixed nodes per position instead of time")
    epd.add_argument("--threads", type=int, default=1)
    epd.add_argument("--hash", type=int, default=64, help="transposition table MB")

    _add_tools(sub, argv)

    check = sub.add_parser("check", help="validate a variants.ini file")
    check.add_argument("file")

    sub.add_parser("variants", help="list the built-in variants")
    return parser


def _version() -> str:
    """The installed package version."""
    from . import __version__

    return __version__


def _load_variants(path: str | None) -> None:
    """Load a user variants file before any command runs."""
    if path:
        from . import variants

        variants.load_file(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    _warn_if_pure()
    try:
        _load_variants(args.variants)
        return _dispatch(args)
    except ValueError as error:
        print(f"ferz: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _warn_if_pure() -> None:
    """One line on stderr when the core runs uncompiled although FERZ_PURE did not ask for it
    (ferz was installed without a C compiler)."""
    from .core import PURE, compiled

    if not PURE and not compiled():
        print(
            "ferz: warning: the core is not compiled (ferz was installed without a C compiler), "
            "so it runs as plain Python, hundreds of times slower; install a C compiler and "
            "reinstall ferz for full speed",
            file=sys.stderr,
        )


def _dispatch(args: argparse.Namespace) -> int:
    """Hand the parsed arguments to the module that owns the command."""
    command = args.command
    if command in (None, "uci", "xboard", "usi", "ucci"):
        from .protocol import run

        return run(command)
    if command == "perft":
        from .perft import main as perft_main

        return perft_main(args.depth, fen=args.fen, variant=args.variant, divide=args.divide)
    if command == "bench":
        from .bench import main as bench_main

        return bench_main(args.depth)
    if command == "epd":
        from .epd import main as epd_main

        return epd_main(
            args.file,
            movetime=args.movetime,
            threads=args.threads,
            hash_mb=args.hash,
            nodes=args.nodes,
        )
    if command == "play":
        from .play import main as play_main

        return play_main(args)
    if command == "web":
        from .web.server import main as web_main

        return web_main(args)
    if command in TOOLS:
        return int(importlib.import_module(TOOLS[command][0]).main(args))
    if command == "check":
        from .variants import check_main

        return check_main(args.file)
    if command == "variants":
        from .variants import list_main

        return list_main()
    raise AssertionError(command)


if __name__ == "__main__":
    sys.exit(main())
