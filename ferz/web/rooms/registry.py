"""The games in memory: Games keeps a Room per live game over the store (loaded on demand,
the oldest idle ones forgotten), starts new games and rematches, resumes unfinished games
after a start and deletes games."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import re
import time
from collections import OrderedDict
from typing import Any

from ..explorer import Explorer
from ..game import LiveGame, other, seat_names
from ..messages import error_message
from ..people import People
from ..ratings import Ratings
from ..schema import ClientError
from ..searches import SearchPool
from ..seats import COLORS
from ..store import Store
from .presence import ABANDON_S
from .room import Room
from .timer import FIRST_MOVE_S

log = logging.getLogger("ferz.web")

MAX_ROOMS = 500  # idle games kept in memory
ID_RE = re.compile(r"[0-9a-f]{12}")


class Games:
    """The games in memory (rooms) over the store, sharing one engine pool."""

    def __init__(
        self,
        store: Store,
        pool: SearchPool,
        abandon_s: float = ABANDON_S,
        first_move_s: float = FIRST_MOVE_S,
        people: People | None = None,
        ratings: Ratings | None = None,
    ) -> None:
        self.store = store
        self.pool = pool
        self.people = people or People(store)  # the players' names
        self.ratings = ratings or Ratings(store)
        self.abandon_s = abandon_s
        self.first_move_s = first_move_s  # time for each side's first move between people
        self.rooms: OrderedDict[str, Room] = OrderedDict()
        self.on_lobby: Any = None  # called when the lobby's seeks may have changed
        self.explorer: Explorer | None = None  # the opening explorer counts finished games

    def names(self, game: LiveGame) -> dict[str, str | None]:
        """The names of the people on a game's seats (colour -> name)."""
        return seat_names(game.seats, self.people.name)

    def lobby_changed(self) -> None:
        """Tell the lobby (if any) that its seeks may have changed."""
        if self.on_lobby is not None:
            self.on_lobby()

    def start(self, game: LiveGame) -> Room:
        """Keep a new game: in memory, stored, ferz thinking at once if it moves first."""
        room = self.add(game)
        room.save()
        room.engine.start()
        room.timer.arm()  # a rematch between people begins at once: White's first move is due
        if game.settings.opponent == "seek":
            self.lobby_changed()
        return room

    def rematch(self, game: LiveGame) -> Room:
        """A new game like `game`, the seats (and so the colours) swapped, same variant and
        start; ValueError for an imported game."""
        if game.settings.imported:
            raise ValueError("an imported game has no rematch; start a new game")
        settings = dataclasses.replace(game.settings, human=other(game.human))
        if settings.opponent == "seek":  # the players are known now: no lobby entry
            settings = dataclasses.replace(settings, opponent="friend")
        seats = {color: game.seats[other(color)] for color in COLORS}
        fen = None if game.variant == "chess960" else game.start_fen
        return self.start(LiveGame.create(settings, game.variant, fen, seats=seats))

    def seeks(self) -> list[LiveGame]:
        """The open seeks of the lobby, oldest first."""
        now = time.monotonic()
        found = [room.game for room in self.rooms.values() if room.presence.listed(now)]
        return sorted(found, key=lambda g: g.created)

    def room(self, game_id: str) -> Room:
        """The game with this id, loaded from the store if needed; ClientError 404 if none."""
        if not isinstance(game_id, str) or not ID_RE.fullmatch(game_id):
            raise ClientError(f"no game {game_id!r}", 404)
        room = self.rooms.get(game_id)
        if room is None:
            rec = self.store.load(game_id)
            if rec is None:
                raise ClientError(f"no game {game_id!r}", 404)
            try:
                game = LiveGame(rec)
            except (ValueError, TypeError) as error:  # a row this version cannot replay
                raise ClientError(f"game {game_id} cannot be loaded: {error}", 500) from None
            room = self.add(game)
        self.rooms.move_to_end(game_id)
        return room

    def resume(self) -> int:
        """After a start: every unfinished game goes on at once (the engine thinks if it is
        to move, flags fall when due) without waiting for a browser; returns how many."""
        count = 0
        for rec in self.store.unfinished(MAX_ROOMS):
            try:
                game = LiveGame(rec)
            except (ValueError, TypeError) as error:  # a row this version cannot replay
                log.warning("game %s not resumed: %s", rec.id, error)
                continue
            room = self.add(game)
            if game.flagged_offline:
                room.save()  # decided while the server was down: keep the result
            room.engine.start()
            room.timer.arm()
            count += 1
        return count

    async def delete(self, game_id: str) -> None:
        """Forget a game: stop its engine, close its sockets, remove it from the store."""
        if not isinstance(game_id, str) or not ID_RE.fullmatch(game_id):
            raise ClientError(f"no game {game_id!r}", 404)
        room = self.rooms.pop(game_id, None)
        if room is not None:
            room.timer.cancel()
            await room.engine.stop()
            self.lobby_changed()
            for ws in list(room.audience.sockets):
                with contextlib.suppress(Exception):  # already gone is fine
                    await ws.send_json(error_message("this game was deleted"))
                    await ws.close(code=4410)
        if not self.store.delete(game_id) and room is None:
            raise ClientError(f"no game {game_id!r}", 404)

    def add(self, game: LiveGame) -> Room:
        """Keep a game in memory, forgetting the oldest idle ones beyond MAX_ROOMS."""
        room = Room(self, game)
        self.rooms[game.id] = room
        for gid in list(self.rooms)[: max(0, len(self.rooms) - MAX_ROOMS)]:
            old = self.rooms[gid]
            if not old.audience.sockets and old.engine.task is None:
                old.timer.cancel()
                del self.rooms[gid]
        return room

    async def close(self) -> None:
        """Stop every search (server shutdown)."""
        for room in list(self.rooms.values()):
            room.timer.cancel()
            await room.engine.stop()
