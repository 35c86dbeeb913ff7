"""JSON messages of ferz web: client errors, engine lines, reading a WebSocket message."""

from __future__ import annotations

from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from ..score import MATE_CP
from . import boards
from .schema import ClientError, parse_json

MAX_MESSAGE = 16 * 1024  # largest WebSocket message the app reads; larger ones get an error


def error_message(message: str) -> dict[str, str]:
    """A WebSocket error message."""
    return {"type": "error", "message": message}


def info_json(info: Any, board: Any, white: bool) -> dict[str, Any]:
    """An engine Info as JSON: scores from White's side, the PV also as players write it
    (`pv_san`: SAN, or WXF for xiangqi and Hodges for shogi, as boards.move_text writes them;
    `board` is left as it was)."""
    sign = 1 if white else -1
    pv = list(info.pv or [])
    san: list[str] = []
    # The PV is played on `board` itself and taken back: a copy costs ~3 ms a board, and
    # analyses send many lines (the caller owns the board; nothing else runs meanwhile).
    try:
        for uci in pv:
            move = board.parse_uci(uci)
            san.append(boards.move_text(board, move))
            board.push(move)
    except ValueError:
        pass
    finally:
        for _ in san:
            board.pop()
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


def eval_text(entry: Any) -> str | None:
    """A review entry ({score_cp, score_mate}, White's side) as a PGN %eval value."""
    if not isinstance(entry, dict):
        return None
    mate, cp = entry.get("score_mate"), entry.get("score_cp")
    if isinstance(mate, int) and not isinstance(mate, bool):
        return f"#{mate}"
    if isinstance(cp, int) and not isinstance(cp, bool):
        cp = max(-MATE_CP, min(MATE_CP, cp))
        return f"{cp / 100:.2f}"
    return None


async def receive(ws: WebSocket) -> dict[str, Any] | None | str:
    """The next client message as a dict, an error text for a bad one, None when closed."""
    try:
        event = await ws.receive()
    except (WebSocketDisconnect, RuntimeError):
        return None
    if event["type"] == "websocket.disconnect":
        return None
    raw: str | bytes | None = event.get("text")
    if raw is None:
        raw = event.get("bytes") or b""
    if len(raw) > MAX_MESSAGE:
        return f"message over {MAX_MESSAGE} bytes"
    try:
        message = parse_json(raw)
    except ClientError as error:
        return f"messages must be JSON objects: {error}"
    if not isinstance(message, dict):
        return "messages must be JSON objects"
    return message
