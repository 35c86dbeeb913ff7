"""Time the opening explorer of a real `ferz web`: import a PGN database through its API, then
ask for the moves of many positions of its games, one request at a time.

    python tools/web_explorer_timing.py GAMES.pgn [--positions 1000] [--seed 1] [--check 20]

GAMES.pgn: e.g. `python tools/pgn_games.py make games.pgn --games 10000 --seed 1` (never
committed). Starts `ferz web --no-browser` on a free port with a fresh database, POSTs the file
to /api/explorer/import (its time, games and rows), then GETs /api/explorer for `--positions`
positions drawn from the games' first 30 plies (each a fresh HTTP connection, as a browser's
first request) and prints the median, 95th percentile and largest time, and how many of the
positions had moves. `--check N`: then, for the N positions of the games' first 30 plies played
in the most games, the server's answer against `ferz book build`'s raw counts of the same file
(its reader and counting, `book.count_lines`): each move's games and score for the mover.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ferz import book, pgn  # noqa: E402
from ferz.board import Board  # noqa: E402
from ferz.commands import book as book_command  # noqa: E402
from ferz.web.explorer import MAX_PLY  # noqa: E402


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def positions(path: str, count: int, seed: int) -> list[str]:
    """FENs at a random ply (below MAX_PLY) of random games of the file."""
    with open(path, encoding="utf-8") as handle:
        lines = [g.mainline_moves() for g in pgn.stream_games(handle, mainline_only=True)]
    rng = random.Random(seed)
    fens = []
    for _ in range(count):
        moves = rng.choice(lines)
        board = Board()
        for uci in moves[: rng.randrange(min(len(moves), MAX_PLY) + 1)]:
            board.push_uci(uci)
        fens.append(board.fen())
    return fens


def explore(base: str, fen: str) -> dict:
    """The server's explorer answer for a chess position."""
    query = urllib.parse.urlencode({"variant": "chess", "fen": fen})
    with urllib.request.urlopen(f"{base}/api/explorer?{query}", timeout=60) as answer:
        return json.loads(answer.read())


def check_book(path: str, base: str, count: int) -> int:
    """Compare the server's answers for the `count` positions played in the most games (their
    first MAX_PLY plies) with `ferz book build`'s raw counts of the file; print and return the
    number that differ."""
    read = book_command._Read()
    counts = book.count_lines(book_command._games([path], read, MAX_PLY), MAX_PLY)
    seen: Counter[str] = Counter()
    with open(path, encoding="utf-8") as handle:
        for line in pgn.stream_mainlines(handle, max_plies=MAX_PLY):
            if line.errors:
                continue
            board = Board()
            for code in line.codes:
                seen[board.fen()] += 1
                board.position.make(code)
    differ = 0
    for fen, _ in seen.most_common(count):
        board = Board(fen)
        answer = explore(base, fen)
        mover, other = ("white", "black") if board.turn else ("black", "white")
        mine = {
            m["uci"]: (m["games"], 2 * m[mover] + m["games"] - m[mover] - m[other])
            for m in answer["moves"]
        }
        books = {
            board.parse_uci(book._move_text(raw)).uci(): stat
            for raw, stat in counts.get(book.key(board), {}).items()
        }
        # a position met again later in a game (its move counters differ) is the same key
        if mine != books or answer["games"] != sum(n for n, _ in books.values()):
            differ += 1
            print(f"differs: {fen}: explorer {mine} ({answer['games']} games), book {books}")
    print(
        f"book check: {count} positions (played in {seen.most_common(count)[-1][1]} to "
        f"{seen.most_common(1)[0][1]} games), {differ} differ from ferz book build's counts"
    )
    return differ


def main() -> int:
    """Run the timing; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn")
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", type=int, default=0, help="positions checked against the book")
    args = parser.parse_args()
    fens = positions(args.pgn, args.positions, args.seed)
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        cmd = [sys.executable, "-m", "ferz", "web", "--no-browser", "--port", str(port)]
        cmd += ["--db", str(Path(folder) / "games.sqlite3")]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                if "serving on" in line:
                    break
            base = f"http://127.0.0.1:{port}"
            data = Path(args.pgn).read_bytes()
            request = urllib.request.Request(
                base + "/api/explorer/import?variant=chess", data=data, method="POST"
            )
            started = time.perf_counter()
            with urllib.request.urlopen(request, timeout=3600) as answer:
                report = json.loads(answer.read().decode().strip().splitlines()[-1])
            took = time.perf_counter() - started
            print(
                f"import: {len(data) / 1e6:.1f} MB, {report['indexed']} games indexed "
                f"({report['bad']} bad) in {took:.1f} s ({report['indexed'] / took:.0f} games/s)"
            )
            times, found = [], 0
            for fen in fens:
                started = time.perf_counter()
                answer_json = explore(base, fen)
                times.append(1000 * (time.perf_counter() - started))
                found += bool(answer_json["moves"])
            times.sort()
            p95 = times[int(0.95 * (len(times) - 1))]
            print(
                f"lookup: {len(times)} positions ({found} with moves): median "
                f"{statistics.median(times):.1f} ms, p95 {p95:.1f} ms, max {times[-1]:.1f} ms"
            )
            if args.check and check_book(args.pgn, base, args.check):
                return 1
        finally:
            proc.terminate()
            proc.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
