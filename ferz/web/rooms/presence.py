"""Who of a live game's players is here: a player with no page of a game between people open
is away, and after ABANDON_S the opponent may claim the win or a draw; a lobby seek is listed
while its creator is here (or was, less than that long ago)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from starlette.websockets import WebSocket

from ..game import other
from ..messages import error_message
from ..seats import COLORS

if TYPE_CHECKING:
    from .room import Room

ABANDON_S = 60.0  # a player away this long from a game against a person may be claimed against


class Presence:
    """The away players of one game (since when) and when a seated player was last here."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.away: dict[str, float] = {}  # colour -> since when (monotonic) its player is away
        self.seen = time.monotonic()  # when a seated player last had a page open (or created it)

    def update(self, now: float) -> bool:
        """Note which players of a game between people are away (no socket open); True if
        that changed. Only a seated person's absence counts, only while the game goes on."""
        game = self.room.game
        before = dict(self.away)
        if game.result or not game.between_people or game.open_seat() is not None:
            self.away.clear()
        else:
            here = self.room.audience.players()
            for color in COLORS:
                if game.seats[color].player in here:
                    self.away.pop(color, None)
                else:
                    self.away.setdefault(color, now)
        return before.keys() != self.away.keys()

    def away_ms(self, now: float) -> dict[str, int]:
        """Each away player's colour with the ms left until a claim is possible."""
        abandon_s = self.room.games.abandon_s
        return {
            color: max(0, int((since + abandon_s - now) * 1000))
            for color, since in self.away.items()
        }

    def left(self, player: str | None, now: float) -> None:
        """A socket of `player` closed: a seated player was here until now."""
        room = self.room
        if player is not None and room.game.colors_of(player):
            self.seen = now
            if self.seeking():  # the lobby drops the seek when its creator stays away
                loop = asyncio.get_running_loop()
                loop.call_later(room.games.abandon_s + 0.05, room.games.lobby_changed)

    def seeking(self) -> bool:
        """A lobby seek still waiting for an opponent."""
        game = self.room.game
        return game.settings.opponent == "seek" and game.open_seat() is not None

    def listed(self, now: float) -> bool:
        """Whether the lobby shows this seek: its creator has the game open, or left (or
        created it) less than the abandonment time ago."""
        if not self.seeking():
            return False
        here = self.room.audience.players()
        seats = self.room.game.seats.values()
        creator = any(seat.player in here for seat in seats if seat.player)
        return creator or now - self.seen < self.room.games.abandon_s

    async def claim(self, ws: WebSocket, result: str, color: str, now: float) -> None:
        """Claim the win (or a draw) when the opponent has been away ABANDON_S or more."""
        room = self.room
        game = room.game
        since = self.away.get(other(color)) if game.between_people else None
        if since is None:
            await ws.send_json(error_message("your opponent is here: nothing to claim"))
            return
        waited = now - since
        if waited < room.games.abandon_s:
            await ws.send_json(
                error_message(
                    f"your opponent has been away {waited:.0f} s; a claim is possible after "
                    f"{room.games.abandon_s:.0f} s"
                )
            )
            return
        if result == "draw":
            game.finish("1/2-1/2", "abandonment")
        else:
            game.finish("1-0" if color == "white" else "0-1", "abandonment")
        await room.changed()
