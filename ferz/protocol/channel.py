"""Line I/O for the protocols: a locked, flushing writer and a stdin reader thread."""

from __future__ import annotations

import os
import queue
import threading
from typing import BinaryIO, TextIO

#: Longest input line kept; the rest of a longer line is read and thrown away. Room for the
#: position command of the longest game a Board holds (MAX_GAME_PLY moves of up to eight
#: characters each and a FEN): a GUI sends the whole game before every move, and a makruk
#: game against Fairy-Stockfish reached 3 263 plies (16 KiB was too little for it).
MAX_LINE = 65536

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
            text = "".join(t + "\n" for t in texts)
            try:
                try:
                    self._stream.write(text)
                except UnicodeEncodeError:  # a console that cannot show every character
                    encoding = getattr(self._stream, "encoding", None) or "ascii"
                    self._stream.write(text.encode(encoding, "replace").decode(encoding))
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                # The GUI went away; nobody is left to read, so stop writing quietly.
                self.closed = True


def clean(raw: bytes) -> str:
    """Decode one raw input line: undecodable bytes and control characters become spaces."""
    text = raw.decode("utf-8", errors="replace").replace("\ufffd", " ")
    return "".join(c if c >= " " or c == "\t" else " " for c in text).strip()


class Splitter:
    """Cuts a byte stream into cleaned lines; a line over MAX_LINE is cut and flagged too long."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._skipping = False  # inside the rest of an oversized line

    def feed(self, chunk: bytes) -> list[tuple[str, bool]]:
        """The complete lines that chunk finishes, as (text, too_long)."""
        self._buffer += chunk
        lines: list[tuple[str, bool]] = []
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                if len(self._buffer) > MAX_LINE:
                    if not self._skipping:
                        lines.append((clean(bytes(self._buffer[:MAX_LINE])), True))
                    self._skipping = True
                    self._buffer.clear()
                return lines
            raw = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            if self._skipping:
                self._skipping = False
            elif len(raw) > MAX_LINE:
                lines.append((clean(raw[:MAX_LINE]), True))
            else:
                lines.append((clean(raw), False))

    def end(self) -> list[tuple[str, bool]]:
        """The unterminated last line, if any."""
        rest = bytes(self._buffer)
        self._buffer.clear()
        if not rest or self._skipping:
            return []
        return [(clean(rest[:MAX_LINE]), len(rest) > MAX_LINE)]


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
        # os.read on the descriptor, not the buffered stream: a daemon thread blocked inside
        # a BufferedReader holds its lock and makes the interpreter abort when it exits.
        splitter = Splitter()
        try:
            fd = self._stream.fileno()
            while chunk := os.read(fd, 65536):
                for item in splitter.feed(chunk):
                    self.queue.put(item)
        except (OSError, ValueError):
            pass  # a closed or broken stdin is the same as end of input
        for item in splitter.end():
            self.queue.put(item)
        self.queue.put(EOF)

    def wake(self) -> None:
        """Make the command loop look at work posted by another thread."""
        self.queue.put(WAKE)

    def get(self, timeout: float | None = None) -> tuple[str, bool] | None:
        """The next (line, too_long) pair or EOF; raises queue.Empty after timeout."""
        return self.queue.get(timeout=timeout)
