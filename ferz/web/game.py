"""A game: its seats (people or ferz), moves checked on a Board, clocks, offers, result."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

from ..engine import ELO_MAX, ELO_MIN  # the range the engine's UCI_Elo accepts
from . import boards
from .catalogue import side_name
from .seats import COLORS, ENGINE, PERSON, Seat, bot_name, legacy_seats, load_seats
from .store import StoredGame

# Who the creator plays: ferz, themselves on one screen (hot-seat), a friend with the link,
# or whoever accepts their seek in the lobby.
OPPONENTS = ("engine", "hotseat", "friend", "seek")
OFFERS = ("draw", "takeback", "rematch")
ANONYMOUS = "Anonymous"  # a person who has not chosen a name


def new_id() -> str:
    """A fresh random game id (12 hex digits)."""
    return secrets.token_hex(6)


def other(color: str) -> str:
    """The opposite colour."""
    return "black" if color == "white" else "white"


@dataclass(frozen=True)
class GameSettings:
    """What the creator chose: their side, the opponent, the engine's strength, the time
    control, whether ferz plays from its opening book."""

    human: str = "white"
    elo: int | None = None
    initial_ms: int | None = None
    increment_ms: int = 0
    movetime_ms: int | None = None
    depth: int | None = None
    show_pv: bool = False  # show the engine's lines while it thinks (a hint; off by default)
    imported: bool = False  # a game read from PGN: shown and analysed, not played
    opponent: str = "engine"  # one of OPPONENTS
    flip: bool = False  # hot-seat: the board turns to the side to move
    book: bool = False  # ferz opens from its bundled book (standard chess)
    rated: bool = False  # the result changes both players' ratings (ratings.py)
    # a friend's game or a seek with the colours drawn when the other person takes the seat
    # (shown as "random" until then); `human` is the creator's colour so far
    random_color: bool = False

    @classmethod
    def parse(cls, data: dict[str, Any], max_think_ms: int) -> GameSettings:
        """Validate a new-game request (types already checked by schema.NEW_GAME); ValueError
        names the bad field."""
        color = data.get("color") or "white"
        show_pv = data.get("show_pv") is True
        opponent = data.get("opponent") or "engine"
        extra_random = False
        if opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {', '.join(OPPONENTS)}")
        if color == "random":
            color = secrets.choice(COLORS)
            if opponent in ("friend", "seek"):
                extra_random = True
        if color not in COLORS:
            raise ValueError("color must be white, black or random")
        elo = data.get("elo")
        if elo is not None and (not _is_int(elo) or not ELO_MIN <= elo <= ELO_MAX):
            raise ValueError(f"elo must be an integer from {ELO_MIN} to {ELO_MAX} or null")
        clock, movetime, depth = data.get("clock"), data.get("movetime_ms"), data.get("depth")
        extra = {
            "random_color": extra_random,
            "opponent": opponent,
            "flip": data.get("flip") is True,
            "rated": data.get("rated") is True,
        }
        if opponent == "engine":
            extra["book"] = data.get("book") is True
        elif elo is not None or movetime is not None or depth is not None or show_pv:
            raise ValueError("elo, movetime_ms, depth and show_pv are for games against ferz")
        if opponent != "engine" and clock is None:
            return cls(color, **extra)  # people may play without a clock
        if sum(x is not None for x in (clock, movetime, depth)) != 1:
            raise ValueError("choose exactly one of clock, movetime_ms and depth")
        if clock is not None:
            if not isinstance(clock, dict):
                raise ValueError("clock must be {initial_ms, increment_ms}")
            initial, inc = clock.get("initial_ms"), clock.get("increment_ms") or 0
            if not _is_int(initial) or not 1000 <= initial <= 3 * 3600 * 1000:
                raise ValueError("clock.initial_ms must be from 1000 to 10800000")
            if not _is_int(inc) or not 0 <= inc <= 60000:
                raise ValueError("clock.increment_ms must be from 0 to 60000")
            return cls(color, elo, initial_ms=initial, increment_ms=inc, show_pv=show_pv, **extra)
        if movetime is not None:
            if not _is_int(movetime) or not 10 <= movetime <= max_think_ms:
                raise ValueError(f"movetime_ms must be from 10 to {max_think_ms}")
            return cls(color, elo, movetime_ms=movetime, show_pv=show_pv, **extra)
        if not _is_int(depth) or not 1 <= depth <= 30:
            raise ValueError("depth must be from 1 to 30")
        return cls(color, elo, depth=depth, show_pv=show_pv, **extra)

    @classmethod
    def load(cls, stored: dict[str, Any]) -> GameSettings:
        """GameSettings from the store, ignoring keys this version does not know."""
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in stored.items() if k in known})


def _is_int(value: object) -> bool:
    """True for an int that is not a bool (JSON true must not pass as 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


class LiveGame:
    """One game's live state; `record()` is what the store keeps."""

    def __init__(self, rec: StoredGame, now: float | None = None) -> None:
        self.id = rec.id
        self.created = rec.created
        self.updated = rec.updated
        self.variant = rec.variant
        self.start_fen = rec.start_fen
        self.settings = GameSettings.load(rec.settings)
        self.seats = load_seats(rec.seats or legacy_seats(rec.settings))
        self.owner = rec.owner  # who created it (a player id)
        # the names the people on each seat chose (colour -> name; see Room.refresh)
        self.names: dict[str, str | None] = {}
        self.tags = dict(rec.tags)
        # Pending offers (kept in memory only: a restart forgets them): offer -> who made it.
        self.offers: dict[str, str] = {}
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
        # The store keeps when it started in wall-clock time, so that after a restart the
        # clock goes on as if the server had never stopped (the engine thinks at once).
        self.turn_started: float | None = None
        self.flagged_offline = False
        mono = time.monotonic() if now is None else now
        # Since when the side to move's first move is due in a game between people (see
        # first_move_left); a restart gives it the whole time again.
        self.first_move_since = mono
        if timed and len(self.moves) >= self._clock_from and not self.result:
            away = 0.0
            if rec.turn_started_at is not None:
                away = max(0.0, time.time() - rec.turn_started_at)
            self.turn_started = mono - away
            if self.check_time(mono):
                self.flagged_offline = True
                self.termination = f"{self.termination} while the server was down"
        self.engine_score: int | None = None  # last score from the engine's side, for draw offers

    @classmethod
    def create(
        cls,
        settings: GameSettings,
        variant: str,
        fen: str | None,
        creator: str | None = None,
        seats: dict[str, Seat] | None = None,
    ) -> LiveGame:
        """A new game at `fen` (None: the variant's start, for Chess960 a random one of the 960)
        for `creator` (a player id) as the settings say, or with the `seats` given;
        ValueError on a bad FEN."""
        if fen is None and variant == "chess960":
            fen = boards.chess960_fen(secrets.randbelow(960))
        board = boards.new_board(fen, variant)
        if boards.outcome(board) is not None:
            raise ValueError("the position is already decided (checkmate, stalemate or a draw)")
        if seats is None:
            seats = initial_seats(settings, creator)
        now = time.time()
        stored = {color: seat.to_store() for color, seat in seats.items()}
        rec = StoredGame(new_id(), now, now, variant, board.fen(), asdict(settings), seats=stored)
        rec.owner = creator
        return cls(rec)

    # ------------------------------------------------------------------ seats

    def colors_of(self, player: str | None) -> list[str]:
        """The colours `player` holds ([]: a spectator; both in a hot-seat game)."""
        if player is None or self.settings.imported:
            return []
        return [c for c in COLORS if self.seats[c].player == player]

    def open_seat(self) -> str | None:
        """The colour of a seat nobody has taken yet, or None."""
        if self.settings.imported or self.result:
            return None
        for color in COLORS:
            if self.seats[color].open:
                return color
        return None

    def take_seat(self, player: str) -> str:
        """Seat `player` on the open seat; its colour (ValueError when there is none)."""
        color = self.open_seat()
        if color is None:
            raise ValueError("both seats are taken")
        if self.settings.random_color and not self.moves and secrets.randbelow(2):
            # the colours are drawn now: the creator changes sides (nobody has moved yet)
            color = other(color)
            creator = self.seats[color]
            self.seats = {color: Seat(), other(color): creator}
            self.settings = replace(self.settings, human=other(color))
        if self.settings.random_color:
            self.settings = replace(self.settings, random_color=False)
        self.seats[color] = Seat(PERSON, player)
        self.updated = time.time()
        self.first_move_since = time.monotonic()  # the game begins: White's first move is due
        return color

    @property
    def people_game(self) -> bool:
        """A game between two people from a friend's link or a lobby seek (not hot-seat, not
        against ferz): it begins when both seats are held, and its clocks start after each
        side's first move (fair starts, as on lichess)."""
        return not self.settings.imported and self.settings.opponent in ("friend", "seek")

    @property
    def waiting(self) -> bool:
        """A game between people that has not begun: a seat is still open (no move, no
        offer, no running clock until someone takes it)."""
        return self.people_game and self.open_seat() is not None

    @property
    def _clock_from(self) -> int:
        """How many plies are played before a clock runs: 2 between people (no clock runs
        until both sides have made their first move), else 1 (the first move starts them)."""
        return 2 if self.people_game else 1

    def first_move_left(self, now: float, limit_s: float) -> int | None:
        """Milliseconds left for the side to move to make its first move of a timed game
        between people that has begun (both seats held, fewer than two plies); None when no
        first move is due (then nothing can be aborted for want of one)."""
        if (
            self.result
            or self.clock is None
            or not self.people_game
            or self.open_seat() is not None
            or len(self.moves) >= 2
        ):
            return None
        return max(0, int((self.first_move_since + limit_s - now) * 1000))

    def check_first_move(self, now: float, limit_s: float) -> bool:
        """Abort the game (no result: `*`, "aborted"; nobody loses) if the side to move has
        not made its first move within `limit_s`; True if it just ended."""
        left = self.first_move_left(now, limit_s)
        if left is None or left > 0:
            return False
        self.finish("*", "aborted")
        return True

    @property
    def between_people(self) -> bool:
        """Two different people hold the seats (offers go to the opponent; abandonment)."""
        white, black = self.seats["white"], self.seats["black"]
        return not (white.engine or black.engine) and white.player != black.player

    def engine_to_move(self) -> bool:
        """Whether ferz holds the seat of the side to move."""
        return self.seats[self.turn].engine

    @property
    def human(self) -> str:
        """The person's colour."""
        return self.settings.human

    @property
    def turn(self) -> str:
        """The side to move."""
        return boards.turn(self.board)

    def record(self) -> StoredGame:
        """The stored form of this game."""
        clock = self.clock or {}
        started_at = None
        if self.turn_started is not None:
            started_at = time.time() - (time.monotonic() - self.turn_started)
        return StoredGame(
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
            started_at,
            dict(self.tags),
            {color: seat.to_store() for color, seat in self.seats.items()},
            owner=self.owner,
        )

    def remaining(self, color: str, now: float) -> int | None:
        """Milliseconds left on `color`'s clock at `now`, None for untimed games."""
        if self.clock is None:
            return None
        left = self.clock[color]
        if color == self.turn and self.turn_started is not None:
            left -= int((now - self.turn_started) * 1000)
        return max(0, left)  # a clock shows 0, never less, when its flag falls

    def check_time(self, now: float) -> bool:
        """End the game if the side to move has run out of time; True if it just ended."""
        if self.result or self.clock is None or self.turn_started is None:
            return False
        left = self.remaining(self.turn, now)
        if left is not None and left <= 0:
            loser = self.turn
            self.clock[loser] = 0
            if boards.cannot_mate(self.board, other(loser)):
                # FIDE 6.9: the flag falls, but the opponent could not mate by any moves.
                self.finish("1/2-1/2", "time forfeit against insufficient material")
            else:
                self.finish("0-1" if loser == "white" else "1-0", "time forfeit")
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
            elif not self.people_game:  # against ferz, hot-seat: the first move has it too
                self.clock[mover] += self.settings.increment_ms
            # The clock of the side to move runs from here: after the first move, or between
            # people after each side's first (until then neither runs, and no increment).
            self.turn_started = now if len(self.moves) >= self._clock_from else None
        self.first_move_since = now  # the next first move (between people) is due from now
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
            self.turn_started = now if len(self.moves) >= self._clock_from else None
        self.first_move_since = now
        self.updated = time.time()

    def finish(self, result: str, termination: str) -> None:
        """End the game with a PGN result and a reason."""
        self.result = result
        self.termination = termination
        self.turn_started = None
        self.offers.pop("draw", None)
        self.offers.pop("takeback", None)
        self.updated = time.time()

    def player_name(self, color: str) -> str:
        """A person's name, ferz's with its level (imported: its tags' names)."""
        return player_name(self.settings, color, self.tags, self.seats, self.names)

    def winner_text(self) -> str | None:
        """Who won and why, in words for the game-over panel; None while the game goes on."""
        if not self.result:
            return None
        why = self.termination or "the result of the game"
        if self.result == "1/2-1/2":
            return f"Draw ({why})"
        if self.result not in ("1-0", "0-1"):
            return "Game aborted" if why == "aborted" else f"Game over ({why})"
        winner = "white" if self.result == "1-0" else "black"
        side = side_name(self.variant, winner).capitalize()  # Sente, Red...
        name = self.player_name(winner)
        if name in (ANONYMOUS, winner.capitalize()):  # a person without a name: the side
            return f"{side} won ({why})"
        if self.settings.imported or self.settings.opponent != "engine":
            return f"{name} ({side}) won ({why})"
        return f"{name} won ({why})"

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
                {"uci": u, "san": s, "fen": f, "text": t}
                for u, s, f, t in zip(
                    self.moves,
                    self.sans,
                    self.fens,
                    boards.move_texts(self.variant, self.start_fen, self.moves, self.sans),
                    strict=True,
                )
            ],
            "last_move": last,
            "legal": (
                []
                if over or self.waiting or self.engine_to_move()
                else boards.legal_uci(self.board)
            ),
            "check": self.board.is_check(),
            "clock": clock,
            "result": self.result,
            "termination": self.termination,
            "outcome_text": self.winner_text(),
            "thinking": thinking,
            "imported": self.settings.imported,
            "show_pv": self.settings.show_pv,
            "tags": self.tags,
            "opponent": self.settings.opponent,
            "seats": {
                color: {
                    "kind": seat.kind,
                    "elo": seat.elo,
                    "open": seat.open,
                    "name": self.player_name(color),
                }
                for color, seat in self.seats.items()
            },
            "offers": dict(self.offers),
        }


def initial_seats(settings: GameSettings, creator: str | None) -> dict[str, Seat]:
    """The seats of a new game: the creator on their colour; the other seat ferz's (against
    the engine), the creator's too (hot-seat) or open (a friend's link, a lobby seek)."""
    mine = Seat(PERSON, creator)
    if settings.opponent == "engine":
        theirs = Seat(ENGINE, None, settings.elo)
    elif settings.opponent == "hotseat":
        theirs = mine
    else:
        theirs = Seat()
    return {c: mine if c == settings.human else theirs for c in COLORS}


def player_name(
    settings: GameSettings,
    color: str,
    tags: dict[str, str] | None = None,
    seats: dict[str, Seat] | None = None,
    names: dict[str, str | None] | None = None,
) -> str:
    """A side's name: the name its person chose (`names`: colour -> name; 'Anonymous' for
    none), ferz at its level ('ferz level 5', 'ferz' at full strength), an open seat's
    '(open seat)'; an imported game's player from its tags."""
    if settings.imported:
        name = (tags or {}).get(color.capitalize(), "?")
        return name if name and name != "?" else color.capitalize()
    seat = (seats or {}).get(color)
    if seat is not None and seat.engine:
        return bot_name(seat.elo)
    if seat is not None and seat.open and settings.opponent != "engine":
        return "(open seat)"
    if seat is None and settings.opponent == "engine" and color != settings.human:
        return bot_name(settings.elo)
    return (names or {}).get(color) or ANONYMOUS


def seat_names(
    seats: dict[str, Seat], name_of: Callable[[str | None], str | None]
) -> dict[str, str | None]:
    """The names the people on the seats chose (colour -> name), by `name_of(player id)`."""
    return {c: name_of(seat.player) for c, seat in seats.items() if seat.player is not None}


def summary(
    rec: StoredGame,
    viewer: str | None = None,
    name_of: Callable[[str | None], str | None] | None = None,
) -> dict[str, Any]:
    """One line of the games list, read from the stored record without replaying the moves
    (`mine`: `viewer` holds a seat or made the game; names by `name_of(player id)`)."""
    settings = GameSettings.load(rec.settings)
    seats = load_seats(rec.seats or legacy_seats(rec.settings))
    names = seat_names(seats, name_of or (lambda player: None))
    held = viewer is not None and any(seat.player == viewer for seat in seats.values())
    return {
        "id": rec.id,
        "created": rec.created,
        "updated": rec.updated,
        "variant": rec.variant,
        "white": player_name(settings, "white", rec.tags, seats, names),
        "black": player_name(settings, "black", rec.tags, seats, names),
        "mine": held or (viewer is not None and rec.owner == viewer),
        "opponent": settings.opponent,
        "result": rec.result,
        "plies": len(rec.moves),
        "imported": settings.imported,
    }
