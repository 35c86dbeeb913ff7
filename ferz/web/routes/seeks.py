"""The lobby over HTTP: its seeks and bots, accepting a seek, cancelling your own."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .. import boards
from ..game import GameSettings, LiveGame
from ..players import current
from ..ratings import rated_refusal
from ..schema import NEW_GAME, ClientError
from ..seats import PERSON
from .common import context, game_json, read_json
from .games import start_game

if TYPE_CHECKING:
    from ..rooms.registry import Games
    from ..rooms.room import Room

# A quick pairing (the home page's grid of time controls): a variant, a clock, rated or not.
QUICK = {key: NEW_GAME[key] for key in ("variant", "clock", "rated")}


async def list_seeks(request: Request) -> Response:
    """The lobby: open seeks and ferz's bots."""
    return JSONResponse(context(request).lobby.message(current(request.scope)))


async def accept_seek(request: Request) -> Response:
    """Take the open seat of a lobby seek (not your own); the game, 200."""
    games = context(request).games
    player = current(request.scope)
    room = games.room(request.path_params["game_id"])
    await take(games, room, player)
    return game_json(room, player)


async def take(games: Games, room: Room, player: str | None) -> None:
    """Seat `player` on a seek's open seat (ClientError when it cannot be taken)."""
    if player is None:
        raise ClientError("no player cookie: reload the page", 403)
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


def matches(game: LiveGame, variant: str, settings: GameSettings, player: str) -> bool:
    """Whether a listed seek is one a quick pairing takes: another person's, the same variant,
    clock and mode, from the variant's start (any Chess960 setup)."""
    s = game.settings
    creator = [seat.player for seat in game.seats.values() if seat.kind == PERSON]
    return (
        s.opponent == "seek"
        and game.open_seat() is not None
        and player not in creator
        and game.variant == variant
        and (s.initial_ms, s.increment_ms) == (settings.initial_ms, settings.increment_ms)
        and s.rated == settings.rated
        and (variant == "chess960" or game.start_fen == boards.start_fen(variant))
    )


async def quick_seek(request: Request) -> Response:
    """One click on the home page's grid: accept the oldest open seek of another person with
    the same variant, clock and mode (200), or else open one with the colours drawn when
    someone accepts it (201). Body: {variant, clock: {initial_ms, increment_ms}, rated}."""
    ctx = context(request)
    player = current(request.scope)
    data = await read_json(request, QUICK)
    if data["clock"] is None:
        raise ClientError("a quick pairing needs a clock")
    body = {"opponent": "seek", "color": "random", "clock": data["clock"], "rated": data["rated"]}
    try:
        settings = GameSettings.parse(body, ctx.max_think_ms)
    except ValueError as error:
        raise ClientError(str(error)) from None
    variant = boards.known_variant(data["variant"] or "chess")
    if variant is None:
        raise ClientError(f"unknown variant {data['variant']!r}")
    refusal = rated_refusal(settings, None)
    if refusal is not None:
        raise ClientError(refusal)
    if player is not None:
        for game in ctx.games.seeks():
            if matches(game, variant, settings, player):
                room = ctx.games.room(game.id)
                try:
                    await take(ctx.games, room, player)
                except ClientError:
                    continue  # taken or gone meanwhile: the next one
                return game_json(room, player)
    return start_game(ctx, settings, variant, None, player)


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
    Route("/api/seeks/quick", quick_seek, methods=["POST"]),
    Route("/api/seeks/{game_id}/accept", accept_seek, methods=["POST"]),
    Route("/api/seeks/{game_id}", cancel_seek, methods=["DELETE"]),
]
