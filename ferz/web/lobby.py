"""The lobby: open seeks (games waiting for an opponent) and ferz's levels as bots, pushed
live to every open lobby page."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.websockets import WebSocket

from ..engine import ELO_MAX, ELO_MIN
from .game import LiveGame, other
from .messages import error_message
from .rooms.registry import Games
from .schema import LOBBY_MESSAGES, ClientError, check_message

# ferz's levels offered as bots: Elo (None: full strength, which UCI_Elo = ELO_MAX also is, so
# the strongest limited bot sits a few levels below it).
BOTS: tuple[int | None, ...] = (ELO_MIN, 1500, 2000, ELO_MAX - 200, None)


def seek_json(game: LiveGame, player: str | None) -> dict[str, Any]:
    """One seek as the lobby shows it (`mine`: the viewer made it and may cancel it)."""
    s = game.settings
    waiting = game.open_seat()
    clock = None
    if s.initial_ms is not None:
        clock = {"initial_ms": s.initial_ms, "increment_ms": s.increment_ms}
    return {
        "id": game.id,
        "variant": game.variant,
        "clock": clock,
        "color": other(waiting) if waiting else None,  # the seeker's colour
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
            "seeks": [seek_json(g, player) for g in self.games.seeks()],
            "bots": [{"elo": elo} for elo in BOTS],
        }

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
