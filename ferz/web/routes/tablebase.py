"""The endgame tables as JSON, shaped like lichess's tablebase API: GET /api/tablebase?fen=
&variant= answers the position's category and distance, and every legal move's, best first:
Syzygy's (category, DTZ) for chess when the server has them (ferz web --syzygy), else ferz's
own tables bundled for the variant (category, DTM in plies: ferz.tablebase)."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ...board import Board, InvalidFenError
from ...syzygy import MissingTableError, Tablebase
from ...tablebase import MINWIN, RULE, Endgames, bundled, plies, rule_name
from ..boards import move_text
from ..schema import FEN, VARIANT, ClientError
from .common import context, read_query

QUERY = {"fen": FEN, "variant": VARIANT}
#: WDL (for the side to move) -> lichess's category words
CATEGORY = {2: "win", 1: "cursed-win", 0: "draw", -1: "blessed-loss", -2: "loss"}


def verdict(tables: Tablebase, board: Board) -> dict[str, Any]:
    """The position's category and DTZ and each move's, as lichess gives them (a move's
    category and DTZ are those of the position after it, for the side then to move: a "loss"
    is the move to play); "unknown" where no table covers the position."""
    try:
        wdl = tables.probe_wdl(board)
        dtz = tables.get_dtz(board)
        moves = tables.probe_root(board)
    except MissingTableError:
        return {"category": "unknown", "dtz": None, "moves": []}
    listed = []
    for move in moves:
        parsed = board.parse_uci(move.move)
        listed.append(
            {
                "uci": move.move,
                "san": board.san(parsed),
                "category": CATEGORY[-move.wdl],
                "dtz": -move.dtz if move.dtz else (0 if move.wdl == 0 else None),
                "zeroing": board.is_capture(parsed) or board.piece_at(move.move[:2]) in "Pp",
            }
        )
    if board.halfmove_clock and abs(wdl) == 2 and dtz is not None:
        wdl = wdl if abs(dtz) + board.halfmove_clock <= 100 else wdl // 2  # the counter spoils
    return {"category": CATEGORY[wdl], "dtz": dtz, "moves": listed}


def own_verdict(tables: Endgames, board: Board) -> dict[str, Any]:
    """The category and distance to mate (plies, signed for the side to move) of a position
    and of each move (for the side then to move), from ferz's own tables."""
    value = tables.probe_value(board)
    if value is None:
        return {"category": "unknown", "dtm": None, "moves": []}
    listed = []
    rule = rule_name(tables.rules)
    for move, after in tables.root_moves(board):
        # the position after the move, for the side then to move: one ply nearer the mate
        dtm = -(after - (after > 0) + (after < 0))
        listed.append(
            {
                "uci": board.uci(move),
                "san": board.san(move),
                "text": move_text(board, move),  # as the page writes it (WXF for xiangqi)
                "category": "loss" if after > 0 else "win" if after < 0 else "draw",
                **distance(dtm, rule),
            }
        )
    category = "win" if value >= MINWIN else "loss" if value <= -MINWIN else "draw"
    return {"category": category, **distance(plies(value), rule), "moves": listed}


def distance(dtm: int, rule: str) -> dict[str, Any]:
    """A distance to mate as the page reads it: `dtm` in plies, or none and the `rule` that
    decides a win or loss that is not a mate (the variant's, from `rule_name`)."""
    if abs(dtm) >= RULE:
        return {"dtm": None, "rule": rule}
    return {"dtm": dtm}


async def tablebase(request: Request) -> Response:
    """GET /api/tablebase?fen=FEN&variant=chess: 400 for a bad request, 404 when the server
    has no tables for the variant."""
    query = read_query(request, QUERY)
    variant = query["variant"] or "chess"
    if query["fen"] is None:
        raise ClientError("fen is required")
    try:
        board = Board(query["fen"], variant=variant)
    except InvalidFenError as error:
        raise ClientError(str(error)) from None
    except ValueError as error:  # an unknown variant
        raise ClientError(str(error)) from None
    tables = context(request).tables if board.rules.name in ("chess", "chess960") else None
    if tables is not None:
        return JSONResponse(await asyncio.to_thread(verdict, tables, board))
    own = bundled(board.rules.name)
    if own is None:
        raise ClientError(
            "this server has no tablebases for this variant (ferz web --syzygy FOLDERS for "
            "chess; ferz tb build for others)",
            404,
        )
    return JSONResponse(await asyncio.to_thread(own_verdict, own, board))


ROUTES = [Route("/api/tablebase", tablebase)]
