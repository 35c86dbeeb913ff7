"""`ferz web`: the ASGI app (HTTP API, static files, the two WebSockets) and main()."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
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

from . import boards, pgn, tree
from .analysis import Analysis, parse_line
from .game import ELO_MAX, ELO_MIN, Game, Settings, summary
from .lobby import Lobby
from .messages import error_message, receive
from .players import Players, current
from .rooms import ABANDON_S, Games
from .schema import (
    EXPORT,
    IMPORT,
    NEW_GAME,
    TREE_EDIT,
    TREE_OP,
    ClientError,
    Field,
    check,
    parse_json,
)
from .searches import ANALYSIS_SLICE_S, IDLE_RELEASE_S, SearchPool
from .security import Guard, Policy, is_loopback, new_token
from .store import STATUSES, Record, Store, default_path
from .workers import WorkerSpec

log = logging.getLogger("ferz.web")

STATIC = Path(__file__).parent / "static"
MAX_BODY = 256 * 1024  # largest HTTP request body (a long PGN fits)
MAX_FRAME = 64 * 1024  # uvicorn closes the socket (1009) on frames above this
DEFAULT_SLOTS = max(1, min(4, os.cpu_count() or 1))
DEFAULT_MAX_THINK_MS = 30_000
DEFAULT_REVIEW_MS = 300
SWITCH_INTERVAL_S = 0.0005  # GIL hand-over between the event loop and helper threads
MAX_ANALYSIS_SOCKETS = 32  # open analysis boards; more are refused (close 1013, try later)
PAGE_DEFAULT, PAGE_MAX = 50, 200  # games per page of the games list
LIST_QUERY = {
    "offset": Field("int", low=0, high=10**9),
    "limit": Field("int", low=1, high=PAGE_MAX),
    "status": Field("str", choices=STATUSES),
    "variant": Field("str", low=1, high=40),
}


async def read_json(request: Request, schema: dict[str, Field]) -> dict[str, Any]:
    """The request body checked against `schema`, refusing bodies over MAX_BODY (413)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise ClientError(f"request body over {MAX_BODY} bytes", 413)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ClientError(f"request body over {MAX_BODY} bytes", 413)
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


def create_app(
    db: str | os.PathLike[str],
    *,
    slots: int = DEFAULT_SLOTS,
    max_think_ms: int = DEFAULT_MAX_THINK_MS,
    review_ms: int = DEFAULT_REVIEW_MS,
    engine_factory: Callable[[str], Any] | None = None,
    limits_type: Callable[..., Any] | None = None,
    policy: Policy | None = None,
    analysis_sockets: int = MAX_ANALYSIS_SOCKETS,
    analysis_slice_s: float = ANALYSIS_SLICE_S,
    idle_release_s: float = IDLE_RELEASE_S,
    abandon_s: float = ABANDON_S,
    workers: WorkerSpec | None = None,
) -> Starlette:
    """The web app with its games in the SQLite file `db` (engine and limits: see SearchPool;
    without `engine_factory` the engines are worker processes started as `workers` says,
    e.g. with the user's variants file given to `ferz --variants`; who may connect:
    `policy`, by default loopback only without a token; `abandon_s`: how long a player may
    be away from a game against a person before it can be claimed)."""
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
    games = Games(store, pool, abandon_s)
    lobby = Lobby(games)
    boards_open: set[Analysis] = set()

    async def index(request: Request) -> Response:
        """The page (never cached, so that a new version is picked up)."""
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    async def meta(request: Request) -> Response:
        """What the new-game form needs: variants, Elo range, think-time ceiling."""
        return JSONResponse(
            {
                "variants": boards.variant_names(),
                "elo_min": ELO_MIN,
                "elo_max": ELO_MAX,
                "max_think_ms": max_think_ms,
                "slots": slots,
                "page_max": PAGE_MAX,
            }
        )

    async def stats(request: Request) -> Response:
        """Load figures: searches, waits of game moves, engines (the worker processes with
        their memory), rooms, boards, memory of the server and of server + workers."""
        figures = pool.stats()
        own = rss_mb()
        workers = sum(w["rss_mb"] for w in figures["workers"])
        return JSONResponse(
            {
                **figures,
                "rooms": len(games.rooms),
                "analysis_boards": len(boards_open),
                "rss_mb": own,
                "total_rss_mb": None if own is None else round(own + workers, 1),
            }
        )

    async def variant(request: Request) -> Response:
        """A variant's card for the new-game form (404 for an unknown one)."""
        try:
            card = boards.variant_card(request.path_params["name"])
        except ValueError as error:
            raise ClientError(str(error), 404) from None
        return JSONResponse(card)

    async def list_games(request: Request) -> Response:
        """One page of the games list: ?offset=&limit=&status=all|playing|finished|imported
        &variant=; the answer says how many games match in all."""
        query = read_query(request, LIST_QUERY)
        offset, limit = query["offset"] or 0, query["limit"] or PAGE_DEFAULT
        status = query["status"] or "all"
        records, total = store.list(limit, offset, status, query["variant"])
        return JSONResponse(
            {
                "games": [summary(rec) for rec in records],
                "total": total,
                "offset": offset,
                "limit": limit,
            }
        )

    def game_json(room: Any, player: str | None, status: int = 200) -> Response:
        """A game as `player` sees it (`you`: the colours they hold)."""
        return JSONResponse(room.state(player)["game"], status_code=status)

    def start_game(settings: Settings, variant: str, fen: str | None, creator: Any) -> Response:
        """Create, store and answer a new game (201); ferz moves first at once if White."""
        variant = boards.known_variant(variant) or variant  # an alias: the variant's own name
        try:
            game = Game.create(settings, variant, fen, creator)
        except ValueError as error:
            raise ClientError(str(error)) from None
        return game_json(games.start(game), creator, 201)

    async def new_game(request: Request) -> Response:
        """Start a game from the new-game form (schema.NEW_GAME): against ferz, hot-seat, a
        friend's link or a lobby seek."""
        data = await read_json(request, NEW_GAME)
        try:
            settings = Settings.parse(data, max_think_ms)
        except ValueError as error:
            raise ClientError(str(error)) from None
        variant, fen = data["variant"] or "chess", data["fen"] or None
        return start_game(settings, variant, fen, current(request.scope))

    async def rematch(request: Request) -> Response:
        """A new game like this one against ferz or hot-seat, the colours swapped (same
        variant and start); between people the rematch is offered from the game's socket."""
        player = current(request.scope)
        room = games.room(request.path_params["game_id"])
        game = room.game
        if game.settings.imported:
            raise ClientError("an imported game has no rematch; start a new game")
        if not game.colors_of(player):
            raise ClientError("only the game's players can ask for a rematch", 403)
        if game.between_people:
            raise ClientError("offer the rematch to your opponent from the game", 409)
        try:
            return game_json(games.rematch(game), player, 201)
        except ValueError as error:
            raise ClientError(str(error)) from None

    async def delete_game(request: Request) -> Response:
        """Delete a game (its engine stops, its sockets close with 4410): its players may, or
        anyone when no person holds a seat (imported games); not while people play it."""
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
        if game.between_people and not game.result and game.open_seat() is None:
            raise ClientError("the game goes on: resign or abort it first", 409)
        await games.delete(game.id)
        return Response(status_code=204)

    async def get_game(request: Request) -> Response:
        """A game as the page shows it."""
        room = games.room(request.path_params["game_id"])
        return game_json(room, current(request.scope))

    async def list_seeks(request: Request) -> Response:
        """The lobby: open seeks and ferz's bots."""
        return JSONResponse(lobby.message(current(request.scope)))

    async def accept_seek(request: Request) -> Response:
        """Take the open seat of a lobby seek (not your own); the game, 200."""
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
            if not room.listed(time.monotonic()):
                raise ClientError("that seek has expired: its creator left", 409)
            game.take_seat(player)
            await room.changed()
        games.lobby_changed()
        return game_json(room, player)

    async def cancel_seek(request: Request) -> Response:
        """Withdraw your seek before anyone accepts it (the game is deleted)."""
        player = current(request.scope)
        room = games.room(request.path_params["game_id"])
        game = room.game
        if game.settings.opponent != "seek" or game.open_seat() is None:
            raise ClientError("that is not an open seek", 409)
        if not game.colors_of(player):
            raise ClientError("only its creator can cancel a seek", 403)
        await games.delete(game.id)
        return Response(status_code=204)

    async def game_pgn(request: Request) -> Response:
        """A stored game as a PGN download."""
        room = games.room(request.path_params["game_id"])
        game = room.game
        rec = store.load(game.id)
        text = pgn.write_game(game, rec.tree if rec is not None else None)
        name = f"ferz-{game.id}.pgn"
        headers = {"content-disposition": f'attachment; filename="{name}"'}
        return PlainTextResponse(text, media_type="application/x-chess-pgn", headers=headers)

    async def import_text(request: Request) -> Response:
        """A pasted PGN (stored as an imported game) or FEN, as a validated line."""
        data = await read_json(request, IMPORT)
        text, variant = data["text"], data["variant"] or "chess"
        if not text.strip():
            raise ClientError("text must be a PGN or a FEN")
        if boards.known_variant(variant) is None:
            raise ClientError(f"unknown variant {variant[:40]!r}")
        variant = boards.known_variant(variant)
        text = text.strip()
        if pgn.is_fen(text):
            try:
                return JSONResponse(pgn.read_fen(text, variant))
            except ValueError as error:
                raise ClientError(str(error)) from None
        try:
            game = await asyncio.to_thread(pgn.read, text, variant)  # long games: not on the loop
        except ValueError as error:
            raise ClientError(str(error)) from None
        line = {"variant": game.variant, "start_fen": game.start_fen, "moves": game.uci}
        stored = store_import(game)
        assert game.tree is not None
        shown = await asyncio.to_thread(tree.to_json, game.tree)  # see tree_lock
        return JSONResponse(
            {
                **line,
                "san": game.san,
                "tags": game.tags,
                "result": game.result,
                "id": stored,
                "tree": shown,
            }
        )

    def store_import(parsed: pgn.Game) -> str:
        """Keep an imported PGN game (moves, result, tags) in the games list; its id."""
        rec = pgn.imported_record(parsed)
        store.save(rec)
        if parsed.tree is not None:  # variations, comments and NAGs come along
            store.save_tree(rec.id, tree.dumps(parsed.tree, len(parsed.uci)))
        return rec.id

    def stored_tree(game_id: str) -> tuple[Record, tree.pgn.Game]:
        """A stored game and its analysis tree (404 for an unknown game)."""
        rec = store.load(game_id)
        if rec is None:
            raise ClientError(f"no game {game_id[:40]!r}", 404)
        try:
            return rec, tree.of_record(rec.variant, rec.start_fen, rec.moves, rec.tree)
        except tree.TreeError as error:
            raise ClientError(str(error)) from None

    # Reading, checking and writing a big tree takes a while (about 1 ms a move in shogi, whose
    # notation needs the legal moves): it runs in a worker thread, not on the event loop the
    # games share, one edit at a time (an edit reads, changes and writes the stored tree).
    tree_lock = asyncio.Lock()

    async def get_tree(request: Request) -> Response:
        """A stored game's analysis tree (its moves as the main line until one is kept)."""

        def work() -> dict[str, Any]:
            rec, kept = stored_tree(request.path_params["game_id"])
            return {"id": rec.id, "variant": rec.variant, "tree": tree.to_json(kept)}

        return JSONResponse(await asyncio.to_thread(work))

    async def edit_tree(request: Request) -> Response:
        """One edit of a stored game's tree (schema.TREE_OP), kept at once; the new tree and
        the path of the node to show."""
        data = await read_json(request, TREE_OP)

        def work() -> dict[str, Any]:
            rec, kept = stored_tree(request.path_params["game_id"])
            try:
                path = tree.apply(kept, data)
            except tree.TreeError as error:
                raise ClientError(str(error)) from None
            store.save_tree(rec.id, tree.dumps(kept, len(rec.moves)))
            return {"tree": tree.to_json(kept), "path": path}

        async with tree_lock:
            return JSONResponse(await asyncio.to_thread(work))

    async def edit_free_tree(request: Request) -> Response:
        """One edit of a tree the page holds (an analysis board that is not a stored game)."""
        data = await read_json(request, TREE_EDIT)
        variant = data["variant"] or "chess"
        if variant not in boards.variant_names():
            raise ClientError(f"unknown variant {variant[:40]!r}")

        def work() -> dict[str, Any]:
            try:
                held = tree.from_json(data["tree"] or {}, variant, data["fen"])
                path = tree.apply(held, data)
            except tree.TreeError as error:
                raise ClientError(str(error)) from None
            return {"tree": tree.to_json(held), "path": path}

        async with tree_lock:
            return JSONResponse(await asyncio.to_thread(work))

    async def export_line(request: Request) -> Response:
        """The analysis board's line as PGN: the tags it came with (an import, a stored game),
        the result (the rules' when the line ends the game), `[%eval]` comments."""
        data = await read_json(request, EXPORT)
        variant = data["variant"] or "chess"
        if isinstance(variant, str):
            variant = boards.known_variant(variant) or variant  # an alias: the variant's name
        held = None
        if data["tree"] is not None:
            try:
                held = tree.from_json(data["tree"], variant, data["fen"])
            except tree.TreeError as error:
                raise ClientError(str(error)) from None
            data["moves"] = held.mainline_moves()
        board, line = parse_line(variant, data["fen"], data["moves"] or [])
        text = pgn.export(
            line,
            board,
            held,
            variant=variant,
            fen=data["fen"],
            evals=data["evals"] or [],
            tags=data["tags"] or {},
            result=data["result"],
        )
        return JSONResponse({"pgn": text})

    async def game_socket(ws: WebSocket) -> None:
        """A game's socket: the state at once, then the player's messages."""
        await ws.accept()
        try:
            room = games.room(ws.path_params["game_id"])
        except ClientError as error:
            await ws.send_json(error_message(str(error)))
            await ws.close(code=4404)
            return
        try:
            async with room.lock:
                await room.join(ws, current(ws.scope))
                room.start_engine()
                room.arm_timer()
            await serve_messages(ws, ws.send_json, functools.partial(room.handle, ws))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            await room.leave(ws)

    async def lobby_socket(ws: WebSocket) -> None:
        """The lobby's socket: the seeks at once and again whenever they change."""
        await ws.accept()
        try:
            await lobby.join(ws, current(ws.scope))
            await serve_messages(ws, ws.send_json, functools.partial(lobby.handle, ws))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            lobby.sockets.pop(ws, None)

    async def analysis_socket(ws: WebSocket) -> None:
        """An analysis board's socket (at most MAX_ANALYSIS_SOCKETS at once)."""
        await ws.accept()
        if len(boards_open) >= analysis_sockets:
            await ws.send_json(error_message("too many analysis boards open; try again later"))
            await ws.close(code=1013)
            return
        board = Analysis(pool, review_ms, ws)
        boards_open.add(board)
        try:
            await serve_messages(ws, board.send, board.handle)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            boards_open.discard(board)
            await board.close()

    async def client_error(request: Request, exc: Exception) -> Response:
        """A refused request as JSON with its status."""
        assert isinstance(exc, ClientError)
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    async def http_error(request: Request, exc: Exception) -> Response:
        """Starlette's own errors (404, 405) as JSON too."""
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        """Warm the engines and resume unfinished games; stop every search at the end."""
        await pool.warm("chess")
        resumed = games.resume()
        if resumed:
            log.info("resumed %d unfinished games", resumed)
        try:
            yield
        finally:
            await games.close()
            await pool.close()  # the worker processes quit
            store.close()

    routes = [
        Route("/", index),
        Route("/api/meta", meta),
        Route("/api/stats", stats),
        Route("/api/variants/{name}", variant),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game, methods=["GET"]),
        Route("/api/games/{game_id}", delete_game, methods=["DELETE"]),
        Route("/api/games/{game_id}/rematch", rematch, methods=["POST"]),
        Route("/api/games/{game_id}/pgn", game_pgn),
        Route("/api/seeks", list_seeks, methods=["GET"]),
        Route("/api/seeks/{game_id}/accept", accept_seek, methods=["POST"]),
        Route("/api/seeks/{game_id}", cancel_seek, methods=["DELETE"]),
        Route("/api/games/{game_id}/tree", get_tree, methods=["GET"]),
        Route("/api/games/{game_id}/tree", edit_tree, methods=["POST"]),
        Route("/api/tree", edit_free_tree, methods=["POST"]),
        Route("/api/import", import_text, methods=["POST"]),
        Route("/api/export", export_line, methods=["POST"]),
        WebSocketRoute("/ws/games/{game_id}", game_socket),
        WebSocketRoute("/ws/analysis", analysis_socket),
        WebSocketRoute("/ws/lobby", lobby_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(Guard, policy=policy or Policy.make("127.0.0.1")),
            Middleware(Players),
        ],
        exception_handlers={ClientError: client_error, HTTPException: http_error},
        lifespan=lifespan,
    )
    app.state.games = games
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


def access(args: argparse.Namespace) -> tuple[Policy, str, str | None]:
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
    policy = Policy.make(args.host, args.allow_host or (), token)
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
    workers = WorkerSpec(variants_file=getattr(args, "variants", None))
    app = create_app(path, policy=policy, abandon_s=args.abandon_after, workers=workers)
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
