"""A live game: Room holds the game, its lock and one part per concern (audience, engine
turns, flag timer, offers, presence), writes the game's state for its viewers and takes the
players' messages, handing each to the part it concerns."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket

from ..game import LiveGame
from ..messages import error_message
from ..ratings import seat_key, settings_speed
from ..schema import GAME_MESSAGES, ClientError, check_message
from .audience import Audience
from .offers import Offers
from .presence import Presence
from .timer import FlagTimer
from .turns import EngineTurns

if TYPE_CHECKING:
    from .registry import Games

SPECTATING = "you are spectating this game: only its players can do that"
WAITING = "waiting for an opponent: the game begins when both seats are taken"


class Room:
    """A game in memory, changed under its lock, with its parts: its sockets (audience), the
    engine's search (engine), the flag timer (timer), offers and who is away (presence)."""

    def __init__(self, games: Games, game: LiveGame) -> None:
        self.games = games
        self.game = game
        self.lock = asyncio.Lock()  # one change of the game at a time
        self.audience = Audience()
        self.engine = EngineTurns(self)
        self.timer = FlagTimer(self)
        self.offers = Offers(self)
        self.presence = Presence(self)

    def state(self, player: str | None = None) -> dict[str, Any]:
        """The full game as a message for `player` (`you`: the colours they hold)."""
        return {"type": "state", "game": {**self._game_json(), "you": self.game.colors_of(player)}}

    def refresh(self) -> None:
        """Look up what may have changed outside the game: its people's names."""
        self.game.names = self.games.names(self.game)

    def _ratings_json(self, game: dict[str, Any]) -> None:
        """Add the players' ratings in this variant at this speed (`rating` of each seat,
        None for an open seat or an untimed game), the speed, and once a rated game is
        rated, both changes (`rating_change`: before, after, diff per colour)."""
        ratings = self.games.ratings
        settings = self.game.settings
        speed = settings_speed(settings)
        game["speed"] = speed
        for color, seat in self.game.seats.items():
            key = None if settings.opponent == "hotseat" else seat_key(seat)  # one person
            game["seats"][color]["rating"] = ratings.shown(key, self.game.variant, speed)
        rated = self.game.settings.rated and self.game.result
        game["rating_change"] = ratings.change(self.game.id) if rated else None

    def _game_json(self) -> dict[str, Any]:
        """The game as every viewer sees it (`away`: ms until a claim, per absent player)."""
        self.refresh()
        now = time.monotonic()
        engine = self.engine
        game = self.game.to_json(now, engine.thinking)
        game["queue"] = engine.queue if engine.thinking else 0
        game["away"] = self.presence.away_ms(now)
        game["abandon_s"] = self.games.abandon_s
        # between people: the side whose first move is due and the ms it has left before the
        # game is aborted (None: no first move is due)
        left = self.game.first_move_left(now, self.games.first_move_s)
        game["first_move"] = None if left is None else {"color": self.game.turn, "ms": left}
        game["first_move_s"] = self.games.first_move_s
        self._ratings_json(game)
        return game

    async def broadcast_state(self) -> None:
        """Send the state to every socket, each with the colours its player holds."""
        await self.audience.broadcast_state(self._game_json(), self.game.colors_of)

    async def join(self, ws: WebSocket, player: str | None) -> None:
        """A socket opens: seat its player on an open seat of a friend's game (whoever opens
        the link first), send it the state, tell the others if someone arrived."""
        game = self.game
        self.audience.add(ws, player)
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
        moved = self.presence.update(time.monotonic())
        if seated or moved:
            await self.broadcast_state()
            self.games.lobby_changed()
            if seated:
                self.timer.arm()  # the game has begun: White's first move is due
        else:
            await ws.send_json(self.state(player))
            if self.presence.seeking() and game.colors_of(player):
                self.games.lobby_changed()  # its creator is back: the seek shows again

    async def leave(self, ws: WebSocket) -> None:
        """A socket closed: tell the opponent if its player is now away."""
        player = self.audience.remove(ws)
        async with self.lock:
            now = time.monotonic()
            self.presence.left(player, now)
            if self.presence.update(now):
                await self.broadcast_state()

    def save(self) -> None:
        """Write the game to the store; a rated game that has ended is rated (once)."""
        game = self.game
        self.games.store.save(game.record())
        if game.result and game.settings.rated:
            self.games.ratings.apply(game.id, game.variant, game.settings, game.seats, game.result)
        if game.result and self.games.explorer is not None:  # counted once (explorer.py)
            self.games.explorer.add_played(game, self.games.ratings.pgn_tags)

    async def changed(self) -> None:
        """After any change: save, tell every client, start the engine or the flag timer."""
        self.save()
        self.engine.start()
        self.presence.update(time.monotonic())
        await self.broadcast_state()
        self.timer.arm()

    async def handle(self, ws: WebSocket, raw: dict[str, Any]) -> None:
        """One client message about this game (checked against schema.GAME_MESSAGES); only
        the players may act, spectators are refused."""
        try:
            message = check_message(raw, GAME_MESSAGES)
        except ClientError as error:
            await ws.send_json(error_message(str(error)))
            return
        kind = message["type"]
        player = self.audience.player(ws)
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
                await self.offers.rematch(ws, kind, mine)
                return
            if game.result:
                await ws.send_json(
                    error_message(f"the game is over ({game.result}, {game.termination})")
                )
                return
            if game.check_time(now):
                await self.engine.stop()
                await self.changed()
                await ws.send_json(error_message("time is up"))
                return
            if game.check_first_move(now, self.games.first_move_s):
                await self.changed()
                await ws.send_json(error_message(self.no_first_move()))
                return
            if game.waiting and kind != "abort":  # only an abort before the game begins
                await ws.send_json(error_message(self.not_begun(kind)))
                return
            if kind == "move":
                await self._move(ws, message, mine, now)
            elif kind == "resign":
                await self._resign(mine)
            elif kind == "abort":
                await self._abort(ws)
            elif kind == "claim":
                await self.presence.claim(ws, message["result"], mine[0], now)
            elif kind in ("accept", "decline"):
                await self.offers.answer(ws, kind, message["offer"], mine, now)
            else:
                await self.offers.offer(ws, kind, mine, now)

    def no_first_move(self) -> str:
        """Why a game was aborted for want of a first move."""
        limit = self.games.first_move_s
        return f"the game is aborted: a first move was not made within {limit:g} s"

    def not_begun(self, kind: str) -> str:
        """Why a message is refused before the game begins (a seat is still open)."""
        if kind == "move":
            return f"{WAITING}: no move before that"
        if kind in ("draw", "takeback"):
            return f"nobody holds the other seat yet: no {kind} offer to an empty seat"
        return f"{WAITING} (until then you can only abort it)"

    async def _move(
        self, ws: WebSocket, message: dict[str, Any], mine: list[str], now: float
    ) -> None:
        """A move from a player: their turn, up to date, legal; it answers the opponent's
        pending offers (Offers.moved)."""
        game = self.game
        uci, ply = message.get("uci"), message.get("ply")
        if game.turn not in mine:
            await ws.send_json(error_message("it is not your turn"))
            return
        if ply is not None and ply != len(game.moves):
            await ws.send_json(error_message(f"out of date: the game has {len(game.moves)} moves"))
            await ws.send_json(self.state(self.audience.player(ws)))
            return
        mover = game.turn
        try:
            game.play(uci, now)
        except ValueError as error:
            await ws.send_json(error_message(str(error)))
            return
        self.offers.moved(mover)
        await self.changed()

    async def _resign(self, mine: list[str]) -> None:
        """A player resigns (in hot-seat, the side to move)."""
        await self.engine.stop()
        game = self.game
        loser = game.turn if len(mine) == 2 else mine[0]
        game.finish("0-1" if loser == "white" else "1-0", "resignation")
        await self.changed()

    async def _abort(self, ws: WebSocket) -> None:
        """Abort before each side has made its first move (no result: `*`)."""
        game = self.game
        if len(game.moves) >= 2:
            await ws.send_json(
                error_message("both sides have moved: the game can no longer be aborted")
            )
            return
        await self.engine.stop()
        game.finish("*", "aborted")
        await self.changed()
        self.games.lobby_changed()
