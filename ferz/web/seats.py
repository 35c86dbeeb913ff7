"""A game's two seats (white, black): each held by a person (a player id, or open until someone
takes it) or by ferz at a strength. Everyone else who opens the game is a spectator."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..engine import ELO_MAX, ELO_MIN, LEVEL_ELO

COLORS = ("white", "black")
PERSON, ENGINE = "person", "engine"
FULL_LEVEL = 20  # ferz at full strength (no UCI_Elo)


def bot_level(elo: int | None) -> int:
    """The `Skill Level` (0-20, equal Elo steps) nearest to a strength (None: full, 20)."""
    if elo is None or elo >= ELO_MAX:
        return FULL_LEVEL
    return max(0, min(FULL_LEVEL, round((elo - ELO_MIN) / LEVEL_ELO)))


def bot_name(elo: int | None) -> str:
    """ferz's name at a strength: "ferz" at full strength, else "ferz level N"."""
    level = bot_level(elo)
    return "ferz" if level == FULL_LEVEL else f"ferz level {level}"


@dataclass(frozen=True)
class Seat:
    """Who sits on one side: a person (`player` is their id; None: the seat is open) or ferz
    (`elo`: its strength, None for full strength)."""

    kind: str = PERSON
    player: str | None = None
    elo: int | None = None

    @property
    def engine(self) -> bool:
        """Whether ferz plays this side."""
        return self.kind == ENGINE

    @property
    def open(self) -> bool:
        """A person's seat nobody has taken yet."""
        return self.kind == PERSON and self.player is None

    def to_store(self) -> dict[str, Any]:
        """The stored form."""
        return asdict(self)

    @classmethod
    def load(cls, stored: Any) -> Seat:
        """A seat from the store; a malformed entry is an open person's seat."""
        if not isinstance(stored, dict):
            return cls()
        kind = stored.get("kind") if stored.get("kind") in (PERSON, ENGINE) else PERSON
        player = stored.get("player") if isinstance(stored.get("player"), str) else None
        elo = stored.get("elo")
        if not isinstance(elo, int) or isinstance(elo, bool):
            elo = None
        return cls(kind, None if kind == ENGINE else player, elo if kind == ENGINE else None)


def load_seats(stored: Any) -> dict[str, Seat]:
    """Both seats from the store (missing ones are open)."""
    stored = stored if isinstance(stored, dict) else {}
    return {color: Seat.load(stored.get(color)) for color in COLORS}


def legacy_seats(settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The seats of a game stored before seats existed (schema version 1): ferz on the
    engine's side, and the person's side open, so the first visitor to open it takes it (the
    old server had no identities: whoever had the link played)."""
    if settings.get("imported"):
        return {color: Seat().to_store() for color in COLORS}
    human = settings.get("human") if settings.get("human") in COLORS else "white"
    elo = settings.get("elo")
    engine = Seat(ENGINE, None, elo if isinstance(elo, int) else None)
    return {c: (Seat() if c == human else engine).to_store() for c in COLORS}
