"""Ratings of people and of ferz's bot levels: Glicko-2 (glicko2.py) per variant and per speed,
rated games, and each rated game's changes applied once, in the same transaction that records
them, so that a restart (or a second save of the finished game) never applies them twice."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from ..engine import level_elo
from . import glicko2
from .game import GameSettings
from .seats import FULL_LEVEL, Seat, bot_level, legacy_seats, load_seats
from .store import Store

log = logging.getLogger("ferz.web")

# Speeds as lichess splits them, by a game's estimated duration: the initial time plus 40
# increments, in seconds (a game without a clock is untimed: never rated).
SPEEDS = (("bullet", 180), ("blitz", 480), ("rapid", 1500), ("classical", None))
BOT_PREFIX = "ferz:"  # a bot's key in the ratings table: ferz:LEVEL
# A bot level starts at the Elo its strength was calibrated at (ferz.engine's SKILL_ELO,
# against Stockfish's UCI_Elo at 10+0.1 s) with a smaller deviation than a newcomer's: it
# was measured, but on another scale and at one time control.
BOT_RD = 150.0
PROVISIONAL_RD = 110.0  # a rating with a larger deviation is shown with "?" (as on lichess)
DECIDED = ("1-0", "0-1", "1/2-1/2")
# A rating period, as Glicko-2 counts time: one day. Before a game is rated, and whenever a
# rating is shown, each player's deviation grows by the periods (fractions too) since their
# last rated game at that variant and speed: RD' = sqrt(RD^2 + sigma^2 * t), at most 350. With
# the usual volatility 0.06 an RD of 50 takes about three years back to a newcomer's 350 and
# an RD of 60 becomes 66 after a week away.
PERIOD_S = 86_400.0


def speed_of(initial_ms: int | None, increment_ms: int = 0) -> str | None:
    """bullet, blitz, rapid or classical for a clock; None without a clock (untimed)."""
    if initial_ms is None:
        return None
    estimate = initial_ms / 1000 + 40 * increment_ms / 1000
    for name, below in SPEEDS:
        if below is None or estimate < below:
            return name
    return None  # not reached: classical has no bound


def settings_speed(settings: GameSettings) -> str | None:
    """A game's speed from its settings."""
    return speed_of(settings.initial_ms, settings.increment_ms)


def rated_refusal(settings: GameSettings, fen: str | None) -> str | None:
    """Why a new game cannot be rated (None: it can): rated games are between two people or a
    person and ferz, with a clock, from the variant's start, without the engine's hints."""
    if not settings.rated:
        return None
    if settings.opponent == "hotseat":
        return "a hot-seat game cannot be rated"
    if settings.initial_ms is None:
        return "a rated game needs a clock (untimed games are casual)"
    if fen is not None:
        return "a game from a position is casual: a rated game starts from the variant's start"
    if settings.show_pv:
        return "a rated game shows no engine lines"
    return None


def bot_key(elo: int | None) -> str:
    """The ratings key of ferz at a strength: its level."""
    return f"{BOT_PREFIX}{bot_level(elo)}"


def seat_key(seat: Seat) -> str | None:
    """Whose rating a seat carries: a person's id, a bot's key; None for an open seat."""
    if seat.engine:
        return bot_key(seat.elo)
    return seat.player


def seed(key: str) -> glicko2.Rating:
    """A rating before any game: a bot level's calibrated Elo, a newcomer's 1500."""
    if key.startswith(BOT_PREFIX):
        level = int(key[len(BOT_PREFIX) :])
        elo = level_elo(min(level, FULL_LEVEL))
        return glicko2.Rating(float(elo), BOT_RD, glicko2.NEW_VOL)
    return glicko2.Rating()


def shown(rating: glicko2.Rating, games: int = 0) -> dict[str, Any]:
    """A rating as the page shows it (rounded; provisional: "1500?")."""
    return {
        "rating": round(rating.rating),
        "rd": round(rating.rd),
        "provisional": rating.rd > PROVISIONAL_RD,
        "games": games,
    }


class Ratings:
    """Ratings over the store, those in use kept in memory."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock  # wall-clock seconds (a test's fake clock)
        self._lock = threading.Lock()
        # (player, variant, speed) -> the rating after its last game, games, when (clock)
        self._ratings: dict[tuple[str, str, str], tuple[glicko2.Rating, int, float | None]] = {}
        self._changes: dict[str, dict[str, Any] | None] = {}

    def get(self, key: str, variant: str, speed: str) -> tuple[glicko2.Rating, int]:
        """A player's rating in a variant at a speed now (its deviation grown by the rating
        periods since their last rated game there), and how many rated games made it."""
        with self._lock:
            found = self._ratings.get((key, variant, speed))
        if found is None:
            rows = self.store.query(
                "SELECT rating, rd, vol, games, updated FROM ratings"
                " WHERE player = ? AND variant = ? AND speed = ?",
                (key, variant, speed),
            )
            found = (
                (glicko2.Rating(*rows[0][:3]), rows[0][3], rows[0][4])
                if rows
                else (seed(key), 0, None)
            )
            with self._lock:
                if len(self._ratings) > 20_000:
                    self._ratings.clear()
                self._ratings[(key, variant, speed)] = found
        rating, games, updated = found
        return self.aged(rating, updated), games

    def aged(
        self, rating: glicko2.Rating, updated: float | None, now: float | None = None
    ) -> glicko2.Rating:
        """A rating last changed at `updated` (None: never: a seed) as it stands `now`: its
        deviation grown by the rating periods between (glicko2.idle)."""
        if updated is None:
            return rating
        now = self.clock() if now is None else now
        return glicko2.idle(rating, (now - updated) / PERIOD_S)

    def shown(self, key: str | None, variant: str, speed: str | None) -> dict[str, Any] | None:
        """A player's rating as shown beside their name (None: an open seat, untimed)."""
        if key is None or speed is None:
            return None
        return shown(*self.get(key, variant, speed))

    def of(self, key: str) -> list[dict[str, Any]]:
        """Every rating a player has, by variant and speed."""
        rows = self.store.query(
            "SELECT variant, speed, rating, rd, vol, games, updated FROM ratings"
            " WHERE player = ? ORDER BY games DESC, variant, speed",
            (key,),
        )
        now = self.clock()
        return [
            {"variant": v, "speed": s, **shown(self.aged(glicko2.Rating(r, rd, vol), t, now), n)}
            for v, s, r, rd, vol, n, t in rows
        ]

    def change(self, game_id: str) -> dict[str, Any] | None:
        """What a rated game did to both ratings (None: not applied, or not rated)."""
        with self._lock:
            if game_id in self._changes:
                return self._changes[game_id]
        rows = self.store.query("SELECT changes FROM rated_games WHERE game = ?", (game_id,))
        found = json.loads(rows[0][0]) if rows else None
        if found is not None:
            with self._lock:
                self._changes[game_id] = found
        return found

    def apply(
        self,
        game_id: str,
        variant: str,
        settings: GameSettings,
        seats: dict[str, Seat],
        result: str | None,
    ) -> dict[str, Any] | None:
        """Rate a finished game, once: both players' new ratings and the game's changes are
        written in one transaction, and a game already rated is left alone; its changes
        (None: the game is not rated, not decided, or not between two players)."""
        known = self.change(game_id)
        if known is not None:
            return known
        speed = settings_speed(settings)
        keys = {color: seat_key(seat) for color, seat in seats.items()}
        white, black = keys["white"], keys["black"]
        if (
            not settings.rated
            or settings.imported
            or result not in DECIDED
            or speed is None
            or white is None
            or black is None
            or white == black
        ):
            return None
        score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
        now = self.clock()
        with self.store.transaction() as db:
            done = db.execute("SELECT changes FROM rated_games WHERE game = ?", (game_id,))
            row = done.fetchone()
            if row is not None:
                return self._remember_change(game_id, json.loads(row[0]))
            before = {}
            for color, key in (("white", white), ("black", black)):
                stored = db.execute(
                    "SELECT rating, rd, vol, games, updated FROM ratings"
                    " WHERE player = ? AND variant = ? AND speed = ?",
                    (key, variant, speed),
                ).fetchone()
                before[color] = (  # the deviation grown over the periods without games
                    (self.aged(glicko2.Rating(*stored[:3]), stored[4], now), stored[3])
                    if stored
                    else (seed(key), 0)
                )
            (w, w_games), (b, b_games) = before["white"], before["black"]
            after = {
                "white": glicko2.update(w, [(b, score)]),
                "black": glicko2.update(b, [(w, 1.0 - score)]),
            }
            changes: dict[str, Any] = {"variant": variant, "speed": speed}
            for color, key, games in (("white", white, w_games), ("black", black, b_games)):
                old, new = before[color][0], after[color]
                db.execute(
                    "INSERT INTO ratings (player, variant, speed, rating, rd, vol, games, updated)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(player, variant, speed) DO"
                    " UPDATE SET rating = excluded.rating, rd = excluded.rd, vol = excluded.vol,"
                    " games = excluded.games, updated = excluded.updated",
                    (key, variant, speed, new.rating, new.rd, new.vol, games + 1, now),
                )
                changes[color] = {
                    "before": round(old.rating),
                    "after": round(new.rating),
                    "diff": round(new.rating) - round(old.rating),
                    "rd": round(new.rd),
                    "provisional": new.rd > PROVISIONAL_RD,
                }
            db.execute(
                "INSERT INTO rated_games (game, changes, applied) VALUES (?, ?, ?)",
                (game_id, json.dumps(changes), now),
            )
        with self._lock:
            self._ratings[(white, variant, speed)] = (after["white"], w_games + 1, now)
            self._ratings[(black, variant, speed)] = (after["black"], b_games + 1, now)
        return self._remember_change(game_id, changes)

    def pgn_tags(self, game: Any) -> dict[str, str]:
        """A game's rating tags, as lichess writes them: WhiteElo and BlackElo (the ratings
        before a rated game, once it is rated, with WhiteRatingDiff and BlackRatingDiff; the
        players' ratings now otherwise); none for hot-seat, imported or untimed games."""
        settings = game.settings
        speed = settings_speed(settings)
        if settings.imported or settings.opponent == "hotseat" or speed is None:
            return {}
        change = self.change(game.id) if settings.rated and game.result else None
        tags: dict[str, str] = {}
        for color, tag in (("white", "White"), ("black", "Black")):
            if change is not None:
                tags[f"{tag}Elo"] = str(change[color]["before"])
                continue
            key = seat_key(game.seats[color])
            if key is not None:
                tags[f"{tag}Elo"] = str(round(self.get(key, game.variant, speed)[0].rating))
        if change is not None:
            for color, tag in (("white", "White"), ("black", "Black")):
                tags[f"{tag}RatingDiff"] = f"{change[color]['diff']:+d}"
        return tags

    def _remember_change(self, game_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        """Keep a game's changes in memory."""
        with self._lock:
            if len(self._changes) > 20_000:
                self._changes.clear()
            self._changes[game_id] = changes
        return changes

    def catch_up(self) -> int:
        """Rate the finished rated games that are not rated yet (the server stopped between
        storing the result and rating it), oldest first; how many were rated."""
        rows = self.store.query(
            "SELECT id, variant, settings, seats, result FROM games"
            " WHERE result IN ('1-0', '0-1', '1/2-1/2')"
            " AND json_extract(settings, '$.rated') = 1"
            " AND id NOT IN (SELECT game FROM rated_games) ORDER BY updated"
        )
        count = 0
        for gid, variant, settings_text, seats_text, result in rows:
            try:
                stored = json.loads(settings_text)
                settings = GameSettings.load(stored)
                seats = load_seats(json.loads(seats_text or "{}") or legacy_seats(stored))
            except (ValueError, TypeError) as error:
                log.warning("game %s not rated: %s", gid, error)
                continue
            if self.apply(gid, variant, settings, seats, result) is not None:
                count += 1
        return count
