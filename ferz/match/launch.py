"""Starting an engine: the driver of its protocol (`create`) and its handshake (`launch`).

Kept apart from ferz.match.engines, which the drivers (uci, usi, xboard) build on, so that the
drivers import their base and this module imports the drivers, with no circle."""

from __future__ import annotations

from .engines import Engine, EngineError, EngineSpec
from .uci import UciEngine
from .usi import UcciEngine, UsiEngine
from .xboard import XboardEngine


def create(spec: EngineSpec) -> Engine:
    """The protocol's driver for a spec (not started: `launch` starts it)."""
    kinds = {"uci": UciEngine, "usi": UsiEngine, "ucci": UcciEngine, "xboard": XboardEngine}
    return kinds[spec.protocol](spec)


def launch(spec: EngineSpec, variant: str) -> Engine:
    """Start an engine and run its handshake; EngineError (the process is ended) on failure."""
    engine = create(spec)
    engine.start()
    try:
        engine.handshake(variant)
    except EngineError:
        engine.kill()
        raise
    return engine
