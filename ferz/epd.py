"""`ferz epd FILE`: run a test suite of EPD positions with `bm` (best move) / `am` (avoid move)."""

from __future__ import annotations

import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import data
from .board import Board
from .engine import Engine, Limits


@dataclass
class Record:
    """One EPD line: the position and its operations."""

    fen: str
    ops: dict[str, list[str]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The `id` operation, or a short FEN."""
        ids = self.ops.get("id")
        return ids[0] if ids else self.fen.split()[0][:30]


def parse_line(line: str) -> Record | None:
    """Parse one EPD line (None for blank and comment lines); ValueError if malformed."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    fields = text.split(None, 4)
    if len(fields) < 4:
        raise ValueError("an EPD line needs 4 FEN fields")
    rest = fields[4] if len(fields) > 4 else ""
    ops: dict[str, list[str]] = {}
    for op in _split_ops(rest):
        try:
            words = shlex.split(op)
        except ValueError as error:
            raise ValueError(f"bad operation {op!r}: {error}") from None
        if words:
            ops[words[0]] = words[1:]
    halfmove = ops.get("hmvc", ["0"])[0]
    fullmove = ops.get("fmvn", ["1"])[0]
    if not (halfmove.isdigit() and fullmove.isdigit()):
        raise ValueError("hmvc and fmvn must be integers")
    # Some files carry FEN counters after the four EPD fields instead of operations.
    words = rest.split()
    if len(words) >= 2 and words[0].isdigit() and words[1].isdigit():
        halfmove, fullmove = words[0], words[1]
    return Record(" ".join(fields[:4]) + f" {halfmove} {fullmove}", ops)


def _split_ops(text: str) -> list[str]:
    """Split operations at semicolons outside quotes."""
    ops, current, quoted = [], [], False
    for char in text:
        if char == '"':
            quoted = not quoted
        if char == ";" and not quoted:
            ops.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    if "".join(current).strip():
        ops.append("".join(current).strip())
    return ops


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


def main(
    file: str,
    movetime: int = 1000,
    threads: int = 1,
    hash_mb: int = 64,
    nodes: int | None = None,
) -> int:
    """Run a suite and print one line per position, then `solved K/N`; returns the exit code.

    With `nodes`, every position gets that node budget instead of `movetime` (deterministic
    with one thread, and independent of the machine's load).
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
    solved = total = 0
    start = time.monotonic()
    for number, line in enumerate(lines, start=1):
        try:
            record = parse_line(line)
        except ValueError as error:
            total += 1
            print(f"line {number}: error: {error}", flush=True)
            continue
        if record is None:
            continue
        total += 1
        engine.new_game()
        try:
            ok, played = solve(engine, record, movetime, nodes)
        except ValueError as error:
            print(f"line {number}: error: {error}", flush=True)
            continue
        solved += ok
        expected = " ".join(
            f"{op} {' '.join(record.ops[op])}" for op in ("bm", "am") if op in record.ops
        )
        print(f"{record.name}: {'ok  ' if ok else 'FAIL'} {played} ({expected})", flush=True)
    elapsed = time.monotonic() - start
    print(f"solved {solved}/{total} in {elapsed:.0f} s")
    sys.stdout.flush()
    return 0
