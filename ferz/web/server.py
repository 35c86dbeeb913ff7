"""`ferz web`: the ASGI app (HTTP API, static files, the two WebSockets) and main()."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import logging
import os
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from . import boards, pgn
from .analysis import Analysis, parse_line
from .game import ELO_MAX, ELO_MIN, Game, Settings, summary
from .messages import ClientError, error_message, eval_text, receive
from .rooms import Games
from .searches import SearchPool
from .store import Store, default_path

log = logging.getLogger("ferz.web")

STATIC = Path(__file__).parent / "static"
MAX_BODY = 256 * 1024  # largest HTTP request body (a long PGN fits)
MAX_FRAME = 64 * 1024  # uvicorn closes the socket (1009) on frames above this
DEFAULT_SLOTS = max(1, min(4, os.cpu_count() or 1))
DEFAULT_MAX_THINK_MS = 30_000
DEFAULT_REVIEW_MS = 300


async def read_json(request: Request) -> dict[str, Any]:
    """The request body as a JSON object, refusing bodies over MAX_BODY (413)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise ClientError(f"request body over {MAX_BODY} bytes", 413)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ClientError(f"request body over {MAX_BODY} bytes", 413)
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise ClientError("the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ClientError("the request body must be a JSON object")
    return data


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


class SameOrigin:
    """ASGI middleware: a browser request from another site's page (its Origin is not this
    server) is refused, so that no web page can play, read or create games behind the user's
    back through a local ferz web (cross-site requests, WebSocket hijacking)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = dict(scope.get("headers") or [])
            origin = headers.get(b"origin")
            host = headers.get(b"host", b"")
            if origin is not None and origin not in (b"http://" + host, b"https://" + host):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 4403})
                else:
                    response = JSONResponse({"error": "cross-origin request refused"}, 403)
                    await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(
    db: str | os.PathLike[str],
    *,
    slots: int = DEFAULT_SLOTS,
    max_think_ms: int = DEFAULT_MAX_THINK_MS,
    review_ms: int = DEFAULT_REVIEW_MS,
    engine_factory: Callable[[str], Any] | None = None,
    limits_type: Callable[..., Any] | None = None,
) -> Starlette:
    """The web app with its games in the SQLite file `db` (engine and limits: see SearchPool)."""
    pool = SearchPool(slots, max_think_ms, engine_factory, limits_type)
    store = Store(db)
    games = Games(store, pool)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    async def meta(request: Request) -> Response:
        return JSONResponse(
            {
                "variants": boards.variant_names(),
                "elo_min": ELO_MIN,
                "elo_max": ELO_MAX,
                "max_think_ms": max_think_ms,
                "slots": slots,
            }
        )

    async def variant(request: Request) -> Response:
        try:
            card = boards.variant_card(request.path_params["name"])
        except ValueError as error:
            raise ClientError(str(error), 404) from None
        return JSONResponse(card)

    async def list_games(request: Request) -> Response:
        return JSONResponse([summary(rec) for rec in store.list()])

    async def new_game(request: Request) -> Response:
        data = await read_json(request)
        try:
            settings = Settings.parse(data, max_think_ms)
            variant = data.get("variant", "chess")
            fen = data.get("fen")
            if not isinstance(variant, str) or not (fen is None or isinstance(fen, str)):
                raise ValueError("variant and fen must be strings")
            game = Game.create(settings, variant, fen or None)
        except ValueError as error:
            raise ClientError(str(error)) from None
        room = games.add(game)
        room.save()
        return JSONResponse(game.to_json(time.monotonic()), status_code=201)

    async def get_game(request: Request) -> Response:
        room = games.room(request.path_params["game_id"])
        return JSONResponse(room.game.to_json(time.monotonic(), room.thinking))

    async def game_pgn(request: Request) -> Response:
        room = games.room(request.path_params["game_id"])
        game = room.game
        text = pgn.write(
            _tags(game),
            game.start_fen,
            game.sans,
            default_fen=boards.start_fen(game.variant),
            evals=[game.evals.get(ply) for ply in range(1, len(game.moves) + 1)],
        )
        name = f"ferz-{game.id}.pgn"
        headers = {"content-disposition": f'attachment; filename="{name}"'}
        return PlainTextResponse(text, media_type="application/x-chess-pgn", headers=headers)

    async def import_text(request: Request) -> Response:
        data = await read_json(request)
        text, variant = data.get("text"), data.get("variant", "chess")
        if not isinstance(text, str) or not text.strip():
            raise ClientError("text must be a PGN or a FEN")
        if not isinstance(variant, str) or variant not in boards.variant_names():
            raise ClientError(f"unknown variant {str(variant)[:40]!r}")
        text = text.strip()
        # A FEN is one line with the board's slashes; a pocket ("[RPb]") may follow the board,
        # but PGN tags start a line with "[" and movetext has move numbers.
        if (
            "\n" not in text
            and not text.startswith("[")
            and "." not in text
            and text.count("/") >= 4
        ):
            try:
                board = boards.new_board(text, variant)
            except ValueError as error:
                raise ClientError(f"bad FEN: {error}") from None
            line = {"variant": variant, "start_fen": board.fen(), "moves": [], "san": []}
            return JSONResponse({**line, "tags": {}, "result": "*"})
        try:
            game = pgn.read(text, variant)
        except ValueError as error:
            raise ClientError(str(error)) from None
        line = {"variant": game.variant, "start_fen": game.start_fen, "moves": game.uci}
        return JSONResponse({**line, "san": game.san, "tags": game.tags, "result": game.result})

    async def export_line(request: Request) -> Response:
        data = await read_json(request)
        variant = data.get("variant", "chess")
        _, line = parse_line(variant, data.get("fen"), data.get("moves", []))
        evals = data.get("evals") or []
        if not isinstance(evals, list):
            raise ClientError("evals must be a list")
        comments = [eval_text(e) for e in evals[: len(line)]]
        start = boards.new_board(data.get("fen"), variant).fen()
        tags = {"Event": "ferz analysis", "Site": "ferz web", "Date": time.strftime("%Y.%m.%d")}
        if variant != "chess":
            tags["Variant"] = variant
        text = pgn.write(
            tags,
            start,
            [m["san"] for m in line],
            default_fen=boards.start_fen(variant),
            evals=comments,
        )
        return JSONResponse({"pgn": text})

    async def game_socket(ws: WebSocket) -> None:
        await ws.accept()
        try:
            room = games.room(ws.path_params["game_id"])
        except ClientError as error:
            await ws.send_json(error_message(str(error)))
            await ws.close(code=4404)
            return
        room.sockets.add(ws)
        try:
            async with room.lock:
                await ws.send_json(room.state())
                room.start_engine()
                room.arm_timer()
            await serve_messages(ws, ws.send_json, functools.partial(room.handle, ws))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            room.sockets.discard(ws)

    async def analysis_socket(ws: WebSocket) -> None:
        await ws.accept()
        board = Analysis(pool, review_ms, ws)
        try:
            await serve_messages(ws, board.send, board.handle)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            await board.close()

    async def client_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ClientError)
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await asyncio.to_thread(pool.warm, "chess")
        try:
            yield
        finally:
            await games.close()
            store.close()

    routes = [
        Route("/", index),
        Route("/api/meta", meta),
        Route("/api/variants/{name}", variant),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game),
        Route("/api/games/{game_id}/pgn", game_pgn),
        Route("/api/import", import_text, methods=["POST"]),
        Route("/api/export", export_line, methods=["POST"]),
        WebSocketRoute("/ws/games/{game_id}", game_socket),
        WebSocketRoute("/ws/analysis", analysis_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(SameOrigin)],
        exception_handlers={ClientError: client_error, HTTPException: http_error},
        lifespan=lifespan,
    )
    app.state.games = games
    return app


def _tags(game: Game) -> dict[str, str]:
    """PGN tags of a stored game."""
    s = game.settings
    tags = {
        "Event": "ferz web game",
        "Site": "ferz web",
        "Date": time.strftime("%Y.%m.%d", time.localtime(game.created)),
        "Round": "-",
        "White": game.player_name("white"),
        "Black": game.player_name("black"),
        "Result": game.result or "*",
    }
    if game.variant != "chess":
        tags["Variant"] = game.variant
    if s.initial_ms is not None:
        tags["TimeControl"] = f"{s.initial_ms // 1000}+{s.increment_ms // 1000}"
    if game.termination:
        tags["Termination"] = game.termination
    return tags


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


def main(args: argparse.Namespace) -> int:
    """Run `ferz web`: serve until Ctrl-C; returns the exit code."""
    import uvicorn

    path = Path(args.db) if args.db else default_path()
    problem = _port_free(args.host, args.port)
    if problem:
        print(f"ferz: error: {problem}", file=sys.stderr)
        return 2
    app = create_app(path)
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{args.port}/"
    config = uvicorn.Config(
        app, host=args.host, port=args.port, log_level="warning", ws_max_size=MAX_FRAME
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
        waiter = asyncio.ensure_future(announce())
        try:
            await server.serve()
        finally:
            waiter.cancel()

    asyncio.run(serve())
    return 0
