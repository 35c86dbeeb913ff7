"""Thinking time against the real engine process: `go movetime N` answers after about N ms
(the Move Overhead is for clocks), clock play still keeps the Move Overhead back.

A loaded machine can only make an answer later, never earlier (the engine's clock starts after
the GUI's), so the lower bounds are firm; the upper ones only catch a hang or a gross overrun.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator

import pytest

from tests.protocol.proc import EngineProcess


@pytest.fixture
def uci() -> Iterator[EngineProcess]:
    engine = EngineProcess("uci")
    engine.send("uci")
    engine.expect("uciok")
    engine.send("isready")
    engine.expect("readyok", timeout=30)
    yield engine
    assert engine.close() == 0


def think_ms(engine: EngineProcess, go: str, runs: int) -> list[float]:
    """Milliseconds from sending `go` to reading its bestmove, one per run (position varied)."""
    times = []
    for i in range(runs):
        engine.send("position startpos" + (" moves e2e4" if i % 2 else ""), "isready")
        engine.expect("readyok")
        start = time.monotonic()
        engine.send(go)
        engine.expect("bestmove")
        times.append((time.monotonic() - start) * 1000)
    return times


@pytest.mark.parametrize("movetime", [100, 20])
def test_go_movetime_takes_the_whole_movetime(uci: EngineProcess, movetime: int) -> None:
    # UCI: "search exactly x mseconds". The default Move Overhead (50) was once taken off it:
    # `go movetime 100` answered after 50 ms, `go movetime 20` after 6.
    times = think_ms(uci, f"go movetime {movetime}", 7)
    median = statistics.median(times)
    assert median >= 0.85 * movetime, times
    assert median < movetime + 400, times


def test_go_movetime_ignores_move_overhead(uci: EngineProcess) -> None:
    uci.send("setoption name Move Overhead value 1000")
    times = think_ms(uci, "go movetime 150", 3)
    assert statistics.median(times) >= 0.85 * 150, times


def test_clock_play_keeps_the_move_overhead(uci: EngineProcess) -> None:
    # With all of the clock taken by the overhead, ferz moves at once; without the overhead
    # 5 s for the last move before the time control would be worth seconds.
    uci.send("setoption name Move Overhead value 5000")
    times = think_ms(uci, "go wtime 5000 btime 5000 movestogo 1", 3)
    assert statistics.median(times) < 1000, times


def test_usi_byoyomi_without_main_time_is_this_moves_time() -> None:
    """USI `go btime 0 wtime 0 byoyomi 500` (a byoyomi game once the main time is gone): the
    byoyomi less the Move Overhead is spent on the move; it was spent like a clock running
    out, about 100 ms of a 1000 ms byoyomi."""
    usi = EngineProcess("usi")
    usi.send("usi")
    usi.expect("usiok")
    usi.send("setoption name Move Overhead value 100", "isready")
    usi.expect("readyok", timeout=30)
    times = []
    for moves in ("", " moves 7g7f", ""):
        usi.send("position startpos" + moves, "isready")
        usi.expect("readyok")
        start = time.monotonic()
        usi.send("go btime 0 wtime 0 byoyomi 500")
        usi.expect("bestmove")
        times.append((time.monotonic() - start) * 1000)
    usi.send("quit")
    assert usi.close() == 0
    assert statistics.median(times) >= 0.8 * (500 - 100), times
    assert statistics.median(times) < 500 + 400, times
