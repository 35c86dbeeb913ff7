"""xboard/CECP v2: feature negotiation, game and clock state, thinking output in xboard units."""

from __future__ import annotations

import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..board import describe
from ..engine import Info
from ..perft import check_depth, divide_lines
from ..policy import Policy
from ..score import MATE_CP, Score
from . import xsetup
from .channel import WAKE
from .session import Command, Session
from .uci import shorten

#: Engine options xboard sets with its own commands (or that make no sense here).
HIDDEN = frozenset(
    (
        "hash",
        "threads",
        "ponder",
        "uci_chess960",
        "uci_variant",
        "uci_showwdl",
        "multipv",
    )
)

#: xboard variant name -> ferz variant name, where they differ. XBoard plays its own courier
#: (all pawns on the second rank) whatever the engine's setup says, so ferz's (Fairy-
#: Stockfish's, with advanced pawns) goes by another name that XBoard learns from `setup`.
VARIANT_ALIASES = {"normal": "chess", "fischerandom": "chess960", "courier-fsf": "courier"}

#: Commands answered at once even while waiting for the engine's move.
URGENT = frozenset(("?", "quit", "force", "new", "result", "exit", "."))

SQUARE = re.compile(r"([a-z])(\d+)")
#: A move as XBoard writes it: from-to with a promotion suffix, or a drop (`P@e4`).
BARE_MOVE = re.compile(r"[a-p]\d{1,2}[a-p]\d{1,2}[A-Za-z+=~]?|[A-Za-z]@[a-p]\d{1,2}")


# ---------------------------------------------------------------- parsing


def parse_base(text: str) -> int:
    """The BASE argument of `level` (minutes, or minutes:seconds) in milliseconds."""
    try:
        if ":" in text:
            minutes, seconds = text.split(":", 1)
            value = int(minutes) * 60 + float(seconds)
        else:
            value = float(text) * 60
    except ValueError:
        raise ValueError(f"bad time {shorten(text)!r}") from None
    if value < 0:
        raise ValueError("time must not be negative")
    return int(value * 1000)


def parse_level(args: list[str]) -> tuple[int, int, int]:
    """`level MPS BASE INC` as (moves per session, base ms, increment ms)."""
    if len(args) != 3:
        raise ValueError("level needs MPS BASE INC")
    try:
        mps = int(args[0])
        inc = float(args[2])
    except ValueError:
        raise ValueError(f"bad level {shorten(' '.join(args))!r}") from None
    if mps < 0 or inc < 0:
        raise ValueError("level values must not be negative")
    return mps, parse_base(args[1]), int(inc * 1000)


def parse_number(word: str, args: list[str], kind: Callable[[str], Any] = int) -> Any:
    """The single non-negative numeric argument of `word`."""
    if len(args) != 1:
        raise ValueError(f"{word} needs one number")
    try:
        value = kind(args[0])
    except ValueError:
        raise ValueError(f"{word} needs a number, got {shorten(args[0])!r}") from None
    if value < 0 or value != value:  # also rejects NaN
        raise ValueError(f"{word} must not be negative")
    return value


def xboard_score(score: Score) -> int:
    """A score in xboard units: centipawns, or +-(100000 + N) for a mate in N moves."""
    if score.mate is not None:
        return MATE_CP + score.mate if score.mate > 0 else -MATE_CP + score.mate
    return score.to_cp()


def shift_ranks(move: str, delta: int) -> str:
    """A move with every rank number moved by delta (XBoard counts ranks from 0 on boards
    with more than 9 ranks, UCI and ferz from 1)."""
    if not delta:
        return move
    return SQUARE.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + delta}", move)


def format_thinking(info: Info, started: float | None = None, delta: int = 0) -> str | None:
    """The `ply score time nodes pv` line for one exact principal-variation update."""
    pv, depth, value = info.pv, info.depth, info.score
    if not pv or depth is None or value is None:
        return None
    if (info.multipv or 1) != 1 or info.bound:
        return None
    time_ms = info.time_ms
    if time_ms is None:
        time_ms = 0 if started is None else (time.monotonic() - started) * 1000
    nodes = info.nodes or 0
    score = xboard_score(value)
    moves = " ".join(shift_ranks(m, delta) for m in pv)
    return f"{int(depth)} {score} {int(time_ms) // 10} {int(nodes)} {moves}"


def format_option(option: Any) -> str | None:
    """The `feature option="..."` line for an engine option, or None if xboard shows it not."""
    if option.name.lower() in HIDDEN:
        return None
    kind = option.kind
    if kind == "spin":
        spec = f"-spin {option.default} {option.min} {option.max}"
    elif kind == "check":
        spec = f"-check {1 if option.default else 0}"
    elif kind == "combo":
        spec = "-combo " + " /// ".join(
            ("*" if c == option.default else "") + c for c in option.choices
        )
    elif kind == "button":
        spec = "-button"
    else:
        # XBoard finds " -string " (with its space) even when the default is empty; names
        # ending in File or Path get its file or folder chooser.
        widget = "file" if option.name.endswith("File") else "string"
        widget = "path" if option.name.endswith("Path") else widget
        spec = f"-{widget} {option.default or ''}"
    return f'feature option="{option.name} {spec}"'


def format_features(name: str, variants: list[str], options: list[str]) -> list[str]:
    """The feature lines of the handshake, `done=1` last."""
    lines = [
        "feature done=0",
        f'feature myname="{name}" ping=1 setboard=1 usermove=1 san=0 time=1 draw=1 '
        "sigint=0 reuse=1 analyze=1 colors=0 name=0 nps=1 memory=1 smp=1 "
        'exclude=1 pause=0 debug=1 egt="syzygy,ferz"',
        f'feature variants="{",".join(variants)}"',
    ]
    return [*lines, *options, "feature done=1"]


@dataclass
class Clock:
    """The time control as xboard set it: `level`, `st`, `sd`, `nps`, `time`, `otim`."""

    mps: int = 40
    base_ms: int = 300_000
    inc_ms: int = 0
    st_ms: int | None = None
    depth: int | None = None
    nps: int | None = None
    own_ms: int | None = None
    opp_ms: int | None = None

    def limits(self, engine_white: bool, own_moves_made: int) -> dict[str, Any]:
        """Limits fields for the engine's next move."""
        fields: dict[str, Any] = {}
        if self.depth is not None:
            fields["depth"] = self.depth
        if self.st_ms is not None:
            if self.nps:  # python-chess's node limit: `nps N` with `st` seconds
                fields["nodes"] = max(1, self.st_ms * self.nps // 1000)
            else:
                fields["movetime"] = max(1, self.st_ms)
            return fields
        own = self.base_ms if self.own_ms is None else self.own_ms
        opp = self.base_ms if self.opp_ms is None else self.opp_ms
        white, black = (own, opp) if engine_white else (opp, own)
        fields.update(wtime=white, btime=black, winc=self.inc_ms, binc=self.inc_ms)
        if self.mps > 0:
            fields["movestogo"] = self.mps - own_moves_made % self.mps
        return fields


# ---------------------------------------------------------------- session


class Xboard(Session):
    """One CECP v2 conversation driving an Engine."""

    ALIASES = {"?": "movenow", ".": "status"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Session's arguments: out, reader and the optional engine and Limits factories."""
        super().__init__(*args, **kwargs)
        self._results: deque[tuple[int, str | None, str | None, bool]] = deque()
        self._gen = 0  # search generation: results of older searches are thrown away
        self._busy = threading.Event()  # a search is running and its result is not handled
        self.mode: str | None = None  # None, "move", "ponder" or "analyze"
        self.root: str | None = None  # FEN of the game's start, None = the variant's own
        self.root_white = True
        self.moves: list[str] = []
        self.force = False
        self.engine_white = False
        self.post = False
        self.hard = False
        self.clock = Clock()
        self.excluded: set[str] = set()
        self.ponder_move: str | None = None
        self.hint: str | None = None
        self.last_info: Info | None = None
        self._started: float | None = None
        self.policy = Policy()  # resignation and draw offers (ferz.policy)

    # -------------------------------------------------------------- engine and board

    def error(self, kind: str, command: str) -> None:
        """Report a command that cannot be carried out."""
        self.out.line(f"Error ({kind}): {shorten(command)}")

    def _too_long(self, line: str) -> None:
        """Report an ignored overlong line."""
        self.error("line too long", line)

    def _unknown(self, line: str) -> None:
        """Report an unknown command."""
        self.error("unknown command", line)

    def _failed(self, word: str, line: str, error: Exception) -> None:
        """Report a failed command as an `Error (...)` line."""
        if isinstance(error, ValueError):
            self.error(str(error), line)
        else:
            self.error(f"internal {type(error).__name__}: {error}", line)

    def _sync(self, moves: list[str] | None = None) -> None:
        """Give the engine the game position (plus `moves` if given); ValueError leaves it."""
        self.engine.set_position(fen=self.root, moves=self.moves if moves is None else moves)

    def white_to_move(self) -> bool:
        """Whether White is to move in the engine's current position."""
        from ..textboard import white_to_move

        return white_to_move(self.engine.board)

    # -------------------------------------------------------------- loop

    def run(self) -> int:
        """Answer commands until `quit` or end of input."""
        self._serve()
        self._halt()
        return 0

    def _receive(self, item: tuple[str, bool] | None) -> str | None:
        """As Session's, but a wake-up from the search thread handles finished searches."""
        if item is WAKE or item == WAKE:
            self._collect()
            return None
        return super()._receive(item)

    def _command(self, tokens: list[str]) -> tuple[Command, list[str]] | None:
        """As Session's, plus a bare move (sent by GUIs that ignored usermove=1)."""
        found = super()._command(tokens)
        if found is None and len(tokens) == 1 and self._looks_like_move(tokens[0]):
            return self.cmd_usermove, tokens
        return found

    @staticmethod
    def _looks_like_move(word: str) -> bool:
        """A bare coordinate move (sent when the GUI ignored usermove=1)."""
        return BARE_MOVE.fullmatch(word) is not None or word in ("O-O", "O-O-O")

    def await_move(self) -> None:
        """Wait until the engine's move is out and recorded, answering urgent commands."""
        self._wait(lambda: self.mode == "move", URGENT, ("quit",))

    def _halt(self) -> None:
        """Stop any search and throw its result away."""
        with self._lock:
            self._gen += 1
            was = self.mode
            self.mode = None
            self._busy.clear()
        if was is not None:
            self.engine.stop()
            self.engine.wait()
        self._results.clear()

    # -------------------------------------------------------------- searching

    def _start(self, mode: str, fields: dict[str, Any]) -> None:
        """Start a search of the engine's current position."""
        if self.excluded:
            board = self.engine.board
            allowed = [board.uci(m) for m in board.legal_moves]
            allowed = [m for m in allowed if m not in self.excluded]
            if allowed:
                fields["searchmoves"] = allowed
        with self._lock:
            self._gen += 1
            gen = self._gen
            self.mode = mode
            self._busy.set()
        self._started = time.monotonic()
        self.last_info = None

        def on_info(info: Info) -> None:
            if gen != self._gen:
                return
            if info.pv and (info.multipv or 1) == 1:
                self.last_info = info
            if self.post:
                line = format_thinking(info, self._started, self.delta())
                if line:
                    self.out.line(line)

        def on_bestmove(best: str | None, ponder: str | None) -> None:
            # Under the lock, so that the command thread handles the result only after the
            # move is out; the wake-up is queued first, before the GUI can answer the move.
            with self._lock:
                if gen != self._gen:
                    return
                printed = self.mode == "move"
                self._results.append((gen, best, ponder, printed))
                self.reader.wake()
                if printed:
                    self._send_move(best)

        try:
            self.engine.go(self.limits(**fields), on_info=on_info, on_bestmove=on_bestmove)
        except Exception:
            with self._lock:  # no search started: nothing may wait for its result
                self.mode = None
                self._busy.clear()
            raise

    def _send_move(self, best: str | None) -> None:
        """Send the engine's move (or its resignation)."""
        if best and not self._should_resign():
            self.out.line(f"move {self.to_gui(best)}")

    def _should_resign(self) -> bool:
        """Track the engine's own scores; True when the game is hopeless."""
        self.policy.observe(self.last_info)
        return self.policy.resigns()

    def _collect(self) -> None:
        """Handle finished searches on the command thread (it may start the next search)."""
        while True:
            with self._lock:
                if not self._results:
                    return
                gen, best, ponder, printed = self._results.popleft()
                if gen != self._gen:
                    continue
                mode = self.mode
                if mode == "move" and not printed:
                    # The ponder search ended just as its move was played: send it now.
                    self._send_move(best)
                self.mode = None
                self._busy.clear()
            self.engine.wait()
            if mode == "move":
                self._moved(best, ponder)
            elif mode == "analyze":
                # The search ran out (mate or maximum depth): keep the position, idle.
                pass

    def _moved(self, best: str | None, ponder: str | None) -> None:
        """The engine's move is out: record it, announce a game end, maybe start pondering."""
        if not best:
            self._announce_end()
            return
        if self.policy.resigns():
            self.out.line("resign")
            self.force = True
            return
        self.moves.append(best)
        self._sync()
        self.hint = ponder
        if self._announce_end(own_move=True):
            return
        if self.hard and ponder and not self.force:
            self._ponder(ponder)

    def _ponder(self, guess: str) -> None:
        """Think on the opponent's time, assuming it plays `guess`."""
        try:
            self._sync(self.moves + [guess])
        except ValueError:
            self._sync()
            return
        if self._game_over():
            self._sync()
            return
        self.ponder_move = guess
        fields = self.clock.limits(self.engine_white, self._own_moves())
        fields["ponder"] = True
        self._start("ponder", fields)

    def _own_moves(self) -> int:
        """How many moves the engine's colour has made in this game."""
        first = 0 if self.root_white == self.engine_white else 1
        return len(range(first, len(self.moves), 2))

    def _think(self) -> None:
        """If it is the engine's turn, search for its move."""
        if self.force or self.mode is not None:
            return
        if self.white_to_move() != self.engine_white:
            return
        if self._announce_end():
            return
        fields = self.clock.limits(self.engine_white, self._own_moves())
        self._start("move", fields)

    def _game_over(self) -> bool:
        """Whether the current position ends the game by rule."""
        return self.engine.board.outcome() is not None

    def _announce_end(self, own_move: bool = False) -> bool:
        """Send the result line if the game has ended by rule (the variant's rules: a
        stalemate loses in xiangqi, a bared king in shatranj); returns whether it has."""
        board = self.engine.board
        done = board.outcome()
        if done is None:
            return False
        if own_move and board.reply_first():
            # XBoard judges a bared king only after its reply and calls an earlier claim false
            # (Fairy-Stockfish makes none here either): the claim waits for the reply.
            return False
        result, reason = describe(done)
        self.out.line(f"{result} {{{reason}}}")
        self.force = True
        return True

    # -------------------------------------------------------------- commands

    def cmd_xboard(self, args: list[str]) -> None:
        """Enter xboard mode (nothing to do: no prompt is ever printed)."""

    def cmd_protover(self, args: list[str]) -> None:
        """Announce the features."""
        from .. import __version__

        engine = self.engine
        options = [line for o in engine.options if (line := format_option(o))]
        self.out.lines(format_features(f"ferz {__version__}", self._variants(), options))

    def _variants(self) -> list[str]:
        """The xboard names of the variants the engine plays."""
        names = ["normal"]
        if "UCI_Chess960" in self.engine.options:
            names.append("fischerandom")
        if "UCI_Variant" in self.engine.options:
            reverse = {v: k for k, v in VARIANT_ALIASES.items()}
            for choice in self.engine.options["UCI_Variant"].choices:
                name = reverse.get(choice, choice)
                if name not in names:
                    names.append(name)
        return names

    def cmd_accepted(self, args: list[str]) -> None:
        """The GUI accepted a feature."""

    def cmd_rejected(self, args: list[str]) -> None:
        """The GUI rejected a feature; nothing we offer is essential."""

    def cmd_new(self, args: list[str]) -> None:
        """Start a new game: standard position, engine plays Black, no depth limit."""
        self._halt()
        self.root, self.moves = None, []
        self.force, self.engine_white = False, False
        self.clock.depth = None
        self.clock.own_ms = self.clock.opp_ms = None
        self.excluded.clear()
        self.policy.reset()
        self.hint = None
        self._set_variant("normal")
        self.engine.new_game()
        self._sync()
        self.root_white = self.white_to_move()

    def _set_variant(self, name: str) -> None:
        """Switch the engine to an xboard variant name."""
        options = self.engine.options
        target = VARIANT_ALIASES.get(name, name)
        if "UCI_Chess960" in options:
            self.engine.set_option("UCI_Chess960", target == "chess960")
        if "UCI_Variant" in options:
            variant = "chess" if target == "chess960" else target
            self.engine.set_option("UCI_Variant", variant)
        elif target not in ("chess", "chess960"):
            raise ValueError(f"variant {name} is not supported")

    def cmd_variant(self, args: list[str]) -> None:
        """Play a variant from the start position."""
        if len(args) != 1:
            raise ValueError("variant needs a name")
        self._halt()
        if args[0] not in self._variants():
            raise ValueError(f"variant {args[0]} is not supported")
        self._set_variant(args[0])
        self.root, self.moves = None, []
        self._sync()
        self.root_white = self.white_to_move()
        self.out.lines(self._setup_lines(args[0]))

    def _setup_lines(self, name: str) -> list[str]:
        """`setup` and `piece` lines teaching XBoard a variant it does not know by name."""
        if name in ("normal", "fischerandom") or "UCI_Variant" not in self.engine.options:
            return []
        from .. import variants

        target = variants.canonical(VARIANT_ALIASES.get(name, name))
        try:
            betzas = variants.betza_of(target)
        except ValueError:  # a stand-in engine's variant that ferz.variants does not define
            return []
        rules = self.engine.board.rules
        return xsetup.setup_lines(rules, betzas, name, target in variants.builtins())

    def cmd_setup(self, args: list[str]) -> None:
        """`setup [(TABLE)] [WxH+S_PARENT] FEN`: a start position for the current variant."""
        size, fen = xsetup.parse_setup(" ".join(args))
        board = self.engine.board
        if size is not None and size != (board.files, board.ranks):
            raise ValueError(
                f"setup board {size[0]}x{size[1]} does not fit the variant's "
                f"{board.files}x{board.ranks} board (send variant first)"
            )
        self.cmd_setboard(fen.split())

    def cmd_force(self, args: list[str]) -> None:
        """Play neither side; just accept moves."""
        self._halt()
        self.force = True

    def cmd_go(self, args: list[str]) -> None:
        """Play the side to move, starting now."""
        self._halt()
        self.force = False
        self.engine_white = self.white_to_move()
        self._think()

    def cmd_playother(self, args: list[str]) -> None:
        """Play the side not to move; ponder if allowed."""
        self._halt()
        self.force = False
        self.engine_white = not self.white_to_move()

    def cmd_white(self, args: list[str]) -> None:
        """Obsolete: White to move, engine plays Black."""
        self._halt()
        self.engine_white = False

    def cmd_black(self, args: list[str]) -> None:
        """Obsolete: Black to move, engine plays White."""
        self._halt()
        self.engine_white = True

    def delta(self) -> int:
        """How XBoard's rank numbers differ from ferz's on the current board."""
        return -1 if self.engine.board.ranks > 9 else 0

    def to_gui(self, move: str) -> str:
        """A move of the current position in XBoard's notation (FRC castling as O-O/O-O-O)."""
        board = self.engine.board
        if getattr(board, "chess960", False):
            san = board.san(board.parse_uci(move))
            if san.startswith("O-O"):
                return san.rstrip("+#")
        return shift_ranks(move, self.delta())

    def _normalize(self, text: str) -> str:
        """A GUI's move in the engine's UCI notation."""
        board = self.engine.board
        if text in ("O-O", "O-O-O", "0-0", "0-0-0"):
            return str(board.uci(board.parse_san(text.replace("0", "O"))))
        move = shift_ranks(text.replace("=", ""), -self.delta())
        if "@" in move:  # a drop: the piece letter as in UCI, upper case for either side
            letter, _, square = move.partition("@")
            return f"{letter.upper()}@{square}"
        if move[-1:].isupper():
            move = move[:-1] + move[-1].lower()  # promotion piece: e7e8Q -> e7e8q
        return move

    def cmd_usermove(self, args: list[str]) -> None:
        """The opponent's (or the user's) move."""
        if len(args) != 1:
            raise ValueError("usermove needs one move")
        text = args[0]
        mode = self.mode
        if mode == "ponder" and self._normalize_after_ponder(text) == self.ponder_move:
            # Ponder hit: the search already looks at this position; let it go on, timed.
            self.moves.append(self.ponder_move)
            self.ponder_move = None
            with self._lock:
                self.mode = "move"
            self.engine.ponderhit()
            return
        if mode is not None:  # analyze mode restarts below, on the new position
            self._halt()
            self._sync()
        self.ponder_move = None
        try:
            move = self._normalize(text)
            self._sync(self.moves + [move])
        except ValueError:
            self._sync()
            if mode != "analyze" and not self.force and self._announce_end():
                return  # a move after the game's end (a bared king's reply): claim the result
            self.out.line(f"Illegal move: {shorten(text)}")
            if mode == "analyze":
                self._start("analyze", {"infinite": True})
            return
        self.moves.append(move)
        if mode == "analyze":
            self._start("analyze", {"infinite": True})
            return
        self._think()

    def _normalize_after_ponder(self, text: str) -> str | None:
        """The move in UCI form, judged on the position before the ponder guess."""
        if text in ("O-O", "O-O-O", "0-0", "0-0-0"):
            return None  # compare FRC castling on the real position instead
        return self._normalize(text)

    def cmd_movenow(self, args: list[str]) -> None:
        """`?`: move now."""
        if self.mode == "move":
            self.engine.stop()

    def cmd_ping(self, args: list[str]) -> None:
        """Answer pong after everything before it is done (a move being thought about too)."""
        self.await_move()
        self.out.line("pong " + " ".join(args[:1]))

    def cmd_level(self, args: list[str]) -> None:
        """Conventional or incremental clock."""
        self.clock.mps, self.clock.base_ms, self.clock.inc_ms = parse_level(args)
        self.clock.st_ms = None

    def cmd_st(self, args: list[str]) -> None:
        """Fixed time per move, in seconds."""
        self.clock.st_ms = int(parse_number("st", args, float) * 1000)

    def cmd_sd(self, args: list[str]) -> None:
        """Depth limit."""
        self.clock.depth = max(1, parse_number("sd", args))

    def cmd_nps(self, args: list[str]) -> None:
        """Count time in nodes: nodes per second (0 switches back to wall time)."""
        value = parse_number("nps", args)
        self.clock.nps = value or None

    def cmd_time(self, args: list[str]) -> None:
        """The engine's clock, in centiseconds."""
        self.clock.own_ms = int(parse_number("time", args, float) * 10)

    def cmd_otim(self, args: list[str]) -> None:
        """The opponent's clock, in centiseconds."""
        self.clock.opp_ms = int(parse_number("otim", args, float) * 10)

    def cmd_setboard(self, args: list[str]) -> None:
        """Set up a position (force mode follows by protocol)."""
        fen = " ".join(args)
        self._halt()
        try:
            self.engine.set_position(fen=fen, moves=[])
        except ValueError as error:
            self._sync()
            self.out.line(f"tellusererror Illegal position: {error}")
            return
        self.root, self.moves = fen, []
        self.root_white = self.white_to_move()

    def cmd_undo(self, args: list[str]) -> None:
        """Take back one ply."""
        self._take_back(1)

    def cmd_remove(self, args: list[str]) -> None:
        """Take back two plies (one move each)."""
        self._take_back(2)

    def _take_back(self, plies: int) -> None:
        """Drop the last plies of the game."""
        analyzing = self.mode == "analyze"
        self._halt()
        if len(self.moves) < plies:
            raise ValueError("no move to take back")
        del self.moves[len(self.moves) - plies :]
        self._sync()
        if analyzing:
            self._start("analyze", {"infinite": True})

    def cmd_result(self, args: list[str]) -> None:
        """The game is over."""
        self._halt()
        self.force = True

    def cmd_post(self, args: list[str]) -> None:
        """Show thinking."""
        self.post = True

    def cmd_nopost(self, args: list[str]) -> None:
        """Hide thinking."""
        self.post = False

    def cmd_hard(self, args: list[str]) -> None:
        """Ponder from the next move on."""
        self.hard = True

    def cmd_easy(self, args: list[str]) -> None:
        """No pondering; stop a ponder search now."""
        self.hard = False
        if self.mode == "ponder":
            self._halt()
            self._sync()

    def cmd_analyze(self, args: list[str]) -> None:
        """Analyse the current position until `exit`."""
        self._halt()
        self._sync()
        self._start("analyze", {"infinite": True})

    def cmd_exit(self, args: list[str]) -> None:
        """Leave analyze mode."""
        if self.mode == "analyze":
            self._halt()

    def cmd_status(self, args: list[str]) -> None:
        """`.`: a status line for analyze mode."""
        if self.mode != "analyze":
            return
        info = self.last_info
        elapsed = int((time.monotonic() - (self._started or time.monotonic())) * 100)
        nodes = (info.nodes or 0) if info else 0
        depth = (info.depth or 0) if info else 0
        move = info.pv[0] if info and info.pv else "(none)"
        self.out.line(f"stat01: {elapsed} {nodes} {depth} 0 0 {move}")

    def cmd_draw(self, args: list[str]) -> None:
        """The opponent offers a draw: accept when the engine thinks it stands worse."""
        if self.policy.accepts_draw():
            self.out.line("offer draw")

    def cmd_hint(self, args: list[str]) -> None:
        """Suggest a move for the user."""
        if self.hint:
            self.out.line(f"Hint: {self.to_gui(self.hint)}")

    def cmd_bk(self, args: list[str]) -> None:
        """Book moves: there is no book."""
        self.out.lines(["\tno book moves", ""])

    def cmd_perft(self, args: list[str]) -> None:
        """`perft N` (a ferz extension): leaf counts below each root move, in XBoard notation."""
        depth = parse_number("perft", args)
        check_depth(depth)
        self.out.lines([*divide_lines(self.engine.board.copy(), depth, self.to_gui), ""])

    def cmd_memory(self, args: list[str]) -> None:
        """Hash size in MB (all of it goes to the transposition table)."""
        self._set_clamped("Hash", parse_number("memory", args))

    def cmd_egtpath(self, args: list[str]) -> None:
        """`egtpath syzygy PATH`: the Syzygy tablebases' folders; `egtpath ferz PATH`: ferz's
        own tables' (FerzTbPath); other kinds are not read."""
        kinds = {"syzygy": "SyzygyPath", "ferz": "FerzTbPath"}
        if len(args) < 2 or args[0].lower() not in kinds:
            raise ValueError(
                "egtpath: syzygy and ferz tables are read (egtpath syzygy|ferz FOLDERS)"
            )
        self._quiet()
        try:
            self.engine.set_option(kinds[args[0].lower()], " ".join(args[1:]))
        except ValueError as error:  # XBoard sends its default folder whether it exists or not
            self.out.line(f"# no tablebases: {error}")

    def cmd_cores(self, args: list[str]) -> None:
        """Number of search threads."""
        self._set_clamped("Threads", parse_number("cores", args))

    def _set_clamped(self, name: str, value: int) -> None:
        """Set a spin option, clamped into its range."""
        if name not in self.engine.options:
            return
        option = self.engine.options[name]
        low = option.min if option.min is not None else value
        high = option.max if option.max is not None else value
        self._quiet()
        self.engine.set_option(name, min(max(value, low), high))

    def cmd_option(self, args: list[str]) -> None:
        """`option NAME=VALUE` (or `option NAME` for a button)."""
        text = " ".join(args)
        name, _, value = text.partition("=")
        name = name.strip()
        if name not in self.engine.options:
            raise ValueError(f"no such option {shorten(name)!r}")
        option = self.engine.options[name]
        if option.kind == "check":
            value = {"1": "true", "0": "false"}.get(value.strip(), value)
        self._quiet()
        self.engine.set_option(option.name, value if value or option.kind == "string" else None)

    def _quiet(self) -> None:
        """Bring the engine to rest before changing an option (a ponder search is dropped)."""
        self.await_move()
        if self.mode is not None:
            self._halt()
            self._sync()

    def cmd_exclude(self, args: list[str]) -> None:
        """Leave root moves out of the search (`exclude all` leaves out every move)."""
        if args == ["all"]:
            board = self.engine.board
            self.excluded = {board.uci(m) for m in board.legal_moves}
        else:
            self.excluded.update(self._normalize(m) for m in args)

    def cmd_include(self, args: list[str]) -> None:
        """Put excluded root moves back (`include all` for all of them)."""
        if args == ["all"]:
            self.excluded.clear()
        else:
            self.excluded.difference_update(self._normalize(m) for m in args)

    def cmd_computer(self, args: list[str]) -> None:
        """The opponent is a computer."""

    def cmd_random(self, args: list[str]) -> None:
        """GNU Chess's randomisation toggle; ferz ignores it."""

    def cmd_name(self, args: list[str]) -> None:
        """The opponent's name."""

    def cmd_rating(self, args: list[str]) -> None:
        """Both players' ratings."""

    def cmd_ics(self, args: list[str]) -> None:
        """The ICS host, if any."""

    def cmd_quit(self, args: list[str]) -> None:
        """Leave."""
        self._quit = True
