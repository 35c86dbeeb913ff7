"""A live game's audience: its open sockets, each with the player who opened it, and
sending to all of them (a dead socket is dropped)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocket


class Audience:
    """The open sockets of one game, each with its player id (None: no player cookie)."""

    def __init__(self) -> None:
        self.sockets: dict[WebSocket, str | None] = {}

    def add(self, ws: WebSocket, player: str | None) -> None:
        """A socket opened by `player`."""
        self.sockets[ws] = player

    def remove(self, ws: WebSocket) -> str | None:
        """A socket closed; the player it was (None if unknown)."""
        return self.sockets.pop(ws, None)

    def player(self, ws: WebSocket) -> str | None:
        """Who opened this socket."""
        return self.sockets.get(ws)

    def players(self) -> set[str | None]:
        """Everyone with a socket open."""
        return set(self.sockets.values())

    async def broadcast(self, message: dict[str, Any]) -> None:
        """Send to every open socket of this game; a dead socket is dropped."""
        await self._send_all(lambda player: json.dumps(message))

    async def broadcast_state(
        self, game: dict[str, Any], you: Callable[[str | None], list[str]]
    ) -> None:
        """Send the state message of `game` to every socket, each with the colours its player
        holds (`you(player)`)."""
        # The game is encoded once; each player's `you` is spliced in before its closing
        # braces (encoding the whole state per player tripled the JSON work of a move).
        base = json.dumps({"type": "state", "game": game})
        head = base[:-2]
        texts: dict[str | None, str] = {}

        def text(player: str | None) -> str:
            """The state for one player (computed once per player)."""
            if player not in texts:
                texts[player] = f'{head}, "you": {json.dumps(you(player))}}}}}'
            return texts[player]

        await self._send_all(text)

    async def _send_all(self, text_for: Callable[[str | None], str]) -> None:
        """Send each socket the text for its player; a dead socket is dropped."""
        for ws, player in list(self.sockets.items()):
            try:
                await ws.send_text(text_for(player))
            except Exception:  # noqa: BLE001 - any failure means the socket is gone
                self.sockets.pop(ws, None)
