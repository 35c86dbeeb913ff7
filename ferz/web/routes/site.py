"""The page and what its forms ask first: the index, meta (variants, Elo range, limits), the
server's load figures and a variant's card."""

from __future__ import annotations

import asyncio
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from .. import boards, catalogue
from ..game import ELO_MAX, ELO_MIN
from ..schema import ClientError
from .common import context
from .games import PAGE_MAX

STATIC = Path(__file__).parent.parent / "static"


def rss_mb() -> float | None:
    """This process's resident memory in MB (Linux), for /api/stats and the load test."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


async def index(request: Request) -> Response:
    """The page (never cached, so that a new version is picked up)."""
    return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})


async def meta(request: Request) -> Response:
    """What the new-game form needs: variants, Elo range, think-time ceiling."""
    ctx = context(request)
    return JSONResponse(
        {
            "variants": boards.variant_names(),
            "elo_min": ELO_MIN,
            "elo_max": ELO_MAX,
            "max_think_ms": ctx.max_think_ms,
            "slots": ctx.slots,
            "page_max": PAGE_MAX,
        }
    )


async def stats(request: Request) -> Response:
    """Load figures: searches, waits of game moves, engines (the worker processes with
    their memory), rooms, boards, memory of the server and of server + workers."""
    ctx = context(request)
    figures = ctx.pool.stats()
    own = rss_mb()
    workers = sum(w["rss_mb"] for w in figures["workers"])
    return JSONResponse(
        {
            **figures,
            "rooms": len(ctx.games.rooms),
            "analysis_boards": len(ctx.boards_open),
            "rss_mb": own,
            "total_rss_mb": None if own is None else round(own + workers, 1),
        }
    )


async def variant_list(request: Request) -> Response:
    """The variant picker's catalogue: every variant with its family, display name, a line of
    rules, start position, look, side names and whether ferz has a book for it (built once,
    in a thread: setting up every variant's board takes most of a second)."""
    data = await asyncio.to_thread(catalogue.catalogue)
    return JSONResponse(data, headers={"cache-control": "max-age=300"})


async def variant(request: Request) -> Response:
    """A variant's card for the new-game form (404 for an unknown one)."""
    try:
        card = boards.variant_card(request.path_params["name"])
    except ValueError as error:
        raise ClientError(str(error), 404) from None
    return JSONResponse(card)


ROUTES = [
    Route("/", index),
    Route("/api/meta", meta),
    Route("/api/stats", stats),
    Route("/api/variants", variant_list),
    Route("/api/variants/{name}", variant),
]
