"""Live games: a Room per game (its sockets and who holds them, engine search, flag timer,
offers between people, abandonment) and the Games registry."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import re
import time
from collections import OrderedDict
from typing import Any

from starlette.websockets import WebSocket

from .game import Game, other
from .messages import error_message, eval_text, info_json
from .schema import GAME_MESSAGES, ClientError, check_message
from .searches import PLAY, SearchPool
from .seats import COLORS
from .store import Store

log = logging.getLogger("ferz.web")

MAX_ROOMS = 500  # idle games kept in memory
DRAW_ACCEPT_CP = -100  # the engine takes a draw when it thinks it is this much worse or more
ID_RE = re.compile(r"[0-9a-f]{12}")
ABANDON_S = 60.0  # a player away this long from a game against a person may be claimed against
SPECTATING = "you are spectating this game: only its players can do that"


class Room:
    """A game in memory with its connected sockets, its engine search and its flag timer."""

    def __init__(self, games: Games, game: Game) -> None:
        self.games = games
        self.game = game
        self.sockets: dict[WebSocket, str | None] = {}  # each open socket -> its player id
        self.lock = asyncio.Lock()
        self.task: asyncio.Task[None] | None = None
        self.thinking = False
        self.queue = 0  # the engine's move's place in line for a search slot (0: not waiting)
        self.timer: asyncio.TimerHandle | None = None
        self.away: dict[str, float] = {}  # colour -> since when (monotonic) its player is away
        self.rematch_id: str | None = None  # the rematch agreed from this game, once there is one
        self.seen = time.monotonic()  # when a seated player last had a page open (or created it)

    def state(self, player: str | None = None) -> dict[str, Any]:
        """The full game as a message for `player` (`you`: the colours they hold)."""
        return {"type": "state", "game": {**self._game_json(), "you": self.game.colors_of(player)}}

    def _game_json(self) -> dict[str, Any]:
        """The game as every viewer sees it (`away`: ms until a claim, per absent player)."""
        now = time.monotonic()
        game = self.game.to_json(now, self.thinking)
        game["queue"] = self.queue if self.thinking else 0
        abandon_s = self.games.abandon_s
        game["away"] = {
            color: max(0, int((since + abandon_s - now) * 1000))
            for color, since in self.away.items()
        }
        game["abandon_s"] = abandon_s
        return game

    async def broadcast(self, message: dict[str, Any]) -> None:
        """Send to every open socket of this game; a dead socket is dropped."""
        await self._send_all(lambda player: json.dumps(message))

    async def broadcast_state(self) -> None:
        """Send the state to every socket, each with the colours its player holds."""
        # The game is encoded once; each player's `you` is spliced in before its closing
        # braces (encoding the whole state per player tripled the JSON work of a move).
        base = json.dumps({"type": "state", "game": self._game_json()})
        head = base[:-2]
        texts: dict[str | None, str] = {}

        def text(player: str | None) -> str:
            """The state for one player (computed once per player)."""
            if player not in texts:
                you = json.dumps(self.game.colors_of(player))
                texts[player] = f'{head}, "you": {you}}}}}'
            return texts[player]

        await self._send_all(text)

    async def _send_all(self, text_for: Any) -> None:
        """Send each socket the text for its player; a dead socket is dropped."""
        for ws, player in list(self.sockets.items()):
            try:
                await ws.send_text(text_for(player))
            except Exception:  # noqa: BLE001 - any failure means the socket is gone
                self.sockets.pop(ws, None)

    def presence(self, now: float) -> bool:
        """Note which players of a game between people are away (no socket open); True if
        that changed. Only a seated person's absence counts, only while the game goes on."""
        game = self.game
        before = dict(self.away)
        if game.result or not game.between_people or game.open_seat() is not None:
            self.away.clear()
        else:
            here = set(self.sockets.values())
            for color in COLORS:
                if game.seats[color].player in here:
                    self.away.pop(color, None)
                else:
                    self.away.setdefault(color, now)
        return before.keys() != self.away.keys()

    async def join(self, ws: WebSocket, player: str | None) -> None:
        """A socket opens: seat its player on an open seat of a friend's game (whoever opens
        the link first), send it the state, tell the others if someone arrived."""
        game = self.game
        self.sockets[ws] = player
        seated = False
        if (
            player is not None
            and game.settings.opponent != "seek"
            and not game.colors_of(player)
            and game.open_seat() is not None
        ):
            game.take_seat(player)
            self.save()
            seated = True
        moved = self.presence(time.monotonic())
        if seated or moved:
            await self.broadcast_state()
            self.games.lobby_changed()
        else:
            await ws.send_json(self.state(player))
            if self.seeking() and game.colors_of(player):
                self.games.lobby_changed()  # its creator is back: the seek shows again

    async def leave(self, ws: WebSocket) -> None:
        """A socket closed: tell the opponent if its player is now away."""
        player = self.sockets.pop(ws, None)
        async with self.lock:
            now = time.monotonic()
            if player is not None and self.game.colors_of(player):
                self.seen = now
                if self.seeking():  # the lobby drops the seek when its creator stays away
                    loop = asyncio.get_running_loop()
                    loop.call_later(self.games.abandon_s + 0.05, self.games.lobby_changed)
            if self.presence(now):
                await self.broadcast_state()

    def seeking(self) -> bool:
        """A lobby seek still waiting for an opponent."""
        return self.game.settings.opponent == "seek" and self.game.open_seat() is not None

    def listed(self, now: float) -> bool:
        """Whether the lobby shows this seek: its creator has the game open, or left (or
        created it) less than the abandonment time ago."""
        if not self.seeking():
            return False
        here = set(self.sockets.values())
        creator = any(seat.player in here for seat in self.game.seats.values() if seat.player)
        return creator or now - self.seen < self.games.abandon_s

    def save(self) -> None:
        """Write the game to the store."""
        self.games.store.save(self.game.record())

    async def changed(self) -> None:
        """After any change: save, tell every client, start the engine or the flag timer."""
        self.save()
        self.start_engine()
        self.presence(time.monotonic())
        await self.broadcast_state()
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
        if game.result or not game.engine_to_move() or self.task is not None:
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
        game = self.game
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

    async def handle(self, ws: WebSocket, raw: dict[str, Any]) -> None:
        """One client message about this game (checked against schema.GAME_MESSAGES); only
        the players may act, spectators are refused."""
        try:
            message = check_message(raw, GAME_MESSAGES)
        except ClientError as error:
            await ws.send_json(error_message(str(error)))
            return
        kind = message["type"]
        player = self.sockets.get(ws)
        async with self.lock:
            game = self.game
            now = time.monotonic()
            if kind == "sync":
                await ws.send_json(self.state(player))
                return
            if game.settings.imported:
                await ws.send_json(error_message("an imported game is not played here"))
                return
            mine = game.colors_of(player)
            if not mine:
                await ws.send_json(error_message(SPECTATING))
                return
            if kind == "rematch" or message.get("offer") == "rematch":
                await self._rematch(ws, kind, mine)
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
                await self._move(ws, message, mine, now)
            elif kind == "resign":
                await self.stop_engine()
                loser = game.turn if len(mine) == 2 else mine[0]
                game.finish("0-1" if loser == "white" else "1-0", "resignation")
                await self.changed()
            elif kind == "abort":
                await self._abort(ws)
            elif kind == "claim":
                await self._claim(ws, message["result"], mine[0], now)
            elif kind in ("accept", "decline"):
                await self._answer(ws, kind, message["offer"], mine, now)
            else:
                await self._offer(ws, kind, mine, now)

    async def _move(
        self, ws: WebSocket, message: dict[str, Any], mine: list[str], now: float
    ) -> None:
        """A move from a player: their turn, up to date, legal. It declines the opponent's
        pending offers (as on lichess); the mover's own draw offer stands."""
        game = self.game
        uci, ply = message.get("uci"), message.get("ply")
        if game.turn not in mine:
            await ws.send_json(error_message("it is not your turn"))
            return
        if ply is not None and ply != len(game.moves):
            await ws.send_json(error_message(f"out of date: the game has {len(game.moves)} moves"))
            await ws.send_json(self.state(self.sockets.get(ws)))
            return
        mover = game.turn
        try:
            game.play(uci, now)
        except ValueError as error:
            await ws.send_json(error_message(str(error)))
            return
        game.offers = {k: v for k, v in game.offers.items() if k == "draw" and v == mover}
        await self.changed()

    async def _abort(self, ws: WebSocket) -> None:
        """Abort before each side has made its first move (no result: `*`)."""
        game = self.game
        if len(game.moves) >= 2:
            await ws.send_json(
                error_message("both sides have moved: the game can no longer be aborted")
            )
            return
        await self.stop_engine()
        game.finish("*", "aborted")
        await self.changed()
        self.games.lobby_changed()

    async def _claim(self, ws: WebSocket, result: str, color: str, now: float) -> None:
        """Claim the win (or a draw) when the opponent has been away ABANDON_S or more."""
        game = self.game
        since = self.away.get(other(color)) if game.between_people else None
        if since is None:
            await ws.send_json(error_message("your opponent is here: nothing to claim"))
            return
        waited = now - since
        if waited < self.games.abandon_s:
            await ws.send_json(
                error_message(
                    f"your opponent has been away {waited:.0f} s; a claim is possible after "
                    f"{self.games.abandon_s:.0f} s"
                )
            )
            return
        if result == "draw":
            game.finish("1/2-1/2", "abandonment")
        else:
            game.finish("1-0" if color == "white" else "0-1", "abandonment")
        await self.changed()

    def _takeback_plies(self, color: str) -> int:
        """How many plies a takeback for `color` removes: their last move, and the reply to
        it if there is one (0: `color` has no move to take back)."""
        game = self.game
        plies = 2 if game.turn == color else 1
        return plies if len(game.moves) >= plies else 0

    async def _offer(self, ws: WebSocket, kind: str, mine: list[str], now: float) -> None:
        """A draw offer or takeback request: ferz answers at once; in a hot-seat game the
        one person holds both seats, so it is agreed; a person's opponent is asked."""
        game = self.game
        if any(game.seats[c].engine for c in COLORS):
            await (self._draw(ws) if kind == "draw" else self._takeback(ws, now))
            return
        if len(mine) == 2:
            if kind == "draw":
                game.finish("1/2-1/2", "agreement")
            elif game.moves:
                game.takeback(1, now)
            else:
                await ws.send_json(error_message("no move to take back"))
                return
            await self.changed()
            return
        color = mine[0]
        if game.offers.get(kind) == other(color):  # both want it: agreed
            await self._answer(ws, "accept", kind, mine, now)
            return
        if game.offers.get(kind) == color:
            await ws.send_json(error_message(f"your {kind} offer is waiting for an answer"))
            return
        if kind == "takeback" and not self._takeback_plies(color):
            await ws.send_json(error_message("no move of yours to take back"))
            return
        game.offers[kind] = color
        await self.broadcast_state()

    async def _answer(
        self, ws: WebSocket, kind: str, offer: str, mine: list[str], now: float
    ) -> None:
        """Accept or decline the opponent's draw offer or takeback request (declining your
        own withdraws it)."""
        game = self.game
        by = game.offers.get(offer)
        if by is None:
            await ws.send_json(error_message(f"there is no {offer} offer to {kind}"))
            return
        if by in mine and (kind == "accept" and len(mine) == 1):
            await ws.send_json(error_message(f"you cannot accept your own {offer} offer"))
            return
        del game.offers[offer]
        if kind == "decline":
            await self.broadcast({"type": "declined", "offer": offer, "by": other(by)})
            await self.broadcast_state()
            return
        if offer == "draw":
            game.finish("1/2-1/2", "agreement")
        else:
            plies = self._takeback_plies(by)
            if not plies:
                await ws.send_json(error_message("that move can no longer be taken back"))
                await self.broadcast_state()
                return
            game.takeback(plies, now)
        await self.changed()

    async def _rematch(self, ws: WebSocket, kind: str, mine: list[str]) -> None:
        """After the game: a rematch with the colours swapped. Against ferz or in hot-seat it
        starts at once; a person's opponent must accept (or decline) the offer."""
        game = self.game
        if not game.result:
            await ws.send_json(error_message("the game is not over: no rematch yet"))
            return
        if self.rematch_id is not None:  # already agreed: everyone goes to that game
            await ws.send_json({"type": "rematch", "id": self.rematch_id})
            return
        color = mine[0]
        by = game.offers.get("rematch")
        if game.between_people:
            if kind == "decline":
                if by is None:
                    await ws.send_json(error_message("there is no rematch offer to decline"))
                    return
                del game.offers["rematch"]
                await self.broadcast({"type": "declined", "offer": "rematch", "by": other(by)})
                await self.broadcast_state()
                return
            if by != other(color):  # no offer from the opponent: this is an offer
                if kind == "accept":
                    await ws.send_json(error_message("there is no rematch offer to accept"))
                    return
                game.offers["rematch"] = color
                await self.broadcast_state()
                return
        elif kind == "decline":
            await ws.send_json(error_message("there is no rematch offer to decline"))
            return
        game.offers.pop("rematch", None)
        try:
            room = self.games.rematch(game)
        except ValueError as error:
            await ws.send_json(error_message(str(error)))
            return
        self.rematch_id = room.game.id
        await self.broadcast({"type": "rematch", "id": room.game.id})

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

    def __init__(self, store: Store, pool: SearchPool, abandon_s: float = ABANDON_S) -> None:
        self.store = store
        self.pool = pool
        self.abandon_s = abandon_s
        self.rooms: OrderedDict[str, Room] = OrderedDict()
        self.on_lobby: Any = None  # called when the lobby's seeks may have changed

    def lobby_changed(self) -> None:
        """Tell the lobby (if any) that its seeks may have changed."""
        if self.on_lobby is not None:
            self.on_lobby()

    def start(self, game: Game) -> Room:
        """Keep a new game: in memory, stored, ferz thinking at once if it moves first."""
        room = self.add(game)
        room.save()
        room.start_engine()
        if game.settings.opponent == "seek":
            self.lobby_changed()
        return room

    def rematch(self, game: Game) -> Room:
        """A new game like `game`, the seats (and so the colours) swapped, same variant and
        start; ValueError for an imported game."""
        if game.settings.imported:
            raise ValueError("an imported game has no rematch; start a new game")
        settings = dataclasses.replace(game.settings, human=other(game.human))
        if settings.opponent == "seek":  # the players are known now: no lobby entry
            settings = dataclasses.replace(settings, opponent="friend")
        seats = {color: game.seats[other(color)] for color in COLORS}
        fen = None if game.variant == "chess960" else game.start_fen
        return self.start(Game.create(settings, game.variant, fen, seats=seats))

    def seeks(self) -> list[Game]:
        """The open seeks of the lobby, oldest first."""
        now = time.monotonic()
        found = [room.game for room in self.rooms.values() if room.listed(now)]
        return sorted(found, key=lambda g: g.created)

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
            self.lobby_changed()
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
