"""Engine protocols on stdin/stdout: UCI (the default) and xboard/CECP v2."""

from __future__ import annotations

import contextlib
import signal
import sys

from .channel import EOF, Reader, Writer


def _streams() -> tuple[Writer, Reader]:
    """The flushing stdout writer and the started stdin reader."""
    # A character the console cannot encode must not silence the engine.
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]
    return Writer(sys.stdout), Reader(sys.stdin.buffer).start()


def run(mode: str | None) -> int:
    """Speak `mode` ("uci", "xboard", "usi" or "ucci"); None picks by the first line's word
    (`xboard`, `usi`, `ucci`; anything else is UCI)."""
    out, reader = _streams()
    # The first line read, as the reader gives it, (text, too_long): the session answers it
    # (a line too long is skipped with the protocol's message, not cut and run).
    first: tuple[str, bool] | None = None
    if mode is None:
        while True:
            item = reader.get()
            if item is EOF:
                return 0
            first = item
            if item[0].split():
                break
        text, too_long = first
        word = text.split()[0]
        if word in ("xboard", "usi", "ucci") and not too_long:
            mode = word
    if mode == "xboard":
        from .xboard import Xboard

        # Old xboards interrupt the engine with SIGINT (we declare sigint=0); never die of it.
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signal.SIGINT, signal.SIG_IGN)

        return Xboard(out, reader).run()
    if mode in ("usi", "ucci"):
        from .ucci import Ucci
        from .usi import Usi

        session = Usi(out, reader) if mode == "usi" else Ucci(out, reader)
        return session.run(first)
    from .uci import Uci

    return Uci(out, reader).run(first)
