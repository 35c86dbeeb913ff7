"""The opening explorer's routes: GET /api/explorer?variant=&fen= (the moves played from a
position, lichess's explorer shape) and POST /api/explorer/import (a PGN database counted into
the index, its progress streamed back as lines of JSON)."""

from __future__ import annotations

import asyncio
import io
import json
import tempfile
from collections.abc import AsyncIterator
from typing import IO

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..boards import known_variant
from ..explorer import MAX_DATABASE_BYTES, Explorer, ImportProgress
from ..schema import FEN, VARIANT, ClientError, Field
from .common import context, read_query

QUERY = {"fen": FEN, "variant": VARIANT}
IMPORT_QUERY = {"variant": Field("str", low=1, high=40)}
PROGRESS_S = 0.5  # how often a running import tells the page how far it is
TOO_BIG = (
    f"the PGN is over {MAX_DATABASE_BYTES // (1024 * 1024)} MB, the most ferz web imports at "
    "once: split it, or build a book from it with `ferz book build`, which reads a file of "
    "any size"
)


async def explore(request: Request) -> Response:
    """GET /api/explorer?variant=chess&fen=FEN: 400 for a bad FEN or an unknown variant."""
    query = read_query(request, QUERY)
    variant = query["variant"] or "chess"
    try:
        answer = await asyncio.to_thread(context(request).explorer.lookup, variant, query["fen"])
    except ValueError as error:
        raise ClientError(str(error)) from None
    return JSONResponse(answer)


async def _spool(request: Request) -> IO[bytes]:
    """The request body in a temporary file (not in memory); 413 as soon as it is known to be
    over MAX_DATABASE_BYTES, from its Content-Length or from what arrived."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_DATABASE_BYTES):
        raise ClientError(TOO_BIG, 413)
    spool = tempfile.TemporaryFile()  # noqa: SIM115 (the import's thread closes it)
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_DATABASE_BYTES:
                raise ClientError(TOO_BIG, 413)
            spool.write(chunk)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool


def _run(explorer: Explorer, spool: IO[bytes], variant: str, progress: ImportProgress) -> None:
    """Count the spooled PGN (in a worker thread), then drop the file."""
    try:
        text = io.TextIOWrapper(spool, encoding="utf-8-sig", errors="replace", newline=None)
        explorer.import_pgn(text, variant, progress)
    finally:
        spool.close()


async def import_database(request: Request) -> Response:
    """POST /api/explorer/import?variant=chess with a PGN file as the body (games without a
    Variant tag are of `variant`): 413 over MAX_DATABASE_BYTES, 409 while another import
    runs; else lines of JSON, `{"games": N, ...}` every half second while the games are
    counted and `{"done": true, "games", "indexed", "bad", "skipped", "errors": [{game,
    error}]}` at the end (the bad games, with their lines, left out)."""
    query = read_query(request, IMPORT_QUERY)
    variant = known_variant(query["variant"] or "chess")
    if variant is None:
        raise ClientError(f"unknown variant {query['variant'][:40]!r}")
    explorer = context(request).explorer
    if explorer.importing:
        raise ClientError("a database is being imported: try again when it is done", 409)
    explorer.importing = True
    try:
        spool = await _spool(request)
    except BaseException:
        explorer.importing = False
        raise
    progress = ImportProgress()
    task = asyncio.ensure_future(asyncio.to_thread(_run, explorer, spool, variant, progress))

    def finished(_: object) -> None:
        """The import is over, even if the page went away."""
        explorer.importing = False

    task.add_done_callback(finished)

    async def lines() -> AsyncIterator[str]:
        """Progress lines, then the report."""
        while not task.done():
            await asyncio.wait({task}, timeout=PROGRESS_S)
            if not task.done():
                yield json.dumps({"games": progress.games, "bad": progress.bad}) + "\n"
        if task.exception() is not None:
            yield json.dumps({"done": True, "error": f"the import failed: {task.exception()}"})
            return
        yield json.dumps({"done": True, **progress.json()}) + "\n"

    return StreamingResponse(lines(), media_type="application/x-ndjson")


ROUTES = [
    Route("/api/explorer", explore),
    Route("/api/explorer/import", import_database, methods=["POST"]),
]
