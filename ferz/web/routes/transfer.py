"""Games in and out as text: a stored game's PGN download, a pasted PGN (stored with its
tree) or FEN imported, the analysis board's line or tree exported as PGN (web/pgn.py does
the reading and writing)."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from .. import boards, pgn, tree
from ..analysis import parse_line
from ..players import current
from ..schema import EXPORT, IMPORT, ClientError
from ..store import Store
from .common import context, read_json


async def game_pgn(request: Request) -> Response:
    """A stored game as a PGN download."""
    ctx = context(request)
    room = ctx.games.room(request.path_params["game_id"])
    room.refresh()  # the players' names for the tags
    game = room.game
    rec = ctx.store.load(game.id)
    elo = ctx.games.ratings.pgn_tags(game)
    text = pgn.write_game(game, rec.tree if rec is not None else None, elo)
    name = f"ferz-{game.id}.pgn"
    headers = {"content-disposition": f'attachment; filename="{name}"'}
    return PlainTextResponse(text, media_type="application/x-chess-pgn", headers=headers)


def store_import(store: Store, parsed: pgn.ParsedGame, owner: str | None = None) -> str:
    """Keep an imported PGN game (moves, result, tags) in the games list (`owner`: who
    imported it, whose games list shows it); its id."""
    rec = pgn.imported_record(parsed)
    rec.owner = owner
    store.save(rec)
    if parsed.tree is not None:  # variations, comments and NAGs come along
        store.save_tree(rec.id, tree.dumps(parsed.tree, len(parsed.uci)))
    return rec.id


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
    stored = store_import(context(request).store, game, current(request.scope))
    assert game.tree is not None
    shown = await asyncio.to_thread(tree.to_json, game.tree)  # see Context.tree_lock
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


ROUTES = [
    Route("/api/games/{game_id}/pgn", game_pgn),
    Route("/api/import", import_text, methods=["POST"]),
    Route("/api/export", export_line, methods=["POST"]),
]
