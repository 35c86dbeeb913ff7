"""`ferz datagen`: the command line of training-data generation, and `--dump` of its files."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from ..datagen.fileformat import FormatError, read_chunk
from ..datagen.generate import (
    DRIVERS,
    LOCK,
    MANIFEST,
    RECIPE,
    Recipe,
    cache_dir,
    dataset,
    generate,
)
from ..files import release
from ..match.runner import default_concurrency

EXAMPLES = """\
examples:
  ferz datagen --engine stockfish --games 2000 --nodes 400 --seed 1 --concurrency 2
  ferz datagen --engine stockfish --games 2000 --nodes 400 --driver selfplay
  ferz datagen --engine ferz --games 200 --nodes 2000 --random-moves 0.03
  ferz datagen --engine fairy-stockfish --variant xiangqi --games 500 --nodes 1000
  ferz datagen --games 100000 --nodes 400 --ray auto        # a Ray cluster, one task a game
  ferz datagen --dump ~/.cache/ferz/datagen/stockfish-chess-400n-s1 | head

Running the same command again continues an interrupted run (nothing lost, nothing twice)
or, with a larger --games, extends the data; the same command on another machine writes the
same bytes (fixed nodes, one thread per engine). The data go to
$XDG_CACHE_HOME/ferz/datagen/NAME (default NAME: ENGINE-VARIANT-NODESn-sSEED, with
-selfplay after it for --driver selfplay) with
recipe.json (command, settings, engine and ferz versions) and manifest.json (chunks done).
Train on them with: python3 tools/nnue.py train DIR --out net.nnue (docs/engine.md)."""


def plies(text: str) -> tuple[int, int]:
    """LOW:HIGH (or N: exactly N) as a pair of ints; argparse's error otherwise."""
    low, _, high = text.partition(":")
    try:
        pair = (int(low), int(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected LOW:HIGH, e.g. 6:11") from None
    return pair


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `ferz datagen`."""
    default = Recipe()
    add = parser.add_argument
    add(
        "--engine",
        default=default.engine,
        help="UCI engine: a program (path or name on PATH) or 'ferz' (default: stockfish)",
    )
    add(
        "--variant",
        default=default.variant,
        help="variant (UCI_Variant for engines other than ferz; default: chess)",
    )
    add(
        "--games",
        type=int,
        default=1000,
        help="games to play in all, rounded up to whole chunks (default 1000)",
    )
    add(
        "--nodes",
        type=int,
        default=default.nodes,
        help=f"node budget per move (default {default.nodes})",
    )
    add(
        "--seed",
        type=int,
        default=default.seed,
        help="seed of openings and random moves (default 1)",
    )
    add("--name", help="recipe name: the output directory's (default ENGINE-VARIANT-NODESn-sSEED)")
    add("--out", type=Path, help="output directory (default $XDG_CACHE_HOME/ferz/datagen/NAME)")
    add(
        "--openings",
        default="",
        metavar="FILE",
        help="EPD/FEN or PGN openings (.pgn: the position after each game's main line; "
        "default: the bundled set, chess only)",
    )
    add(
        "--book-share",
        type=float,
        default=default.book_share,
        help="share of games from a book opening, the rest from the start (default 0.5)",
    )
    add(
        "--book-plies",
        type=plies,
        default=default.book_plies,
        metavar="LOW:HIGH",
        help="random plies after a book opening (default 0:4)",
    )
    add(
        "--start-plies",
        type=plies,
        default=default.start_plies,
        metavar="LOW:HIGH",
        help="random plies from the start position (default 6:11)",
    )
    add(
        "--random-moves",
        type=float,
        default=default.random_moves,
        help="share of moves replaced by random ones (default 0)",
    )
    add(
        "--max-opening-score",
        type=int,
        default=default.max_opening_score,
        help="drop games whose first score is larger (cp, default 600)",
    )
    add(
        "--score-cap",
        type=int,
        default=default.score_cap,
        help="drop positions with a larger |score| (cp, default 3000; mates too)",
    )
    add("--keep-checks", action="store_true", help="keep positions with the side to move in check")
    add(
        "--keep-tactical",
        action="store_true",
        help="keep positions whose best move captures, promotes or checks",
    )
    add(
        "--keep-tails",
        action="store_true",
        help="keep the deciding window of games adjudicated by score",
    )
    add(
        "--resign-score",
        type=int,
        default=default.resign_score,
        help="adjudicate a win when both sides see this for --resign-moves moves (default 1500)",
    )
    add(
        "--resign-moves",
        type=int,
        default=default.resign_moves,
        help="moves of each side for that (default 3)",
    )
    add(
        "--max-moves",
        type=int,
        default=default.max_moves,
        help="adjudicate a draw at this many moves (default 200)",
    )
    add(
        "--driver",
        choices=DRIVERS,
        default=default.driver,
        help="match: ferz match's runner and referee, two engine processes per game; "
        "selfplay: a chunk's games interleaved on one long-lived engine a lane, several times "
        "the positions per CPU second, other games for the same seed (default match)",
    )
    add("--hash", type=int, default=default.hash_mb, help="engine hash MB (default 16)")
    add(
        "--chunk-games",
        type=int,
        default=default.chunk_games,
        help="games per output file and manifest step (default 50)",
    )
    add(
        "--concurrency",
        type=int,
        default=default_concurrency(),
        help="games at once (default: cores less one)",
    )
    add(
        "--ray",
        metavar="ADDRESS",
        help="play the games as Ray tasks (auto: this machine's cluster, local: a private one)",
    )
    add(
        "--dump",
        type=Path,
        metavar="PATH",
        help="print the positions of a datagen directory or file as text and exit: "
        "FEN;result;score;ply;flags, White's view",
    )


def recipe_of(args: argparse.Namespace) -> Recipe:
    """The recipe the options describe."""
    return Recipe(
        engine=args.engine, variant=args.variant, nodes=args.nodes, seed=args.seed,
        openings=args.openings, book_share=args.book_share, book_plies=args.book_plies,
        start_plies=args.start_plies, random_moves=args.random_moves,
        max_opening_score=args.max_opening_score, score_cap=args.score_cap,
        keep_checks=args.keep_checks, keep_tactical=args.keep_tactical,
        keep_tails=args.keep_tails, resign_score=args.resign_score,
        resign_moves=args.resign_moves, max_moves=args.max_moves, hash_mb=args.hash,
        chunk_games=args.chunk_games, driver=args.driver,
    )  # fmt: skip


def dump(path: Path) -> int:
    """Print the positions of a datagen directory or chunk file as text lines."""
    for chunk in dataset(path):
        _, records = read_chunk(chunk)
        for r in records:
            print(f"{r.fen};{r.white_result():.1f};{r.white_score()};{r.ply};{r.flags}")
    return 0


def _remove_unused(out: Path) -> None:
    """Delete a new output folder that holds no chunk: its recipe, manifest and lock only."""
    if any(path.name.startswith("chunk-") for path in out.glob("*")):
        return
    release(out / LOCK)
    for name in (MANIFEST, RECIPE, f"{LOCK}.lock"):
        with contextlib.suppress(OSError):
            (out / name).unlink()
    with contextlib.suppress(OSError):
        out.rmdir()  # only if nothing else is there


def main(args: argparse.Namespace) -> int:
    """Run `ferz datagen`; ValueError (printed by ferz's main) for bad input."""
    if args.dump:
        try:
            return dump(args.dump)
        except FormatError as error:
            raise ValueError(str(error)) from None
    recipe = recipe_of(args)
    out = Path(args.out or cache_dir(args.name or recipe.default_name()))
    command = ["ferz", *sys.argv[1:]]
    created = not out.exists()
    try:
        progress = generate(recipe, args.games, out, args.concurrency, args.ray, command)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted: the finished chunks are kept in {out}; "
            "run the same command to continue",
            file=sys.stderr,
        )
        return 130
    except BaseException:
        if created:
            _remove_unused(out)  # a run that could not start leaves no folder of its own
        raise
    finally:
        release(out / LOCK)  # a run that ended leaves no datagen.lock
    rate = progress.positions / max(progress.seconds, 1e-9)
    print(
        f"{progress.games} games, {progress.positions} positions in {progress.seconds:.0f} s "
        f"({rate:.0f}/s), {progress.duplicates} duplicates dropped: {out}"
    )
    return 0
