"""ferz's turns in a live game: a search when the engine is to move (its progress passed on
to the players), the move played if the game has not changed meanwhile, the search's limits
and options from the game's settings."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any

from ..messages import error_message, eval_text, info_json
from ..searches import PLAY

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger("ferz.web")


class EngineTurns:
    """The engine's search in one game: at most one at a time, and where it waits for a slot."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.task: asyncio.Task[None] | None = None
        self.thinking = False
        self.queue = 0  # the engine's move's place in line for a search slot (0: not waiting)

    def start(self) -> None:
        """Start the engine's move if it is the engine's turn and no search runs."""
        game = self.room.game
        if game.result or not game.engine_to_move() or self.task is not None:
            return
        if game.settings.imported:
            return
        self.thinking = True
        self.task = asyncio.get_running_loop().create_task(self._move(len(game.moves)))

    async def stop(self) -> None:
        """Cancel the engine's search (takeback, resignation, draw, time forfeit)."""
        task, self.task = self.task, None
        self.thinking = False
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _move(self, ply: int) -> None:
        """Search, then play the engine's move if the game has not changed meanwhile."""
        room = self.room
        game = room.game
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
            asyncio.get_running_loop().create_task(room.audience.broadcast(message))

        def on_queue(place: int) -> None:
            """Tell the players where the engine's move waits in line (0: it thinks now)."""
            self.queue = place
            message = {"type": "queue", "position": place}
            asyncio.get_running_loop().create_task(room.audience.broadcast(message))

        try:
            result = await room.games.pool.search(
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
            await room.audience.broadcast(error_message(f"the engine failed: {error}"))
            return
        async with room.lock:
            if self.task is not asyncio.current_task():
                return
            self.task = None
            self.thinking = False
            if len(game.moves) != ply or game.result:
                return
            await self._play(result)

    async def _play(self, result: Any) -> None:
        """Play the search's move (the room's lock held): keep its score for draw offers and
        its evaluation for the PGN; a refused move is told to the players."""
        room = self.room
        game = room.game
        info = result.infos.get(1)
        if info is not None and info.score is not None:
            game.engine_score = info.score.to_cp()
        sign = 1 if game.turn == "white" else -1
        try:
            if result.best is None:
                raise ValueError("the engine found no move")
            game.play(result.best, time.monotonic())
            if info is not None:
                text = eval_text(
                    {
                        "score_cp": None if info.score_cp is None else sign * info.score_cp,
                        "score_mate": None if info.score_mate is None else sign * info.score_mate,
                    }
                )
                if text is not None:
                    game.evals[len(game.moves)] = text
        except ValueError as error:
            if game.check_time(time.monotonic()):
                await room.changed()
                return
            log.error("game %s: engine move %r refused: %s", game.id, result.best, error)
            await room.audience.broadcast(error_message(f"the engine's move was refused: {error}"))
            return
        await room.changed()

    def limits(self) -> dict[str, Any]:
        """Search limits for the engine's move from the game's time control."""
        game = self.room.game
        s = game.settings
        if s.movetime_ms is not None:
            return {"movetime": s.movetime_ms}
        if s.depth is not None:
            return {"depth": s.depth}
        now = time.monotonic()
        inc = s.increment_ms
        white = game.remaining("white", now) or 0
        black = game.remaining("black", now) or 0
        return {"wtime": max(1, white), "btime": max(1, black), "winc": inc, "binc": inc}

    def options(self) -> dict[str, Any]:
        """Engine options for this game (the engines are shared, so every search sets them)."""
        game = self.room.game
        elo = game.seats[game.turn].elo
        # the book only when the game was started with it (the new-game form's default against
        # ferz); analysis sets OwnBook off
        options: dict[str, Any] = {
            "MultiPV": 1,
            "UCI_LimitStrength": elo is not None,
            "OwnBook": game.settings.book,
        }
        if elo is not None:
            options["UCI_Elo"] = elo
        return options
