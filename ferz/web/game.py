"""A game between a person and the engine: moves checked on a Board, clocks, result."""

from __future__ import annotations

import secrets
import time
from dataclasses import asdict, dataclass
from typing import Any

from ..engine import ELO_MAX, ELO_MIN  # the range the engine's UCI_Elo accepts
from . import boards
from .store import Record

COLORS = ("white", "black")


def other(color: str) -> str:
    """The opposite colour."""
    return "black" if color == "white" else "white"


@dataclass(frozen=True)
class Settings:
    """What the player chose: their side, the engine's strength and the time control."""

    human: str = "white"
    elo: int | None = None
    initial_ms: int | None = None
    increment_ms: int = 0
    movetime_ms: int | None = None
    depth: int | None = None

    @classmethod
    def parse(cls, data: dict[str, Any], max_think_ms: int) -> Settings:
        """Validate a new-game request; ValueError names the bad field."""
        color = data.get("color", "white")
        if color == "random":
            color = secrets.choice(COLORS)
        if color not in COLORS:
            raise ValueError("color must be white, black or random")
        elo = data.get("elo")
        if elo is not None and (not _is_int(elo) or not ELO_MIN <= elo <= ELO_MAX):
            raise ValueError(f"elo must be an integer from {ELO_MIN} to {ELO_MAX} or null")
        clock, movetime, depth = data.get("clock"), data.get("movetime_ms"), data.get("depth")
        if sum(x is not None for x in (clock, movetime, depth)) != 1:
            raise ValueError("choose exactly one of clock, movetime_ms and depth")
        if clock is not None:
            if not isinstance(clock, dict):
                raise ValueError("clock must be {initial_ms, increment_ms}")
            initial, inc = clock.get("initial_ms"), clock.get("increment_ms", 0)
            if not _is_int(initial) or not 1000 <= initial <= 3 * 3600 * 1000:
                raise ValueError("clock.initial_ms must be from 1000 to 10800000")
            if not _is_int(inc) or not 0 <= inc <= 60000:
                raise ValueError("clock.increment_ms must be from 0 to 60000")
            return cls(color, elo, initial_ms=initial, increment_ms=inc)
        if movetime is not None:
            if not _is_int(movetime) or not 10 <= movetime <= max_think_ms:
                raise ValueError(f"movetime_ms must be from 10 to {max_think_ms}")
            return cls(color, elo, movetime_ms=movetime)
        if not _is_int(depth) or not 1 <= depth <= 30:
            raise ValueError("depth must be from 1 to 30")
        return cls(color, elo, depth=depth)


def _is_int(value: object) -> bool:
    """True for an int that is not a bool (JSON true must not pass as 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


class Game:
    """One game's live state; `record()` is what the store keeps."""

    def __init__(self, rec: Record, now: float | None = None) -> None:
        self.id = rec.id
        self.created = rec.created
        self.updated = rec.updated
        self.variant = rec.variant
        self.start_fen = rec.start_fen
        self.settings = Settings(**rec.settings)
        self.board = boards.new_board(rec.start_fen, rec.variant)
        self.moves: list[str] = []
        self.sans: list[str] = []
        self.fens: list[str] = []
        for uci in rec.moves:
            self._push(uci)
        self.result = rec.result
        self.termination = rec.termination
        self.evals = {ply: text for ply, text in rec.evals.items() if ply <= len(self.moves)}
        timed = self.settings.initial_ms is not None
        self.clock: dict[str, int] | None = None
        if timed:
            initial = self.settings.initial_ms or 0
            self.clock = {
                "white": initial if rec.clock_white is None else rec.clock_white,
                "black": initial if rec.clock_black is None else rec.clock_black,
            }
        # The clock of the side to move runs from here (monotonic seconds); None: stopped.
        # After a server restart it starts again from now: downtime is not charged.
        self.turn_started: float | None = None
        if timed and self.moves and not self.result:
            self.turn_started = time.monotonic() if now is None else now
        self.engine_score: int | None = None  # last score from the engine's side, for draw offers

    @classmethod
    def create(cls, settings: Settings, variant: str, fen: str | None) -> Game:
        """A new game at `fen` (None: the variant's start, for Chess960 a random one of the 960);
        ValueError on a bad FEN."""
        if fen is None and variant == "chess960":
            fen = boards.chess960_fen(secrets.randbelow(960))
        board = boards.new_board(fen, variant)
        if boards.outcome(board) is not None:
            raise ValueError("the position is already decided (checkmate, stalemate or a draw)")
        now = time.time()
        rec = Record(secrets.token_hex(6), now, now, variant, board.fen(), asdict(settings))
        return cls(rec)

    @property
    def human(self) -> str:
        """The person's colour."""
        return self.settings.human

    @property
    def turn(self) -> str:
        """The side to move."""
        return boards.turn(self.board)

    def record(self) -> Record:
        """The stored form of this game."""
        clock = self.clock or {}
        return Record(
            self.id,
            self.created,
            self.updated,
            self.variant,
            self.start_fen,
            asdict(self.settings),
            list(self.moves),
            clock.get("white"),
            clock.get("black"),
            self.result,
            self.termination,
            dict(self.evals),
        )

    def remaining(self, color: str, now: float) -> int | None:
        """Milliseconds left on `color`'s clock at `now`, None for untimed games."""
        if self.clock is None:
            return None
        left = self.clock[color]
        if color == self.turn and self.turn_started is not None:
            left -= int((now - self.turn_started) * 1000)
        return left

    def check_time(self, now: float) -> bool:
        """End the game if the side to move has run out of time; True if it just ended."""
        if self.result or self.clock is None or self.turn_started is None:
            return False
        left = self.remaining(self.turn, now)
        if left is not None and left <= 0:
            self.clock[self.turn] = 0
            self.finish("0-1" if self.turn == "white" else "1-0", "time forfeit")
            return True
        return False

    def play(self, uci: str, now: float) -> None:
        """Play a legal move for the side to move; ValueError (nothing changes) otherwise."""
        if self.result:
            raise ValueError("the game is over")
        if self.check_time(now):
            raise ValueError("time is up")
        mover = self.turn
        self._push(uci)
        if self.clock is not None:
            if self.turn_started is not None:
                self.clock[mover] -= int((now - self.turn_started) * 1000)
            self.clock[mover] += self.settings.increment_ms
            self.turn_started = now  # the first move starts the clocks
        self.updated = time.time()
        done = boards.outcome(self.board)
        if done is not None:
            self.finish(done.result, done.termination)

    def _push(self, uci: str) -> None:
        """Apply one move after checking it is legal; ValueError leaves the board as it was."""
        if not isinstance(uci, str) or not 4 <= len(uci) <= 7:
            raise ValueError(f"not a move: {uci!r}")
        try:
            move = self.board.parse_uci(uci)
        except ValueError:
            raise ValueError(f"illegal move {uci}") from None
        if move not in self.board.legal_moves:
            raise ValueError(f"illegal move {uci}")
        san = self.board.san(move)
        normal = self.board.uci(move)
        self.board.push(move)
        self.moves.append(normal)
        self.sans.append(san)
        self.fens.append(self.board.fen())

    def takeback(self, plies: int, now: float) -> None:
        """Take back `plies` moves of an unfinished game; ValueError if there are not enough."""
        if self.result:
            raise ValueError("the game is over")
        if plies < 1 or plies > len(self.moves):
            raise ValueError("no move to take back")
        for _ in range(plies):
            self.board.pop()
            self.moves.pop()
            self.sans.pop()
            self.fens.pop()
            self.evals.pop(len(self.moves) + 1, None)
        if self.clock is not None:
            self.turn_started = now if self.moves else None
        self.updated = time.time()

    def finish(self, result: str, termination: str) -> None:
        """End the game with a PGN result and a reason."""
        self.result = result
        self.termination = termination
        self.turn_started = None
        self.updated = time.time()

    def player_name(self, color: str) -> str:
        """'You' or the engine with its strength."""
        return player_name(self.settings, color)

    def to_json(self, now: float, thinking: bool = False) -> dict[str, Any]:
        """Everything a client needs to render the game."""
        start = self.start_fen.split()
        over = self.result is not None
        clock = None
        if self.clock is not None:
            clock = {
                "white": self.remaining("white", now),
                "black": self.remaining("black", now),
                "increment_ms": self.settings.increment_ms,
                "running": self.turn if self.turn_started is not None and not over else None,
            }
        last = self.moves[-1] if self.moves else None
        return {
            "id": self.id,
            "created": self.created,
            "variant": self.variant,
            "files": self.board.files,
            "ranks": self.board.ranks,
            "pockets": boards.pocket_letters(self.variant),
            "look": boards.board_look(self.variant),
            "start_fen": self.start_fen,
            "start_turn": "white" if start[1] == "w" else "black",
            "start_fullmove": int(start[5]) if len(start) > 5 and start[5].isdigit() else 1,
            "fen": self.board.fen(),
            "turn": self.turn,
            "human": self.human,
            "white": self.player_name("white"),
            "black": self.player_name("black"),
            "settings": asdict(self.settings),
            "moves": [
                {"uci": u, "san": s, "fen": f}
                for u, s, f in zip(self.moves, self.sans, self.fens, strict=True)
            ],
            "last_move": last,
            "legal": [] if over or self.turn != self.human else boards.legal_uci(self.board),
            "check": self.board.is_check(),
            "clock": clock,
            "result": self.result,
            "termination": self.termination,
            "thinking": thinking,
        }


def player_name(settings: Settings, color: str) -> str:
    """'You' or the engine with its strength."""
    if color == settings.human:
        return "You"
    return f"ferz ({settings.elo})" if settings.elo else "ferz"


def summary(rec: Record) -> dict[str, Any]:
    """One line of the games list, read from the stored record without replaying the moves."""
    settings = Settings(**rec.settings)
    return {
        "id": rec.id,
        "created": rec.created,
        "updated": rec.updated,
        "variant": rec.variant,
        "white": player_name(settings, "white"),
        "black": player_name(settings, "black"),
        "result": rec.result,
        "plies": len(rec.moves),
    }
