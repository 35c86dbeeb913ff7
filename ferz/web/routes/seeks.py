"""The lobby over HTTP: its seeks and bots, accepting a seek, cancelling your own."""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..players import current
from ..schema import ClientError
from .common import context, game_json


async def list_seeks(request: Request) -> Response:
    """The lobby: open seeks and ferz's bots."""
    return JSONResponse(context(request).lobby.message(current(request.scope)))


async def accept_seek(request: Request) -> Response:
    """Take the open seat of a lobby seek (not your own); the game, 200."""
    games = context(request).games
    player = current(request.scope)
    room = games.room(request.path_params["game_id"])
    async with room.lock:
        game = room.game
        if game.settings.opponent != "seek":
            raise ClientError("that game is not a lobby seek", 404)
        if game.colors_of(player):
            raise ClientError("that is your own seek", 409)
        if game.open_seat() is None:
            raise ClientError("someone has already accepted that seek", 409)
        if not room.presence.listed(time.monotonic()):
            raise ClientError("that seek has expired: its creator left", 409)
        game.take_seat(player)
        await room.changed()
    games.lobby_changed()
    return game_json(room, player)


async def cancel_seek(request: Request) -> Response:
    """Withdraw your seek before anyone accepts it (the game is deleted)."""
    games = context(request).games
    player = current(request.scope)
    room = games.room(request.path_params["game_id"])
    game = room.game
    if game.settings.opponent != "seek" or game.open_seat() is None:
        raise ClientError("that is not an open seek", 409)
    if not game.colors_of(player):
        raise ClientError("only its creator can cancel a seek", 403)
    await games.delete(game.id)
    return Response(status_code=204)


ROUTES = [
    Route("/api/seeks", list_seeks, methods=["GET"]),
    Route("/api/seeks/{game_id}/accept", accept_seek, methods=["POST"]),
    Route("/api/seeks/{game_id}", cancel_seek, methods=["DELETE"]),
]
