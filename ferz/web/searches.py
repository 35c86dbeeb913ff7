"""A bounded pool of engines: at most N searches at once; games' moves go before analysis.

Fairness: a waiting game move takes the slot of a running analysis at once (the analysis is
stopped and waits for its turn again); analyses share the slots they have, one slice at a
time, when others wait; every waiter learns its place in line. Memory: engines are kept per
variant, at most `max_engines` of them (the least recently used idle one goes first), and an
engine idle for IDLE_RELEASE_S is dropped. The engines are worker processes (ferz/web/workers.py)
unless a factory of in-process engines is given (the tests' stand-ins); a worker that crashes,
hangs or is killed is dropped and the search tried once more on a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..match.engines import EngineError
from .workers import InThread, Worker, WorkerSpec

log = logging.getLogger("ferz.web")

STOP_GRACE_S = 5.0  # how long a stopped search may take to report its move
PLAY = 0  # priority of an engine move in a game (lower goes first)
ANALYSIS = 1  # priority of analysis and review searches
ANALYSIS_SLICE_S = 2.0  # an analysis holding a slot yields it after this if another waits
IDLE_RELEASE_S = 60.0  # an engine unused this long is dropped (its hash and tables freed)
PLAY_RESERVE_S = 2.0  # while games have searched this recently, analyses leave them a slot
ENGINES_PER_SLOT = 4  # in-process engines kept per slot (other variants' engines wait idle)
WORKERS_PER_SLOT = 1  # worker processes per slot: one changes variant in 5-20 ms, and each
# costs 45-115 MB (more once it has played several variants): none is kept idle for a variant
RETRIES = 1  # a search whose engine failed is tried again this many times on a new one


@dataclass
class Result:
    """The end of one search: the best move (None if there was none) and each line's last
    exact report (a lowerbound or upperbound score is no score: `ferz analyse` and the match's
    drivers read lines so too, ferz.match.uci.parse_info)."""

    best: str | None
    infos: dict[int, Any] = field(default_factory=dict)  # multipv number -> last exact Info


@dataclass
class _Waiter:
    """A search waiting for a slot."""

    priority: int
    seq: int
    future: asyncio.Future[int]
    on_queue: Callable[[int], None] | None
    told: int = -1


@dataclass
class _Kept:
    """An engine with its variant, the game or board it last searched for, and when."""

    variant: str
    engine: Worker | InThread
    owner: str | None = None
    used: float = 0.0


@dataclass
class _Holder:
    """A search holding a slot: when it started, and a future that asks it to yield."""

    priority: int
    started: float
    wake: asyncio.Future[None]


def trim_memory() -> None:
    """Give freed memory back to the system (glibc keeps it otherwise); a no-op elsewhere."""
    gc.collect()
    with contextlib.suppress(Exception):  # not glibc, no ctypes: nothing to give back
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)


class SearchPool:
    """Engines shared by every game and analysis board, with a ceiling on think time."""

    def __init__(
        self,
        slots: int,
        max_think_ms: int,
        factory: Callable[[str], Any] | None = None,
        limits: Callable[..., Any] | None = None,
        *,
        analysis_slice_s: float = ANALYSIS_SLICE_S,
        idle_release_s: float = IDLE_RELEASE_S,
        max_engines: int | None = None,
        workers: WorkerSpec | None = None,
    ) -> None:
        """Without `factory` the engines are worker processes started as `workers` says
        (ferz's UCI engine); `factory(variant)` makes in-process engines instead, searching
        in threads (tests pass stand-ins). `limits(**fields)` makes search limits (default
        ferz.engine.Limits)."""
        if slots < 1:
            raise ValueError("the search pool needs at least one slot")
        self.slots = slots
        self.max_think_ms = max_think_ms
        self.analysis_slice_s = analysis_slice_s
        self.idle_release_s = idle_release_s
        if limits is None:
            from ..engine import Limits

            limits = Limits
        self._factory = factory
        self._spec = workers or WorkerSpec()
        self._limits = limits
        self._free: list[int] = list(range(slots - 1, -1, -1))
        self._waiters: list[_Waiter] = []
        self._holders: dict[int, _Holder] = {}
        self._seq = itertools.count()
        # Engines by variant: searching (one per held slot) and idle, least recently used first.
        per_slot = ENGINES_PER_SLOT if factory is not None else WORKERS_PER_SLOT
        self.max_engines = max(slots, max_engines or per_slot * slots)
        self._busy: dict[int, _Kept] = {}
        self._idle: list[_Kept] = []
        self._reaper: asyncio.TimerHandle | None = None
        self._last_play = -1e9  # when a game's search last started (monotonic)
        self._redispatch: asyncio.TimerHandle | None = None
        self.play_waits_ms: deque[float] = deque(maxlen=2000)  # recent waits of game moves
        self.play_holds_ms: deque[float] = deque(maxlen=2000)  # and how long they held a slot
        self.preemptions = 0
        self.released = 0
        self.failures = 0  # engines dropped because they crashed, hung or answered wrongly
        self._starting = 0  # engines being built or started (counted against the ceiling)
        self._closing: set[asyncio.Task[None]] = set()  # workers being told to quit

    @property
    def running(self) -> int:
        """Searches holding a slot now."""
        return len(self._holders)

    @property
    def waiting(self) -> int:
        """Searches waiting for a slot."""
        return len(self._waiters)

    def engines(self) -> int:
        """Engines alive now."""
        return len(self._busy) + len(self._idle)

    def _all(self) -> list[_Kept]:
        """Every engine kept, searching or idle."""
        return [*self._busy.values(), *self._idle]

    def stats(self) -> dict[str, Any]:
        """Counts and the waits of game moves (ms), for /api/stats and the load test."""

        def figures(times: deque[float]) -> dict[str, Any]:
            """Count, median, p95 and max (ms) of recent times."""
            ordered = sorted(times)

            def pct(p: float) -> float | None:
                """The p-quantile, None without any."""
                if not ordered:
                    return None
                return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))])

            return {
                "count": len(ordered),
                "p50": pct(0.5),
                "p95": pct(0.95),
                "max": None if not ordered else round(ordered[-1]),
            }

        return {
            "slots": self.slots,
            "running": self.running,
            "waiting": self.waiting,
            "engines": self.engines(),
            "max_engines": self.max_engines,
            "preemptions": self.preemptions,
            "engines_released": self.released,
            "engine_failures": self.failures,
            "workers": [
                {"pid": k.engine.pid, "variant": k.variant, "rss_mb": round(k.engine.rss_mb(), 1)}
                for k in self._all()
                if k.engine.pid is not None
            ],
            "play_wait_ms": figures(self.play_waits_ms),
            "play_search_ms": figures(self.play_holds_ms),
        }

    async def warm(self, variant: str) -> None:
        """Start an engine per slot for `variant` now, so the first moves do not wait."""
        missing = self.slots - len(self._idle)
        if missing <= 0:
            return
        built = await asyncio.gather(
            *(self._build(variant) for _ in range(missing)), return_exceptions=True
        )
        now = time.monotonic()
        for engine in built:
            if isinstance(engine, BaseException):
                log.warning("could not start an engine: %s", engine)
            else:
                self._idle.append(_Kept(variant, engine, None, now))
        self._schedule_reaper()

    async def _build(self, variant: str) -> Worker | InThread:
        """A new engine for `variant`: a worker process, or an in-process engine built in a
        thread (70-130 ms of tables and network: not on the event loop)."""
        self._starting += 1
        try:
            if self._factory is not None:
                return InThread(await asyncio.to_thread(self._factory, variant), variant)
            worker = Worker(self._spec)
            await worker.start(variant)
            return worker
        finally:
            self._starting -= 1

    async def _take(self, variant: str, owner: str) -> _Kept:
        """An idle engine for `variant` (the owner's own first, to keep its hash), or a new
        one; at the ceiling the least recently used idle engine goes (a worker process
        changes to the new variant instead of being replaced)."""
        self._idle = [k for k in self._idle if k.engine.alive or self._drop(k)]
        same = [k for k in self._idle if k.variant == variant]
        if same:
            kept = next((k for k in same if k.owner == owner), same[-1])
            self._idle.remove(kept)
            return kept
        if self.engines() + self._starting >= self.max_engines and self._idle:
            kept = self._idle.pop(0)
            self._starting += 1  # still counted while it changes variant
            switched = False
            try:
                with contextlib.suppress(EngineError):  # a worker that fails here is replaced
                    switched = await kept.engine.switch(variant)
            finally:
                self._starting -= 1
                if not switched:
                    self._drop(kept)  # also when the search is cancelled meanwhile
            if switched:
                kept.variant, kept.owner = variant, None
                return kept
            if self._factory is not None:
                trim_memory()  # free the old engine's memory before the new one is built
        return _Kept(variant, await self._build(variant))

    def _drop(self, kept: _Kept) -> bool:
        """Let an engine go: a worker is told to quit (killed if it failed). False, so that
        a filter can drop while it filters."""
        engine = kept.engine
        if not engine.alive:
            engine.kill()
        task = asyncio.get_running_loop().create_task(engine.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)
        return False

    async def close(self) -> None:
        """End every engine (the server stops); searches must have been cancelled."""
        kept, self._idle = self._all(), []
        self._busy.clear()
        if self._reaper is not None:
            self._reaper.cancel()
            self._reaper = None
        for k in kept:
            k.engine.stop()
            self._drop(k)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

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
        priority: int = PLAY,
        on_queue: Callable[[int], None] | None = None,
    ) -> Result:
        """Search one position; waits for a free slot. Cancelling stops the engine cleanly.

        `owner` names the game or board: an engine that switches owner starts a new game
        (clears its hash) so that games do not leak into each other. An analysis search that
        must yield its slot waits in line again and starts over. `on_queue(n)` hears the
        place in line (1 = next), and 0 when the search starts.
        """
        asked = time.monotonic()
        while True:
            slot = await self._acquire(priority, on_queue)
            held = time.monotonic()
            if priority == PLAY:
                self.play_waits_ms.append((held - asked) * 1000)
            try:
                for attempt in range(RETRIES + 1):
                    try:
                        engine = await self._prepare(slot, owner, variant, fen, moves, options)
                        result, yielded = await self._go(slot, engine, limits, on_info)
                        break
                    except EngineError as error:
                        # The engine crashed, hung or answered wrongly: drop it and search
                        # again on a new one (a second failure is reported to the caller).
                        self.failures += 1
                        kept = self._busy.pop(slot, None)
                        if kept is not None:
                            kept.engine.kill()
                            self._drop(kept)
                        if attempt == RETRIES:
                            raise EngineError(error.kind, f"{error} (tried twice)") from None
                        log.warning("search for %s failed (%s); trying a new engine", owner, error)
            finally:
                self._release(slot)
                if priority == PLAY:
                    self.play_holds_ms.append((time.monotonic() - held) * 1000)
            if not yielded:
                return result

    async def _acquire(self, priority: int, on_queue: Callable[[int], None] | None) -> int:
        """Wait in line (by priority, then arrival) for a slot."""
        loop = asyncio.get_running_loop()
        if priority == PLAY:
            self._last_play = time.monotonic()
        if self._free and not self._waiters and not (priority == ANALYSIS and self._reserved()):
            slot = self._free.pop()
            self._hold(slot, priority)
            if on_queue is not None:
                on_queue(0)
            return slot
        waiter = _Waiter(priority, next(self._seq), loop.create_future(), on_queue)
        self._waiters.append(waiter)
        self._waiters.sort(key=lambda w: (w.priority, w.seq))
        self._dispatch()  # a free slot kept for games goes to a game's move at once
        if waiter.future.done():
            if on_queue is not None:
                on_queue(0)
            return waiter.future.result()
        self._ask_to_yield()
        now = time.monotonic()
        for holder in self._holders.values():
            if holder.priority == ANALYSIS and not holder.wake.done():
                # Look again when this analysis has had its slice.
                later = holder.started + self.analysis_slice_s - now
                loop.call_later(max(0.0, later) + 0.001, self._ask_to_yield)
        self._tell_places()
        try:
            slot = await waiter.future
        except asyncio.CancelledError:
            if waiter.future.done() and not waiter.future.cancelled():
                self._release(waiter.future.result())  # a slot came with the cancellation
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
                self._tell_places()
            raise
        if on_queue is not None:
            on_queue(0)
        return slot

    def _hold(self, slot: int, priority: int) -> None:
        """Mark a slot as held by a new search."""
        loop = asyncio.get_running_loop()
        self._holders[slot] = _Holder(priority, time.monotonic(), loop.create_future())

    def _release(self, slot: int) -> None:
        """Give a slot back (its engine goes idle) and to whoever is next in line."""
        self._holders.pop(slot, None)
        kept = self._busy.pop(slot, None)
        if kept is not None and not kept.engine.alive:
            self._drop(kept)  # it failed while its search was being given up
        elif kept is not None:
            kept.used = time.monotonic()
            self._idle.append(kept)
            self._schedule_reaper()
        self._free.append(slot)
        self._dispatch()

    def _reserved(self) -> bool:
        """Whether a free slot is kept for games: they searched in the last PLAY_RESERVE_S
        and analyses hold every other slot. A game's move then starts at once instead of
        waiting for an analysis to stop (with 20 games, every stop added to every reply)."""
        if self.slots < 2 or time.monotonic() - self._last_play > PLAY_RESERVE_S:
            return False
        analyses = sum(h.priority == ANALYSIS for h in self._holders.values())
        return analyses >= self.slots - 1

    def _dispatch_later(self) -> None:
        """Dispatch again once the games' reservation may have lapsed (one timer at most)."""
        if self._redispatch is None:

            def again() -> None:
                """The timer fired: dispatch now."""
                self._redispatch = None
                self._dispatch()

            loop = asyncio.get_running_loop()
            self._redispatch = loop.call_later(PLAY_RESERVE_S + 0.01, again)

    def _dispatch(self) -> None:
        """Hand free slots to the waiters in line (analyses only where none is kept)."""
        self._waiters = [w for w in self._waiters if not w.future.done()]  # cancelled ones
        handed = False
        while self._free and self._waiters:
            waiter = self._waiters[0]
            if waiter.priority == ANALYSIS and self._reserved():
                self._dispatch_later()
                break
            self._waiters.pop(0)
            slot = self._free.pop()
            self._hold(slot, waiter.priority)
            waiter.future.set_result(slot)
            handed = True
        if handed:
            self._tell_places()
            self._ask_to_yield()

    def _tell_places(self) -> None:
        """Tell each waiter its place in line when it changed."""
        for place, waiter in enumerate(self._waiters, 1):
            if waiter.told != place and waiter.on_queue is not None:
                waiter.told = place
                waiter.on_queue(place)

    def _ask_to_yield(self) -> None:
        """Ask running analyses to give their slots to those who wait: every waiting game
        move takes one at once, waiting analyses take those held for a whole slice."""
        if not self._waiters:
            return
        now = time.monotonic()
        analyses = sorted(
            (h for h in self._holders.values() if h.priority == ANALYSIS and not h.wake.done()),
            key=lambda h: h.started,
        )
        play_waiting = sum(w.priority == PLAY for w in self._waiters)
        for holder in analyses[:play_waiting]:
            holder.wake.set_result(None)
        for holder in analyses[play_waiting:]:
            if now - holder.started >= self.analysis_slice_s:
                holder.wake.set_result(None)

    def _schedule_reaper(self) -> None:
        """Check for idle engines when the oldest idle one reaches the idle time."""
        if self._reaper is None and self.idle_release_s > 0 and self._idle:
            loop = asyncio.get_running_loop()
            oldest = min(k.used for k in self._idle)
            delay = max(0.0, oldest + self.idle_release_s - time.monotonic())
            self._reaper = loop.call_later(delay + 0.1, self._reap)

    def _reap(self) -> None:
        """Drop the engines idle for IDLE_RELEASE_S (a game or board that comes back gets a
        new engine, a tenth of a second)."""
        self._reaper = None
        now = time.monotonic()
        keep = [k for k in self._idle if now - k.used < self.idle_release_s]
        if len(keep) < len(self._idle):
            self.released += len(self._idle) - len(keep)
            for kept in self._idle:
                if kept not in keep:
                    self._drop(kept)  # a worker process quits: its memory goes with it
            self._idle = keep
            if self._factory is not None:
                trim_memory()
        self._schedule_reaper()

    async def _prepare(
        self,
        slot: int,
        owner: str,
        variant: str,
        fen: str,
        moves: Sequence[str],
        options: dict[str, Any],
    ) -> Any:
        """An engine for the slot, idle and set up for the position (a new game for a new
        owner)."""
        kept = await self._take(variant, owner)
        self._busy[slot] = kept
        engine = kept.engine
        if engine.searching:  # a search cancelled twice may still be winding down
            engine.stop()
            try:
                await asyncio.wait_for(engine.wait(), STOP_GRACE_S)
            except asyncio.TimeoutError:
                engine.kill()
                raise EngineError("stall", "no move after stop") from None
        if kept.owner != owner:
            engine.new_game()
            kept.owner = owner
        for name, value in options.items():
            if name in engine.options:  # a stand-in engine may lack some (OwnBook)
                engine.set_option(name, value)
        engine.set_position(fen, moves)
        return engine

    async def _go(
        self,
        slot: int,
        engine: Worker | InThread,
        limits: dict[str, Any],
        on_info: Callable[[Any], None] | None,
    ) -> tuple[Result, bool]:
        """Run one search on a prepared engine, within the think-time ceiling; the bool says
        it stopped early to yield its slot (an analysis that others waited for). An engine
        that gives no move STOP_GRACE_S after `stop` is killed (EngineError 'stall')."""
        result = Result(None)
        holder = self._holders[slot]
        live = True

        def info_cb(info: Any) -> None:
            """Runs on the event loop: keep the last exact info per line, pass each on."""
            if not live or info.pv is None or not info.pv:
                return
            if info.bound is None:
                result.infos[info.multipv or 1] = info
            if on_info is not None:
                on_info(info)

        done = engine.go(self._limits(**limits), info_cb)
        deadline = holder.started + self.max_think_ms / 1000
        yielded = False
        try:
            while not done.done():
                timeout = deadline - time.monotonic()
                if timeout > 0:
                    await asyncio.wait(
                        [done, holder.wake], timeout=timeout, return_when="FIRST_COMPLETED"
                    )
                if done.done():
                    break
                if holder.wake.done() or time.monotonic() >= deadline:
                    yielded = holder.wake.done() and time.monotonic() < deadline
                    break
            if not done.done():
                engine.stop()  # the ceiling, or a yield: take the best move found so far
                if yielded:
                    self.preemptions += 1
            try:
                result.best = await asyncio.wait_for(asyncio.shield(done), STOP_GRACE_S)
            except asyncio.TimeoutError:
                engine.kill()
                raise EngineError("stall", f"no move {STOP_GRACE_S:g} s after stop") from None
        except asyncio.CancelledError:
            live = False
            engine.stop()
            try:
                await asyncio.wait_for(asyncio.shield(done), STOP_GRACE_S)
            except asyncio.TimeoutError:
                engine.kill()  # hung: the slot's release drops it
            except (asyncio.CancelledError, EngineError):
                pass
            raise
        finally:
            live = False
        return result, yielded
