"""`ferz web`: the ASGI app (HTTP API, a WebSocket per game and per analysis board) and main()."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import re
import socket
import sys
import threading
import time
import webbrowser
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from . import boards, pgn
from .game import ELO_MAX, ELO_MIN, Game, Settings, summary
from .searches import SearchPool
from .store import Store, default_path

log = logging.getLogger("ferz.web")

STATIC = Path(__file__).parent / "static"
MAX_BODY = 256 * 1024  # largest HTTP request body (a long PGN fits)
MAX_MESSAGE = 16 * 1024  # largest WebSocket message the app reads; larger ones get an error
MAX_FRAME = 64 * 1024  # uvicorn closes the socket (1009) on frames above this
MAX_LINE = pgn.MAX_PLIES  # plies in an analysis line
MAX_ROOMS = 500  # idle games kept in memory
DRAW_ACCEPT_CP = -100  # the engine takes a draw when it thinks it is this much worse or more
ID_RE = re.compile(r"[0-9a-f]{12}")
DEFAULT_SLOTS = max(1, min(4, os.cpu_count() or 1))
DEFAULT_MAX_THINK_MS = 30_000
DEFAULT_REVIEW_MS = 300


class ClientError(Exception):
    """A request the server refuses: a message for the client and an HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _error(message: str) -> dict[str, str]:
    """A WebSocket error message."""
    return {"type": "error", "message": message}


def info_json(info: Any, board: Any, white: bool) -> dict[str, Any]:
    """An engine Info as JSON: scores from White's side, the PV also in SAN."""
    sign = 1 if white else -1
    pv = list(info.pv or [])
    san: list[str] = []
    line = board.copy()
    for uci in pv:
        try:
            move = line.parse_uci(uci)
            san.append(line.san(move))
            line.push(move)
        except ValueError:
            break
    return {
        "multipv": info.multipv or 1,
        "depth": info.depth,
        "seldepth": info.seldepth,
        "nodes": info.nodes,
        "nps": info.nps,
        "time_ms": info.time_ms,
        "score_cp": None if info.score_cp is None else sign * info.score_cp,
        "score_mate": None if info.score_mate is None else sign * info.score_mate,
        "bound": info.bound,
        "pv_uci": pv[: len(san)],
        "pv_san": san,
    }


class Room:
    """A game in memory with its connected sockets, its engine search and its flag timer."""

    def __init__(self, server: Server, game: Game) -> None:
        self.server = server
        self.game = game
        self.sockets: set[WebSocket] = set()
        self.lock = asyncio.Lock()
        self.task: asyncio.Task[None] | None = None
        self.thinking = False
        self.timer: asyncio.TimerHandle | None = None

    def state(self) -> dict[str, Any]:
        """The full game as a message."""
        return {"type": "state", "game": self.game.to_json(time.monotonic(), self.thinking)}

    async def broadcast(self, message: dict[str, Any]) -> None:
        """Send to every open socket of this game; a dead socket is dropped."""
        text = json.dumps(message)
        for ws in list(self.sockets):
            try:
                await ws.send_text(text)
            except Exception:  # noqa: BLE001 - any failure means the socket is gone
                self.sockets.discard(ws)

    def save(self) -> None:
        """Write the game to the store."""
        self.server.store.save(self.game.record())

    async def changed(self) -> None:
        """After any change: save, tell every client, start the engine or the flag timer."""
        self.save()
        self.start_engine()
        await self.broadcast(self.state())
        self.arm_timer()

    def arm_timer(self) -> None:
        """Wake up when the side to move runs out of time."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        game = self.game
        if game.result or game.clock is None or game.turn_started is None:
            return
        left = game.remaining(game.turn, time.monotonic()) or 0
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(max(0, left) / 1000 + 0.02, self._on_timer)

    def _on_timer(self) -> None:
        """The flag timer fired: end the game on time if the clock really ran out."""
        self.timer = None
        asyncio.get_running_loop().create_task(self._flag())

    async def _flag(self) -> None:
        """End the game on time (if still so) and tell the clients."""
        async with self.lock:
            if self.game.check_time(time.monotonic()):
                await self.stop_engine()
                await self.changed()
            else:
                self.arm_timer()

    def start_engine(self) -> None:
        """Start the engine's move if it is the engine's turn and no search runs."""
        game = self.game
        if game.result or game.turn == game.human or self.task is not None:
            return
        self.thinking = True
        self.task = asyncio.get_running_loop().create_task(self._engine_move(len(game.moves)))

    async def stop_engine(self) -> None:
        """Cancel the engine's search (takeback, resignation, draw, time forfeit)."""
        task, self.task = self.task, None
        self.thinking = False
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _engine_move(self, ply: int) -> None:
        """Search, then play the engine's move if the game has not changed meanwhile."""
        game = self.game
        board = game.board.copy()
        white = game.turn == "white"

        def on_info(info: Any) -> None:
            message = {"type": "info", "info": info_json(info, board, white)}
            asyncio.get_running_loop().create_task(self.broadcast(message))

        try:
            result = await self.server.pool.search(
                owner=game.id,
                variant=game.variant,
                fen=game.start_fen,
                moves=list(game.moves),
                limits=self.limits(),
                options=self.options(),
                on_info=on_info,
            )
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - report engine failures, keep serving
            log.exception("engine failed in game %s", game.id)
            self.task = None
            self.thinking = False
            await self.broadcast(_error(f"the engine failed: {error}"))
            return
        async with self.lock:
            if self.task is not asyncio.current_task():
                return
            self.task = None
            self.thinking = False
            if len(game.moves) != ply or game.result:
                return
            info = result.infos.get(1)
            if info is not None and info.score_cp is not None:
                game.engine_score = info.score_cp
            elif info is not None and info.score_mate is not None:
                game.engine_score = 100_000 if info.score_mate > 0 else -100_000
            sign = 1 if game.turn == "white" else -1
            try:
                if result.best is None:
                    raise ValueError("the engine found no move")
                game.play(result.best, time.monotonic())
                if info is not None:
                    text = _eval_text(
                        {
                            "score_cp": None if info.score_cp is None else sign * info.score_cp,
                            "score_mate": None
                            if info.score_mate is None
                            else sign * info.score_mate,
                        }
                    )
                    if text is not None:
                        game.evals[len(game.moves)] = text
            except ValueError as error:
                if game.check_time(time.monotonic()):
                    await self.changed()
                    return
                log.error("game %s: engine move %r refused: %s", game.id, result.best, error)
                await self.broadcast(_error(f"the engine's move was refused: {error}"))
                return
            await self.changed()

    def limits(self) -> dict[str, Any]:
        """Search limits for the engine's move from the game's time control."""
        s = self.game.settings
        if s.movetime_ms is not None:
            return {"movetime": s.movetime_ms}
        if s.depth is not None:
            return {"depth": s.depth}
        now = time.monotonic()
        inc = s.increment_ms
        white = self.game.remaining("white", now) or 0
        black = self.game.remaining("black", now) or 0
        return {"wtime": max(1, white), "btime": max(1, black), "winc": inc, "binc": inc}

    def options(self) -> dict[str, Any]:
        """Engine options for this game (the engines are shared, so every search sets them)."""
        elo = self.game.settings.elo
        options: dict[str, Any] = {"MultiPV": 1, "UCI_LimitStrength": elo is not None}
        if elo is not None:
            options["UCI_Elo"] = elo
        return options

    async def handle(self, ws: WebSocket, message: dict[str, Any]) -> None:
        """One client message about this game."""
        kind = message.get("type")
        async with self.lock:
            game = self.game
            now = time.monotonic()
            if kind == "sync":
                await ws.send_json(self.state())
                return
            if kind not in ("move", "takeback", "resign", "draw"):
                await ws.send_json(_error(f"unknown message type {kind!r}"))
                return
            if game.result:
                await ws.send_json(_error(f"the game is over ({game.result}, {game.termination})"))
                return
            if game.check_time(now):
                await self.stop_engine()
                await self.changed()
                await ws.send_json(_error("time is up"))
                return
            if kind == "move":
                await self._move(ws, message, now)
            elif kind == "takeback":
                await self._takeback(ws, now)
            elif kind == "resign":
                await self.stop_engine()
                game.finish("0-1" if game.human == "white" else "1-0", "resignation")
                await self.changed()
            else:
                await self._draw(ws)

    async def _move(self, ws: WebSocket, message: dict[str, Any], now: float) -> None:
        """A move from the person: their turn, up to date, legal."""
        game = self.game
        uci, ply = message.get("uci"), message.get("ply")
        if game.turn != game.human:
            await ws.send_json(_error("it is not your turn"))
            return
        if ply is not None and ply != len(game.moves):
            await ws.send_json(_error(f"out of date: the game has {len(game.moves)} moves"))
            await ws.send_json(self.state())
            return
        try:
            game.play(uci, now)
        except ValueError as error:
            await ws.send_json(_error(str(error)))
            return
        await self.changed()

    async def _takeback(self, ws: WebSocket, now: float) -> None:
        """Take back the person's last move (and the engine's answer to it)."""
        game = self.game
        plies = 2 if game.turn == game.human else 1
        if len(game.moves) < plies:
            await ws.send_json(_error("no move of yours to take back"))
            return
        await self.stop_engine()
        game.takeback(plies, now)
        await self.changed()

    async def _draw(self, ws: WebSocket) -> None:
        """A draw offer: accepted by rule (claimable) or when the engine thinks it is worse."""
        game = self.game
        score = game.engine_score
        accept = game.board.can_claim_draw() or (score is not None and score <= DRAW_ACCEPT_CP)
        await ws.send_json({"type": "draw", "accepted": accept})
        if accept:
            await self.stop_engine()
            game.finish("1/2-1/2", "agreement")
            await self.changed()


class Server:
    """The app's state: the store, the engine pool, games in memory."""

    def __init__(self, store: Store, pool: SearchPool, review_ms: int) -> None:
        self.store = store
        self.pool = pool
        self.review_ms = review_ms
        self.rooms: OrderedDict[str, Room] = OrderedDict()

    def room(self, game_id: str) -> Room:
        """The game with this id, loaded from the store if needed; ClientError 404 if none."""
        if not isinstance(game_id, str) or not ID_RE.fullmatch(game_id):
            raise ClientError(f"no game {game_id!r}", 404)
        room = self.rooms.get(game_id)
        if room is None:
            rec = self.store.load(game_id)
            if rec is None:
                raise ClientError(f"no game {game_id!r}", 404)
            try:
                game = Game(rec)
            except (ValueError, TypeError) as error:  # a row this version cannot replay
                raise ClientError(f"game {game_id} cannot be loaded: {error}", 500) from None
            room = self.add(game)
        self.rooms.move_to_end(game_id)
        return room

    def add(self, game: Game) -> Room:
        """Keep a game in memory, forgetting the oldest idle ones beyond MAX_ROOMS."""
        room = Room(self, game)
        self.rooms[game.id] = room
        for gid in list(self.rooms)[: max(0, len(self.rooms) - MAX_ROOMS)]:
            old = self.rooms[gid]
            if not old.sockets and old.task is None:
                if old.timer is not None:
                    old.timer.cancel()
                del self.rooms[gid]
        return room

    async def close(self) -> None:
        """Stop every search (server shutdown)."""
        for room in list(self.rooms.values()):
            if room.timer is not None:
                room.timer.cancel()
            await room.stop_engine()


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


def parse_line(variant: Any, fen: Any, moves: Any) -> tuple[Any, list[dict[str, str]]]:
    """Check a start position and a list of UCI moves; the board after them and each move."""
    if not isinstance(variant, str):
        raise ClientError("variant must be a string")
    if fen is not None and not isinstance(fen, str):
        raise ClientError("fen must be a string or null")
    if not isinstance(moves, list) or len(moves) > MAX_LINE:
        raise ClientError(f"moves must be a list of at most {MAX_LINE} UCI strings")
    try:
        board = boards.new_board(fen, variant)
    except ValueError as error:
        raise ClientError(f"bad FEN: {error}") from None
    line: list[dict[str, str]] = []
    for ply, uci in enumerate(moves, 1):
        try:
            if not isinstance(uci, str) or len(uci) > 7:
                raise ValueError
            move = board.parse_uci(uci)
            if move not in board.legal_moves:
                raise ValueError
        except ValueError:
            raise ClientError(f"illegal move {str(uci)[:10]!r} at ply {ply}") from None
        san, normal = board.san(move), board.uci(move)
        board.push(move)
        line.append({"uci": normal, "san": san, "fen": board.fen()})
    return board, line


def position_json(board: Any, variant: str) -> dict[str, Any]:
    """What an analysis board shows for one position."""
    done = boards.outcome(board)
    return {
        "pockets": boards.pocket_letters(variant),
        "fen": board.fen(),
        "turn": boards.turn(board),
        "legal": [] if done else boards.legal_uci(board),
        "check": board.is_check(),
        "outcome": None if done is None else f"{done.result} ({done.termination})",
        "files": board.files,
        "ranks": board.ranks,
    }


class Analysis:
    """One analysis board's socket: the current position's search and a move-by-move review."""

    def __init__(self, server: Server, ws: WebSocket) -> None:
        self.server = server
        self.ws = ws
        self.owner = f"analysis-{id(self)}"
        self.task: asyncio.Task[None] | None = None
        self.review_task: asyncio.Task[None] | None = None

    async def send(self, message: dict[str, Any]) -> None:
        """Send unless the socket has gone."""
        if self.ws.application_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await self.ws.send_json(message)

    async def close(self) -> None:
        """Stop both searches."""
        for task in (self.task, self.review_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def handle(self, message: dict[str, Any]) -> None:
        """One client message."""
        kind = message.get("type")
        if kind == "analyse":
            await self.analyse(message)
        elif kind == "stop":
            await self._cancel("task")
        elif kind == "review":
            await self.review(message)
        else:
            await self.send(_error(f"unknown message type {kind!r}"))

    async def _cancel(self, name: str) -> None:
        """Cancel one of the two searches."""
        task = getattr(self, name)
        setattr(self, name, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def analyse(self, message: dict[str, Any]) -> None:
        """Validate a line, show the position at `ply`, and think about it (MultiPV)."""
        seq, ply, multipv = message.get("seq"), message.get("ply"), message.get("multipv", 1)
        variant = message.get("variant", "chess")
        moves = message.get("moves", [])
        try:
            board, line = parse_line(variant, message.get("fen"), moves)
            if not isinstance(multipv, int) or not 1 <= multipv <= 5:
                raise ClientError("multipv must be from 1 to 5")
            if ply is None:
                ply = len(line)
            if not isinstance(ply, int) or not 0 <= ply <= len(line):
                raise ClientError("ply is outside the line")
        except ClientError as error:
            await self.send(_error(str(error)))
            return
        for _ in range(len(line) - ply):
            board.pop()
        await self._cancel("task")
        start = boards.new_board(message.get("fen"), variant)
        fields = start.fen().split()
        position = position_json(board, variant)
        await self.send(
            {
                "type": "position",
                "seq": seq,
                "variant": variant,
                "start_fen": start.fen(),
                "start_turn": "white" if fields[1] == "w" else "black",
                "start_fullmove": int(fields[5]) if len(fields) > 5 else 1,
                "moves": line,
                "ply": ply,
                **position,
            }
        )
        if message.get("think", True) and position["outcome"] is None:
            uci = [m["uci"] for m in line[:ply]]
            self.task = asyncio.get_running_loop().create_task(
                self._think(seq, variant, start.fen(), uci, board, multipv)
            )

    async def _think(
        self, seq: Any, variant: str, fen: str, moves: list[str], board: Any, multipv: int
    ) -> None:
        """Think until the ceiling, streaming every line; then say it stopped."""
        white = boards.turn(board) == "white"

        def on_info(info: Any) -> None:
            message = {"type": "info", "seq": seq, "info": info_json(info, board, white)}
            asyncio.get_running_loop().create_task(self.send(message))

        try:
            await self.server.pool.search(
                owner=self.owner,
                variant=variant,
                fen=fen,
                moves=moves,
                limits={"infinite": True},
                options={"MultiPV": multipv, "UCI_LimitStrength": False},
                on_info=on_info,
            )
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - report engine failures, keep serving
            log.exception("analysis failed")
            await self.send(_error(f"the engine failed: {error}"))
            return
        await self.send({"type": "done", "seq": seq})

    async def review(self, message: dict[str, Any]) -> None:
        """Evaluate every position of a line, one short search each, streaming the scores."""
        try:
            _, line = parse_line(
                message.get("variant", "chess"), message.get("fen"), message.get("moves", [])
            )
        except ClientError as error:
            await self.send(_error(str(error)))
            return
        await self._cancel("review_task")
        variant = message.get("variant", "chess")
        self.review_task = asyncio.get_running_loop().create_task(
            self._review(variant, message.get("fen"), [m["uci"] for m in line])
        )

    async def _review(self, variant: str, fen: str | None, moves: list[str]) -> None:
        """The review loop (each position waits its turn in the pool like any search)."""
        board = boards.new_board(fen, variant)
        start = board.fen()
        try:
            for ply in range(len(moves) + 1):
                if ply:
                    board.push(board.parse_uci(moves[ply - 1]))
                white = boards.turn(board) == "white"
                done = boards.outcome(board)
                score_cp: int | None
                score_mate: int | None = None
                best = None
                if done is not None:
                    score_cp = {"1-0": 100_000, "0-1": -100_000}.get(done.result, 0)
                else:
                    result = await self.server.pool.search(
                        owner=self.owner,
                        variant=variant,
                        fen=start,
                        moves=moves[:ply],
                        limits={"movetime": self.server.review_ms},
                        options={"MultiPV": 1, "UCI_LimitStrength": False},
                    )
                    info = result.infos.get(1)
                    sign = 1 if white else -1
                    score_cp = None
                    if info is not None and info.score_cp is not None:
                        score_cp = sign * info.score_cp
                    if info is not None and info.score_mate is not None:
                        score_mate = sign * info.score_mate
                    best = result.best
                await self.send(
                    {
                        "type": "review",
                        "ply": ply,
                        "score_cp": score_cp,
                        "score_mate": score_mate,
                        "best": best,
                    }
                )
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - report engine failures, keep serving
            log.exception("review failed")
            await self.send(_error(f"the review failed: {error}"))
            return
        await self.send({"type": "review_done"})


async def receive(ws: WebSocket) -> dict[str, Any] | None | str:
    """The next client message as a dict, an error text for a bad one, None when closed."""
    try:
        event = await ws.receive()
    except (WebSocketDisconnect, RuntimeError):
        return None
    if event["type"] == "websocket.disconnect":
        return None
    text = event.get("text")
    if text is None:
        data = event.get("bytes") or b""
        if len(data) > MAX_MESSAGE:
            return f"message over {MAX_MESSAGE} bytes"
        try:
            text = data.decode()
        except UnicodeDecodeError:
            return "messages must be UTF-8 JSON"
    if len(text) > MAX_MESSAGE:
        return f"message over {MAX_MESSAGE} bytes"
    try:
        message = json.loads(text)
    except ValueError:
        return "messages must be JSON"
    if not isinstance(message, dict):
        return "messages must be JSON objects"
    return message


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
    server = Server(store, pool, review_ms)

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
        room = server.add(game)
        room.save()
        return JSONResponse(game.to_json(time.monotonic()), status_code=201)

    async def get_game(request: Request) -> Response:
        room = server.room(request.path_params["game_id"])
        return JSONResponse(room.game.to_json(time.monotonic(), room.thinking))

    async def game_pgn(request: Request) -> Response:
        room = server.room(request.path_params["game_id"])
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
        if "[" not in text and "." not in text and text.count("/") >= 4:
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
        comments = [_eval_text(e) for e in evals[: len(line)]]
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
            room = server.room(ws.path_params["game_id"])
        except ClientError as error:
            await ws.send_json(_error(str(error)))
            await ws.close(code=4404)
            return
        room.sockets.add(ws)
        try:
            async with room.lock:
                await ws.send_json(room.state())
                room.start_engine()
                room.arm_timer()
            while True:
                message = await receive(ws)
                if message is None:
                    break
                if isinstance(message, str):
                    await ws.send_json(_error(message))
                    continue
                await room.handle(ws, message)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            room.sockets.discard(ws)

    async def analysis_socket(ws: WebSocket) -> None:
        await ws.accept()
        board = Analysis(server, ws)
        try:
            while True:
                message = await receive(ws)
                if message is None:
                    break
                if isinstance(message, str):
                    await board.send(_error(message))
                    continue
                await board.handle(message)
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
            await server.close()
            store.close()

    routes = [
        Route("/", index),
        Route("/api/meta", meta),
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
    app.state.server = server
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


def _eval_text(entry: Any) -> str | None:
    """A review entry ({score_cp, score_mate}, White's side) as a PGN %eval value."""
    if not isinstance(entry, dict):
        return None
    mate, cp = entry.get("score_mate"), entry.get("score_cp")
    if isinstance(mate, int) and not isinstance(mate, bool):
        return f"#{mate}"
    if isinstance(cp, int) and not isinstance(cp, bool):
        cp = max(-100_000, min(100_000, cp))
        return f"{cp / 100:.2f}"
    return None


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
