"""Starting an engine: the driver of its protocol (`create`) and its handshake (`launch`).

Kept apart from ferz.match.engines, which the drivers (uci, usi, xboard) build on, so that the
drivers import their base and this module imports the drivers, with no circle."""

from __future__ import annotations

from .engines import Driver, EngineError, EngineSpec
from .uci import UciDriver
from .usi import UcciDriver, UsiDriver
from .xboard import XboardDriver


def create(spec: EngineSpec) -> Driver:
    """The protocol's driver for a spec (not started: `launch` starts it)."""
    kinds = {"uci": UciDriver, "usi": UsiDriver, "ucci": UcciDriver, "xboard": XboardDriver}
    return kinds[spec.protocol](spec)


def launch(spec: EngineSpec, variant: str) -> Driver:
    """Start an engine and run its handshake; EngineError (the process is ended) on failure."""
    engine = create(spec)
    engine.start()
    try:
        engine.handshake(variant)
    except EngineError:
        engine.kill()
        raise
    return engine
