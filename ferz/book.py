"""Polyglot opening books (.bin): keys, lookup and weighted move choice for standard chess.

A book is a sorted array of 16-byte big-endian entries: key (8 bytes), move (2), weight (2),
learn (4). The key hashes the position with the format's published Random64 table.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import random
import shutil
import struct
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .board import Board, IllegalMoveError, Move
from .core import polyglot as _polyglot
from .core.defs import CASTLE, MAX_GAME_PLY, MAXP, PROMO, move_kind, move_to
from .core.rules import Rules
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
    return _key(board.position, _tables(board.rules))


@dataclass(frozen=True)
class _Tables:
    """A standard chess Rules' squares and pieces in Polyglot's terms, by core code."""

    pieces: tuple[int, ...]  # piece code -> 64 * Polyglot kind (-1: none)
    squares: tuple[int, ...]  # core square -> 8 * rank + file (-1: off the board)
    files: tuple[int, ...]  # core square -> file
    raws: tuple[int, ...]  # core square -> Polyglot's 6-bit square
    promos: tuple[int, ...]  # piece type -> Polyglot's promotion (0: none)


_TABLES: dict[int, tuple[object, _Tables]] = {}


def _tables(rules: object) -> _Tables:
    """The _Tables of a standard chess Rules (kept by the Rules object)."""
    found = _TABLES.get(id(rules))
    if found is not None and found[0] is rules:
        return found[1]
    size = max(rules.squares()) + 1  # type: ignore[attr-defined]
    squares, files, raws = [-1] * size, [0] * size, [0] * size
    for sq in rules.squares():  # type: ignore[attr-defined]
        file, rank = rules.file_of(sq), rules.rank_of(sq)  # type: ignore[attr-defined]
        squares[sq], files[sq], raws[sq] = 8 * rank + file, file, 8 * rank + file
    letters = [p.letter for p in rules.pieces]  # type: ignore[attr-defined]
    pieces = [-1, -1]
    for letter in letters:  # code 2 * type + colour, White 0 (Polyglot's odd kinds)
        kind = 2 * PIECES.index(letter)
        pieces += [64 * (kind + 1), 64 * kind]
    promos = [0] + [" NBRQ".find(letter) if letter in "NBRQ" else 0 for letter in letters]
    tables = _Tables(tuple(pieces), tuple(squares), tuple(files), tuple(raws), tuple(promos))
    _TABLES[id(rules)] = (rules, tables)
    return tables


def _key(pos: object, tables: _Tables) -> int:
    """The Polyglot hash of a core position of standard chess (its piece lists)."""
    table = random64()
    board, plist, count = pos.board, pos.plist, pos.pcount  # type: ignore[attr-defined]
    pieces, squares = tables.pieces, tables.squares
    h = 0
    for first in (0, MAXP):
        for index in range(first, first + count[first // MAXP]):
            sq = plist[index]
            h ^= table[pieces[board[sq]] + squares[sq]]
    castling = pos.castling  # type: ignore[attr-defined]
    for right in range(4):  # white short, white long, black short, black long
        if castling & (1 << right):
            h ^= table[CASTLE_OFFSET + right]
    ep = pos.ep  # type: ignore[attr-defined]
    if ep:  # the core keeps e.p. only when a pawn can take: the Polyglot rule
        h ^= table[EP_OFFSET + tables.files[ep]]
    if pos.side == 0:  # type: ignore[attr-defined]
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
    lines = (
        (end.starting_fen, end.rules, end.chess960, [m.code for m in end.move_stack], result)
        for end, result in games
    )
    return build_lines(lines, max_ply, min_games, uniform)


def build_lines(
    lines: Iterable[tuple[str, Rules, bool, list[int] | list[str], str]],
    max_ply: int = 1024,
    min_games: int = 3,
    uniform: bool = False,
) -> list[tuple[int, int, int, int]]:
    """build()'s rows from games given as (start FEN, Rules, Chess960, moves, result), the
    moves legal ones, as core codes or UCI texts (what a PGN reader gives: `ferz book build`
    reads games so, without a Board for each). Each game is played on one core position per
    start, its moves unmade after it."""
    if min_games < 1:
        raise ValueError("max_ply and min_games must be at least 1")
    rows = []
    for h, moves_of in _count(lines, max_ply).items():
        for raw, stat in moves_of.items():
            if stat.games >= min_games and stat.score > 0:
                rows.append((h, raw, 1 if uniform else stat.score, 0))
    return rows


def count_lines(
    lines: Iterable[tuple[str, Rules, bool, list[int] | list[str], str]],
    max_ply: int = 1024,
) -> dict[int, dict[int, tuple[int, int]]]:
    """The raw counts build_lines weighs, before it leaves any move out: Polyglot key ->
    Polyglot move -> (games through the move, their score for the mover: 2 a win, 1 a draw or
    an unknown result), over each game's first `max_ply` plies (halved past HALVE_AT)."""
    return {
        h: {raw: (stat.games, stat.score) for raw, stat in moves_of.items()}
        for h, moves_of in _count(lines, max_ply).items()
    }


def polyglot_key(pos: object, rules: Rules) -> int:
    """The Polyglot hash of a core position of standard chess (or Chess960) played with
    `rules`, as the book keys it."""
    return _key(pos, _tables(rules))


def move_code(board: Board, text: str, cache: dict) -> int:
    """The core code of a legal move given in UCI as the board writes it, in the position of
    `board.position` (which may have been played on past the board's own moves); `cache`, one
    per Board, keeps the texts of codes met (see _code). ValueError for an illegal move."""
    return _code(board, text, cache)


def _count(
    lines: Iterable[tuple[str, Rules, bool, list[int] | list[str], str]], max_ply: int
) -> dict[int, dict[int, _Stat]]:
    """Games and score of every (key, move) of the lines' first `max_ply` plies."""
    if max_ply < 1:
        raise ValueError("max_ply and min_games must be at least 1")
    stats: dict[int, dict[int, _Stat]] = {}
    starts: dict[tuple[str, int, bool], tuple[Board, _Tables, dict]] = {}
    for fen, rules, chess960, moves, result in lines:
        start = (fen, id(rules), chess960)
        found = starts.get(start)
        if found is None or found[0].rules is not rules:
            board = Board(fen, rules=rules, chess960=chess960)
            _standard(board)
            found = starts[start] = (board, _tables(rules), {})
        board, tables, texts = found
        pos = board.position
        won = {"1-0": 0, "0-1": 1}.get(result)  # the side that won, or None
        played = 0
        try:
            for move in moves[:max_ply]:
                code = move if isinstance(move, int) else _code(board, move, texts)
                h = _key(pos, tables)
                raw = _raw_code(code, tables)
                score = 1 if won is None else 2 if won == pos.side else 0
                if not pos.make(code):
                    raise ValueError(f"illegal move {move!r} in {pos.fen()}")
                played += 1
                moves_here = stats.get(h)
                if moves_here is None:
                    moves_here = stats[h] = {}
                stat = moves_here.get(raw)
                if stat is None:
                    stat = moves_here[raw] = _Stat()
                stat.games += 1
                stat.score += score
                if stat.games >= HALVE_AT:
                    for other in moves_here.values():
                        other.games, other.score = (other.games + 1) // 2, (other.score + 1) // 2
        finally:
            for _ in range(played):
                pos.unmake()
    return stats


def _code(board: Board, text: str, texts: dict) -> int:
    """The core code of a legal move given in UCI as the board writes it (its position is the
    one played on). `texts` keeps each code's text and, by text, the codes met with it (one,
    or two where e.p. and a plain capture, or a pawn's and a piece's step, share a text): the
    one among the position's pseudo-legal moves is the move."""
    pos = board.position
    moves = pos.pseudo_moves()
    for code in texts.get(text, ()):
        if code in moves:
            return code
    for code in moves:
        uci = texts.get(code)
        if uci is None:
            uci = texts[code] = board._uci_text(code)
            texts.setdefault(uci, []).append(code)
        if uci == text:
            return code
    raise ValueError(f"illegal move {text!r} in {pos.fen()}")


def _raw_code(code: int, tables: _Tables) -> int:
    """The Polyglot encoding of a core move of standard chess (castling is king-takes-rook
    in both)."""
    raw = tables.raws[(code >> 9) & 511] | tables.raws[code & 511] << 6
    if (code >> 24) & 7 == PROMO:
        raw |= tables.promos[(code >> 18) & 63] << 12
    return raw


#: records a BookBuilder keeps in memory (12 bytes each, as much again while they are sorted);
#: past them it sorts them and writes them to temporary files, by the key's first byte
SPILL_RECORDS = 1 << 21


class BookBuilder:
    """A Polyglot book made from games' main lines given as core move codes (what
    `pgn.stream_mainlines` reads), in bounded memory: each ply is one 12-byte record (key,
    move, score) in flat arrays, written in compiled code (core/polyglot.py); past
    SPILL_RECORDS they are sorted and go to temporary files, 256 of them by the key's first
    byte, so that `write` sums a part of the keys at a time. The book is the one build()
    makes of the same games (the same entries, weights and order), the counts halved in the
    games' order as `polyglot make-book` halves them."""

    def __init__(
        self,
        max_ply: int = 1024,
        min_games: int = 3,
        uniform: bool = False,
        spill: int = SPILL_RECORDS,
    ) -> None:
        """A builder with build()'s options; `spill`: the records kept in memory."""
        if max_ply < 1 or min_games < 1:
            raise ValueError("max_ply and min_games must be at least 1")
        self.max_ply, self.min_games, self.uniform = max_ply, min_games, uniform
        self.spill = max(spill, MAX_GAME_PLY)
        self.keys, self.vals = array("Q"), array("I")
        self.used = 0  # records in the arrays
        self.parts: str | None = None  # the temporary folder of the spilled records
        self.starts: dict[tuple[str, int, bool], tuple[Board, tuple]] = {}

    def __enter__(self) -> BookBuilder:
        """The builder itself (its temporary files are removed at the block's end)."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Remove the temporary files."""
        self.close()

    def close(self) -> None:
        """Remove the temporary files."""
        if self.parts is not None:
            shutil.rmtree(self.parts, ignore_errors=True)
            self.parts = None

    def add(
        self, fen: str, rules: Rules, chess960: bool, codes: Sequence[int], result: str
    ) -> None:
        """Count a game: its start, its main line's moves (core codes, legal), its result;
        ValueError for a variant other than standard chess or an illegal move."""
        start = (fen, id(rules), chess960)
        found = self.starts.get(start)
        if found is None or found[0].rules is not rules:
            board = Board(fen, rules=rules, chess960=chess960)
            _standard(board)
            found = self.starts[start] = (board, record_tables(rules))
        board, arrays = found
        if not isinstance(codes, array) or codes.typecode != "i":
            codes = array("i", codes)
        n = min(len(codes), self.max_ply)
        if self.used + n > len(self.keys):
            self._room(n)
        won = {"1-0": 0, "0-1": 1}.get(result, -1)
        got = _polyglot.records(
            board.position, codes, n, won, arrays, self.keys, self.vals, self.used
        )
        if got < 0:
            raise ValueError(f"an illegal move in a game from {fen}")
        self.used += got

    def _room(self, n: int) -> None:
        """Room for n more records: the arrays grown (doubled, up to the spill size), or
        their records sorted and written to the temporary files."""
        size = len(self.keys)
        if size < self.spill:
            grow = min(max(size, 1 << 16, n), self.spill - size)
            self.keys.frombytes(bytes(8 * grow))
            self.vals.frombytes(bytes(4 * grow))
        if self.used + n > len(self.keys):
            self._spill()

    def _spill(self) -> None:
        """Sort the records in memory and add them to the temporary files by key range."""
        keys, vals, used = self.keys, self.vals, self.used
        _polyglot.sort(keys, vals, used)
        if self.parts is None:
            self.parts = tempfile.mkdtemp(prefix="ferz-book-")
        lo = 0
        for part in range(256):
            hi = bisect.bisect_left(keys, (part + 1) << 56, lo, used) if part < 255 else used
            if hi > lo:
                name = os.path.join(self.parts, f"{part:02x}")
                with open(name + ".keys", "ab") as handle:
                    handle.write(keys[lo:hi].tobytes())
                with open(name + ".vals", "ab") as handle:
                    handle.write(vals[lo:hi].tobytes())
            lo = hi
        self.used = 0

    def _sorted(self) -> Iterator[tuple[array, array, int]]:
        """The records sorted by key, a part at a time (stable: a key's in the games' order)."""
        if self.parts is None:
            _polyglot.sort(self.keys, self.vals, self.used)
            yield self.keys, self.vals, self.used
            return
        if self.used:
            self._spill()
        self.keys, self.vals = array("Q"), array("I")  # the parts need the memory
        for part in range(256):
            name = os.path.join(self.parts, f"{part:02x}")
            if not os.path.exists(name + ".keys"):
                continue
            keys, vals = array("Q"), array("I")
            with open(name + ".keys", "rb") as handle:
                keys.frombytes(handle.read())
            with open(name + ".vals", "rb") as handle:
                vals.frombytes(handle.read())
            os.unlink(name + ".keys")
            os.unlink(name + ".vals")
            _polyglot.sort(keys, vals, len(keys))
            yield keys, vals, len(keys)

    def write(self, path: str | Path) -> tuple[int, int]:
        """Write the book (whole or not at all, as write_atomically; no file where no move is
        kept); its (entries, positions)."""
        temporary = Path(f"{path}.tmp")
        state = array("q", [0, 0, 0])
        out = bytearray(1 << 20)
        try:
            with open(temporary, "wb") as handle:
                for keys, vals, n in self._sorted():
                    state[0] = 0
                    while state[0] < n:
                        size = _polyglot.aggregate(
                            keys, vals, n, self.min_games, self.uniform, HALVE_AT, out, state
                        )
                        handle.write(memoryview(out)[:size])
                handle.flush()
                os.fsync(handle.fileno())
            if state[1]:
                os.replace(temporary, path)
            else:
                temporary.unlink()
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
        finally:
            self.close()
        return state[1], state[2]


def record_tables(rules: Rules) -> tuple[array, ...]:
    """The tables core/polyglot.py's `records` reads for a standard chess Rules: Random64,
    piece code -> 64 * Polyglot kind, square -> Polyglot square, square -> file, piece type ->
    Polyglot promotion, as arrays."""
    tables = _tables(rules)
    return (
        _random64_array(),
        array("i", tables.pieces),
        array("i", tables.squares),
        array("i", tables.files),
        array("i", tables.promos),
    )


@lru_cache(maxsize=1)
def _random64_array() -> array:
    """random64() as an array of unsigned 64-bit ints (for core/polyglot.py)."""
    return array("Q", random64())


def save(path: str | Path, rows: list[tuple[int, int, int, int]]) -> None:
    """Write book rows (from `build`) as a Polyglot file."""
    _save(path, list(rows))
