"""Syzygy measurements: ferz's probes against python-chess's reader, and endgame test sets.

    python tools/syzygy_check.py agree tests/data/syzygy --men 3 --sample 2000
        every position of each 3-man table (and `--sample` random positions of each larger
        one): ferz's WDL and DTZ against python-chess's on the same files, with probe speeds
    python tools/syzygy_check.py positions tests/data/syzygy --out endgames.epd --count 100
        random 5-man positions that Stockfish (with the same tables) scores as a tablebase
        win or a tablebase draw after a short search: `c0 "win"` / `c0 "draw"` EPD records for
        `ferz match --openings`

Needs python-chess (pip install chess); `positions` needs Debian's stockfish.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

import chess
import chess.engine
import chess.syzygy

from ferz.board import Board
from ferz.syzygy import open_tablebase

ROOT = Path(__file__).resolve().parents[1]
# 5-man material whose captures lead into the 3- and 4-man tables
MATERIAL = [
    "KRPvKR",
    "KQvKRP",
    "KRvKBP",
    "KRvKNP",
    "KBPvKB",
    "KNPvKN",
    "KPPvKP",
    "KRPvKP",
    "KQPvKQ",
]


def placements(white: str, black: str) -> itertools.product:
    """Every assignment of distinct squares to the men (kings first)."""
    men = len(white) + len(black)
    return itertools.permutations(range(64), men)


def fen_of(white: str, black: str, squares, turn: bool) -> str | None:
    """The FEN of men on squares, None where a pawn stands on a back rank."""
    rows = [["."] * 8 for _ in range(8)]
    for letter, sq in zip(white.upper() + black.lower(), squares, strict=True):
        if letter in "Pp" and sq // 8 in (0, 7):
            return None
        rows[7 - sq // 8][sq % 8] = letter
    text = "/".join("".join(row) for row in rows)
    for dots in range(8, 0, -1):
        text = text.replace("." * dots, str(dots))
    return f"{text} {'w' if turn else 'b'} - - 0 1"


def agree(args: argparse.Namespace) -> int:
    """Compare every (or a sample of) position of each table with python-chess."""
    rng = random.Random(args.seed)
    oracle = chess.syzygy.open_tablebase(args.tables)
    mismatches = 0
    with open_tablebase(args.tables, backend=args.backend) as tables:
        for name in sorted(tables.wdl_tables, key=lambda n: (len(n), n)):
            white, black = name.split("v")
            exhaustive = len(name) - 1 <= args.men
            if exhaustive:
                candidates = (
                    (sq, turn) for sq in placements(white, black) for turn in (True, False)
                )
            else:
                candidates = (
                    (rng.sample(range(64), len(name) - 1), rng.random() < 0.5)
                    for _ in itertools.count()
                )
            checked = 0
            ferz_s = oracle_s = 0.0
            for squares, turn in candidates:
                if not exhaustive and checked >= args.sample:
                    break
                fen = fen_of(white, black, squares, turn)
                if fen is None:
                    continue
                expected = chess.Board(fen)
                if not expected.is_valid():
                    continue
                board = Board(fen)
                t0 = time.perf_counter()
                got = (tables.probe_wdl(board), tables.probe_dtz(board) if args.dtz else 0)
                t1 = time.perf_counter()
                want = (oracle.probe_wdl(expected), oracle.probe_dtz(expected) if args.dtz else 0)
                t2 = time.perf_counter()
                ferz_s += t1 - t0
                oracle_s += t2 - t1
                checked += 1
                if got != want:
                    mismatches += 1
                    print(f"MISMATCH {fen}: ferz {got} python-chess {want}")
            kind = "all" if exhaustive else "sample"
            print(
                f"{name:8} {kind:6} {checked:8} positions  ferz {1e6 * ferz_s / checked:7.1f} us"
                f"  python-chess {1e6 * oracle_s / checked:7.1f} us a position",
                flush=True,
            )
    oracle.close()
    print(f"mismatches: {mismatches}")
    return 1 if mismatches else 0


def positions(args: argparse.Namespace) -> int:
    """Random 5-man positions that Stockfish with the tables scores as a TB win or draw."""
    rng = random.Random(args.seed)
    engine = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    engine.configure({"SyzygyPath": str(Path(args.tables).resolve()), "Threads": 1})
    found = {"win": [], "draw": []}
    try:
        while min(len(v) for v in found.values()) < args.count:
            name = rng.choice(MATERIAL)
            white, black = name.split("v")
            if rng.random() < 0.5:
                white, black = black, white
            fen = fen_of(white, black, rng.sample(range(64), len(name) - 1), rng.random() < 0.5)
            if fen is None:
                continue
            board = chess.Board(fen)
            if not board.is_valid() or board.is_game_over():
                continue
            info = engine.analyse(board, chess.engine.Limit(depth=args.depth))
            score = info["score"].relative
            tbhits = info.get("tbhits", 0)
            if score.is_mate() or not tbhits:
                continue
            cp = score.score()
            # Stockfish 15.1 shows a tablebase win as about cp 8700-8800 (its internal value
            # scaled to pawns); no evaluation of these endings comes near
            kind = "win" if abs(cp) >= 8000 else "draw" if cp == 0 else None
            if kind is None or len(found[kind]) >= args.count:
                continue
            if kind == "win" and cp < 0:
                continue  # keep the winner to move: the record's side is the one that wins
            found[kind].append(f'{board.epd()} c0 "{kind}";')
            print(f"{len(found['win'])} won, {len(found['draw'])} drawn", end="\r", file=sys.stderr)
    finally:
        engine.quit()
    lines = found["win"] + found["draw"]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"{len(found['win'])} won and {len(found['draw'])} drawn positions in {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run a subcommand."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("agree", help="ferz's probes against python-chess's")
    a.add_argument("tables")
    a.add_argument("--men", type=int, default=3, help="tables this small are checked whole")
    a.add_argument("--sample", type=int, default=1000, help="positions of each larger table")
    a.add_argument("--backend", default="fathom")
    a.add_argument("--no-dtz", dest="dtz", action="store_false")
    a.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("positions", help="5-man won and drawn positions for a match")
    p.add_argument("tables")
    p.add_argument("--out", required=True)
    p.add_argument("--count", type=int, default=100, help="of each kind")
    p.add_argument("--depth", type=int, default=14)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--stockfish", default="/usr/games/stockfish")
    args = parser.parse_args(argv)
    return agree(args) if args.command == "agree" else positions(args)


if __name__ == "__main__":
    sys.exit(main())
