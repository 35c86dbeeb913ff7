"""What the route modules share: the app's Context, a request's body and query checked
against a schema, a game as JSON."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from ...syzygy import Tablebase
from ..analysis import Analysis
from ..explorer import Explorer
from ..lobby import Lobby
from ..people import People
from ..rooms.registry import Games
from ..rooms.room import Room
from ..schema import ClientError, Field, check, parse_json
from ..searches import SearchPool
from ..store import Store

MAX_BODY = 256 * 1024  # largest HTTP request body (a long PGN fits)


@dataclasses.dataclass
class Context:
    """What every handler reaches: the engine pool, the store, the live games, the lobby,
    the open analysis boards and the app's limits (one per app, in app.state.context)."""

    pool: SearchPool
    store: Store
    games: Games
    lobby: Lobby
    slots: int
    max_think_ms: int
    review: dict[str, int]  # the limits of a review's search of one position
    analysis_sockets: int  # analysis boards open at once at most
    people: People  # names and accounts
    explorer: Explorer  # the opening explorer's index
    boards_open: set[Analysis] = dataclasses.field(default_factory=set)
    tables: Tablebase | None = None  # Syzygy tables (ferz web --syzygy), for /api/tablebase
    # Reading, checking and writing a big tree takes a while (about 1 ms a move in shogi,
    # whose notation needs the legal moves): it runs in a worker thread, not on the event
    # loop the games share, one edit at a time (an edit reads, changes and writes the tree).
    tree_lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)
    # Password hashing (scrypt, ~50 ms) runs in threads, two at a time: a flood of logins
    # cannot take every thread the server has.
    hashing: asyncio.Semaphore = dataclasses.field(default_factory=lambda: asyncio.Semaphore(2))


def context(conn: HTTPConnection) -> Context:
    """The Context of the app serving this request or socket."""
    found: Context = conn.app.state.context
    return found


async def read_json(
    request: Request, schema: dict[str, Field], limit: int = MAX_BODY
) -> dict[str, Any]:
    """The request body checked against `schema`, refusing bodies over `limit` bytes (413)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise ClientError(f"request body over {limit} bytes", 413)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ClientError(f"request body over {limit} bytes", 413)
    return check(parse_json(bytes(body)), schema)


def read_query(request: Request, schema: dict[str, Field]) -> dict[str, Any]:
    """Query parameters checked against `schema` (integers written in decimal)."""
    data: dict[str, Any] = {}
    for key, value in request.query_params.multi_items():
        if key in data:
            raise ClientError(f"{key[:40]} is given twice")
        field = schema.get(key)
        if field is not None and field.kind == "int":
            if not value.isdigit() or len(value) > 10:
                raise ClientError(f"{key} must be a whole number")
            data[key] = int(value)
        else:
            data[key] = value
    return check(data, schema, "query")


def game_json(room: Room, player: str | None, status: int = 200) -> Response:
    """A game as `player` sees it (`you`: the colours they hold)."""
    return JSONResponse(room.state(player)["game"], status_code=status)
