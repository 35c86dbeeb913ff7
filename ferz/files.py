"""Writing a file whole or not at all: a temporary file beside it, flushed to disk, renamed."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomically(path: str | Path, data: str | bytes) -> None:
    """Replace a file's contents (text as UTF-8) by way of PATH.tmp, fsync and a rename, so a
    process killed while writing leaves the previous file (or none), never half of one."""
    temporary = Path(f"{path}.tmp")  # datagen counts *.tmp among its own files
    raw = data.encode("utf-8") if isinstance(data, str) else data
    # the same directory, so the rename is atomic; an open() like write_text's keeps the mode
    with open(temporary, "wb") as handle:
        handle.write(raw)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
