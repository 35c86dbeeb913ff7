"""Analysis trees over HTTP: a stored game's tree, one edit of it (kept at once), one edit
of a tree the page holds. The work runs in a worker thread, one edit at a time
(Context.tree_lock)."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .. import boards, tree
from ..schema import TREE_EDIT, TREE_OP, ClientError
from ..store import Store, StoredGame
from .common import context, read_json


def stored_tree(store: Store, game_id: str) -> tuple[StoredGame, tree.pgn.Game]:
    """A stored game and its analysis tree (404 for an unknown game)."""
    rec = store.load(game_id)
    if rec is None:
        raise ClientError(f"no game {game_id[:40]!r}", 404)
    try:
        return rec, tree.of_record(rec.variant, rec.start_fen, rec.moves, rec.tree)
    except tree.TreeError as error:
        raise ClientError(str(error)) from None


async def get_tree(request: Request) -> Response:
    """A stored game's analysis tree (its moves as the main line until one is kept)."""
    store = context(request).store

    def work() -> dict[str, Any]:
        rec, kept = stored_tree(store, request.path_params["game_id"])
        return {"id": rec.id, "variant": rec.variant, "tree": tree.to_json(kept)}

    return JSONResponse(await asyncio.to_thread(work))


async def edit_tree(request: Request) -> Response:
    """One edit of a stored game's tree (schema.TREE_OP), kept at once; the new tree and
    the path of the node to show."""
    ctx = context(request)
    data = await read_json(request, TREE_OP)

    def work() -> dict[str, Any]:
        rec, kept = stored_tree(ctx.store, request.path_params["game_id"])
        try:
            path = tree.apply(kept, data)
        except tree.TreeError as error:
            raise ClientError(str(error)) from None
        ctx.store.save_tree(rec.id, tree.dumps(kept, len(rec.moves)))
        return {"tree": tree.to_json(kept), "path": path}

    async with ctx.tree_lock:
        return JSONResponse(await asyncio.to_thread(work))


async def edit_free_tree(request: Request) -> Response:
    """One edit of a tree the page holds (an analysis board that is not a stored game)."""
    ctx = context(request)
    data = await read_json(request, TREE_EDIT)
    variant = data["variant"] or "chess"
    if variant not in boards.variant_names():
        raise ClientError(f"unknown variant {variant[:40]!r}")

    def work() -> dict[str, Any]:
        try:
            held = tree.from_json(data["tree"] or {}, variant, data["fen"])
            path = tree.apply(held, data)
        except tree.TreeError as error:
            raise ClientError(str(error)) from None
        return {"tree": tree.to_json(held), "path": path}

    async with ctx.tree_lock:
        return JSONResponse(await asyncio.to_thread(work))


ROUTES = [
    Route("/api/games/{game_id}/tree", get_tree, methods=["GET"]),
    Route("/api/games/{game_id}/tree", edit_tree, methods=["POST"]),
    Route("/api/tree", edit_free_tree, methods=["POST"]),
]
