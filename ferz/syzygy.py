"""Syzygy endgame tablebases for chess and Chess960: probing, root move ranking, a library API.

Shaped like python-chess's ``chess.syzygy``::

    from ferz.board import Board
    from ferz.syzygy import open_tablebase

    with open_tablebase("tests/data/syzygy") as tables:
        board = Board("8/8/8/8/8/2k5/8/K1Q5 w - - 0 1")
        tables.probe_wdl(board)   # 2: the side to move wins
        tables.probe_dtz(board)   # plies to the next capture, pawn move or mate
        tables.probe_root(board)  # every legal move with its WDL and DTZ, best first

Values are for the side to move: WDL -2 loss, -1 loss saved by the fifty-move rule ("blessed"),
0 draw, 1 win spoiled by the fifty-move rule ("cursed"), 2 win; DTZ counts plies to the next
zeroing move (capture, pawn move, or mate) with the sign of the result, 0 for a draw.

Two probers read the files: Debian's ``libfathom`` (the C prober made for engines, found with
``ctypes``; ``apt install libfathom1``), else python-chess's pure-Python reader
(``pip install chess``, about a hundred times slower). Without either, opening tables raises
`SyzygyUnavailable` with that advice. Fathom holds one set of tables per process: a second
`Tablebase` with other folders takes over from the first (each probe re-points it).

Every file is checked before a prober sees it (the Syzygy magic number and a length that a
table file can have); files that fail are left out and listed in `Tablebase.skipped`. Only
positions of chess rules (variants "chess" and "chess960") without castling rights are probed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .board import Board

LOSS, BLESSED_LOSS, DRAW, CURSED_WIN, WIN = -2, -1, 0, 1, 2
#: the variants whose rules are those the Syzygy tables were built for
CHESS_RULES = frozenset({"chess", "chess960"})
WDL_SUFFIX, DTZ_SUFFIX = ".rtbw", ".rtbz"
WDL_MAGIC = bytes([0x71, 0xE8, 0x23, 0x5D])
DTZ_MAGIC = bytes([0xD7, 0x66, 0x0C, 0xA5])
ROLES = "kqrbnp"  # the order of the piece bitboards of a probe (Fathom's)
#: the DTZ that a zeroing move into a position of this WDL (for the mover) gives
ZEROING_DTZ = {WIN: 1, CURSED_WIN: 101, DRAW: 0, BLESSED_LOSS: -101, LOSS: -1}
FATHOM_FAILED = 0xFFFFFFFF
FATHOM_MAX_MOVES = 193


_TOKENS = itertools.count(1)  # a Tablebase's token for the Fathom prober that it points


class SyzygyUnavailable(RuntimeError):
    """No prober is installed (neither libfathom nor python-chess)."""


class MissingTableError(KeyError):
    """The tables do not cover this position (no table for its material, or castling rights)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "missing table"


@dataclass(frozen=True)
class Men:
    """A chess position as a probe reads it: bitboards (a1 = bit 0) and the side to move."""

    white: int
    black: int
    kings: int
    queens: int
    rooks: int
    bishops: int
    knights: int
    pawns: int
    ep: int  # the en-passant target square (0..63), 0 when none
    turn: bool  # True: White to move

    def count(self) -> int:
        """Men on the board, kings included."""
        return (self.white | self.black).bit_count()

    def bitboards(self) -> tuple[int, ...]:
        """The eight bitboards in Fathom's order."""
        return (
            self.white,
            self.black,
            self.kings,
            self.queens,
            self.rooks,
            self.bishops,
            self.knights,
            self.pawns,
        )


@dataclass(frozen=True)
class RootMove:
    """A legal move with the tables' verdict after it, from the mover's view: `wdl` (with the
    position's fifty-move counter taken into account) and `dtz` (plies from the position before
    the move to the next zeroing move, signed like the result; 0 for a draw)."""

    move: str
    wdl: int
    dtz: int


def table_name(men: Men) -> str:
    """The Syzygy name of a position's material, stronger side first ("KRvKP")."""

    def side(color: int) -> str:
        boards = (men.kings, men.queens, men.rooks, men.bishops, men.knights, men.pawns)
        return "".join(
            letter * (bb & color).bit_count() for letter, bb in zip("KQRBNP", boards, strict=True)
        )

    white, black = side(men.white), side(men.black)
    order = "KQRBNP"  # the side with more men, else the stronger pieces, comes first
    if (len(white), [order.index(c) for c in black]) < (
        len(black),
        [order.index(c) for c in white],
    ):
        white, black = black, white
    return f"{white}v{black}"


def men_of(board: Board) -> Men:
    """The probe's view of a board; MissingTableError where tables cannot answer (another
    variant, castling rights, pieces that chess does not have)."""
    if board.rules.name not in CHESS_RULES:
        raise MissingTableError(f"Syzygy tables are for chess, not {board.rules.name}")
    pos = board.position
    if pos.castling:
        raise MissingTableError("a position with castling rights is not in the tables")
    rules = board.rules
    boards = [0] * 8
    for index, sq in enumerate(rules.squares()):
        code = pos.board[sq]
        if code < 2:
            continue
        role = ROLES.find(rules.pieces[(code >> 1) - 1].letter.lower())
        if role < 0:
            raise MissingTableError("a piece that the tables do not know")
        boards[code & 1] |= 1 << index
        boards[2 + role] |= 1 << index
    ep = rules.squares().index(pos.ep) if pos.ep else 0
    return Men(*boards, ep=ep, turn=board.turn)


def square_map(rules) -> list[int]:
    """Per mailbox index, the tables' square number (a1 = 0), -1 off the board."""
    mapping = [-1] * (max(rules.squares()) + 1)
    for index, sq in enumerate(rules.squares()):
        mapping[sq] = index
    return mapping


def role_map(rules) -> list[int]:
    """Per piece code, 1 + the piece's index in ROLES (1 king .. 6 pawn), 0 for none."""
    roles = [0, 0]
    for piece in rules.pieces:
        role = ROLES.find(piece.letter.lower()) + 1
        roles += [role, role]
    return roles


# ---------------------------------------------------------------------- file checks


def check_file(path: Path) -> str | None:
    """Why a table file cannot be used (wrong magic, impossible length), None if it looks
    sound. Syzygy files are 64-byte aligned plus a 16-byte checksum."""
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    expected = WDL_MAGIC if path.suffix == WDL_SUFFIX else DTZ_MAGIC
    if magic != expected:
        return "is not a Syzygy table (wrong magic number)"
    if size % 64 != 16:
        return f"is truncated or damaged ({size} bytes is not a table file's length)"
    return None


# ---------------------------------------------------------------------- probers


class _Fathom:
    """Debian's libfathom through ctypes; one set of tables per process."""

    lock = threading.RLock()
    owner = 0  # the token of the Tablebase whose folder is loaded (0: none)

    def __init__(self, library: str) -> None:
        lib = ctypes.CDLL(library)
        u64, uint = ctypes.c_uint64, ctypes.c_uint
        lib.tb_init.argtypes = [ctypes.c_char_p]
        lib.tb_init.restype = ctypes.c_bool
        lib.tb_probe_wdl_impl.argtypes = [u64] * 8 + [uint, ctypes.c_bool]
        lib.tb_probe_wdl_impl.restype = uint
        lib.tb_probe_root_impl.argtypes = [u64] * 8 + [
            uint,
            uint,
            ctypes.c_bool,
            ctypes.POINTER(uint),
        ]
        lib.tb_probe_root_impl.restype = uint
        self.lib = lib

    def load(self, owner: int, folder: str) -> None:
        """Point Fathom at a folder (again, if another Tablebase used it since)."""
        if _Fathom.owner != owner:
            with self.lock:
                self._init(folder)
                _Fathom.owner = owner

    def unload(self, owner: int) -> None:
        """Forget the tables, if these are the ones loaded."""
        with self.lock:
            if _Fathom.owner == owner:
                self._init("")
                _Fathom.owner = 0

    def _init(self, folder: str) -> None:
        """tb_init with the C library's standard error silenced. Debian's build reports every
        successful munmap as an error when it lets tables go, and its tb_free leaves a freed
        pointer behind that the next tb_init uses (both fixed upstream later): so tb_free is
        never called, and tb_init("") lets tables go."""
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            with open(os.devnull, "wb") as null:
                os.dup2(null.fileno(), 2)
                self.lib.tb_init(folder.encode())
        finally:
            os.dup2(saved, 2)
            os.close(saved)

    def wdl(self, men: Men) -> int | None:
        """WDL of a position (with a fresh fifty-move counter), None when not in the tables."""
        result = self.lib.tb_probe_wdl_impl(*men.bitboards(), men.ep, men.turn)
        return None if result == FATHOM_FAILED else result - 2

    def root(self, men: Men, rule50: int) -> tuple[int, list[tuple[int, int, int, int, int]]]:
        """The position's DTZ and each move's (from, to, promotion, wdl, dtz); KeyError when
        the DTZ tables are missing."""
        results = (ctypes.c_uint * FATHOM_MAX_MOVES)()
        res = self.lib.tb_probe_root_impl(*men.bitboards(), rule50, men.ep, men.turn, results)
        if res == FATHOM_FAILED:
            raise MissingTableError("no DTZ table for this position")
        moves = []
        for r in results:
            if r == FATHOM_FAILED:
                break
            wdl = (r & 0xF) - 2
            dtz = r >> 20
            moves.append(((r >> 10) & 0x3F, (r >> 4) & 0x3F, (r >> 16) & 0x7, wdl, dtz))
        wdl, dtz = (res & 0xF) - 2, res >> 20
        return (dtz if wdl > 0 else -dtz if wdl < 0 else 0), moves


class _PythonChess:
    """python-chess's reader, for machines without libfathom."""

    def __init__(self) -> None:
        import chess
        import chess.syzygy

        self.chess = chess
        self.tables = chess.syzygy.Tablebase()
        self.loaded = False

    def load(self, owner: int, folder: str) -> None:
        """Read the folder's tables (once)."""
        if not self.loaded:
            self.tables.add_directory(folder)
            self.loaded = True

    def unload(self, owner: int) -> None:
        """Close the files."""
        self.tables.close()

    def board(self, men: Men):
        """A python-chess board of the position."""
        chess = self.chess
        board = chess.Board(None)
        for role, bb in enumerate(men.bitboards()[2:]):
            for color, side in ((chess.WHITE, men.white), (chess.BLACK, men.black)):
                for sq in chess.scan_forward(bb & side):
                    board.set_piece_at(sq, chess.Piece(6 - role, color))
        board.turn = men.turn
        board.ep_square = men.ep or None
        return board

    def wdl(self, men: Men) -> int | None:
        """WDL of a position, None when not in the tables."""
        return self.tables.get_wdl(self.board(men))

    def dtz(self, men: Men) -> int:
        """DTZ of a position; MissingTableError when not in the tables."""
        value = self.tables.get_dtz(self.board(men))
        if value is None:
            raise MissingTableError("no DTZ table for this position")
        return value


def _prober(backend: str):
    """The prober to use: "fathom", "python-chess", or "auto" (Fathom where installed)."""
    if backend not in ("auto", "fathom", "python-chess"):
        raise ValueError(f"unknown Syzygy backend {backend!r}: auto, fathom or python-chess")
    if backend in ("auto", "fathom"):
        library = os.environ.get("FERZ_FATHOM") or ctypes.util.find_library("fathom")
        if library:
            try:
                return _Fathom(library)
            except (OSError, AttributeError) as error:
                if backend == "fathom":
                    raise SyzygyUnavailable(f"libfathom could not be loaded: {error}") from None
        elif backend == "fathom":
            raise SyzygyUnavailable("libfathom is not installed (apt install libfathom1)")
    try:
        return _PythonChess()
    except ImportError:
        raise SyzygyUnavailable(
            "no Syzygy prober: install libfathom1 (apt) or python-chess (pip install chess)"
        ) from None


# ---------------------------------------------------------------------- the tables


class Tablebase:
    """Syzygy tables from one or more folders (python-chess's ``chess.syzygy.Tablebase``)."""

    def __init__(self, backend: str = "auto") -> None:
        self._prober = _prober(backend)
        self.backend = "fathom" if isinstance(self._prober, _Fathom) else "python-chess"
        self._folder = tempfile.mkdtemp(prefix="ferz-syzygy-")  # links to the checked files
        self.wdl_tables: set[str] = set()
        self.dtz_tables: set[str] = set()
        self.skipped: dict[str, str] = {}  # file path -> why it was left out
        self._closed = False
        self._token = next(_TOKENS)

    def add_directory(self, directory: str | os.PathLike) -> int:
        """Add the tables of a folder; returns how many files were added. FileNotFoundError
        for a folder that does not exist; unusable files are listed in `skipped`."""
        folder = Path(directory).expanduser()
        if not folder.is_dir():
            raise FileNotFoundError(f"no Syzygy folder {str(folder)!r}")
        added = 0
        for path in sorted(folder.iterdir()):
            if path.suffix not in (WDL_SUFFIX, DTZ_SUFFIX) or not path.is_file():
                continue
            problem = check_file(path)
            if problem is not None:
                self.skipped[str(path)] = problem
                continue
            link = Path(self._folder) / path.name
            if link.exists():
                continue  # the first folder that has a table wins, as in Stockfish
            link.symlink_to(path.resolve())
            (self.wdl_tables if path.suffix == WDL_SUFFIX else self.dtz_tables).add(path.stem)
            added += 1
        # the prober reads the folder again at the next probe
        if isinstance(self._prober, _PythonChess):
            self._prober = _PythonChess()
        elif _Fathom.owner == self._token:
            _Fathom.owner = 0
        return added

    @property
    def largest(self) -> int:
        """The most men of any WDL table (0 without tables)."""
        return max((len(name) - 1 for name in self.wdl_tables), default=0)

    def _ready(self):
        """The prober, pointed at these tables."""
        if self._closed:
            raise ValueError("the tablebase is closed")
        self._prober.load(self._token, self._folder)
        return self._prober

    def _men(self, board: Board) -> Men:
        """The position to probe; MissingTableError when no table covers it."""
        men = men_of(board)
        if men.count() > 2 and table_name(men) not in self.wdl_tables:  # KvK: a draw
            raise MissingTableError(f"no table for {table_name(men)}")
        return men

    def probe_bits(self, *men: int) -> int | None:
        """WDL of a position given as Men's fields (the search's probe, no checks beyond the
        prober's own), None when not in the tables."""
        return self._ready().wdl(Men(*men))

    def probe_wdl(self, board: Board) -> int:
        """WDL (-2..2) of the position for the side to move, as if its fifty-move counter
        were 0; MissingTableError when no table covers it."""
        men = self._men(board)
        value = self._ready().wdl(men)
        if value is None:
            raise MissingTableError(f"no table for {table_name(men)}")
        return value

    def get_wdl(self, board: Board, default: int | None = None) -> int | None:
        """probe_wdl, or `default` when the tables do not cover the position."""
        try:
            return self.probe_wdl(board)
        except MissingTableError:
            return default

    def probe_dtz(self, board: Board) -> int:
        """DTZ of the position: plies to the next zeroing move with best play, positive when
        the side to move wins, negative when it loses, 0 for a draw (python-chess's value,
        which may be one more than the shortest distance where the tables round)."""
        men = self._men(board)
        prober = self._ready()
        if isinstance(prober, _Fathom):
            if board.is_checkmate():
                return -1  # as python-chess answers
            return prober.root(men, 0)[0]
        return prober.dtz(men)

    def get_dtz(self, board: Board, default: int | None = None) -> int | None:
        """probe_dtz, or `default` when the tables do not cover the position."""
        try:
            return self.probe_dtz(board)
        except MissingTableError:
            return default

    def probe_root(self, board: Board) -> list[RootMove]:
        """Every legal move with its WDL and DTZ, best first (by DTZ where the DTZ table is
        there, else by WDL with dtz 0); MissingTableError when no table covers the position."""
        men = self._men(board)
        if board.is_game_over():
            return []
        prober = self._ready()
        if isinstance(prober, _Fathom) and table_name(men) in self.dtz_tables:
            moves = self._fathom_root(board, men, prober)
        else:
            moves = self._root_by_probes(board, table_name(men) in self.dtz_tables)
        return sorted(moves, key=rank, reverse=True)

    @staticmethod
    def _fathom_root(board: Board, men: Men, prober: _Fathom) -> list[RootMove]:
        """Fathom's root probe, its moves named in UCI."""
        _, found = prober.root(men, board.halfmove_clock)
        names = "abcdefgh"
        moves = []
        for fr, to, promo, wdl, dtz in found:
            text = f"{names[fr & 7]}{fr // 8 + 1}{names[to & 7]}{to // 8 + 1}"
            if promo:
                text += " qrbn"[promo]
            move = board.uci(board.parse_uci(text))  # Chess960 notation where it applies
            moves.append(RootMove(move, wdl, dtz if wdl > 0 else -dtz if wdl < 0 else 0))
        return moves

    def _root_by_probes(self, board: Board, with_dtz: bool) -> list[RootMove]:
        """Each move's verdict from probes of the position after it (python-chess's reader,
        or WDL tables alone): Fathom's root rule, move by move."""
        moves = []
        child = board.copy()
        for move in board.legal_moves:
            child.push(move)
            if child.is_checkmate():
                wdl, dtz = WIN, 1
            elif not with_dtz:
                wdl, dtz = -self.probe_wdl(child), 0
            else:
                if child.halfmove_clock == 0:
                    dtz = ZEROING_DTZ[-self.probe_wdl(child)]
                else:
                    inner = -self.probe_dtz(child)
                    dtz = inner + 1 if inner > 0 else inner - 1 if inner < 0 else 0
                wdl = _wdl_of_dtz(dtz, board.halfmove_clock)
            child.pop()
            moves.append(RootMove(board.uci(move), wdl, dtz))
        return moves

    def close(self) -> None:
        """Close the files (the tables cannot be probed afterwards)."""
        if not self._closed:
            self._prober.unload(self._token)
            shutil.rmtree(self._folder, ignore_errors=True)
            self._closed = True

    def __enter__(self) -> Tablebase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # only the folder of links: Fathom may still hold the tables (a later Tablebase
        # takes over), and the lock must not be taken from a garbage collection
        shutil.rmtree(getattr(self, "_folder", ""), ignore_errors=True)


def _wdl_of_dtz(dtz: int, halfmove: int) -> int:
    """The WDL that a DTZ means with `halfmove` plies already on the fifty-move counter."""
    if dtz > 0:
        return WIN if dtz + halfmove <= 100 else CURSED_WIN
    if dtz < 0:
        return LOSS if -dtz + halfmove <= 100 else BLESSED_LOSS
    return DRAW


def rank(move: RootMove) -> tuple[int, int]:
    """A sort key of root moves, larger is better: the result first, then the quickest
    conversion of a win and the longest resistance in a loss."""
    if move.wdl > 0:
        return move.wdl, -abs(move.dtz)
    if move.wdl < 0:
        return move.wdl, abs(move.dtz)
    return 0, 0


def best_root_moves(moves: list[RootMove], rule50: bool = True) -> list[str]:
    """The moves the engine may play (Syzygy50MoveRule `rule50`: a cursed win is a draw): the
    best result's moves; of a win, those that convert fastest (DTZ); of a loss, those that
    resist longest; of a draw, all that hold it."""
    if not moves:
        return []

    def result(move: RootMove) -> int:
        if rule50:
            return move.wdl if abs(move.wdl) == 2 else 0
        return 2 if move.wdl > 0 else -2 if move.wdl < 0 else 0

    best = max(result(move) for move in moves)
    kept = [move for move in moves if result(move) == best]
    if best != 0 and any(move.dtz for move in kept):
        target = max(rank(move) for move in kept)
        kept = [move for move in kept if rank(move) == target]
    return [move.move for move in kept]


def open_tablebase(
    directory: str | os.PathLike | Iterable[str | os.PathLike], backend: str = "auto"
) -> Tablebase:
    """Open the Syzygy tables of a folder (or several); see `Tablebase`."""
    tables = Tablebase(backend)
    folders = [directory] if isinstance(directory, (str, os.PathLike)) else list(directory)
    try:
        for folder in folders:
            tables.add_directory(folder)
    except Exception:
        tables.close()
        raise
    return tables


def parse_path(text: str) -> list[str]:
    """The folders of a SyzygyPath value (separated by ':' as in Stockfish, ';' on Windows);
    empty or ``<empty>`` for none."""
    text = text.strip()
    if not text or text == "<empty>":
        return []
    return [part for part in text.split(os.pathsep) if part.strip()]


__all__ = [
    "BLESSED_LOSS",
    "CURSED_WIN",
    "DRAW",
    "LOSS",
    "WIN",
    "Men",
    "MissingTableError",
    "RootMove",
    "SyzygyUnavailable",
    "Tablebase",
    "best_root_moves",
    "open_tablebase",
]
