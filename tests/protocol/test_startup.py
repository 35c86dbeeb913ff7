"""GUIs kill engines that are slow to answer `uci` (python-chess after 10 s, some GUIs sooner):
ferz must start with little work, whatever the machine's load."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time

from tests.protocol.proc import EngineProcess


def _children_cpu() -> float:
    """CPU seconds used by this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_uciok_quickly() -> None:
    """Start to `uciok` costs little CPU beyond the interpreter's own start (0.08 s on one
    machine, 0.3-0.6 s on a slower one where the bare interpreter takes 0.1-0.17 s; a heavy
    import would cost seconds, and test_uciok_imports_no_heavy_module names them) and arrives
    well inside python-chess's 10 s window even on a loaded machine."""
    times, cpu, bare = [], [], []
    for _ in range(5):
        before = _children_cpu()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(_children_cpu() - before)
        before = _children_cpu()
        engine = EngineProcess()
        engine.send("uci")
        engine.expect("uciok", timeout=10)
        times.append(time.monotonic() - engine.started)
        assert engine.close() == 0
        cpu.append(_children_cpu() - before)
    assert statistics.median(cpu) - statistics.median(bare) < 1.0, (cpu, bare)
    assert statistics.median(times) < 5.0, times


def test_uciok_imports_no_heavy_module() -> None:
    """What `uci` needs loads no numeric, training, network or GUI library (the trainer's,
    the web server's and the cluster's modules load only where their commands run)."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ferz"],
        input="uci\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "uciok" in run.stdout
    modules = {
        line.split("|")[2].strip()
        for line in run.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    loaded = {name.split(".")[0] for name in modules}
    assert "ferz" in loaded
    heavy = {"numpy", "torch", "chess", "ray", "tkinter", "aiohttp", "PIL", "pandas"}
    assert not loaded & heavy, sorted(loaded & heavy)
    # the tool commands (match, spsa, datagen, ...) load their modules only when they run
    tools = (
        "ferz.match",
        "ferz.match.spsa",
        "ferz.datagen",
        "ferz.commands.match",
        "ferz.variants.fmax",
    )  # fmax: user files
    loaded_tools = sorted(m for m in modules if m.startswith(tools))
    assert not loaded_tools, loaded_tools
