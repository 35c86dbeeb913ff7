#!/usr/bin/env python3
# ferz - a chess and chess-variant engine
# Copyright (C) 2026 the ferz authors
# SPDX-License-Identifier: GPL-3.0-or-later
"""Won Syzygy endings converted and drawn ones held: ferz against Stockfish, both with the tables.

    python tools/syzygy_conversion.py /tmp/syzygy5 --seed 48 --won 200 --drawn 200 \\
        --materials KRPvKR,KRBvKR,KRNvKR,KQRvKR --movetime 100 --pgn conversion.pgn

Random legal positions of the given materials (python-chess's `chess.syzygy` on the same
folder classifies them): "won" = WDL 2 for the side to move (a win under the fifty-move rule),
"drawn" = WDL 0. Positions are left out where the side to move has a capture (no trivial
reduction in the first move), is already mated or stalemated, or where the side not to move is
in check (python-chess's `is_valid`); cursed wins and blessed losses (WDL ±1) are left out too.
The stronger colour and the side to move are drawn at random. Position i of each kind depends
only on the seed and i, so `--start`/`--won`/`--drawn` play a slice of the same list.

Each position is played out: ferz (UCI, `--ferz`, default `ferz`) takes the winning side of a
won position and the weaker side of a drawn one (less material, counting P 1, N 3, B 3, R 5,
Q 9; with equal material the side not to move), Stockfish (`--stockfish`) the other side; both
get `SyzygyPath` = the folder, one thread, 16 MB of hash and `--movetime` ms a move.
python-chess referees: mate, stalemate, insufficient material, the fifty-move rule (100 plies
without a capture or a pawn move) and threefold repetition end a game; `--max-plies` (300)
ends it as unfinished, which counts as not converted (a drawn game cut there counts as held).
One line per game, a summary, and the PGN of every game (`--pgn`).

Tables. 5-man tables are not in the repository (tests/data/syzygy holds every 3- and 4-man
one). Regenerate them with the public generator syzygy1/tb (commit 0bb8aee), outside ferz:

    cd tb/src && sed -i 's/-DTBPIECES=7/-DTBPIECES=5/' Makefile && make all
    mkdir /tmp/syzygy5 && cp tests/data/syzygy/* /tmp/syzygy5 && cd /tmp/syzygy5
    RTPATH=/tmp/syzygy5 rtbgen -t 1 KRNvKR   # likewise KRBvKR KQRvKR KRRvKR
    RTPATH=/tmp/syzygy5 rtbgenp -t 1 KRPvKR  # needs the four above (promotions)

(without libzstd's headers, comment out the Makefile's USE_ZSTD and -lzstd lines). A pawnless
table takes 2 to 4 minutes and about 0.7 GB, KRPvKR 8 minutes (30 MB of files), on a loaded
2-core machine; the files' checksums equal the generator's `checksums/wdl345.txt` and
`checksums/dtz345.txt` (`tbcheck`). The figures measured with them are in
docs/measurements/tablebases.md.
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import chess.syzygy

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
DEFAULT_MATERIALS = "KRPvKR,KRBvKR,KRNvKR,KQRvKR"


@dataclass
class Task:
    """One position to play: its kind, its number in that kind's list, and its FEN."""

    kind: str  # "won" or "drawn"
    index: int
    material: str
    fen: str


@dataclass
class Played:
    """A finished game: who played what, how it ended, and what it counts for."""

    task: Task
    ferz_colour: bool
    result: str  # "1-0", "0-1", "1/2-1/2" or "*" (cut at the ply cap)
    termination: str
    plies: int
    game: chess.pgn.Game = field(repr=False)

    @property
    def ferz_points(self) -> float:
        """ferz's score in the game (an unfinished game counts as a draw)."""
        if self.result == "1/2-1/2" or self.result == "*":
            return 0.5
        won = (self.result == "1-0") == self.ferz_colour
        return 1.0 if won else 0.0

    @property
    def half_points_lost(self) -> int:
        """Half-points below the tables' value: 2 - 2*score for a win, 1 - 2*score for a draw."""
        target = 1.0 if self.task.kind == "won" else 0.5
        return max(0, round(2 * (target - self.ferz_points)))

    @property
    def ok(self) -> bool:
        """Converted (a won position won) or held (a drawn one not lost)."""
        return self.half_points_lost == 0 and not (self.task.kind == "won" and self.result == "*")


def material_value(board: chess.Board, colour: bool) -> int:
    """The material of one colour: P 1, N 3, B 3, R 5, Q 9."""
    return sum(VALUES.get(p.piece_type, 0) for p in board.piece_map().values() if p.color == colour)


def ferz_side(board: chess.Board, kind: str) -> bool:
    """The colour ferz plays: the winner of a won position, the weaker side of a drawn one."""
    if kind == "won":
        return board.turn
    white, black = material_value(board, chess.WHITE), material_value(board, chess.BLACK)
    if white != black:
        return chess.WHITE if white < black else chess.BLACK
    return not board.turn


def random_board(material: str, rng: random.Random) -> chess.Board | None:
    """Men of `material` on random squares (stronger colour and side to move at random)."""
    strong, weak = material.split("v")
    white, black = (strong, weak) if rng.random() < 0.5 else (weak, strong)
    letters = white.upper() + black.lower()
    squares = rng.sample(chess.SQUARES, len(letters))
    board = chess.Board(None)
    for letter, square in zip(letters, squares, strict=True):
        if letter in "Pp" and chess.square_rank(square) in (0, 7):
            return None
        board.set_piece_at(square, chess.Piece.from_symbol(letter))
    board.turn = rng.random() < 0.5
    return board


def classify(board: chess.Board, tables: chess.syzygy.Tablebase) -> str | None:
    """ "won" (WDL 2 for the side to move), "drawn" (WDL 0), or None for a position left out."""
    if not board.is_valid() or board.is_game_over():
        return None
    if any(board.is_capture(move) for move in board.legal_moves):
        return None
    wdl = tables.get_wdl(board)
    return {2: "won", 0: "drawn"}.get(wdl) if wdl is not None else None


def pick_positions(
    tables: chess.syzygy.Tablebase, materials: list[str], kind: str, seed: int, count: int
) -> list[Task]:
    """The first `count` positions of one kind for a seed (the same list for every slice)."""
    rng = random.Random(f"{seed}-{kind}")
    tasks: list[Task] = []
    tries = 0
    while len(tasks) < count:
        tries += 1
        if tries > 10_000 * (count + 1):
            raise RuntimeError(f"no {kind} positions of {materials} found in {tries} tries")
        material = rng.choice(materials)
        board = random_board(material, rng)
        if board is None or classify(board, tables) != kind:
            continue
        tasks.append(Task(kind, len(tasks), material, board.fen()))
    return tasks


def slice_of(args: argparse.Namespace) -> list[Task]:
    """The won positions start..start+won-1, then the drawn ones start..start+drawn-1."""
    materials = [m for m in args.materials.split(",") if m]
    tasks: list[Task] = []
    with chess.syzygy.open_tablebase(args.tables) as tables:
        for kind, count in (("won", args.won), ("drawn", args.drawn)):
            if count > 0:
                picked = pick_positions(tables, materials, kind, args.seed, args.start + count)
                tasks += picked[args.start :]
    return tasks


def open_engines(args: argparse.Namespace) -> tuple[chess.engine.SimpleEngine, ...]:
    """Start ferz and Stockfish with the tables, one thread and 16 MB of hash each."""
    engines = []
    for command in (shlex.split(args.ferz), shlex.split(args.stockfish)):
        engine = chess.engine.SimpleEngine.popen_uci(command)
        options = {"SyzygyPath": str(Path(args.tables).resolve()), "Threads": 1, "Hash": 16}
        engine.configure({k: v for k, v in options.items() if k in engine.options})
        engines.append(engine)
    return tuple(engines)


def termination(board: chess.Board, max_plies: int, plies: int) -> tuple[str, str] | None:
    """The result and reason once the game is over (or cut at the ply cap), else None."""
    outcome = board.outcome()  # mate, stalemate, insufficient material (and 75/fivefold)
    if outcome is not None:
        return outcome.result(), outcome.termination.name.lower()
    if board.halfmove_clock >= 100:
        return "1/2-1/2", "fifty moves"
    if board.is_repetition(3):
        return "1/2-1/2", "threefold repetition"
    if plies >= max_plies:
        return "*", "ply cap"
    return None


def play(task: Task, engines: tuple, args: argparse.Namespace) -> Played:
    """Play one position out, ferz against Stockfish, python-chess as referee."""
    ferz, stockfish = engines
    board = chess.Board(task.fen)
    colour = ferz_side(board, task.kind)
    limit = chess.engine.Limit(time=args.movetime / 1000)
    key = object()  # a new game for each engine (ucinewgame)
    plies = 0
    while (end := termination(board, args.max_plies, plies)) is None:
        engine = ferz if board.turn == colour else stockfish
        move = engine.play(board, limit, game=key).move
        if move is None or move not in board.legal_moves:
            name = "ferz" if engine is ferz else "Stockfish"
            raise RuntimeError(f"{name} played {move} in {board.fen()}")
        board.push(move)
        plies += 1
    result, reason = end
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = f"syzygy conversion: {task.kind} {task.index}"
    game.headers["White"] = "ferz" if colour == chess.WHITE else "Stockfish"
    game.headers["Black"] = "Stockfish" if colour == chess.WHITE else "ferz"
    game.headers["Result"] = result
    game.headers["Termination"] = reason
    game.headers["Material"] = task.material
    game.headers["TimeControl"] = f"movetime {args.movetime} ms"
    return Played(task, colour, result, reason, plies, game)


def line(p: Played) -> str:
    """One line for a finished game."""
    verdict = {"won": ("converted", "NOT CONVERTED"), "drawn": ("held", "LOST")}[p.task.kind]
    side = "white" if p.ferz_colour else "black"
    return (
        f"{p.task.kind:5} {p.task.index:3} {p.task.material:7} ferz {side:5} {p.result:7}"
        f" {p.plies:3} plies {p.termination:22} {verdict[0] if p.ok else verdict[1]:13}"
        f" {p.task.fen}"
    )


def run(args: argparse.Namespace) -> int:
    """Pick the positions, play them, print the lines and the summary, write the PGN."""
    tasks = slice_of(args)
    pool: list[tuple] = []
    lock = threading.Lock()
    played: list[Played] = []
    pgn = open(args.pgn, "a", encoding="utf-8") if args.pgn else None  # noqa: SIM115

    def worker(task: Task) -> None:
        """Play a task on a free pair of engines (started on first use)."""
        with lock:
            engines = pool.pop() if pool else None
        if engines is None:
            engines = open_engines(args)
        try:
            p = play(task, engines, args)
        finally:
            with lock:
                pool.append(engines)
        with lock:
            played.append(p)
            print(line(p), flush=True)
            if pgn is not None:
                print(p.game, file=pgn, end="\n\n", flush=True)

    start = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=args.concurrency) as executor:
            for future in [executor.submit(worker, t) for t in tasks]:
                future.result()
    finally:
        for engines in pool:
            for engine in engines:
                engine.quit()
        if pgn is not None:
            pgn.close()
    won = [p for p in played if p.task.kind == "won"]
    drawn = [p for p in played if p.task.kind == "drawn"]
    lost = sum(p.half_points_lost for p in played)
    capped = sum(p.result == "*" for p in played)
    print(
        f"seed {args.seed} start {args.start}: won converted {sum(p.ok for p in won)}/{len(won)},"
        f" drawn held {sum(p.ok for p in drawn)}/{len(drawn)}, half-points lost {lost},"
        f" ply cap {capped}, {time.monotonic() - start:.0f} s"
    )
    return 0 if lost == 0 and all(p.ok for p in played) else 1


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", help="folder of Syzygy tables (SyzygyPath of both engines)")
    parser.add_argument("--materials", default=DEFAULT_MATERIALS, help="comma-separated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--won", type=int, default=200, help="won positions to play")
    parser.add_argument("--drawn", type=int, default=200, help="drawn positions to play")
    parser.add_argument("--start", type=int, default=0, help="first index of each kind")
    parser.add_argument("--movetime", type=int, default=100, help="ms a move")
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=1, choices=(1, 2))
    parser.add_argument("--ferz", default="ferz", help="ferz's command line")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--pgn", help="append every game to this file")
    parser.add_argument("--list", action="store_true", help="print the positions, play none")
    args = parser.parse_args(argv)
    if args.list:
        for task in slice_of(args):
            print(f"{task.kind:5} {task.index:3} {task.material:7} {task.fen}")
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
