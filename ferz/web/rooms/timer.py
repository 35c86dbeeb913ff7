"""A live game's flag timer: the server flags a fallen clock itself, even with nobody
connected."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .room import Room


class FlagTimer:
    """Wakes up when the side to move runs out of time and ends the game if it has."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.handle: asyncio.TimerHandle | None = None

    def arm(self) -> None:
        """Wake up when the side to move runs out of time."""
        self.cancel()
        game = self.room.game
        if game.result or game.clock is None or game.turn_started is None:
            return
        left = game.remaining(game.turn, time.monotonic()) or 0
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
        """End the game on time (if still so) and tell the clients."""
        room = self.room
        async with room.lock:
            if room.game.check_time(time.monotonic()):
                await room.engine.stop()
                await room.changed()
            else:
                self.arm()
