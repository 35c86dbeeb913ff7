"""Writing a file whole or not at all (a temporary file beside it, flushed to disk, renamed),
files that must change together (interrupts held back meanwhile), and one writer at a time
for the files of a long run (a lock held until the run releases it or its process ends)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; runs there are not guarded against twins
    fcntl = None  # type: ignore[assignment]

INTERRUPTS = (signal.SIGINT, signal.SIGTERM)  # what held_interrupts() holds back
_held: dict[str, IO[str]] = {}  # the locks this process holds, open until released


def write_atomically(path: str | Path, data: str | bytes) -> None:
    """Replace a file's contents (text as UTF-8) by way of PATH.tmp, fsync and a rename, so a
    process killed while writing leaves the previous file (or none), never half of one."""
    temporary = Path(f"{path}.tmp")  # datagen counts *.tmp among its own files
    raw = data.encode("utf-8") if isinstance(data, str) else data
    # the same directory, so the rename is atomic; an open() like write_text's keeps the mode
    try:
        with open(temporary, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        # a full disk or a kill: no half-written temporary is left beside the file either
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


@contextmanager
def held_interrupts() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back inside the block and deliver them after it, so that files
    written together (a data chunk and the manifest that lists it) change together. A no-op
    outside the main thread (where Python cannot set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    # Python-level handlers, not a blocked signal mask: a process-directed signal that the main
    # thread blocks goes to another thread, whose handler would still interrupt the main one
    saved = {sig: signal.signal(sig, lambda number, _: caught.append(number)) for sig in INTERRUPTS}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        if caught:
            signal.raise_signal(caught[0])  # now, to the handler the program had


def claim(path: str | Path, what: str) -> None:
    """Make this process the only writer of PATH (a match's PGN, a run's state or directory)
    until it calls release(PATH) or ends, by a lock on PATH.lock; ValueError naming the other
    process when one already writes it (two runs on the same files would overwrite each
    other's)."""
    lock = os.path.abspath(f"{path}.lock")
    if fcntl is None or lock in _held:
        return
    while True:
        try:
            handle = open(lock, "a+", encoding="utf-8")  # noqa: SIM115 (held until release)
        except OSError as error:
            raise ValueError(f"cannot write {path}: {error.strerror} ({lock})") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            pid = handle.read().strip() or "unknown"
            handle.close()
            raise ValueError(
                f"{path} is being written by another {what} (process {pid}): wait for it to "
                f"end or stop it, or give other files"
            ) from None
        if _same_file(handle, lock):
            break
        # the holder released (and deleted) the lock between our open and our flock: the
        # file we locked is no longer PATH.lock, so take the new one
        handle.close()
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    _held[lock] = handle


def _same_file(handle: IO[str], path: str) -> bool:
    """Whether an open file is still the file at `path` (not deleted or replaced)."""
    try:
        there = os.stat(path)
    except FileNotFoundError:
        return False
    here = os.fstat(handle.fileno())
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def release(path: str | Path) -> None:
    """Give up a claim on PATH: PATH.lock is deleted, so a finished run leaves no lock file
    beside its files (nothing happens where this process holds no such claim)."""
    lock = os.path.abspath(f"{path}.lock")
    handle = _held.pop(lock, None)
    if handle is None:
        return
    # deleted while still locked: a process that opened the old file meanwhile sees, once it
    # has the lock, that the file is gone (claim's _same_file) and makes a new one
    with contextlib.suppress(OSError):
        os.unlink(lock)
    handle.close()
