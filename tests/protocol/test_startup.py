"""GUIs kill engines that are slow to answer `uci` (python-chess after 10 s, some GUIs sooner):
ferz must start with little work, whatever the machine's load."""

from __future__ import annotations

import resource
import statistics
import time

from tests.protocol.proc import EngineProcess


def _children_cpu() -> float:
    """CPU seconds used by this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_uciok_quickly() -> None:
    """Start to `uciok` costs little CPU (about 0.08 s here; importing a heavy module would cost
    seconds) and arrives well inside python-chess's 10 s window even on a loaded machine."""
    times, cpu = [], []
    for _ in range(5):
        before = _children_cpu()
        engine = EngineProcess()
        engine.send("uci")
        engine.expect("uciok", timeout=10)
        times.append(time.monotonic() - engine.started)
        assert engine.close() == 0
        cpu.append(_children_cpu() - before)
    assert statistics.median(cpu) < 0.5, cpu
    assert statistics.median(times) < 5.0, times
