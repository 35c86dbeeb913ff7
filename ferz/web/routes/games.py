"""The games list and one game over HTTP: list, start (against ferz, hot-seat, a friend's
link, a lobby seek), get, delete, rematch."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .. import boards
from ..game import GameSettings, LiveGame, summary
from ..players import current
from ..ratings import rated_refusal
from ..schema import NEW_GAME, ClientError, Field
from ..store import STATUSES
from .common import Context, context, game_json, read_json, read_query

PAGE_DEFAULT, PAGE_MAX = 50, 200  # games per page of the games list
WHO = ("me", "all")  # whose games the list shows: the visitor's, or everyone's
LIST_QUERY = {
    "offset": Field("int", low=0, high=10**9),
    "limit": Field("int", low=1, high=PAGE_MAX),
    "status": Field("str", choices=STATUSES),
    "variant": Field("str", low=1, high=40),
    "who": Field("str", choices=WHO),
    "player": Field("str", low=1, high=40),
}


async def list_games(request: Request) -> Response:
    """One page of the games list: ?offset=&limit=&status=all|playing|finished|imported
    &variant=&who=me|all&player=NAME; the answer says how many games match in all.

    who=me (the default): the games where the visitor holds a seat, or that they created or
    imported; who=all: every game; player=NAME: the games that person plays or played."""
    ctx = context(request)
    query = read_query(request, LIST_QUERY)
    offset, limit = query["offset"] or 0, query["limit"] or PAGE_DEFAULT
    status = query["status"] or "all"
    viewer = current(request.scope)
    who = query["who"] or "me"
    player, owned = (viewer, True) if who == "me" else (None, False)
    if query["player"] is not None:
        player = ctx.people.find(query["player"])
        if player is None:
            raise ClientError(f"nobody is called {query['player'][:40]!r}", 404)
        owned = False
    if who == "me" and player is None:  # no cookie (a client that refuses it): nothing is theirs
        records, total = [], 0
    else:
        records, total = ctx.store.list(limit, offset, status, query["variant"], player, owned)
    name_of = ctx.people.name
    return JSONResponse(
        {
            "games": [summary(rec, viewer, name_of) for rec in records],
            "total": total,
            "offset": offset,
            "limit": limit,
            "who": "player" if query["player"] is not None else who,
        }
    )


def start_game(
    ctx: Context, settings: GameSettings, variant: str, fen: str | None, creator: str | None
) -> Response:
    """Create, store and answer a new game (201); ferz moves first at once if White."""
    variant = boards.known_variant(variant) or variant  # an alias: the variant's own name
    try:
        game = LiveGame.create(settings, variant, fen, creator)
    except ValueError as error:
        raise ClientError(str(error)) from None
    return game_json(ctx.games.start(game), creator, 201)


async def new_game(request: Request) -> Response:
    """Start a game from the new-game form (schema.NEW_GAME): against ferz, hot-seat, a
    friend's link or a lobby seek."""
    ctx = context(request)
    data = await read_json(request, NEW_GAME)
    try:
        settings = GameSettings.parse(data, ctx.max_think_ms)
    except ValueError as error:
        raise ClientError(str(error)) from None
    variant, fen = data["variant"] or "chess", data["fen"] or None
    refusal = rated_refusal(settings, fen)
    if refusal is not None:
        raise ClientError(refusal)
    return start_game(ctx, settings, variant, fen, current(request.scope))


async def get_game(request: Request) -> Response:
    """A game as the page shows it."""
    room = context(request).games.room(request.path_params["game_id"])
    return game_json(room, current(request.scope))


async def delete_game(request: Request) -> Response:
    """Delete a game (its engine stops, its sockets close with 4410): its players may, or
    anyone when no person holds a seat (imported games); not while people play it."""
    games = context(request).games
    player = current(request.scope)
    try:
        room = games.room(request.path_params["game_id"])
    except ClientError as error:
        if error.status != 500:
            raise
        # a row this version cannot replay has no seats to check: it may go
        await games.delete(request.path_params["game_id"])
        return Response(status_code=204)
    game = room.game
    taken = [c for c, seat in game.seats.items() if seat.player is not None]
    if taken and not game.colors_of(player):
        raise ClientError("only the game's players can delete it", 403)
    if not taken and game.owner is not None and game.owner != player:
        raise ClientError("only who imported or started the game can delete it", 403)
    if game.between_people and not game.result and game.open_seat() is None:
        raise ClientError("the game goes on: resign or abort it first", 409)
    await games.delete(game.id)
    return Response(status_code=204)


async def rematch(request: Request) -> Response:
    """A new game like this one against ferz or hot-seat, the colours swapped (same
    variant and start); between people the rematch is offered from the game's socket."""
    games = context(request).games
    player = current(request.scope)
    room = games.room(request.path_params["game_id"])
    game = room.game
    if game.settings.imported:
        raise ClientError("an imported game has no rematch; start a new game")
    if not game.colors_of(player):
        raise ClientError("only the game's players can ask for a rematch", 403)
    if game.people_game and game.termination == "aborted":
        raise ClientError("an aborted game has no rematch: start a new game", 409)
    if game.between_people:
        raise ClientError("offer the rematch to your opponent from the game", 409)
    try:
        return game_json(games.rematch(game), player, 201)
    except ValueError as error:
        raise ClientError(str(error)) from None


ROUTES = [
    Route("/api/games", list_games, methods=["GET"]),
    Route("/api/games", new_game, methods=["POST"]),
    Route("/api/games/{game_id}", get_game, methods=["GET"]),
    Route("/api/games/{game_id}", delete_game, methods=["DELETE"]),
    Route("/api/games/{game_id}/rematch", rematch, methods=["POST"]),
]
