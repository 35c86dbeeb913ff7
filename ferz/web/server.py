"""`ferz web`: the ASGI app wired from its routes (ferz/web/routes/), its middleware and its
start and stop, and main(), which serves it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import socket
import sys
import threading
import webbrowser
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from ..syzygy import SyzygyUnavailable, Tablebase, open_tablebase, parse_path
from .explorer import Explorer
from .lobby import Lobby
from .people import People
from .players import Players
from .ratings import Ratings
from .rooms.presence import ABANDON_S
from .rooms.registry import Games
from .rooms.timer import FIRST_MOVE_S
from .routes import accounts, games, seeks, site, sockets, tablebase, transfer, trees
from .routes import explorer as explorer_routes
from .routes.common import Context
from .schema import ClientError
from .searches import ANALYSIS_SLICE_S, IDLE_RELEASE_S, SearchPool
from .security import Guard, SecurityPolicy, is_loopback, new_token
from .store import Store, default_path
from .workers import WorkerSpec

log = logging.getLogger("ferz.web")

MAX_FRAME = 64 * 1024  # uvicorn closes the socket (1009) on frames above this
DEFAULT_SLOTS = max(1, min(4, os.cpu_count() or 1))
DEFAULT_MAX_THINK_MS = 30_000
DEFAULT_REVIEW_MS = 300
SWITCH_INTERVAL_S = 0.0005  # GIL hand-over between the event loop and helper threads
MAX_ANALYSIS_SOCKETS = 32  # open analysis boards; more are refused (close 1013, try later)


async def client_error(request: Request, exc: Exception) -> Response:
    """A refused request as JSON with its status."""
    assert isinstance(exc, ClientError)
    return JSONResponse({"error": str(exc)}, status_code=exc.status)


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (404, 405) as JSON too."""
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code)


def _counted(task: asyncio.Future[int]) -> None:
    """Log what the explorer's catch-up counted, or why it failed."""
    if task.cancelled():
        return
    if task.exception() is not None:
        log.error("the opening explorer's catch-up failed: %s", task.exception())
    elif task.result():
        log.info("the opening explorer counted %d older finished games", task.result())


def create_app(
    db: str | os.PathLike[str],
    *,
    slots: int = DEFAULT_SLOTS,
    max_think_ms: int = DEFAULT_MAX_THINK_MS,
    review_ms: int = DEFAULT_REVIEW_MS,
    review_nodes: int | None = None,
    engine_factory: Callable[[str], Any] | None = None,
    limits_type: Callable[..., Any] | None = None,
    policy: SecurityPolicy | None = None,
    analysis_sockets: int = MAX_ANALYSIS_SOCKETS,
    analysis_slice_s: float = ANALYSIS_SLICE_S,
    idle_release_s: float = IDLE_RELEASE_S,
    abandon_s: float = ABANDON_S,
    first_move_s: float = FIRST_MOVE_S,
    workers: WorkerSpec | None = None,
    tables: Tablebase | None = None,
) -> Starlette:
    """The web app with its games in the SQLite file `db` (engine and limits: see SearchPool;
    without `engine_factory` the engines are worker processes started as `workers` says,
    e.g. with the user's variants file given to `ferz --variants`; who may connect:
    `policy`, by default loopback only without a token; `abandon_s`: how long a player may
    be away from a game against a person before it can be claimed; `first_move_s`: how long
    each side of a timed game between people has for its first move before the game is
    aborted; `tables`: Syzygy tables for /api/tablebase, closed with the app; a review
    searches each position `review_ms` milliseconds, or `review_nodes` nodes, the settings
    of `ferz analyse --movetime`/`--nodes` whose marks it gives)."""
    pool = SearchPool(
        slots,
        max_think_ms,
        engine_factory,
        limits_type,
        analysis_slice_s=analysis_slice_s,
        idle_release_s=idle_release_s,
        workers=workers,
    )
    store = Store(db)
    people = People(store)
    ratings = Ratings(store)
    live = Games(store, pool, abandon_s, first_move_s, people, ratings)
    explorer = live.explorer = Explorer(store)
    ctx = Context(
        pool=pool,
        store=store,
        games=live,
        lobby=Lobby(live),
        slots=slots,
        max_think_ms=max_think_ms,
        review={"nodes": review_nodes} if review_nodes else {"movetime": review_ms},
        analysis_sockets=analysis_sockets,
        people=people,
        explorer=explorer,
        tables=tables,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        """Warm the engines and resume unfinished games; stop every search at the end."""
        await pool.warm("chess")
        resumed = live.resume()
        if resumed:
            log.info("resumed %d unfinished games", resumed)
        rated = ratings.catch_up()  # games that ended as the server stopped, before rating
        if rated:
            log.info("rated %d games that ended before the server stopped", rated)
        # finished games not yet in the opening explorer (an older database): counted in a
        # thread while the server serves
        catching = asyncio.ensure_future(asyncio.to_thread(explorer.catch_up, ratings.pgn_tags))
        catching.add_done_callback(_counted)
        try:
            yield
        finally:
            explorer.stop()  # before the store closes
            with contextlib.suppress(Exception):
                await catching
            await live.close()
            await pool.close()  # the worker processes quit
            store.close()
            if tables is not None:
                tables.close()

    routes = [
        *site.ROUTES,
        *games.ROUTES,
        *accounts.ROUTES,
        *seeks.ROUTES,
        *trees.ROUTES,
        *transfer.ROUTES,
        *tablebase.ROUTES,
        *explorer_routes.ROUTES,
        *sockets.ROUTES,
        Mount("/static", StaticFiles(directory=site.STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(Guard, policy=policy or SecurityPolicy.make("127.0.0.1")),
            Middleware(Players, resolve=people.resolve),
        ],
        exception_handlers={ClientError: client_error, HTTPException: http_error},
        lifespan=lifespan,
    )
    app.state.context = ctx
    return app


def _port_free(host: str, port: int) -> str | None:
    """None if we can listen on host:port, else the reason."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        return f"cannot resolve {host}: {error}"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            return f"cannot listen on {host}:{port}: {error.strerror or error}"
    return None


def access(args: argparse.Namespace) -> tuple[SecurityPolicy, str, str | None]:
    """Who may connect, the URL to print (with the token, if any) and a warning to print
    when the server listens beyond this machine."""
    token = args.token
    warning = None
    if not is_loopback(args.host):
        token = token or new_token()
        warning = (
            f"ferz web: WARNING: listening on {args.host}, beyond this machine: anyone who can "
            "reach this port and has the token can see and play every game. The link below "
            "carries the token; add --allow-host NAME for each name the server is reached by."
        )
    policy = SecurityPolicy.make(args.host, args.allow_host or (), token)
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
    host = f"[{shown}]" if ":" in shown else shown
    url = f"http://{host}:{args.port}/" + (f"?token={token}" if token else "")
    return policy, url, warning


def main(args: argparse.Namespace) -> int:
    """Run `ferz web`: serve until Ctrl-C; returns the exit code."""
    import uvicorn

    path = Path(args.db) if args.db else default_path()
    problem = _port_free(args.host, args.port)
    if problem:
        print(f"ferz: error: {problem}", file=sys.stderr)
        return 2
    policy, url, warning = access(args)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    # the workers load the user's variants too (`ferz --variants FILE web`)
    syzygy = getattr(args, "syzygy", None) or None
    tables = None
    if syzygy:
        try:
            tables = open_tablebase(parse_path(syzygy))
        except (OSError, SyzygyUnavailable) as error:
            print(f"ferz: error: --syzygy: {error}", file=sys.stderr)
            return 2
    workers = WorkerSpec(variants_file=getattr(args, "variants", None), syzygy=syzygy)
    app = create_app(
        path,
        policy=policy,
        abandon_s=args.abandon_after,
        workers=workers,
        tables=tables,
        review_ms=getattr(args, "review_ms", DEFAULT_REVIEW_MS),
        review_nodes=getattr(args, "review_nodes", None),
    )
    # Engine searches run in worker processes; threads left here (PGN reading, tree JSON)
    # would hold the GIL for up to the default 5 ms switch interval each time the event loop
    # gives it up at a socket write.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        ws_max_size=MAX_FRAME,
        # No per-message compression: the messages are a few KB, and deflating each one for
        # every socket cost more CPU than sending it (measured with tools/web_load.py).
        ws_per_message_deflate=False,
        server_header=False,
        proxy_headers=False,  # no proxy in front: X-Forwarded-* from a client must not count
    )
    server = uvicorn.Server(config)

    async def announce() -> None:
        """Print the URL (and open the browser) once the socket really listens."""
        while not server.started:
            if server.should_exit:
                return
            await asyncio.sleep(0.02)
        print(f"ferz web: serving on {url} (games in {path}); Ctrl-C stops", flush=True)
        if not args.no_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    async def serve() -> None:
        """Run uvicorn and the announcement side by side."""
        waiter = asyncio.ensure_future(announce())
        try:
            await server.serve()
        finally:
            waiter.cancel()

    asyncio.run(serve())
    return 0
