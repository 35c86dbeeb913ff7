"""`ferz epd FILE`: run a test suite of EPD positions with `bm` (best move) / `am` (avoid move)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .. import data
from ..board import Board
from ..engine import Engine, Limits
from ..epd import Record, parse_line
from . import option_pairs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `ferz epd`."""
    parser.add_argument(
        "file", help="an EPD file, or a bundled suite: wac, bk, ecmgcp, arasan20, mate_in_2, ..."
    )
    parser.add_argument("--movetime", type=int, default=1000, help="ms per position")
    parser.add_argument("--nodes", type=int, help="fixed nodes per position instead of time")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--hash", type=int, default=64, help="transposition table MB")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an engine option, as UCI's setoption sets it (repeatable; EvalFile=NET.nnue)",
    )


def _codes(board: Board, sans: list[str]) -> set[int]:
    """Move codes of SAN (or UCI) moves; ValueError naming a move that is not legal."""
    codes = set()
    for san in sans:
        try:
            codes.add(board.parse_san(san).code)
        except ValueError:
            codes.add(board.parse_uci(san).code)
    return codes


def solve(
    engine: Engine, record: Record, movetime: int | None, nodes: int | None = None
) -> tuple[bool, str]:
    """Search one position for `movetime` ms or `nodes` nodes; (solved, the move in SAN)."""
    board = Board(record.fen, rules=engine.board.rules)
    best_moves = _codes(board, record.ops.get("bm", []))
    avoid_moves = _codes(board, record.ops.get("am", []))
    if not best_moves and not avoid_moves:
        raise ValueError("no bm or am operation")
    engine.set_position(record.fen)
    result: list[str | None] = []
    limits = Limits(nodes=nodes) if nodes else Limits(movetime=movetime)
    engine.go(limits, on_bestmove=lambda best, _ponder: result.append(best))
    engine.wait()
    if not result or result[0] is None:
        return False, "(none)"
    move = board.parse_uci(result[0])
    solved = (not best_moves or move.code in best_moves) and move.code not in avoid_moves
    return solved, board.san(move)


def resolve(file: str) -> Path:
    """The EPD file to run: a path, or the name of a suite that ships with ferz (`wac`)."""
    path = Path(file)
    if path.is_file():
        return path
    try:
        return data.suite(file)
    except KeyError:
        bundled = ", ".join(data.suites())
        raise ValueError(f"no such EPD file: {file} (bundled suites: {bundled})") from None


def read_suite(path: Path, lines: list[str], engine: Engine) -> list[tuple[int, Record | str]]:
    """Every EPD line of a suite by line number: its Record, or the reason it cannot be run
    (a malformed line, a position or move that is not legal, no bm or am). ValueError when
    no line can be run (an empty file, or one that is not EPD): there is no suite to run."""
    items: list[tuple[int, Record | str]] = []
    for number, line in enumerate(lines, start=1):
        try:
            record = parse_line(line)
            if record is None:
                continue
            board = Board(record.fen, rules=engine.board.rules)
            ops = record.ops
            if not _codes(board, ops.get("bm", [])) | _codes(board, ops.get("am", [])):
                raise ValueError("no bm or am operation")
            items.append((number, record))
        except ValueError as error:
            items.append((number, str(error)))
    if not any(isinstance(item, Record) for _, item in items):
        first = next((f" (line {n}: {item})" for n, item in items), "")
        raise ValueError(f"{path}: no EPD position with a bm or am operation{first}")
    return items


def main(args: argparse.Namespace) -> int:
    """`ferz epd` with its parsed options."""
    options = option_pairs(args.option)
    return run(args.file, args.movetime, args.threads, args.hash, args.nodes, options)


def run(
    file: str,
    movetime: int = 1000,
    threads: int = 1,
    hash_mb: int = 64,
    nodes: int | None = None,
    options: Sequence[tuple[str, str]] = (),
) -> int:
    """Run a suite and print one line per position, then `solved K/N`; returns the exit code.

    With `nodes`, every position gets that node budget instead of `movetime` (deterministic
    with one thread, and independent of the machine's load). `options` are set on the engine
    after Threads and Hash, as (name, value) pairs; an unknown option or a bad value is a
    ValueError before any position is searched.
    """
    path = resolve(file)
    if movetime < 1:
        raise ValueError("movetime must be at least 1 ms")
    if nodes is not None and nodes < 1:
        raise ValueError("nodes must be at least 1")
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    engine = Engine()
    engine.set_option("Threads", threads)
    engine.set_option("Hash", hash_mb)
    for name, value in options:
        engine.set_option(name, value)
    items = read_suite(path, lines, engine)
    solved = total = 0
    start = time.monotonic()
    for number, item in items:
        total += 1
        if isinstance(item, str):
            print(f"line {number}: error: {item}", flush=True)
            continue
        engine.new_game()
        ok, played = solve(engine, item, movetime, nodes)
        solved += ok
        expected = " ".join(
            f"{op} {' '.join(item.ops[op])}" for op in ("bm", "am") if op in item.ops
        )
        print(f"{item.name}: {'ok  ' if ok else 'FAIL'} {played} ({expected})", flush=True)
    elapsed = time.monotonic() - start
    print(f"solved {solved}/{total} in {elapsed:.0f} s")
    sys.stdout.flush()
    return 0
