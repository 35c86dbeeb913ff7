"""Where long runs keep their outputs: one cache directory outside the repository."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(*parts: str) -> Path:
    """$XDG_CACHE_HOME/ferz/PARTS... (~/.cache when XDG_CACHE_HOME is unset or empty)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base, "ferz", *parts)
