"""A live game's flag timer: the server flags a fallen clock itself, even with nobody
connected, and aborts a timed game between people whose first move (White's, then Black's)
is not made within FIRST_MOVE_S."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .room import Room

# How long each side of a timed game between people has for its first move, counted from the
# moment it is due (White's once both seats are held, Black's once White has moved); then the
# game is aborted, without a result. Lichess gives about as long (30 s for a casual rapid game).
FIRST_MOVE_S = 30.0


class FlagTimer:
    """Wakes up when the side to move runs out of time and ends the game if it has."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.handle: asyncio.TimerHandle | None = None

    def arm(self) -> None:
        """Wake up when the side to move runs out of time, or of time for its first move."""
        self.cancel()
        room = self.room
        game = room.game
        if game.result or game.clock is None:
            return
        now = time.monotonic()
        left = game.first_move_left(now, room.games.first_move_s)
        if left is None:
            if game.turn_started is None:
                return
            left = game.remaining(game.turn, now) or 0
        loop = asyncio.get_running_loop()
        self.handle = loop.call_later(max(0, left) / 1000 + 0.02, self._fire)

    def cancel(self) -> None:
        """Stop waiting (the game was deleted, the server stops, the clock changed)."""
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _fire(self) -> None:
        """The flag timer fired: end the game on time if the clock really ran out."""
        self.handle = None
        asyncio.get_running_loop().create_task(self._flag())

    async def _flag(self) -> None:
        """End the game on time, or abort it for want of a first move (if still so), and
        tell the clients."""
        room = self.room
        async with room.lock:
            now = time.monotonic()
            game = room.game
            if game.check_time(now) or game.check_first_move(now, room.games.first_move_s):
                await room.engine.stop()
                await room.changed()
            else:
                self.arm()
