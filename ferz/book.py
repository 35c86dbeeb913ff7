"""Polyglot opening books (.bin): keys, lookup and weighted move choice for standard chess.

A book is a sorted array of 16-byte big-endian entries: key (8 bytes), move (2), weight (2),
learn (4). The key hashes the position with the format's published Random64 table.
"""

from __future__ import annotations

import contextlib
import random
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .board import Board, IllegalMoveError, Move
from .core.defs import CASTLE, move_kind, move_to
from .files import write_atomically

ENTRY = struct.Struct(">QHHI")
PIECES = "PNBRQK"  # Polyglot piece kinds: 2 * index + (1 for White)
CASTLE_OFFSET, EP_OFFSET, TURN_OFFSET = 768, 772, 780
MAX_BOOK_BYTES = 512 * 1024 * 1024


@lru_cache(maxsize=1)
def random64() -> tuple[int, ...]:
    """The format's 781 random numbers."""
    text = resources.files(__package__).joinpath("polyglot_random64.txt").read_text()
    lines = [line.strip() for line in text.splitlines()]
    numbers = tuple(int(line, 16) for line in lines if line and not line.startswith("#"))
    if len(numbers) != 781:
        raise RuntimeError("polyglot_random64.txt is damaged")
    return numbers


def _standard(board: Board) -> None:
    """Polyglot books describe standard 8x8 chess only."""
    if (
        board.files != 8
        or board.ranks != 8
        or [p.letter for p in board.rules.pieces] != list(PIECES)
    ):
        raise ValueError(f"Polyglot books cover standard chess, not {board.variant}")


def key(board: Board) -> int:
    """The Polyglot hash of a standard chess position."""
    _standard(board)
    table = random64()
    rules, pos = board.rules, board.position
    h = 0
    for sq in rules.squares():
        code = pos.board[sq]
        if code < 2:
            continue
        kind = 2 * PIECES.index(rules.pieces[(code >> 1) - 1].letter) + (1 - (code & 1))
        h ^= table[64 * kind + 8 * rules.rank_of(sq) + rules.file_of(sq)]
    for right in range(4):  # white short, white long, black short, black long
        if pos.castling & (1 << right):
            h ^= table[CASTLE_OFFSET + right]
    if pos.ep:  # the core keeps e.p. only when a pawn can take: the Polyglot rule
        h ^= table[EP_OFFSET + rules.file_of(pos.ep)]
    if pos.side == 0:
        h ^= table[TURN_OFFSET]
    return h


def bundled_book() -> Book | None:
    """The opening book that ships with ferz (ferz/data/book.bin), or None without one."""
    return _bundled(str(resources.files("ferz.data").joinpath("book.bin")))


@lru_cache(maxsize=1)
def _bundled(path: str) -> Book | None:
    """The book at path, read once; None if there is none."""
    return Book(path) if Path(path).is_file() else None


@dataclass(frozen=True)
class Entry:
    """One book move of a position."""

    move: Move
    weight: int
    learn: int


def _move_text(raw: int) -> str:
    """UCI text of a Polyglot move (castling stays king-takes-rook)."""
    files = "abcdefgh"
    to_file, to_rank = raw & 7, (raw >> 3) & 7
    from_file, from_rank = (raw >> 6) & 7, (raw >> 9) & 7
    promo = (raw >> 12) & 7
    text = f"{files[from_file]}{from_rank + 1}{files[to_file]}{to_rank + 1}"
    return text + ("" if promo == 0 else " nbrq"[promo])


class Book:
    """A Polyglot book read into memory once."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        try:
            size = path.stat().st_size
        except OSError as error:
            raise ValueError(f"cannot open book {path}: {error.strerror}") from None
        if size % ENTRY.size or size > MAX_BOOK_BYTES:
            raise ValueError(f"{path} is not a Polyglot book (size {size} bytes)")
        self.path = path
        self._data = path.read_bytes()
        self._n = size // ENTRY.size

    def __len__(self) -> int:
        return self._n

    def _key_at(self, index: int) -> int:
        """Key of the entry at an index."""
        value: int = ENTRY.unpack_from(self._data, index * ENTRY.size)[0]
        return value

    def entries(self, board: Board) -> list[Entry]:
        """The legal book moves of a position, in file order."""
        if self._n == 0:
            return []
        wanted = key(board)
        lo, hi = 0, self._n
        while lo < hi:  # first entry with key >= wanted
            mid = (lo + hi) // 2
            if self._key_at(mid) < wanted:
                lo = mid + 1
            else:
                hi = mid
        out = []
        index = lo
        while index < self._n:
            entry_key, raw, weight, learn = ENTRY.unpack_from(self._data, index * ENTRY.size)
            if entry_key != wanted:
                break
            # a hash collision or a damaged entry: never play an illegal move
            with contextlib.suppress(IllegalMoveError):
                out.append(Entry(board.parse_uci(_move_text(raw)), weight, learn))
            index += 1
        return out

    def choose(self, board: Board, rng: random.Random | None = None) -> Move | None:
        """A book move picked with probability proportional to its weight, or None."""
        entries = [e for e in self.entries(board) if e.weight > 0]
        if not entries:
            return None
        rng = rng or random.Random()
        pick = rng.randrange(sum(e.weight for e in entries))
        for entry in entries:
            pick -= entry.weight
            if pick < 0:
                return entry.move
        return entries[-1].move


def _raw(board: Board, move: Move) -> int:
    """The Polyglot encoding of a legal move (castling written king-takes-rook)."""
    text = move.uci()
    fr, to = text[:2], text[2:4]
    if move_kind(move.code) == CASTLE:
        to = board.rules.square_name(move_to(move.code))
    raw = ("abcdefgh".index(to[0])) | (int(to[1]) - 1) << 3
    raw |= ("abcdefgh".index(fr[0])) << 6 | (int(fr[1]) - 1) << 9
    if len(text) == 5:
        raw |= " nbrq".index(text[4]) << 12
    return raw


def _save(path: str | Path, rows: list[tuple[int, int, int, int]]) -> None:
    """Write (key, move, weight, learn) rows sorted by key, the heaviest move first."""
    rows.sort(key=lambda row: (row[0], -row[2], row[1]))
    # whole or not at all: a book cut short by a kill would be read as a smaller book
    write_atomically(path, b"".join(ENTRY.pack(*row) for row in rows))


def write(path: str | Path, moves: dict[str, list[tuple[str, int]]]) -> None:
    """Write a book from {FEN: [(uci, weight), ...]} (castling given king-takes-rook)."""
    rows = []
    for fen, choices in moves.items():
        board = Board(fen)
        h = key(board)
        for uci, weight in choices:
            rows.append((h, _raw(board, board.parse_uci(uci)), weight, 0))
    _save(path, rows)


# Counts are kept as Polyglot keeps them: when a move's game count reaches this, the counts of
# every move of that position are halved (rounding up), so that weights fit in 16 bits.
HALVE_AT = 16384


@dataclass
class _Stat:
    """Games through one (position, move) and their score for the mover (2 win, 1 draw)."""

    games: int = 0
    score: int = 0


def build(
    games: Iterable[tuple[Board, str]],
    max_ply: int = 1024,
    min_games: int = 3,
    uniform: bool = False,
) -> list[tuple[int, int, int, int]]:
    """Book rows (key, move, weight, 0) from games, each given as the board at its end (its
    move stack from its start) and its result. Weighted as `polyglot make-book` weights: every
    game through a move adds 2 when the mover won, 1 for a draw or an unknown result, 0 for a
    loss, over its first `max_ply` plies; moves seen in fewer than `min_games` games, or with
    no score, are left out; `uniform` gives every kept move weight 1."""
    if max_ply < 1 or min_games < 1:
        raise ValueError("max_ply and min_games must be at least 1")
    stats: dict[int, dict[int, _Stat]] = {}
    starts: dict[tuple[str, str, bool], Board] = {}  # one board per start, replayed and undone
    for end, result in games:
        start = (end.starting_fen, end.rules.name, end.chess960)
        board = starts.get(start) or starts.setdefault(
            start, Board(end.starting_fen, rules=end.rules, chess960=end.chess960)
        )
        played = end.move_stack[:max_ply]
        for move in played:
            h, raw = key(board), _raw(board, move)
            mover_white = board.turn
            board.push(move)
            stat = stats.setdefault(h, {}).setdefault(raw, _Stat())
            stat.games += 1
            stat.score += {"1-0": 2 if mover_white else 0, "0-1": 0 if mover_white else 2}.get(
                result, 1
            )
            if stat.games >= HALVE_AT:
                for other in stats[h].values():
                    other.games, other.score = (other.games + 1) // 2, (other.score + 1) // 2
        for _ in played:
            board.pop()
    rows = []
    for h, moves in stats.items():
        for raw, stat in moves.items():
            if stat.games >= min_games and stat.score > 0:
                rows.append((h, raw, 1 if uniform else stat.score, 0))
    return rows


def save(path: str | Path, rows: list[tuple[int, int, int, int]]) -> None:
    """Write book rows (from `build`) as a Polyglot file."""
    _save(path, list(rows))
