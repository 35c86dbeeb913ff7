"""A stand-in Engine for the web server tests: real ferz.board rules, a predictable "search".

The server's job is validation, clocks, persistence, queueing and streaming, so its tests
use an engine whose answers and timing they control: it plays the first legal move in UCI
order (or a move the test scripts), reports a chosen score, and thinks as long as told.
"""

from __future__ import annotations

import threading

from ferz.board import Board
from ferz.engine import ELO_MAX, ELO_MIN, Info, Limits
from ferz.options import Option, Options
from ferz.web.security import SecurityPolicy

# Starlette's TestClient sends `Host: testserver`; the tests allow that name like a user's
# --allow-host (the Host check itself is tested with real names in test_web_security.py).
TEST_POLICY = SecurityPolicy.make("127.0.0.1", ["testserver"])


class Stats:
    """What every stand-in engine of one test saw: concurrent searches, limits, options."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0
        self.searches: list[tuple[Limits, dict[str, object]]] = []


class StandIn:
    """Engine contract: set_position, go(limits, on_info, on_bestmove), stop, wait."""

    score_cp = 20  # score reported from the side to move
    bound_cp: int | None = None  # then a deeper lowerbound report with this score (fail high)
    think_ms = 20  # how long a time-limited search takes (infinite ones wait for stop)

    def __init__(self, variant: str, stats: Stats) -> None:
        self.variant = variant
        self.stats = stats
        self.options = Options(
            [
                Option("MultiPV", "spin", 1, 1, 500),
                Option("UCI_LimitStrength", "check", False),
                Option("UCI_Elo", "spin", 1500, ELO_MIN, ELO_MAX),
                Option("OwnBook", "check", False),
            ]
        )
        self.board = Board(variant=variant)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def searching(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def set_option(self, name: str, value: object) -> None:
        self.options.set(name, value)

    def new_game(self) -> None:
        pass

    def set_position(self, fen: str | None = None, moves: list[str] | tuple[str, ...] = ()) -> None:
        board = Board(fen, variant=self.variant)
        for uci in moves:
            board.push_uci(uci)
        self.board = board

    def go(self, limits: Limits, on_info=None, on_bestmove=None) -> None:
        options = {o.name: o.value for o in self.options}
        with self.stats.lock:
            self.stats.searches.append((limits, options))
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._search, args=(limits, on_info, on_bestmove), daemon=True
        )
        self._thread.start()

    def _search(self, limits: Limits, on_info, on_bestmove) -> None:
        stats = self.stats
        with stats.lock:
            stats.running += 1
            stats.peak = max(stats.peak, stats.running)
        try:
            moves = sorted(self.board.uci(m) for m in self.board.legal_moves)
            for n, uci in enumerate(moves[: self.options.get("MultiPV")]):
                if on_info:
                    on_info(Info(depth=1, multipv=n + 1, score_cp=self.score_cp - n, pv=[uci]))
            if on_info and self.bound_cp is not None and moves:
                deeper = Info(depth=2, multipv=1, score_cp=self.bound_cp, bound="lower")
                deeper.pv = [moves[-1]]
                on_info(deeper)
            if limits.infinite:
                self._stop.wait(60)
            elif limits.depth is None:
                self._stop.wait(self.think_ms / 1000)
        finally:
            with stats.lock:
                stats.running -= 1
        if on_bestmove:
            on_bestmove(moves[0] if moves else None, None)

    def stop(self) -> None:
        self._stop.set()

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def quit(self) -> None:
        self.stop()
        self.wait()


def factory(stats: Stats, **overrides: object):
    """An engine factory for create_app whose engines share `stats` (and attribute overrides)."""

    def make(variant: str) -> StandIn:
        engine = StandIn(variant, stats)
        for name, value in overrides.items():
            setattr(engine, name, value)
        return engine

    return make
