"""The WebSockets: a game's (its state, then the players' moves and offers), the lobby's
(the seeks, pushed when they change) and an analysis board's (searches and reviews)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..analysis import Analysis
from ..messages import error_message, receive
from ..players import current
from ..schema import ClientError
from .common import context


async def serve_messages(
    ws: WebSocket,
    send: Callable[[dict[str, Any]], Awaitable[None]],
    handle: Callable[[dict[str, Any]], Awaitable[None]],
) -> None:
    """Pass each client message to `handle` until the socket closes; tell of malformed ones."""
    while True:
        message = await receive(ws)
        if message is None:
            return
        if isinstance(message, str):
            await send(error_message(message))
            continue
        await handle(message)


async def game_socket(ws: WebSocket) -> None:
    """A game's socket: the state at once, then the player's messages."""
    await ws.accept()
    try:
        room = context(ws).games.room(ws.path_params["game_id"])
    except ClientError as error:
        await ws.send_json(error_message(str(error)))
        await ws.close(code=4404)
        return
    try:
        async with room.lock:
            await room.join(ws, current(ws.scope))
            room.engine.start()
            room.timer.arm()
        await serve_messages(ws, ws.send_json, functools.partial(room.handle, ws))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        await room.leave(ws)


async def lobby_socket(ws: WebSocket) -> None:
    """The lobby's socket: the seeks at once and again whenever they change."""
    lobby = context(ws).lobby
    await ws.accept()
    try:
        await lobby.join(ws, current(ws.scope))
        await serve_messages(ws, ws.send_json, functools.partial(lobby.handle, ws))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        lobby.sockets.pop(ws, None)


async def analysis_socket(ws: WebSocket) -> None:
    """An analysis board's socket (at most Context.analysis_sockets at once)."""
    ctx = context(ws)
    await ws.accept()
    if len(ctx.boards_open) >= ctx.analysis_sockets:
        await ws.send_json(error_message("too many analysis boards open; try again later"))
        await ws.close(code=1013)
        return
    board = Analysis(ctx.pool, ctx.review, ws)
    ctx.boards_open.add(board)
    try:
        await serve_messages(ws, board.send, board.handle)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        ctx.boards_open.discard(board)
        await board.close()


ROUTES = [
    WebSocketRoute("/ws/games/{game_id}", game_socket),
    WebSocketRoute("/ws/analysis", analysis_socket),
    WebSocketRoute("/ws/lobby", lobby_socket),
]
