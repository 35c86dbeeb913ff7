"""The Engine facade: position, options and a non-blocking search that reports via callbacks.

Protocol front ends (UCI, xboard, web, terminal) drive an Engine and never touch the core. The
search runs in a worker thread with the GIL released, so `stop`, `ponderhit` and the front
end's own I/O are served while it thinks. Search output leaves only through the callbacks.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from . import data, timeman, variants
from .board import Board, Move, rules_for
from .book import Book, bundled_book
from .core import factory, nnue
from .core.defs import MAX_GAME_PLY
from .core.evaluate import Evaluator
from .core.position import Position
from .core.search import DEPTH_LIMIT, Search, mate_in, tb_plies
from .core.tt import TT
from .options import Option, Options
from .params import SEARCH, TIME
from .score import Score
from .syzygy import (
    CHESS_RULES,
    MissingTableError,
    SyzygyUnavailable,
    Tablebase,
    best_root_moves,
    open_tablebase,
    parse_path,
    role_map,
    square_map,
)
from .tablebase import Endgames, TablebaseError

HASH_MAX_MB = 4096
THREADS_MAX = 64
TB_WIN_CP = 20000  # a tablebase win n plies away reports cp 20000 - n (as Stockfish does)
MULTIPV_MAX = 256
# Strength levels (docs/engine.md "Strength levels"). The limits are set on an internal
# "skill" scale s in 0..20: s in 0..19 searches at most SKILL_TOP_NODES * SKILL_NODE_STEP **
# (s - 19) nodes a move. Skill 19's budget is about a third of what ferz's own clock lets it
# search in a 10+0.1 s middlegame, so the limits stay budget-bound at blitz controls. The random
# push (SKILL_NOISE_CP a skill below 19, in centipawns) and the lines it chooses among shrink to
# nothing at skill 19. Skills between 19 and 20 bridge the rest to full strength: their budget
# grows by SKILL_BRIDGE_STEP up to about what the 10+0.1 clock allows. Equal skill steps are
# not equal Elo steps (measured), so both options go through the calibration SKILL_ELO:
# UCI_Elo maps to the skill with that Elo, and `Skill Level` k to the skill whose Elo is
# ELO_MIN + k * LEVEL_ELO, equal steps from level 0 to full strength (level 20).
SKILL_TOP_NODES = 90_000
SKILL_NODE_STEP = 1.4
SKILL_BRIDGE_STEP = 3.0
SKILL_NOISE_CP = 10  # the push's width grows by this much for each skill below 19
SKILL_LINE_CP = 50  # one line to choose from, beyond the best, for each this much of width
SKILL_MAX_LINES = 4
SKILL_POLL_MASK = 63  # limited levels check their budget every 64 nodes (full strength: 1024)
# Calibration against Stockfish 15.1's UCI_Elo at 10+0.1 s (docs/engine.md "Strength levels"):
# (skill, Elo) knots of the weighted least squares fit, straight between the knots, of all the
# matches at these limits (30 games each, old and new pooled). skill_of_elo inverts it by the
# same straight lines. The ends are rounded to 20 Elo, so that a level's step is whole.
SKILL_ELO: tuple[tuple[float, float], ...] = (
    (0, 1340),
    (5, 1437),
    (10, 1921),
    (15, 2003),
    (19, 2331),
    (20, 2500),
)
ELO_MIN = 1340  # level 0
ELO_MAX = 2500  # full strength
LEVEL_ELO = (ELO_MAX - ELO_MIN) / 20  # Elo between neighbouring `Skill Level`s
LEVEL_HELP = f"20 = full strength; 0-19 in equal steps of {LEVEL_ELO:.0f} Elo from {ELO_MIN}"
STOP_POLL_S = 0.002
MAX_LAG_MS = 1000  # the measured delay added to Move Overhead never exceeds this
LAG_FADE = 0.8  # per move, the remembered delay shrinks by this factor
CURRMOVE_AFTER_S = 1.0  # UCI: report currmove only on long searches
CURRMOVE_EVERY_S = 1.0  # ... and at most this often


@dataclass
class Limits:
    """What `go` may spend: clocks and increments in ms, or a fixed time, depth, node count."""

    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    infinite: bool = False
    ponder: bool = False
    searchmoves: Sequence[str] = ()


@dataclass
class Info:
    """One search update (fields left None are not reported)."""

    depth: int | None = None
    seldepth: int | None = None
    multipv: int | None = None
    score_cp: int | None = None
    score_mate: int | None = None
    bound: str | None = None  # "lower", "upper" or None for an exact score
    wdl: tuple[int, int, int] | None = None
    nodes: int | None = None
    nps: int | None = None
    hashfull: int | None = None
    tbhits: int | None = None
    time_ms: int | None = None
    pv: list[str] = field(default_factory=list)
    currmove: str | None = None
    currmovenumber: int | None = None
    string: str | None = None

    @property
    def score(self) -> Score | None:
        """The reported score as one value (mate or centipawns), None when there is none."""
        return Score.of(self.score_cp, self.score_mate)


@dataclass(frozen=True)
class PlayResult:
    """What a blocking `Engine.play` returns: the move (UCI, None in a finished game), the
    expected reply, and the last report of the best line."""

    move: str | None
    ponder: str | None
    info: Info


InfoCallback = Callable[[Info], None]
BestmoveCallback = Callable[[str | None, str | None], None]


def wdl_of(score_cp: int) -> tuple[int, int, int]:
    """Win/draw/loss permille for a centipawn score (a logistic model, side to move's view)."""

    def win(cp: float) -> float:
        """Win permille at a score."""
        return 1000 / (1 + math.exp((150 - cp) / 70))

    w = round(win(score_cp))
    loss = round(win(-score_cp))
    return w, 1000 - w - loss, loss


def elo_of_skill(skill: float) -> float:
    """The calibrated Elo (Stockfish's UCI_Elo scale) of a fractional skill level 0..20."""
    skill = min(max(skill, 0.0), 20.0)
    for (s0, e0), (s1, e1) in pairwise(SKILL_ELO):
        if skill <= s1:
            return e0 + (e1 - e0) * (skill - s0) / (s1 - s0)
    return SKILL_ELO[-1][1]


def skill_of_elo(elo: float) -> float:
    """The fractional skill level 0..20 whose calibrated Elo is `elo` (clamped to the ends)."""
    elo = min(max(elo, SKILL_ELO[0][1]), SKILL_ELO[-1][1])
    for (s0, e0), (s1, e1) in pairwise(SKILL_ELO):
        if elo <= e1:
            return s0 + (s1 - s0) * (elo - e0) / (e1 - e0)
    return SKILL_ELO[-1][0]


def level_elo(level: int) -> float:
    """The Elo a `Skill Level` 0..20 stands for: equal steps from ELO_MIN to ELO_MAX."""
    return ELO_MIN + level * LEVEL_ELO


def skill_of_level(level: int) -> float:
    """The internal skill 0..20 of a `Skill Level`: the one calibrated at its Elo."""
    return skill_of_elo(level_elo(level))


def skill_of(options: Options) -> float | None:
    """The internal skill (0 to under 20) that the options ask for when strength is limited,
    else None (full strength)."""
    if options.get("UCI_LimitStrength"):
        skill = skill_of_elo(int(options.get("UCI_Elo")))
    else:
        skill = skill_of_level(int(options.get("Skill Level")))
    return skill if skill < 20 else None


def skill_nodes(skill: float) -> int:
    """Node budget per move of a skill: a fixed ratio between neighbouring skills, and
    from 19 towards 20 a steeper one, up to what a 10+0.1 s clock allows."""
    step = SKILL_NODE_STEP if skill <= 19 else SKILL_BRIDGE_STEP
    return int(SKILL_TOP_NODES * step ** (skill - 19))


def skill_depth(skill: float) -> int:
    """Depth cap of a skill: the lowest skills look one to three plies ahead (from
    skill 5 or so the node budget stops the search first)."""
    return 1 + int(skill * 0.7)


def skill_noise(skill: float) -> int:
    """Width in centipawns of the random push a skill adds to each line (0 from 19)."""
    return max(0, round(SKILL_NOISE_CP * (19 - skill)))


def skill_lines(skill: float) -> int:
    """How many lines a skill searches to choose from (1 once the push is gone)."""
    return min(SKILL_MAX_LINES, 1 + -(-skill_noise(skill) // SKILL_LINE_CP))


class Engine:
    """A chess/variant engine with a UCI-like life cycle (see docs/architecture.md)."""

    def __init__(self, variant: str = "chess") -> None:
        self._rules = rules_for(variant)
        self._net: nnue.Network | None = None  # EvalFile's network, when one is set
        self._evaluator = Evaluator(self._rules, net=nnue.bundled(self._rules))
        self._tt = TT(16)
        self._searches: list[Search] = []
        self._board = Board(variant=self._rules.name)
        # the last `position` command's FEN and moves, and the board it made (see _extended)
        self._given: tuple[str | None, list[str], Board, int] | None = None
        self._thread: threading.Thread | None = None
        self._done = threading.Event()
        self._done.set()
        self._lock = threading.Lock()
        self._stop_requested = False
        self._pondering = False
        self._clock_start = 0.0
        self._lag = 0.0  # ms the bestmove came after the hard limit lately (see _measure_lag)
        self._budget = timeman.Budget(None, None)
        self._rng = random.Random(0)
        self._book_rng = random.Random()
        self._pv_board = self._board  # the root position for move notation during a search
        self._book: Book | None = None
        self._tables: Tablebase | None = None  # SyzygyPath's tables
        self._own: dict[str, Endgames] = {}  # FerzTbPath's tables, per variant (on first use)
        self._root_tb: tuple[int, int] | None = None  # the root's (wdl, dtz) when in the tables
        self._safe_move: str | None = None  # this search's first root move (tables applied)
        self.options = self._declare_options()

    # ------------------------------------------------------------------ options

    def _declare_options(self) -> Options:
        """Every option of the engine, declared once."""
        names = variants.names_and_aliases()
        return Options(
            [
                Option(
                    "Hash",
                    "spin",
                    16,
                    1,
                    HASH_MAX_MB,
                    help="transposition table (MB)",
                    on_change=self._set_hash,
                ),
                Option("Threads", "spin", 1, 1, THREADS_MAX, help="search threads (Lazy SMP)"),
                Option("MultiPV", "spin", 1, 1, MULTIPV_MAX, help="principal variations shown"),
                Option("Ponder", "check", False, help="think on the opponent's time"),
                Option(
                    "Move Overhead",
                    "spin",
                    TIME["move_overhead"],
                    0,
                    5000,
                    help="ms kept back per move for communication delays",
                ),
                Option(
                    "Clear Hash",
                    "button",
                    help="empty the transposition table",
                    on_change=lambda _value: self._clear(),
                ),
                Option(
                    "UCI_Chess960",
                    "check",
                    False,
                    help="Chess960 castling notation",
                    on_change=self._set_chess960,
                ),
                Option(
                    "UCI_Variant",
                    "combo",
                    self._rules.name,
                    choices=tuple(names),
                    help="the variant to play",
                    on_change=self._set_variant,
                ),
                Option("UCI_LimitStrength", "check", False, help="play at UCI_Elo strength"),
                Option("UCI_Elo", "spin", 1500, ELO_MIN, ELO_MAX, help="target strength"),
                Option("Skill Level", "spin", 20, 0, 20, help=LEVEL_HELP),
                Option("UCI_ShowWDL", "check", False, help="report win/draw/loss permille"),
                Option(
                    "OwnBook",
                    "check",
                    False,
                    help="play book moves (BookFile, or ferz's own book for standard chess)",
                ),
                Option(
                    "BookFile",
                    "string",
                    "",
                    help="Polyglot opening book (.bin); empty: the book that ships with ferz",
                    on_change=self._set_book,
                ),
                Option(
                    "Use NNUE",
                    "check",
                    True,
                    help="evaluate with the neural network where the variant has one",
                    on_change=lambda value: self._set_evaluator(bool(value), self._net),
                ),
                Option(
                    "EvalFile",
                    "string",
                    "",
                    help="network file (.nnue); empty: the one shipped for the variant",
                    on_change=self._set_eval_file,
                ),
                Option(
                    "VariantPath",
                    "string",
                    "",
                    help="variants.ini file with more variants (Fairy-Stockfish format)",
                    on_change=self._set_variant_path,
                ),
                Option(
                    "SyzygyPath",
                    "string",
                    "<empty>",
                    help="folders of Syzygy tables for chess, separated by : (; on Windows)",
                    on_change=self._set_syzygy_path,
                ),
                Option(
                    "FerzTbPath",
                    "string",
                    "<empty>",
                    help="folders of ferz's own tables (ferz tb build), any variant, "
                    "separated by : (; on Windows)",
                    on_change=self._set_own_path,
                ),
                Option(
                    "SyzygyProbeDepth",
                    "spin",
                    1,
                    1,
                    100,
                    help="least depth to probe positions with as many men as the largest tables",
                ),
                Option(
                    "Syzygy50MoveRule",
                    "check",
                    True,
                    help="a win or loss that the fifty-move rule spoils counts as a draw",
                ),
                Option(
                    "SyzygyProbeLimit",
                    "spin",
                    7,
                    0,
                    7,
                    help="probe only positions with at most this many men",
                ),
            ]
        )

    def set_option(self, name: str, value) -> None:
        """Set an option by name; ValueError for an unknown name or a bad value."""
        if self.searching:
            raise ValueError("options cannot change during a search")
        self.options.set(name, value)

    def _set_hash(self, value) -> None:
        """Resize the transposition table."""
        self._tt.resize(int(value))

    def _set_chess960(self, value) -> None:
        """Switch Chess960 castling notation, keeping the position."""
        self._board = self._rebuild(self._board.starting_fen, self._uci_moves(), bool(value))

    def _set_variant(self, value) -> None:
        """Switch the variant; the board goes to its start position."""
        rules = rules_for(str(value))
        self._rules = rules
        net = self._network_for(rules, bool(self.options.get("Use NNUE")))
        self._evaluator = Evaluator(rules, net=net)
        self._searches = []
        self._board = Board(rules=rules, chess960=bool(self.options.get("UCI_Chess960")))
        self._tt.clear()

    def _set_eval_file(self, value) -> None:
        """Evaluate with a network file (empty: the shipped ones); ValueError for a bad one."""
        path = str(value or "").strip()
        net = nnue.read(path) if path else None  # NetworkError (a ValueError) says why
        self._set_evaluator(bool(self.options.get("Use NNUE")), net)

    def _set_evaluator(self, use_net: bool, net: nnue.Network | None) -> None:
        """Rebuild the evaluation: the given network where it fits the variant, else the
        shipped one, or the hand-made evaluation (use_net off, or no network fits)."""
        self._net = net
        self._evaluator = Evaluator(self._rules, net=self._network_for(self._rules, use_net))
        self._searches = []

    def _network_for(self, rules, use_net: bool) -> nnue.Network | None:
        """The network to evaluate a variant with, or None."""
        if not use_net:
            return None
        if self._net is not None and self._net.fits(rules):
            return self._net
        return nnue.bundled(rules)

    @property
    def network(self) -> nnue.Network | None:
        """The network the evaluation uses, or None (the hand-made evaluation)."""
        return self._evaluator.net

    def _set_variant_path(self, value) -> None:
        """Load user variants (all or nothing) and offer them as UCI_Variant choices."""
        path = str(value or "").strip()
        if path:
            variants.load_file(path)  # a DefinitionError (ValueError) names file and line
            self.options["UCI_Variant"].choices = tuple(variants.names_and_aliases())

    def _set_syzygy_path(self, value) -> None:
        """Open the Syzygy tables of the folders (empty or <empty>: none); ValueError for a
        missing folder or when no prober is installed (the old tables stay)."""
        folders = parse_path(str(value or ""))
        tables = None
        if folders:
            try:
                tables = open_tablebase(folders)
            except (OSError, SyzygyUnavailable) as error:
                raise ValueError(f"SyzygyPath: {error}") from None
        if self._tables is not None:
            self._tables.close()
        self._tables = tables
        self._searches = []

    def _set_own_path(self, value) -> None:
        """Check the folders of FerzTbPath (ValueError for a missing one); the tables of each
        variant are opened when a search first needs them."""
        for folder in parse_path(str(value or "")):
            if not os.path.isdir(folder):
                raise ValueError(f"FerzTbPath: no such folder: {folder}")
        self._own = {}
        self._searches = []

    def own_tables(self) -> Endgames | None:
        """ferz's own tables of the current variant: those bundled with ferz (ferz.data) and
        those in FerzTbPath's folders; None without any."""
        name = self._rules.name
        bundled = data.tables(name)
        folders = ([str(bundled)] if bundled else []) + parse_path(
            str(self.options.get("FerzTbPath") or "")
        )
        if not folders:
            return None
        if name not in self._own:
            try:
                tables = Endgames(name)
            except (ValueError, KeyError):
                return None
            for folder in folders:
                with contextlib.suppress(TablebaseError):  # a folder removed since: skipped
                    tables.add_directory(folder)
            self._own[name] = tables
        tables = self._own[name]
        return tables if tables.paths else None

    @property
    def tablebase(self) -> Tablebase | None:
        """The Syzygy tables that SyzygyPath opened, None without."""
        return self._tables

    def _tb_pieces(self) -> int:
        """The most men the search probes (0: no tables for this variant)."""
        tables = self._tables
        if tables is None or self._rules.name not in CHESS_RULES:
            return 0
        return min(tables.largest, int(self.options.get("SyzygyProbeLimit")))

    def _rank_root(self, searchmoves: list[int]) -> tuple[list[int], bool]:
        """The root moves that keep the tables' result (Syzygy at the root: a win converted by
        DTZ, a draw held, a loss resisted), and whether the search should still probe."""
        board = self._board
        self._root_tb = None
        if not self._tb_pieces():
            own = self.own_tables()
            if own is not None:
                return self._rank_root_own(own, searchmoves)
        pieces = self._tb_pieces()
        if not pieces or len(board.pieces()) > pieces or board.position.castling:
            return searchmoves, bool(pieces)
        tables = self._tables
        try:
            moves = tables.probe_root(board)
        except MissingTableError:
            return searchmoves, True
        rule50 = bool(self.options.get("Syzygy50MoveRule"))
        allowed = [board.parse_uci(text).code for text in best_root_moves(moves, rule50)]
        if searchmoves:
            allowed = [code for code in allowed if code in searchmoves] or searchmoves
        if not allowed or not moves:
            return searchmoves, True
        best = moves[0]
        wdl = best.wdl if rule50 or best.wdl == 0 else 2 * (1 if best.wdl > 0 else -1)
        self._root_tb = (wdl if abs(wdl) == 2 else 0, best.dtz)
        by_dtz = any(move.dtz for move in moves)
        # with DTZ the root choice converts by itself; with WDL only, probes help a win along
        return allowed, not by_dtz and wdl > 0

    def _rank_root_own(self, own: Endgames, searchmoves: list[int]) -> tuple[list[int], bool]:
        """_rank_root by ferz's own tables: the moves that mate soonest from a won position,
        keep a draw, or resist longest; whether the search should probe them."""
        board = self._board
        if len(board.pieces()) > own.largest:
            return searchmoves, True
        moves = own.root_moves(board)
        if not moves:
            return searchmoves, True
        best = moves[0][1]
        allowed = [move.code for move, dtm in moves if dtm == best]
        if searchmoves:
            allowed = [code for code in allowed if code in searchmoves] or searchmoves
        self._root_tb = (0 if best == 0 else 2 if best > 0 else -2, abs(best))
        return allowed, False

    def _set_book(self, value) -> None:
        """Load a Polyglot book (empty: none); ValueError for a missing or bad file."""
        path = str(value or "").strip()
        self._book = Book(path) if path else None

    def _book_move(self) -> str | None:
        """A move from the opening book when OwnBook is on and the book knows the position:
        BookFile's, or the bundled one (standard chess only). Chosen by weight, at random
        from game to game (the skill levels' generator is seeded; this one is not)."""
        if not self.options.get("OwnBook"):
            return None
        board = self._board
        if board.variant not in ("chess", "chess960"):
            return None  # Polyglot books describe standard chess
        chosen = self._book
        if chosen is None and not board.chess960:
            chosen = bundled_book()
        if chosen is None:
            return None
        move = chosen.choose(board, self._book_rng)
        return None if move is None else self._board.uci(move)

    def _clear(self) -> None:
        """Empty the hash table and the move-ordering histories."""
        self._tt.clear()
        for search in self._searches:
            search.clear()

    # ------------------------------------------------------------------ position

    @property
    def board(self) -> Board:
        """The current position with its move history."""
        return self._board

    def new_game(self) -> None:
        """Forget everything learnt in the previous game."""
        self.wait()
        self._clear()
        self._rng = random.Random(0)
        self._book_rng = random.Random()
        self._board = Board(rules=self._rules, chess960=self._board.chess960)

    def set_position(self, fen: str | None = None, moves: Sequence[str] = ()) -> None:
        """Set up a position (None = start) and play UCI moves; ValueError keeps the old one."""
        if self.searching:
            raise ValueError("the position cannot change during a search")
        moves = list(moves)
        board = self._extended(fen, moves)
        if board is None:
            board = self._rebuild(fen, moves, self._board.chess960)
        self._board = board
        self._given = (fen, moves, board, len(board.move_stack))

    def _extended(self, fen: str | None, moves: list[str]) -> Board | None:
        """The current board with only the new moves played when this position is the last
        one given plus some moves, else None. A GUI sends the whole game before each move,
        and replaying thousands of moves in Python would cost time on the clock."""
        if self._given is None:
            return None
        given_fen, given_moves, board, stack = self._given
        known = len(given_moves)
        if (
            board is not self._board
            or given_fen != fen
            or len(board.move_stack) != stack
            or board.position.ply + len(moves) - known > MAX_GAME_PLY  # rebuilt from a later root
            or moves[:known] != given_moves
        ):
            return None
        played = 0
        try:
            for i in range(known, len(moves)):
                board.push_uci(moves[i])
                played += 1
        except ValueError as error:
            for _ in range(played):
                board.pop()  # the old position stays, as after a rebuild that fails
            raise ValueError(f"move {i + 1} ({moves[i]}): {error}") from None
        return board

    def _rebuild(self, fen: str | None, moves: Sequence[str], chess960: bool) -> Board:
        """A new board from FEN and UCI moves; raises ValueError naming the bad part. A game
        longer than a board holds goes on from a later root (its FEN): only repetitions of
        positions from before that root go unseen, thousands of plies back."""
        board = Board(fen, rules=self._rules, chess960=chess960)
        for i, text in enumerate(moves):
            if board.position.ply >= MAX_GAME_PLY:
                board = Board(board.fen(), rules=self._rules, chess960=chess960)
            try:
                board.push_uci(text)
            except ValueError as error:
                raise ValueError(f"move {i + 1} ({text}): {error}") from None
        return board

    def _uci_moves(self) -> list[str]:
        """The moves played on the current board, in UCI notation."""
        return [move.uci() for move in self._board.move_stack]

    def evaluate(self) -> int:
        """Static evaluation of the current position, side to move's view, in centipawns."""
        return self._evaluator.eval(self._search_position())

    def _search_position(self) -> Position:
        """A core position of the current game with its history (for repetitions)."""
        moves = [move.code for move in self._board.move_stack]
        return factory.position(self._rules, self._board.starting_fen, self._evaluator, moves)

    # ------------------------------------------------------------------ searching

    @property
    def searching(self) -> bool:
        """Whether a search is running."""
        return not self._done.is_set()

    def go(
        self,
        limits: Limits,
        on_info: InfoCallback | None = None,
        on_bestmove: BestmoveCallback | None = None,
    ) -> None:
        """Start searching the current position; returns at once. on_bestmove is called once."""
        if self.searching:
            raise ValueError("a search is already running")
        if limits.depth is not None and limits.depth < 1:
            raise ValueError("depth must be at least 1")
        board = self._board
        searchmoves = [board.parse_uci(text).code for text in limits.searchmoves]
        # The GUI's clock runs from the moment it sent `go`: start ours as early as possible.
        self._clock_start = time.monotonic()
        self._stop_requested = False
        self._pondering = bool(limits.ponder)
        self._pv_board = Board(board.fen(), rules=self._rules, chess960=board.chess960)
        self._done.clear()
        self._thread = threading.Thread(
            target=self._run,
            args=(limits, searchmoves, on_info, on_bestmove),
            name="ferz-search",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop the search as soon as possible; its bestmove follows."""
        with self._lock:
            self._stop_requested = True
            self._pondering = False
            for search in self._searches:
                search.stop = 1

    def ponderhit(self) -> None:
        """The opponent played the predicted move: the ponder search now runs on the clock."""
        with self._lock:
            if self._pondering:
                self._pondering = False
                self._clock_start = time.monotonic()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the search has finished (and its bestmove was reported)."""
        return self._done.wait(timeout)

    # ------------------------------------------------------------------ blocking calls

    def play(self, board: Board, limits: Limits) -> PlayResult:
        """Search the board's position (its whole game, for repetitions) and return the move to
        play; blocks until the search ends. The board is left as it was."""
        best: list[str | None] = [None, None]

        def on_bestmove(move: str | None, ponder: str | None) -> None:
            best[:] = [move, ponder]

        lines = self._search_board(board, limits, 1, on_bestmove)
        return PlayResult(best[0], best[1], lines[0] if lines else Info())

    def analyse(self, board: Board, limits: Limits, multipv: int = 1) -> list[Info]:
        """The best `multipv` lines of the board's position, best first: each line's last
        report (score, depth, nodes, pv); blocks until the search ends."""
        if not 1 <= multipv <= MULTIPV_MAX:
            raise ValueError(f"multipv must be between 1 and {MULTIPV_MAX}, got {multipv}")
        return self._search_board(board, limits, multipv, None)

    def _search_board(
        self, board: Board, limits: Limits, multipv: int, on_bestmove: BestmoveCallback | None
    ) -> list[Info]:
        """Set up the board's game (variant, Chess960, moves), search it with `multipv` lines
        and return the last report of each line, best first."""
        if limits.infinite or limits.ponder:
            raise ValueError("a blocking search needs a limit (not infinite or ponder)")
        self.wait()
        if board.rules.name != self._rules.name:
            self.set_option("UCI_Variant", board.rules.name)
        if board.chess960 != self._board.chess960:
            self.set_option("UCI_Chess960", board.chess960)
        self.set_position(board.starting_fen, [move.uci() for move in board.move_stack])
        lines: dict[int, Info] = {}

        def on_info(info: Info) -> None:
            if info.pv and (info.score_cp is not None or info.score_mate is not None):
                lines[info.multipv or 1] = info

        saved = self.options.get("MultiPV")
        self.set_option("MultiPV", multipv)
        try:
            self.go(limits, on_info=on_info, on_bestmove=on_bestmove)
            self.wait()
        finally:
            self.set_option("MultiPV", saved)
        return [lines[k] for k in sorted(lines)]

    def _run(self, limits: Limits, searchmoves: list[int], on_info, on_bestmove) -> None:
        """The worker thread: search, report, and always deliver exactly one bestmove."""
        best: str | None = None
        ponder: str | None = None
        self._budget = timeman.Budget(None, None)
        self._safe_move = None
        try:
            best, ponder = self._think(limits, searchmoves, on_info)
        except Exception as error:  # report instead of dying silently; still send a move
            if on_info:
                with contextlib.suppress(Exception):
                    on_info(Info(string=f"search error: {error!r}"))
            best, ponder = self._safe_move or self._fallback_move(), None
        finally:
            with self._lock:
                for search in self._searches:
                    search.stop = 0
            self._measure_lag()
            if on_bestmove:
                try:
                    on_bestmove(best, ponder)
                finally:
                    self._done.set()
            else:
                self._done.set()

    def _measure_lag(self) -> None:
        """Learn how late the bestmove comes after the hard limit (a loaded machine's delay).

        The largest recent delay is added to the Move Overhead of the next moves, so a busy
        machine makes the time manager keep more time back; it fades when the load goes.
        """
        hard = self._budget.hard
        if hard is None or self._pondering or self._stop_requested:
            return
        late = (time.monotonic() - self._clock_start) * 1000 - hard
        self._lag = min(MAX_LAG_MS, max(late, self._lag * LAG_FADE))

    def _fallback_move(self) -> str | None:
        """Some legal move when the search could not provide one (never in a finished game)."""
        board = self._board
        if board.outcome() is not None:
            return None
        moves = board.legal_moves
        return board.uci(moves[0]) if moves else None

    def _prepare(self, threads: int) -> list[Search]:
        """One Search per thread on fresh copies of the game position, sharing the TT."""
        del self._searches[threads:]
        for i in range(threads):
            pos = self._search_position()
            if i < len(self._searches):
                self._searches[i].set_position(pos)
            else:
                self._searches.append(Search(pos, self._tt, self._evaluator))
            self._searches[i].stop = 0
            self._searches[i].node_limit = 0
        return self._searches

    def _attach_tables(self, searches: list[Search], probe: bool) -> None:
        """Let the searches probe the Syzygy tables in the tree (or not)."""
        pieces = self._tb_pieces() if probe else 0
        tables = self._tables
        own = self.own_tables() if probe and not pieces else None
        for search in searches:
            if own is not None:
                search.set_tablebase(
                    own.search_probe,
                    own.largest,
                    int(self.options.get("SyzygyProbeDepth")),
                    False,
                    [],
                    [],
                    own=True,
                )
            elif pieces and tables is not None:
                search.set_tablebase(
                    tables.probe_bits,
                    pieces,
                    int(self.options.get("SyzygyProbeDepth")),
                    bool(self.options.get("Syzygy50MoveRule")),
                    role_map(self._rules),
                    square_map(self._rules),
                )
            else:
                search.set_tablebase(None, 0, 1, True, [], [])

    def _think(self, limits: Limits, searchmoves: list[int], on_info) -> tuple:
        """Run the search to its limits; returns (best, ponder) in UCI notation."""
        board = self._board
        if board.outcome() is not None:
            return None, None
        book = self._book_move()
        if book is not None and not limits.searchmoves:
            if on_info:
                on_info(Info(string=f"book move {book}"))
            return book, None
        side = 0 if board.turn else 1
        self._budget = timeman.allocate(
            side,
            wtime=limits.wtime,
            btime=limits.btime,
            winc=limits.winc,
            binc=limits.binc,
            movestogo=limits.movestogo,
            movetime=limits.movetime,
            infinite=limits.infinite,
            overhead=int(self.options.get("Move Overhead")),
            lag=self._lag,
            drops=bool(self._rules.drops),
        )
        skill = skill_of(self.options)
        threads = int(self.options.get("Threads")) if skill is None else 1
        with self._lock:
            searches = self._prepare(threads)
            if self._stop_requested:
                for search in searches:
                    search.stop = 1
        probe = False
        if skill is None:  # a limited level plays without tablebases, as a person would
            searchmoves, probe = self._rank_root(searchmoves)
        else:
            self._root_tb = None
        self._attach_tables(searches, probe)
        main = searches[0]
        main.poll_mask = SEARCH["poll_mask"]
        if main.set_root(searchmoves) == 0:
            main.set_root()
        # what an error from here on still plays: a root move that keeps the tables' result
        first = main.root_move_list()[:1]
        self._safe_move = self._uci(first[0]) if first else None
        depth = limits.depth or DEPTH_LIMIT
        multipv = int(self.options.get("MultiPV"))
        budget = 0  # a skill level's node budget, applied once depth 1 has chosen a move
        if skill is not None:
            multipv = max(multipv, skill_lines(skill))
            depth = min(depth, skill_depth(skill))
            budget = skill_nodes(skill)
            if limits.nodes:
                budget = min(budget, limits.nodes)
            # the node limit is checked every poll_mask + 1 nodes: finely for small budgets
            main.poll_mask = SKILL_POLL_MASK
        elif limits.nodes:
            main.node_limit = limits.nodes
        helpers = self._start_helpers(searches[1:], searchmoves, depth)
        timer = threading.Thread(target=self._watch, args=(searches, on_info), daemon=True)
        timer.start()
        last = None
        stability = timeman.Stability(drops=bool(self._rules.drops))
        try:
            for iteration in main.iterate(depth, multipv):
                last = iteration
                if budget:
                    main.node_limit = budget
                self._report(iteration, searches, on_info)
                line = iteration.lines[0]
                scale = stability.scale(line.pv[0] if line.pv else 0, line.score, iteration.depth)
                if self._should_stop(iteration, limits, main.nroot, scale):
                    break
        finally:
            for search in searches:
                search.stop = 1
            for helper in helpers:
                helper.join()
            timer.join()
        if last is None:
            moves = main.root_move_list()
            return (self._uci(moves[0]) if moves else self._fallback_move()), None
        pv = last.lines[0].pv
        if skill is not None:
            pv = [self._skill_pick(last.lines, skill)]
        best = self._uci(pv[0])
        texts = self._pv_texts(pv)  # ends at a move that is not legal: it may be shorter
        ponder = texts[1] if len(texts) > 1 else None
        return best, ponder

    def _start_helpers(self, helpers: list[Search], searchmoves: list[int], depth: int) -> list:
        """Lazy SMP: helper threads search the same root, sharing only the TT."""
        threads = []
        for n, search in enumerate(helpers):
            if search.set_root(searchmoves) == 0:
                search.set_root()
            # Helpers start one or two plies deeper than the main thread, so that the threads
            # spread over different depths and fill the shared TT with different work.
            thread = threading.Thread(
                target=self._helper, args=(search, depth, 2 + n % 2), daemon=True
            )
            thread.start()
            threads.append(thread)
        return threads

    @staticmethod
    def _helper(search: Search, depth: int, first_depth: int) -> None:
        """Run a helper search until it is stopped."""
        for _ in search.iterate(depth, 1, first_depth, main=False):
            pass

    def _watch(self, searches: list[Search], on_info=None) -> None:
        """Stop the search at the hard time limit and report the current root move.

        The search itself never reads the clock. After CURRMOVE_AFTER_S of thinking, the root
        move under search goes out (UCI `currmove`) at most once per CURRMOVE_EVERY_S; the
        engine joins this thread before its bestmove, so no currmove follows the bestmove.
        """
        main = searches[0]
        next_report = CURRMOVE_AFTER_S
        while not main.stop:
            elapsed = time.monotonic() - self._clock_start
            hard = self._budget.hard
            if hard is not None and not self._pondering and elapsed * 1000 >= hard:
                for search in searches:
                    search.stop = 1
                return
            if on_info is not None and elapsed >= next_report and main.root_move:
                next_report = elapsed + CURRMOVE_EVERY_S
                on_info(
                    Info(
                        depth=main.root_depth,
                        currmove=self._uci(main.root_move),
                        currmovenumber=main.root_index,
                    )
                )
            time.sleep(STOP_POLL_S)

    def _should_stop(self, iteration, limits: Limits, nroot: int, scale: float = 1.0) -> bool:
        """Whether to stop after a completed iteration (mate found, time, a forced move);
        `scale` stretches or shrinks the soft limit of a clock search (timeman.Stability)."""
        if self._stop_requested:
            return True
        if limits.mate:
            found = mate_in(iteration.lines[0].score)
            if found is not None and 0 < found <= limits.mate:
                return True
        soft = self._budget.soft
        if soft is None or self._pondering or limits.infinite:
            return False
        elapsed = (time.monotonic() - self._clock_start) * 1000
        if limits.movetime is not None:
            return elapsed >= soft
        if nroot == 1 and iteration.depth >= 4:
            return True
        # The next iteration takes a few times longer than this one: do not start it late.
        return elapsed >= soft * 0.6 * scale

    def _report(self, iteration, searches: list[Search], on_info) -> None:
        """Send one Info per principal variation of a completed iteration."""
        if on_info is None:
            return
        elapsed = max(1e-3, time.monotonic() - self._clock_start)
        nodes = sum(search.nodes for search in searches)
        show_wdl = bool(self.options.get("UCI_ShowWDL"))
        tbhits = sum(search.tb_hits for search in searches) + (1 if self._root_tb else 0)
        for k, line in enumerate(iteration.lines):
            mate = mate_in(line.score)
            cp = line.score
            plies = tb_plies(cp)
            if plies is not None:
                cp = TB_WIN_CP - plies if plies >= 0 else -TB_WIN_CP - plies
            elif mate is None and self._root_tb is not None:
                # the root is in the tables: their verdict, unless the search proved a mate
                wdl, dtz = self._root_tb
                cp = 0 if wdl == 0 else TB_WIN_CP - abs(dtz) if wdl > 0 else abs(dtz) - TB_WIN_CP
            # Each iteration reports its own depth, a found mate too (as Stockfish does): a
            # client waiting for a depth gets it, and no two lines of one search are the same.
            on_info(
                Info(
                    depth=iteration.depth,
                    seldepth=max(iteration.seldepth, iteration.depth),
                    multipv=k + 1,
                    score_cp=None if mate is not None else cp,
                    score_mate=mate,
                    bound=line.bound,
                    wdl=(
                        None
                        if not show_wdl
                        else (1000, 0, 0)
                        if mate is not None and mate > 0
                        else (0, 0, 1000)
                        if mate is not None
                        else wdl_of(cp)
                    ),
                    nodes=nodes,
                    nps=int(nodes / elapsed),
                    hashfull=self._tt.hashfull(),
                    tbhits=tbhits if self._tables is not None or self._root_tb else None,
                    time_ms=int(elapsed * 1000),
                    pv=self._pv_texts(line.pv),
                )
            )

    def _uci(self, code: int) -> str:
        """UCI text of a move code in the searched position."""
        return self._pv_board.uci(Move(code, ""))

    def _pv_texts(self, pv: list[int]) -> list[str]:
        """UCI texts of a principal variation (stops at the first move that is not legal)."""
        pos = self._pv_board.position
        texts = []
        played = 0
        try:
            for code in pv:
                if code not in pos.legal_moves():
                    break
                texts.append(self._pv_board.uci(Move(code, "")))
                pos.make(code)
                played += 1
        finally:
            for _ in range(played):
                pos.unmake()
        return texts

    # ------------------------------------------------------------------ strength limits

    def _skill_pick(self, lines, skill: float) -> int:
        """Choose among the best lines: each gets a random push below the level's width, so a
        line may be chosen only when it is within that width of the best one."""
        width = skill_noise(skill)
        choice = lines[0].pv[0]
        chosen = None
        for line in lines[: skill_lines(skill)]:
            pushed = line.score + (self._rng.randrange(width) if width else 0)
            if chosen is None or pushed > chosen:
                chosen = pushed
                choice = line.pv[0]
        return choice
