"""The lobby: open seeks (games waiting for an opponent) and ferz's levels as bots, pushed
live to every open lobby page."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.websockets import WebSocket

from ..engine import level_elo
from .game import LiveGame, other
from .messages import error_message
from .ratings import SPEEDS, Ratings, bot_key, seat_key, settings_speed
from .rooms.registry import Games
from .schema import LOBBY_MESSAGES, ClientError, check_message
from .seats import bot_name

# ferz's levels offered as bots: `Skill Level`s (equal Elo steps, ferz.engine.level_elo), named
# "ferz level N" as in every game, and full strength ("ferz", no UCI_Elo).
BOT_LEVELS = (0, 3, 10, 17)
BOTS: tuple[int | None, ...] = (*(round(level_elo(level)) for level in BOT_LEVELS), None)


def seek_json(game: LiveGame, player: str | None, ratings: Ratings | None = None) -> dict[str, Any]:
    """One seek as the lobby shows it (`mine`: the viewer made it and may cancel it)."""
    s = game.settings
    waiting = game.open_seat()
    clock = None
    if s.initial_ms is not None:
        clock = {"initial_ms": s.initial_ms, "increment_ms": s.increment_ms}
    seeker = other(waiting) if waiting else None
    rating = None
    if seeker is not None and ratings is not None:
        speed = settings_speed(s)
        rating = ratings.shown(seat_key(game.seats[seeker]), game.variant, speed)
    return {
        "id": game.id,
        "variant": game.variant,
        "clock": clock,
        # the seeker's colour; "random" while the colours are drawn when someone accepts
        "color": "random" if s.random_color and waiting else seeker,
        "name": game.player_name(seeker) if seeker else None,  # the seeker's name
        "rated": s.rated,
        "rating": rating,  # the seeker's, in this variant at this speed (None: untimed)
        "created": game.created,
        "mine": bool(game.colors_of(player)),
    }


class Lobby:
    """The lobby's sockets and the live list of seeks."""

    def __init__(self, games: Games) -> None:
        self.games = games
        self.sockets: dict[WebSocket, str | None] = {}
        self._due = False
        games.on_lobby = self.changed

    def message(self, player: str | None) -> dict[str, Any]:
        """The seeks and bots for one viewer."""
        return {
            "type": "seeks",
            "seeks": [
                seek_json(self._named(g), player, self.games.ratings) for g in self.games.seeks()
            ],
            "bots": [self._bot(elo) for elo in BOTS],
        }

    def _bot(self, elo: int | None) -> dict[str, Any]:
        """A bot as the lobby shows it: its strength, name and chess ratings by speed."""
        ratings: dict[str, int | None] = {}
        for speed, _ in SPEEDS:
            rating = self.games.ratings.shown(bot_key(elo), "chess", speed)
            ratings[speed] = None if rating is None else rating["rating"]
        return {"elo": elo, "name": bot_name(elo), "ratings": ratings}

    def _named(self, game: LiveGame) -> LiveGame:
        """The game with its people's names looked up."""
        game.names = self.games.names(game)
        return game

    def changed(self) -> None:
        """Seeks may have changed: push the list once, after the current change is done."""
        if self._due or not self.sockets:
            return
        self._due = True
        asyncio.get_running_loop().call_soon(
            lambda: asyncio.get_running_loop().create_task(self._push())
        )

    async def _push(self) -> None:
        """Send every lobby page its list; dead sockets are dropped."""
        self._due = False
        texts: dict[str | None, str] = {}
        for ws, player in list(self.sockets.items()):
            if player not in texts:
                texts[player] = json.dumps(self.message(player))
            try:
                await ws.send_text(texts[player])
            except Exception:  # noqa: BLE001 - any failure means the socket is gone
                self.sockets.pop(ws, None)

    async def join(self, ws: WebSocket, player: str | None) -> None:
        """A lobby page opened: send it the list now."""
        self.sockets[ws] = player
        await ws.send_json(self.message(player))

    async def handle(self, ws: WebSocket, raw: dict[str, Any]) -> None:
        """A lobby page's message: only `sync` (the list again)."""
        try:
            check_message(raw, LOBBY_MESSAGES)
        except ClientError as error:
            await ws.send_json(error_message(str(error)))
            return
        await ws.send_json(self.message(self.sockets.get(ws)))
