"""GUIs kill engines that are slow to answer `uci`: ferz must be quick (target 0.3 s)."""

from __future__ import annotations

import statistics
import time

from tests.protocol.proc import EngineProcess


def test_uciok_quickly() -> None:
    times = []
    for _ in range(5):
        engine = EngineProcess()
        engine.send("uci")
        engine.expect("uciok", timeout=10)
        times.append(time.monotonic() - engine.started)
        assert engine.close() == 0
    # 0.08 s here when the machine is quiet; the bound leaves room for a loaded CI machine.
    assert statistics.median(times) < 1.0, times
