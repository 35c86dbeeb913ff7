"""The analysis board's socket: validate a line, think about a position, review a game."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from starlette.websockets import WebSocket, WebSocketState

from ..analyse import (
    NAG_WORDS,
    VERIFY_FACTOR,
    Line,
    SideSummary,
    judge_move,
    searches,
    terminal,
)
from ..score import Score
from . import boards, pgn
from .messages import error_message, info_json
from .schema import ANALYSIS_MESSAGES, ClientError, check_message
from .searches import ANALYSIS, SearchPool

log = logging.getLogger("ferz.web")

MAX_LINE = pgn.MAX_PLIES  # plies in an analysis line


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
        "look": boards.board_look(variant),
        "fen": board.fen(),
        "turn": boards.turn(board),
        "legal": [] if done else boards.legal_uci(board),
        "check": board.is_check(),
        "outcome": None if done is None else f"{done.result} ({done.termination})",
        "files": board.files,
        "ranks": board.ranks,
    }


class Analysis:
    """One analysis board's socket: the current position's search and a move-by-move review.

    A board runs one search at a time (one analysis per client): a review pauses the live
    analysis, which resumes on the shown position when the review ends.
    """

    def __init__(self, pool: SearchPool, review: dict[str, int], ws: WebSocket) -> None:
        """`review`: the limits of a review's search of one position ({"movetime": ms} or
        {"nodes": n})."""
        self.pool = pool
        self.review_limits = review
        self.ws = ws
        self.owner = f"analysis-{id(self)}"
        self.task: asyncio.Task[None] | None = None
        self.review_task: asyncio.Task[None] | None = None
        self.deferred: tuple[Any, ...] | None = None  # the thinking a review put off
        self._thinking: tuple[Any, ...] | None = None  # what the live analysis searches

    async def send(self, message: dict[str, Any]) -> None:
        """Send unless the socket has gone."""
        if self.ws.application_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await self.ws.send_json(message)

    async def close(self) -> None:
        """Stop both searches."""
        self.deferred = None
        await self._cancel("task")
        await self._cancel("review_task")

    async def handle(self, raw: dict[str, Any]) -> None:
        """One client message (checked against schema.ANALYSIS_MESSAGES)."""
        try:
            message = check_message(raw, ANALYSIS_MESSAGES)
        except ClientError as error:
            await self.send(error_message(str(error)))
            return
        kind = message["type"]
        if kind == "analyse":
            await self.analyse(message)
        elif kind == "stop":
            self.deferred = None
            await self._cancel("task")
        else:
            await self.review(message)

    def _on_queue(self, seq: Any) -> Any:
        """A callback telling the client its search's place in line (0: thinking)."""

        def tell(place: int) -> None:
            """Send the place in line."""
            message = {"type": "queue", "seq": seq, "position": place}
            asyncio.get_running_loop().create_task(self.send(message))

        return tell

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
        seq, ply = message.get("seq"), message.get("ply")
        multipv = message.get("multipv") or 1
        variant = message.get("variant") or "chess"
        moves = message.get("moves") or []
        try:
            board, line = parse_line(variant, message.get("fen"), moves)
            if ply is None:
                ply = len(line)
            if not isinstance(ply, int) or not 0 <= ply <= len(line):
                raise ClientError("ply is outside the line")
        except ClientError as error:
            await self.send(error_message(str(error)))
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
        self.deferred = None
        if message.get("think") is not False and position["outcome"] is None:
            uci = [m["uci"] for m in line[:ply]]
            job = (seq, variant, start.fen(), uci, board, multipv)
            if self.review_task is not None and not self.review_task.done():
                self.deferred = job  # one search per board: think after the review
                await self.send({"type": "queue", "seq": seq, "position": 1, "review": True})
            else:
                self.task = asyncio.get_running_loop().create_task(self._think(*job))

    async def _think(
        self, seq: Any, variant: str, fen: str, moves: list[str], board: Any, multipv: int
    ) -> None:
        """Think until the ceiling, streaming every line; then say it stopped."""
        white = boards.turn(board) == "white"
        self._thinking = (seq, variant, fen, moves, board, multipv)

        def on_info(info: Any) -> None:
            """Pass a line on, scores from White's side and the PV in SAN."""
            message = {"type": "info", "seq": seq, "info": info_json(info, board, white)}
            asyncio.get_running_loop().create_task(self.send(message))

        try:
            await self.pool.search(
                owner=self.owner,
                variant=variant,
                fen=fen,
                moves=moves,
                limits={"infinite": True},
                options={"MultiPV": multipv, "UCI_LimitStrength": False, "OwnBook": False},
                on_info=on_info,
                priority=ANALYSIS,
                on_queue=self._on_queue(seq),
            )
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - report engine failures, keep serving
            log.exception("analysis failed")
            await self.send(error_message(f"the engine failed: {error}"))
            return
        await self.send({"type": "done", "seq": seq})

    async def review(self, message: dict[str, Any]) -> None:
        """Evaluate every position of a line, one short search each, streaming the scores."""
        variant = message.get("variant") or "chess"
        try:
            _, line = parse_line(variant, message.get("fen"), message.get("moves") or [])
        except ClientError as error:
            await self.send(error_message(str(error)))
            return
        await self._cancel("review_task")
        if self.task is not None and not self.task.done():
            # One search per board: the live analysis waits for the review to end.
            self.deferred = self._thinking
            await self._cancel("task")
        self.review_task = asyncio.get_running_loop().create_task(
            self._review(variant, message.get("fen"), [m["uci"] for m in line])
        )

    async def _review(self, variant: str, fen: str | None, moves: list[str]) -> None:
        """The review: `ferz analyse`'s searches in its order (ferz.analyse.searches: backward,
        doubtful moves searched again three times longer), each position's score sent as it
        comes (a verified one again), then every move judged as `ferz analyse` judges it."""
        board = boards.new_board(fen, variant)
        start = board.fen()
        ends: list[Line | None] = []
        outcomes: list[str | None] = []  # a finished position's result
        white: list[bool] = []  # White (sente, red) to move
        for ply in range(len(moves) + 1):
            if ply:
                board.push(board.parse_uci(moves[ply - 1]))
            done = boards.outcome(board)
            outcomes.append(None if done is None else done.result)
            ends.append(terminal(board))
            white.append(boards.turn(board) == "white")
        try:
            found = await self._searches(variant, start, moves, ends, white, outcomes)
            sides = {"white": SideSummary(), "black": SideSummary()}
            await self.send(_entry(0, found[0][0], white[0], outcomes[0]))
            for ply in range(1, len(ends)):
                judged = judge_move(found[ply - 1][0], found[ply][0], moves[ply - 1])
                sides["white" if white[ply - 1] else "black"].add(judged)
                entry = _entry(ply, found[ply][0], white[ply], outcomes[ply])
                await self.send({**entry, "nag": judged.nag, "loss": judged.loss})
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - report engine failures, keep serving
            log.exception("review failed")
            await self.send(error_message(f"the review failed: {error}"))
            return
        finally:
            self._resume_deferred()
        await self.send(
            {"type": "review_done", "summary": {k: _summary(v) for k, v in sides.items()}}
        )

    async def _searches(
        self,
        variant: str,
        start: str,
        moves: list[str],
        ends: list[Line | None],
        white: list[bool],
        outcomes: list[str | None],
    ) -> list[list[Line]]:
        """Every position's lines, searched as ferz.analyse.searches asks (each waits its
        turn in the pool like any search), each score sent as it comes."""
        for ply, end in enumerate(ends):
            if end is not None:
                await self.send(_entry(ply, end, white[ply], outcomes[ply]))
        review = searches(ends, True)
        try:
            request = next(review)
            while True:
                ply, longer = request
                factor = VERIFY_FACTOR if longer else 1
                result = await self.pool.search(
                    owner=self.owner,
                    variant=variant,
                    fen=start,
                    moves=moves[:ply],
                    limits={key: value * factor for key, value in self.review_limits.items()},
                    options={"MultiPV": 1, "UCI_LimitStrength": False, "OwnBook": False},
                    priority=ANALYSIS,
                )
                lines = _lines(result)
                if lines:
                    await self.send(_entry(ply, lines[0], white[ply], None))
                request = review.send(lines)
        except StopIteration as stop:
            return stop.value

    def _resume_deferred(self) -> None:
        """After a review: think about the shown position again, if it was put off."""
        job, self.deferred = self.deferred, None
        if job is not None and (self.task is None or self.task.done()):
            self.task = asyncio.get_running_loop().create_task(self._think(*job))


def _lines(result: Any) -> list[Line]:
    """A pool search's result as ferz.analyse's lines (the side to move's view), [] without a
    score."""
    info = result.infos.get(1)
    score = None if info is None else Score.of(info.score_cp, info.score_mate)
    if score is None:
        return []
    pv = tuple(info.pv) or ((result.best,) if result.best else ())
    return [Line(score.to_cp(), info.depth or 0, pv)]


def _entry(ply: int, line: Line, white: bool, outcome: str | None) -> dict[str, Any]:
    """A review message for one position: its score in White's view (none for a finished
    position: the result says it, a checkmate written as +1000.00 would read as a score), the
    engine's best move."""
    message: dict[str, Any] = {
        "type": "review",
        "ply": ply,
        "score_cp": None,
        "score_mate": None,
        "best": line.pv[0] if line.pv else None,
        "outcome": outcome,
        "nag": None,
    }
    if outcome is None:
        score = Score.from_cp(line.score if white else -line.score)
        message["score_cp"] = None if score.mate is not None else score.cp
        message["score_mate"] = score.mate
    return message


def _summary(side: SideSummary) -> dict[str, Any]:
    """One side's review: the moves judged, ACPL, accuracy and the count of each mark."""
    counts = {word: side.nags.get(nag, 0) for nag, word in NAG_WORDS.items()}
    return {
        "moves": len(side.losses),
        "acpl": round(side.acpl()),
        "accuracy": round(side.accuracy(), 1),
        **counts,
    }
