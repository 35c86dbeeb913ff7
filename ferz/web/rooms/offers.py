"""Offers in a live game: draw offers and takeback requests (ferz answers at once, a hot-seat
player agrees with themself, a person's opponent accepts or declines; a move declines the
opponent's pending ones) and rematches after the game."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.websockets import WebSocket

from ..game import other
from ..messages import error_message
from ..seats import COLORS

if TYPE_CHECKING:
    from .room import Room

DRAW_ACCEPT_CP = -100  # the engine takes a draw when it thinks it is this much worse or more


class Offers:
    """The offers of one game (the pending ones are LiveGame.offers: offer -> who made it) and
    the rematch agreed from it."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.rematch_id: str | None = None  # the rematch agreed from this game, once there is one

    def moved(self, mover: str) -> None:
        """A move answers (declines) the opponent's pending offers, as on lichess; the
        mover's own draw offer stands."""
        game = self.room.game
        game.offers = {k: v for k, v in game.offers.items() if k == "draw" and v == mover}

    def _takeback_plies(self, color: str) -> int:
        """How many plies a takeback for `color` removes: their last move, and the reply to
        it if there is one (0: `color` has no move to take back)."""
        game = self.room.game
        plies = 2 if game.turn == color else 1
        return plies if len(game.moves) >= plies else 0

    async def offer(self, ws: WebSocket, kind: str, mine: list[str], now: float) -> None:
        """A draw offer or takeback request: ferz answers at once; in a hot-seat game the
        one person holds both seats, so it is agreed; a person's opponent is asked."""
        room = self.room
        game = room.game
        if game.waiting:  # Room.handle refuses it first; no offer ever goes to an empty seat
            await ws.send_json(
                error_message(f"nobody holds the other seat yet: no {kind} offer to an empty seat")
            )
            return
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
            await room.changed()
            return
        color = mine[0]
        if game.offers.get(kind) == other(color):  # both want it: agreed
            await self.answer(ws, "accept", kind, mine, now)
            return
        if game.offers.get(kind) == color:
            await ws.send_json(error_message(f"your {kind} offer is waiting for an answer"))
            return
        if kind == "takeback" and not self._takeback_plies(color):
            await ws.send_json(error_message("no move of yours to take back"))
            return
        game.offers[kind] = color
        await room.broadcast_state()

    async def answer(
        self, ws: WebSocket, kind: str, offer: str, mine: list[str], now: float
    ) -> None:
        """Accept or decline the opponent's draw offer or takeback request (declining your
        own withdraws it)."""
        room = self.room
        game = room.game
        by = game.offers.get(offer)
        if by is None:
            await ws.send_json(error_message(f"there is no {offer} offer to {kind}"))
            return
        if by in mine and (kind == "accept" and len(mine) == 1):
            await ws.send_json(error_message(f"you cannot accept your own {offer} offer"))
            return
        del game.offers[offer]
        if kind == "decline":
            await room.audience.broadcast({"type": "declined", "offer": offer, "by": other(by)})
            await room.broadcast_state()
            return
        if offer == "draw":
            game.finish("1/2-1/2", "agreement")
        else:
            plies = self._takeback_plies(by)
            if not plies:
                await ws.send_json(error_message("that move can no longer be taken back"))
                await room.broadcast_state()
                return
            game.takeback(plies, now)
        await room.changed()

    async def rematch(self, ws: WebSocket, kind: str, mine: list[str]) -> None:
        """After the game: a rematch with the colours swapped. Against ferz or in hot-seat it
        starts at once; a person's opponent must accept (or decline) the offer."""
        room = self.room
        game = room.game
        if not game.result:
            await ws.send_json(error_message("the game is not over: no rematch yet"))
            return
        if game.people_game and game.termination == "aborted":
            await ws.send_json(error_message("an aborted game has no rematch: start a new game"))
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
                declined = {"type": "declined", "offer": "rematch", "by": other(by)}
                await room.audience.broadcast(declined)
                await room.broadcast_state()
                return
            if by != other(color):  # no offer from the opponent: this is an offer
                if kind == "accept":
                    await ws.send_json(error_message("there is no rematch offer to accept"))
                    return
                game.offers["rematch"] = color
                await room.broadcast_state()
                return
        elif kind == "decline":
            await ws.send_json(error_message("there is no rematch offer to decline"))
            return
        game.offers.pop("rematch", None)
        try:
            new = room.games.rematch(game)
        except ValueError as error:
            await ws.send_json(error_message(str(error)))
            return
        self.rematch_id = new.game.id
        await room.audience.broadcast({"type": "rematch", "id": new.game.id})

    async def _takeback(self, ws: WebSocket, now: float) -> None:
        """Against ferz: take back the person's last move (and the engine's answer to it)."""
        room = self.room
        game = room.game
        if game.settings.rated:
            await ws.send_json(error_message("no takebacks against ferz in a rated game"))
            return
        plies = 2 if game.turn == game.human else 1
        if len(game.moves) < plies:
            await ws.send_json(error_message("no move of yours to take back"))
            return
        await room.engine.stop()
        game.takeback(plies, now)
        await room.changed()

    async def _draw(self, ws: WebSocket) -> None:
        """Against ferz: a draw offer, accepted by rule (claimable) or when the engine thinks
        it is worse."""
        room = self.room
        game = room.game
        score = game.engine_score
        accept = game.board.can_claim_draw() or (score is not None and score <= DRAW_ACCEPT_CP)
        await ws.send_json({"type": "draw", "accepted": accept})
        if accept:
            await room.engine.stop()
            game.finish("1/2-1/2", "agreement")
            await room.changed()
