"""Line I/O for the protocols: a locked, flushing writer and a stdin reader thread."""

from __future__ import annotations

import queue
import threading
from typing import BinaryIO, TextIO

#: Longest input line kept; the rest of a longer line is read and thrown away.
MAX_LINE = 16384

#: The reader puts this on the queue at end of input (treated as `quit`).
EOF = None

#: Put on the queue by other threads to wake the command loop; input can never produce it,
#: because `clean` turns control characters into spaces.
WAKE = ("\x00wake", False)


class Writer:
    """Writes whole lines and flushes each one; a lock keeps lines from different threads apart."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.closed = False

    def line(self, text: str) -> None:
        """Write one line (without its newline) and flush it."""
        self.lines((text,))

    def lines(self, texts: tuple[str, ...] | list[str]) -> None:
        """Write several lines as one block no other thread can split."""
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write("".join(t + "\n" for t in texts))
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                # The GUI went away; nobody is left to read, so stop writing quietly.
                self.closed = True


def clean(raw: bytes) -> str:
    """Decode one raw input line: undecodable bytes and control characters become spaces."""
    text = raw.decode("utf-8", errors="replace").replace("\ufffd", " ")
    return "".join(c if c >= " " or c == "\t" else " " for c in text).strip()


def read_line(stream: BinaryIO) -> tuple[str, bool] | None:
    """Read one line; returns (text, too_long) or None at end of input."""
    raw = stream.readline(MAX_LINE + 1)
    if not raw:
        return None
    too_long = len(raw) > MAX_LINE and not raw.endswith(b"\n")
    if too_long:
        raw = raw[:MAX_LINE]
        while True:  # skip the rest of the oversized line without keeping it
            rest = stream.readline(MAX_LINE)
            if not rest or rest.endswith(b"\n"):
                break
    return clean(raw), too_long


class Reader:
    """Reads stdin on a daemon thread so commands arrive while the engine is thinking."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.queue: queue.Queue[tuple[str, bool] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="ferz-stdin", daemon=True)

    def start(self) -> Reader:
        """Start the reading thread; returns self."""
        self._thread.start()
        return self

    def _run(self) -> None:
        """Queue every line, then EOF."""
        try:
            while True:
                item = read_line(self._stream)
                if item is None:
                    break
                self.queue.put(item)
        except (OSError, ValueError):
            pass  # a closed or broken stdin is the same as end of input
        self.queue.put(EOF)

    def wake(self) -> None:
        """Make the command loop look at work posted by another thread."""
        self.queue.put(WAKE)

    def get(self, timeout: float | None = None) -> tuple[str, bool] | None:
        """The next (line, too_long) pair or EOF; raises queue.Empty after timeout."""
        return self.queue.get(timeout=timeout)
