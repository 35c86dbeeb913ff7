"""The `ferz` command line: one module per subcommand, dispatched from here."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

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


# Every subcommand is a module of this package (the four protocols share `protocol`) with
# add_arguments(parser) and main(args) -> int, and optionally DESCRIPTION (the text above its
# options) and EXAMPLES (the text below them). Their one-line summaries live here, so that
# `ferz` started by a GUI, or `ferz --help`, imports no command module but the one it runs.
COMMANDS: dict[str, str] = {
    "uci": "speak UCI on stdin/stdout",
    "xboard": "speak xboard/CECP v2 on stdin/stdout",
    "usi": "speak USI (shogi GUIs) on stdin/stdout",
    "ucci": "speak UCCI (xiangqi GUIs) on stdin/stdout",
    "play": "play a game in the terminal",
    "web": "play and analyse in the browser",
    "perft": "count the leaf nodes of the move tree",
    "bench": "search a fixed set of positions (the search's signature)",
    "epd": "run a test suite of EPD positions (bm/am)",
    "match": "play a match between two engines (UCI or xboard; local or Ray)",
    "analyse": "annotate the games of a PGN file with an engine's evaluations",
    "book": "build a Polyglot opening book from PGN games, or list a book's moves",
    "spsa": "tune an engine's numbers by SPSA over game pairs (resumable; local or Ray)",
    "datagen": "generate training positions from engine self-play (resumable, reproducible)",
    "tb": "build and probe ferz's own endgame tables (any variant without drops)",
    "check": "validate a variants.ini file",
    "variants": "list the built-in variants",
}

PROTOCOLS = ("uci", "xboard", "usi", "ucci")


def option_pairs(values: Sequence[str]) -> list[tuple[str, str]]:
    """Engine options given as `--option NAME=VALUE` (repeatable), as (name, value) pairs;
    ValueError for one without `=`."""
    pairs = []
    for option in values:
        name, sep, value = option.partition("=")
        if not sep or not name:
            raise ValueError(f"--option {option!r}: expected NAME=VALUE")
        pairs.append((name, value))
    return pairs


def module_of(command: str | None):
    """The module that runs a command (None, ferz alone: the protocol told by the first line)."""
    name = "protocol" if command is None or command in PROTOCOLS else command
    return importlib.import_module(f"{__name__}.{name}")


def _add_commands(sub: argparse._SubParsersAction, named: Sequence[str] | None) -> None:
    """Every command's sub-parser; with `named` (the command line's words) only the commands
    named there import their modules and declare their options, the rest are listed by their
    summaries (a GUI starting `ferz` loads no command module)."""
    for name, summary in COMMANDS.items():
        if named is not None and name not in named:
            sub.add_parser(name, help=summary)
            continue
        module = module_of(name)
        parser = sub.add_parser(
            name,
            help=summary,
            description=getattr(module, "DESCRIPTION", None)
            or summary[0].upper() + summary[1:] + ".",
            epilog=getattr(module, "EXAMPLES", None),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(parser)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand; given the command line `argv`, only the
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
    _add_commands(parser.add_subparsers(dest="command", metavar="COMMAND"), argv)
    return parser


def _version() -> str:
    """The installed package version."""
    from .. import __version__

    return __version__


def _load_variants(path: str | None) -> None:
    """Load a user variants file before any command runs."""
    if path:
        from .. import variants

        variants.load_file(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code.

    The one place of the error contract (README.md, "Errors"): whatever a command cannot do
    for a reason outside ferz (bad input, a file that cannot be read or written, a missing
    optional package, an engine that fails) ends here as one line `ferz: error: ...` on
    stderr and exit code 2; anything else is a bug and keeps its traceback."""
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    _warn_if_pure()
    try:
        _check_params(args.command)
        _load_variants(args.variants)
        return _dispatch(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # sorted by failure_message: a bug is raised again
        message = failure_message(error)
        if message is None:
            raise
        print(f"ferz: error: {message}", file=sys.stderr)
        return 2


def failure_message(error: BaseException) -> str | None:
    """The one-line message of an error that the contract reports (ValueError for bad input,
    ferz.errors.Failure, an OSError, a missing optional package), or None for a bug."""
    from ..errors import Failure, missing_package

    if isinstance(error, ImportError):
        error = missing_package(error) or error
    if isinstance(error, OSError) and error.strerror:
        # its words, not its repr: "games.pgn: No such file or directory", no [Errno 2]
        place = error.filename
        text = error.strerror if place is None else f"{place}: {error.strerror}"
    elif isinstance(error, (ValueError, Failure, OSError)):
        text = str(error) or type(error).__name__
    else:
        return None
    return " ".join(text.split())


def _check_params(command: str | None) -> None:
    """ValueError naming a bad FERZ_PARAMS item (ferz.params reads it when imported) for
    every command, perft's too; in a protocol, the GUI's first line is answered with the same
    reason first (docs/engine.md)."""
    try:
        from .. import params  # noqa: F401
    except ValueError as error:
        if command is None or command in PROTOCOLS:
            from .protocol import refuse

            refuse(command, str(error))
        raise


def _warn_if_pure() -> None:
    """One line on stderr when the core runs uncompiled although FERZ_PURE did not ask for it."""
    message = pure_warning()
    if message:
        print(f"ferz: warning: {message}", file=sys.stderr)


def pure_warning() -> str | None:
    """Why the core runs as plain Python when FERZ_PURE did not ask for it, or None: the
    uncompiled source tree of a checkout shadowing an installed, compiled ferz (`python -m
    ferz` in the repository after a plain `pip install .`: Python imports the ./ferz of the
    folder it runs in first), a checkout never compiled, or an install without a C compiler."""
    from ..core import PURE, compiled

    if PURE or compiled():
        return None
    package = Path(__file__).resolve().parents[1]
    shown = "./ferz" if package.parent == Path.cwd().resolve() else str(package)
    slow = "so it runs as plain Python, hundreds of times slower"
    installed = _compiled_copy(package)
    if installed is not None:
        return (
            f"you are running the uncompiled source tree in {shown}, not the installed ferz "
            f"in {installed} ({slow}): run from another folder, or pip install -e . to "
            "compile the tree in place"
        )
    if (package.parent / "setup.py").is_file() and (package.parent / "pyproject.toml").is_file():
        return (
            f"the core in the source tree {shown} is not compiled ({slow}): pip install -e . "
            "(or make build) compiles it in place; it needs a C compiler"
        )
    return (
        f"the core is not compiled (ferz was installed without a C compiler), {slow}; "
        "install a C compiler and reinstall ferz for full speed"
    )


def _compiled_copy(package: Path) -> Path | None:
    """Another ferz package that Python would import from elsewhere (site-packages, an
    editable install's tree) whose core is compiled, or None."""
    import importlib.machinery

    elsewhere = [p for p in sys.path if Path(p or ".").resolve() != package.parent]
    for finder in sys.meta_path:
        try:
            spec = finder.find_spec("ferz", elsewhere)  # type: ignore[attr-defined]
        except Exception:  # a finder that cannot answer this question is no copy
            continue
        places = (spec.submodule_search_locations or []) if spec else []
        for place in places:
            core = Path(place).resolve() / "core"
            if core.parent == package:
                continue
            suffixes = importlib.machinery.EXTENSION_SUFFIXES
            if any((core / f"position{suffix}").is_file() for suffix in suffixes):
                return core.parent
    return None


def _dispatch(args: argparse.Namespace) -> int:
    """Hand the parsed arguments to the module that owns the command."""
    return int(module_of(args.command).main(args))


if __name__ == "__main__":
    sys.exit(main())
