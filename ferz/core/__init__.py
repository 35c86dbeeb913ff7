"""The compiled core: positions, move generation, search and evaluation on ints and arrays.

Every module here is Cython pure-Python mode: compiled to C by `pip install`, and importable as
plain Python when no compiled module exists or when the environment sets FERZ_PURE=1.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
PURE = os.environ.get("FERZ_PURE", "") not in ("", "0")


class _SourceFirst(importlib.machinery.PathFinder):
    """Import ferz.core.* from the .py source even when a compiled module sits beside it."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):  # noqa: D102
        if not fullname.startswith(__name__ + "."):
            return None
        source = _HERE / (fullname.rsplit(".", 1)[1] + ".py")
        if not source.exists():
            return None
        return importlib.util.spec_from_file_location(fullname, source)


if PURE and not any(f is _SourceFirst for f in sys.meta_path):
    sys.meta_path.insert(0, _SourceFirst)


def compiled() -> bool:
    """Tell whether the core modules in use are the compiled ones."""
    from . import position

    return not str(getattr(position, "__file__", "")).endswith(".py")
