"""PGN test files and reading speed: seeded random legal games, ferz.pgn against python-chess.

    python tools/pgn_games.py make big.pgn --games 3000 --seed 1
        random legal games of 40-120 plies (python-chess), lichess-style: the seven tags and
        Elo, TimeControl, ECO; a [%clk] comment on every move, [%eval] on some, NAGs, text
        comments and variations (`--style plain`: moves only; `--style clock`: clocks only)
    python tools/pgn_games.py speed big.pgn [--games 1000] [--repeat 3]
        games a second of python-chess's `chess.pgn.read_game` loop and of ferz.pgn (full
        trees, the main line only, headers only), side by side in one run: `--repeat` rounds,
        each reader in turn, the best round of each compared; `--against DIR` also times
        ferz.pgn as another checkout has it (DIR on the path, built: `git worktree add DIR
        REV` then `make build` there) in a worker process, in the same rounds: before and
        after a change, interleaved

The files are never committed (a few MB for 3 000 games); the seed makes them again.
Needs python-chess (pip install chess).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import chess
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

STYLES = ("rich", "clock", "plain")
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
NAMES = ("Magnus", "Hikaru", "alice", "bob", "DrNykterstein", "penguin_42", "Kasparov", "zugzwang")


def _clock(seconds: float) -> str:
    """A lichess [%clk h:mm:ss] annotation."""
    whole = max(0, int(seconds))
    return f"[%clk {whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}]"


def random_game(rng: random.Random, number: int, style: str = "rich") -> chess.pgn.Game:
    """One seeded random legal game of 40-120 plies (fewer where it ends), as python-chess's
    tree, annotated after `style`."""
    game = chess.pgn.Game()
    headers = game.headers
    headers["Event"] = rng.choice(["Rated Blitz game", "Rated Rapid game", "Casual game"])
    headers["Site"] = "https://lichess.org/" + "".join(rng.choice(ALPHABET) for _ in range(8))
    year, month, day = rng.randrange(2010, 2027), rng.randrange(1, 13), rng.randrange(1, 29)
    headers["Date"] = f"{year}.{month:02d}.{day:02d}"
    headers["Round"] = "-"
    headers["White"] = f"{rng.choice(NAMES)}{rng.randrange(1000)}"
    headers["Black"] = f"{rng.choice(NAMES)}{rng.randrange(1000)}"
    headers["WhiteElo"] = str(rng.randrange(800, 2900))
    headers["BlackElo"] = str(rng.randrange(800, 2900))
    base, increment = rng.choice([(180, 0), (180, 2), (300, 3), (600, 0), (60, 1)])
    headers["TimeControl"] = f"{base}+{increment}"
    headers["ECO"] = f"{'ABCDE'[rng.randrange(5)]}{rng.randrange(100):02d}"
    headers["Termination"] = "Normal"
    headers["GameId"] = str(number)
    board = game.board()
    node: chess.pgn.GameNode = game
    clocks = [float(base), float(base)]
    for _ in range(rng.randint(40, 120)):
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        child = node.add_variation(move)
        if style != "plain":
            side = 0 if board.turn else 1
            clocks[side] = max(0.0, clocks[side] - rng.random() * 8) + increment
            notes = []
            if style == "rich" and rng.random() < 0.2:
                notes.append(f"[%eval {rng.uniform(-5, 5):.2f}]")
            notes.append(_clock(clocks[side]))
            if style == "rich" and rng.random() < 0.05:
                notes.append(rng.choice(["a good move", "the only move", "Inaccuracy. Best was"]))
            child.comment = " ".join(notes)
        if style == "rich":
            if rng.random() < 0.05:
                child.nags.add(rng.choice([1, 2, 3, 4, 5, 6, 10, 14, 18]))
            if rng.random() < 0.05 and len(moves) > 1:
                _variation(rng, node, board, rng.choice([m for m in moves if m != move]))
        board.push(move)
        node = child
        if board.is_game_over(claim_draw=False):
            break
    outcome = board.outcome()
    headers["Result"] = outcome.result() if outcome else rng.choice(["1-0", "0-1", "1/2-1/2"])
    return game


def _variation(rng: random.Random, node: chess.pgn.GameNode, board: chess.Board, move) -> None:
    """An alternative to node's main move: a few random plies, sometimes with comments."""
    side = node.add_variation(move)
    if rng.random() < 0.3:
        side.starting_comment = "or"
    if rng.random() < 0.3:
        side.comment = "also possible"
    line = board.copy()
    line.push(move)
    for _ in range(rng.randint(0, 6)):
        replies = list(line.legal_moves)
        if not replies:
            break
        reply = rng.choice(replies)
        side = side.add_variation(reply)
        if rng.random() < 0.1:
            side.nags.add(rng.choice([1, 2, 6]))
        line.push(reply)


def games_text(count: int, seed: int, style: str = "rich") -> Iterator[str]:
    """PGN texts of `count` seeded random games, one game each (a blank line after it)."""
    rng = random.Random(seed)
    for number in range(count):
        game = random_game(rng, number, style)
        yield str(game) + "\n\n"


def make(path: str, count: int, seed: int, style: str) -> None:
    """Write the games to `path`."""
    with open(path, "w", encoding="utf-8") as out:
        for text in games_text(count, seed, style):
            out.write(text)


def _timed(read: Callable[[io.TextIOBase, int], int], path: str, limit: int) -> tuple[int, float]:
    """(games, seconds) of one reader over the file's first `limit` games."""
    with open(path, encoding="utf-8-sig") as handle:
        start = time.perf_counter()
        games = read(handle, limit)
        return games, time.perf_counter() - start


def _loop(read_one: Callable[[io.TextIOBase], object]) -> Callable[[io.TextIOBase, int], int]:
    """A reader of up to `limit` games from a function that reads the next one."""

    def read(handle: io.TextIOBase, limit: int) -> int:
        games = 0
        while games < limit and read_one(handle) is not None:
            games += 1
        return games

    return read


#: the worker that times another checkout's ferz.pgn (speed --against): a line in ("full" or
#: "mainline"), a line out ("games seconds"); it stays up between rounds, so its caches are as
#: warm as those of the ferz.pgn imported here
_WORKER = """
import sys, time
from ferz import pgn
path, limit = sys.argv[1], int(sys.argv[2])
for line in sys.stdin:
    only = line.strip() == "mainline"
    with open(path, encoding="utf-8-sig") as handle:
        start, games = time.perf_counter(), 0
        while games < limit and pgn.read_game(handle, mainline_only=only) is not None:
            games += 1
        print(games, time.perf_counter() - start, flush=True)
"""


def _worker(against: str, path: str, limit: int) -> subprocess.Popen:
    """A process timing the ferz.pgn of the checkout at `against`."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(against))
    return subprocess.Popen(
        [sys.executable, "-c", _WORKER, path, str(limit)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=os.path.abspath(against),
    )


def _worker_timed(worker: subprocess.Popen, what: str) -> tuple[int, float]:
    """(games, seconds) of one of the worker's rounds."""
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(what + "\n")
    worker.stdin.flush()
    games, seconds = worker.stdout.readline().split()
    return int(games), float(seconds)


def speed(path: str, limit: int, repeat: int, against: str | None = None) -> None:
    """python-chess and ferz.pgn on the same file, side by side: each round times every reader
    once, in turn (a shared machine's load falls on all of them); the best round of each
    reader is compared. `against`: a checkout whose ferz.pgn is timed too (before/after)."""
    from ferz import pgn

    readers: dict[str, Callable[[], tuple[int, float]]] = {
        "python-chess read_game": lambda: _timed(_loop(chess.pgn.read_game), path, limit),
        "ferz.pgn read_game": lambda: _timed(_loop(pgn.read_game), path, limit),
        "ferz.pgn read_game(mainline_only)": lambda: _timed(
            _loop(lambda h: pgn.read_game(h, mainline_only=True)), path, limit
        ),
        "python-chess read_headers": lambda: _timed(_loop(chess.pgn.read_headers), path, limit),
        "ferz.pgn read_headers": lambda: _timed(_loop(pgn.read_headers), path, limit),
    }
    worker = None
    if against:
        worker = _worker(against, path, limit)
        readers["against: read_game"] = lambda: _worker_timed(worker, "full")
        readers["against: read_game(mainline_only)"] = lambda: _worker_timed(worker, "mainline")
    best: dict[str, float] = {}
    for round_ in range(1, repeat + 1):
        for label, read in readers.items():
            games, seconds = read()
            best[label] = min(best.get(label, seconds / games), seconds / games)
            print(
                f"round {round_}: {label:34} {games:7} games {seconds:8.2f} s "
                f"{games / seconds:9.0f} games/s",
                flush=True,
            )
    for label, seconds in best.items():
        print(f"best: {label:34} {1 / seconds:9.0f} games/s")
    full = best["python-chess read_game"]
    print(
        f"ratio (ferz games/s over python-chess's, best rounds): "
        f"full {full / best['ferz.pgn read_game']:.2f}, "
        f"mainline {full / best['ferz.pgn read_game(mainline_only)']:.2f}, "
        f"headers {best['python-chess read_headers'] / best['ferz.pgn read_headers']:.2f}",
        flush=True,
    )
    if worker is not None:
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait()
        other, other_main = best["against: read_game"], best["against: read_game(mainline_only)"]
        print(
            f"against (its games/s over python-chess's): full {full / other:.2f}, "
            f"mainline {full / other_main:.2f}; this checkout over it: "
            f"full {other / best['ferz.pgn read_game']:.2f}, "
            f"mainline {other_main / best['ferz.pgn read_game(mainline_only)']:.2f}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make_parser = sub.add_parser("make", help="write a file of seeded random games")
    make_parser.add_argument("out", metavar="OUT.pgn")
    make_parser.add_argument("--games", type=int, default=3000)
    make_parser.add_argument("--seed", type=int, default=1)
    make_parser.add_argument("--style", choices=STYLES, default="rich")
    speed_parser = sub.add_parser("speed", help="ferz.pgn against python-chess, games a second")
    speed_parser.add_argument("pgn", metavar="GAMES.pgn")
    speed_parser.add_argument("--games", type=int, default=10**9, help="read at most these")
    speed_parser.add_argument("--repeat", type=int, default=3, help="rounds (3)")
    speed_parser.add_argument(
        "--against", metavar="DIR", help="also time the ferz.pgn of the checkout at DIR"
    )
    args = parser.parse_args(argv)
    if args.command == "make":
        make(args.out, args.games, args.seed, args.style)
        print(f"{args.out}: {args.games} games, {Path(args.out).stat().st_size} bytes")
    else:
        speed(args.pgn, args.games, args.repeat, args.against)
    return 0


if __name__ == "__main__":
    sys.exit(main())
