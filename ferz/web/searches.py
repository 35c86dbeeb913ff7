"""A bounded pool of engines: at most N searches at once, the rest wait in line (FIFO)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

STOP_GRACE_S = 5.0  # how long a stopped search may take to report its move


@dataclass
class Result:
    """The end of one search: the best move (None if there was none) and the last info seen."""

    best: str | None
    infos: dict[int, Any] = field(default_factory=dict)  # multipv number -> last Info


class SearchPool:
    """Engines shared by every game and analysis board, with a ceiling on think time."""

    def __init__(
        self,
        slots: int,
        max_think_ms: int,
        factory: Callable[[str], Any] | None = None,
        limits: Callable[..., Any] | None = None,
    ) -> None:
        """`factory(variant)` makes an engine and `limits(**fields)` its search limits; both
        default to ferz.engine's Engine and Limits (tests pass stand-ins)."""
        if slots < 1:
            raise ValueError("the search pool needs at least one slot")
        self.slots = slots
        self.max_think_ms = max_think_ms
        if factory is None or limits is None:
            from ..engine import Engine, Limits

            factory = factory or (lambda variant: Engine(variant=variant))
            limits = limits or Limits
        self._factory = factory
        self._limits = limits
        self._free: asyncio.Queue[int] | None = None
        # One engine per slot, for the variant it last searched: memory stays slots x Hash.
        self._engines: list[tuple[str, Any] | None] = [None] * slots
        self._owner: list[str | None] = [None] * slots
        self.running = 0
        self.waiting = 0

    def _queue(self) -> asyncio.Queue[int]:
        """The queue of free slots, made inside the running event loop."""
        if self._free is None:
            self._free = asyncio.Queue()
            for slot in range(self.slots):
                self._free.put_nowait(slot)
        return self._free

    def warm(self, variant: str) -> None:
        """Make every slot's engine for `variant` now, so the first move does not wait."""
        for slot in range(self.slots):
            self._engine(slot, variant)

    def _engine(self, slot: int, variant: str) -> Any:
        """The slot's engine, replaced by a new one when the variant changes."""
        held = self._engines[slot]
        if held is None or held[0] != variant:
            held = (variant, self._factory(variant))
            self._engines[slot] = held
            self._owner[slot] = None
        return held[1]

    async def search(
        self,
        *,
        owner: str,
        variant: str,
        fen: str,
        moves: Sequence[str],
        limits: dict[str, Any],
        options: dict[str, Any],
        on_info: Callable[[Any], None] | None = None,
    ) -> Result:
        """Search one position; waits for a free slot. Cancelling stops the engine cleanly.

        `owner` names the game or board: an engine that switches owner starts a new game
        (clears its hash) so that games do not leak into each other.
        """
        async with self._slot() as slot:
            engine = await self._prepare(slot, owner, variant, fen, moves, options)
            return await self._go(engine, limits, on_info)

    @contextlib.asynccontextmanager
    async def _slot(self) -> AsyncIterator[int]:
        """Wait in line for a free slot and hold it for the block."""
        queue = self._queue()
        self.waiting += 1
        try:
            slot = await queue.get()
        finally:
            self.waiting -= 1
        self.running += 1
        try:
            yield slot
        finally:
            self.running -= 1
            queue.put_nowait(slot)

    async def _prepare(
        self,
        slot: int,
        owner: str,
        variant: str,
        fen: str,
        moves: Sequence[str],
        options: dict[str, Any],
    ) -> Any:
        """The slot's engine, idle and set up for the position (a new game for a new owner)."""
        engine = self._engine(slot, variant)
        if engine.searching:  # a search cancelled twice may still be winding down
            engine.stop()
            await asyncio.to_thread(engine.wait)
        if self._owner[slot] != owner:
            engine.new_game()
            self._owner[slot] = owner
        for name, value in options.items():
            engine.set_option(name, value)
        engine.set_position(fen=fen, moves=list(moves))
        return engine

    async def _go(
        self, engine: Any, limits: dict[str, Any], on_info: Callable[[Any], None] | None
    ) -> Result:
        """Run one search on a prepared engine, within the think-time ceiling."""
        loop = asyncio.get_running_loop()
        result = Result(None)
        done: asyncio.Future[str | None] = loop.create_future()
        live = True

        def info_cb(info: Any) -> None:
            """Runs on the event loop: keep the last info per line and pass it on."""
            if not live or info.pv is None or not info.pv:
                return
            result.infos[info.multipv or 1] = info
            if on_info is not None:
                on_info(info)

        def best_cb(best: str | None, ponder: str | None = None) -> None:
            """Runs on the event loop when the engine reports its move."""
            if not done.done():
                done.set_result(best)

        engine.go(
            self._limits(**limits),
            on_info=lambda info: loop.call_soon_threadsafe(info_cb, info),
            on_bestmove=lambda best, ponder=None: loop.call_soon_threadsafe(best_cb, best),
        )
        ceiling = self.max_think_ms / 1000
        try:
            try:
                result.best = await asyncio.wait_for(asyncio.shield(done), ceiling)
            except asyncio.TimeoutError:
                engine.stop()  # the think-time ceiling: take the best move found so far
                result.best = await asyncio.wait_for(done, STOP_GRACE_S)
        except asyncio.CancelledError:
            live = False
            engine.stop()
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(done), STOP_GRACE_S)
            raise
        finally:
            live = False
        return result
