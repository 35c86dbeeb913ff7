"""Live games: a Room per game (its sockets, engine search, flag timer) and the Games registry."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import OrderedDict
from typing import Any

from starlette.websockets import WebSocket

from .game import Game
from .messages import ClientError, error_message, eval_text, info_json
from .schema import GAME_MESSAGES, check_message
from .searches import PLAY, SearchPool
from .store import Store

log = logging.getLogger("ferz.web")

MAX_ROOMS = 500  # idle games kept in memory
DRAW_ACCEPT_CP = -100  # the engine takes a draw when it thinks it is this much worse or more
ID_RE = re.compile(r"[0-9a-f]{12}")


class Room:
    """A game in memory with its connected sockets, its engine search and its flag timer."""

    def __init__(self, games: Games, game: Game) -> None:
        self.games = games
        self.game = game
        self.sockets: set[WebSocket] = set()
        self.lock = asyncio.Lock()
        self.task: asyncio.Task[None] | None = None
        self.thinking = False
        self.queue = 0  # the engine's move's place in line for a search slot (0: not waiting)
        self.timer: asyncio.TimerHandle | None = None

    def state(self) -> dict[str, Any]:
        """The full game as a message."""
        game = self.game.to_json(time.monotonic(), self.thinking)
        game["queue"] = self.queue if self.thinking else 0
        return {"type": "state", "game": game}

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
        self.games.store.save(self.game.record())

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
        if game.settings.imported:
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
        white = game.turn == "white"
        show_pv = game.settings.show_pv
        board = game.board.copy() if show_pv else None  # for the lines' SAN only

        def on_info(info: Any) -> None:
            """Pass the engine's progress on; its lines and score only if the player asked
            for them (they would tell the player their best reply)."""
            if show_pv:
                line = info_json(info, board, white)
            else:  # no lines, so no SAN to work out on the event loop either
                line = {
                    "multipv": info.multipv or 1,
                    "depth": info.depth,
                    "nodes": info.nodes,
                    "nps": info.nps,
                    "time_ms": info.time_ms,
                }
            message = {"type": "info", "info": line}
            asyncio.get_running_loop().create_task(self.broadcast(message))

        def on_queue(place: int) -> None:
            """Tell the players where the engine's move waits in line (0: it thinks now)."""
            self.queue = place
            message = {"type": "queue", "position": place}
            asyncio.get_running_loop().create_task(self.broadcast(message))

        try:
            result = await self.games.pool.search(
                owner=game.id,
                variant=game.variant,
                fen=game.start_fen,
                moves=list(game.moves),
                limits=self.limits(),
                options=self.options(),
                on_info=on_info,
                priority=PLAY,
                on_queue=on_queue,
            )
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - report engine failures, keep serving
            log.exception("engine failed in game %s", game.id)
            self.task = None
            self.thinking = False
            await self.broadcast(error_message(f"the engine failed: {error}"))
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
                    text = eval_text(
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
                await self.broadcast(error_message(f"the engine's move was refused: {error}"))
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
        # no book in the browser's games yet: the page has no option for it, and its tests
        # watch the engine think from the first move (analysis sets OwnBook off as well)
        options: dict[str, Any] = {
            "MultiPV": 1,
            "UCI_LimitStrength": elo is not None,
            "OwnBook": False,
        }
        if elo is not None:
            options["UCI_Elo"] = elo
        return options

    async def handle(self, ws: WebSocket, raw: dict[str, Any]) -> None:
        """One client message about this game (checked against schema.GAME_MESSAGES)."""
        try:
            message = check_message(raw, GAME_MESSAGES)
        except ClientError as error:
            await ws.send_json(error_message(str(error)))
            return
        kind = message["type"]
        async with self.lock:
            game = self.game
            now = time.monotonic()
            if kind == "sync":
                await ws.send_json(self.state())
                return
            if game.settings.imported:
                await ws.send_json(error_message("an imported game is not played here"))
                return
            if game.result:
                await ws.send_json(
                    error_message(f"the game is over ({game.result}, {game.termination})")
                )
                return
            if game.check_time(now):
                await self.stop_engine()
                await self.changed()
                await ws.send_json(error_message("time is up"))
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
            await ws.send_json(error_message("it is not your turn"))
            return
        if ply is not None and ply != len(game.moves):
            await ws.send_json(error_message(f"out of date: the game has {len(game.moves)} moves"))
            await ws.send_json(self.state())
            return
        try:
            game.play(uci, now)
        except ValueError as error:
            await ws.send_json(error_message(str(error)))
            return
        await self.changed()

    async def _takeback(self, ws: WebSocket, now: float) -> None:
        """Take back the person's last move (and the engine's answer to it)."""
        game = self.game
        plies = 2 if game.turn == game.human else 1
        if len(game.moves) < plies:
            await ws.send_json(error_message("no move of yours to take back"))
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


class Games:
    """The games in memory (rooms) over the store, sharing one engine pool."""

    def __init__(self, store: Store, pool: SearchPool) -> None:
        self.store = store
        self.pool = pool
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

    def resume(self) -> int:
        """After a start: every unfinished game goes on at once (the engine thinks if it is
        to move, flags fall when due) without waiting for a browser; returns how many."""
        count = 0
        for rec in self.store.unfinished(MAX_ROOMS):
            try:
                game = Game(rec)
            except (ValueError, TypeError) as error:  # a row this version cannot replay
                log.warning("game %s not resumed: %s", rec.id, error)
                continue
            room = self.add(game)
            if game.flagged_offline:
                room.save()  # decided while the server was down: keep the result
            room.start_engine()
            room.arm_timer()
            count += 1
        return count

    async def delete(self, game_id: str) -> None:
        """Forget a game: stop its engine, close its sockets, remove it from the store."""
        if not isinstance(game_id, str) or not ID_RE.fullmatch(game_id):
            raise ClientError(f"no game {game_id!r}", 404)
        room = self.rooms.pop(game_id, None)
        if room is not None:
            if room.timer is not None:
                room.timer.cancel()
            await room.stop_engine()
            for ws in list(room.sockets):
                with contextlib.suppress(Exception):  # already gone is fine
                    await ws.send_json(error_message("this game was deleted"))
                    await ws.close(code=4410)
        if not self.store.delete(game_id) and room is None:
            raise ClientError(f"no game {game_id!r}", 404)

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
