"""Who the visitor is, over HTTP: their name (chosen at the first visit), the optional
account (register a password, log in from another browser, log out) and a player's page."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..people import PASSWORD_MAX, PeopleError
from ..players import SCOPE_KEY, browser, current
from ..schema import ClientError, Field
from .common import Context, context, read_json

SMALL_BODY = 4096  # a name and a password fit many times over
NAME = Field("str", required=True, low=1, high=40)
PASSWORD = Field("str", required=True, low=1, high=PASSWORD_MAX)
SET_NAME = {"name": NAME}
REGISTER = {"password": PASSWORD, "name": Field("str", low=1, high=40)}
LOGIN = {"name": NAME, "password": PASSWORD}


def client_address(request: Request) -> str:
    """The address the request came from, as the login throttle counts it: the connection's
    peer (ferz web reads no X-Forwarded-For: a client could write anything there)."""
    return request.client.host if request.client is not None else ""


def me_json(ctx: Context, request: Request) -> dict[str, Any]:
    """The visitor as the page shows them: name, account, whether this browser logged in."""
    player = current(request.scope)
    own = browser(request.scope)
    return {
        "name": ctx.people.name(player),
        "account": player is not None and ctx.people.has_account(player),
        "logged_in": player is not None and own is not None and player != own,
        "ratings": [] if player is None else ctx.games.ratings.of(player),
    }


def need_player(request: Request) -> str:
    """The visitor's player id (a browser that keeps no cookie has none: 400)."""
    player = current(request.scope)
    if player is None:
        raise ClientError("no player: this browser keeps no cookie")
    return player


async def player_page(request: Request) -> Response:
    """A person by name: their name as they spell it, whether they have an account, their
    ratings by variant and speed (404 for nobody of that name)."""
    ctx = context(request)
    player = ctx.people.find(request.path_params["name"])
    if player is None:
        raise ClientError(f"nobody is called {request.path_params['name'][:40]!r}", 404)
    return JSONResponse(
        {
            "name": ctx.people.name(player),
            "account": ctx.people.has_account(player),
            "ratings": ctx.games.ratings.of(player),
        }
    )


async def me(request: Request) -> Response:
    """The visitor: name (null before they choose one), account, logged in."""
    return JSONResponse(me_json(context(request), request))


async def set_name(request: Request) -> Response:
    """Choose (or change) the visitor's name: 2-20 letters, digits, _ or -, unique whatever
    the case (400: a bad name, 409: taken)."""
    ctx = context(request)
    data = await read_json(request, SET_NAME, SMALL_BODY)
    player = need_player(request)
    try:
        ctx.people.set_name(player, data["name"])
    except PeopleError as error:
        raise ClientError(str(error), error.status) from None
    return JSONResponse(me_json(ctx, request))


async def register(request: Request) -> Response:
    """Make the visitor an account: a password (8-200 characters) for their name (`name`
    sets it first when given), so another browser can log in as them."""
    ctx = context(request)
    data = await read_json(request, REGISTER, SMALL_BODY)
    player = need_player(request)
    try:
        if data["name"] is not None and data["name"] != ctx.people.name(player):
            ctx.people.set_name(player, data["name"])
        async with ctx.hashing:
            await asyncio.to_thread(ctx.people.register, player, data["password"])
    except PeopleError as error:
        raise ClientError(str(error), error.status) from None
    return JSONResponse(me_json(ctx, request), status_code=201)


async def login(request: Request) -> Response:
    """Log this browser in to an account: it becomes that player (name, games, ratings) until
    it logs out (401: wrong name or password; 429: too many failures)."""
    ctx = context(request)
    data = await read_json(request, LOGIN, SMALL_BODY)
    own = browser(request.scope)
    if own is None:
        raise ClientError("no player: this browser keeps no cookie")
    try:
        async with ctx.hashing:
            player = await asyncio.to_thread(
                ctx.people.login,
                own,
                data["name"],
                data["password"],
                address=client_address(request),
            )
    except PeopleError as error:
        raise ClientError(str(error), error.status) from None
    request.scope[SCOPE_KEY] = player  # this answer already speaks for the account
    return JSONResponse(me_json(ctx, request))


async def logout(request: Request) -> Response:
    """This browser is its own player again (the one it was before logging in)."""
    ctx = context(request)
    own = browser(request.scope)
    if own is None:
        raise ClientError("no player: this browser keeps no cookie")
    ctx.people.logout(own)
    request.scope[SCOPE_KEY] = own
    return JSONResponse(me_json(ctx, request))


ROUTES = [
    Route("/api/me", me, methods=["GET"]),
    Route("/api/players/{name}", player_page, methods=["GET"]),
    Route("/api/me/name", set_name, methods=["POST"]),
    Route("/api/account/register", register, methods=["POST"]),
    Route("/api/account/login", login, methods=["POST"]),
    Route("/api/account/logout", logout, methods=["POST"]),
]
