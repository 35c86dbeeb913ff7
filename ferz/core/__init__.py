"""The compiled core: positions, move generation, search and evaluation on ints and arrays.

Every module here is Cython pure-Python mode: compiled to C by `pip install`, and importable as
plain Python when no compiled module exists or when the environment sets FERZ_PURE=1.
"""

from __future__ import annotations

import importlib
import importlib.abc
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


class _CImportAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Uncompiled, `from cython.cimports.ferz.core.x import y` imports ferz.core.x itself."""

    PREFIX = "cython.cimports."

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):  # noqa: D102
        if fullname.startswith(cls.PREFIX + "ferz"):
            return importlib.util.spec_from_loader(fullname, cls())
        return None

    def create_module(self, spec):  # noqa: D102
        module = importlib.import_module(spec.name[len(self.PREFIX) :])
        self.spec = module.__spec__
        return module

    def exec_module(self, module):  # noqa: D102
        # the import system has set the alias's spec on the module itself: give it its own
        # back, or `ferz` would no longer be a package (importlib.resources.files("ferz"))
        module.__spec__ = self.spec

    @classmethod
    def invalidate_caches(cls) -> None:
        """Nothing cached (the class itself sits in sys.meta_path, so importlib's
        invalidate_caches calls this on the class: MetaPathFinder's needs an instance)."""


if PURE and not any(f is _SourceFirst for f in sys.meta_path):
    sys.meta_path.insert(0, _SourceFirst)
if _CImportAlias not in sys.meta_path:
    sys.meta_path.insert(0, _CImportAlias)
    try:  # Cython's stand-in package lacks __spec__, which Python 3.11 reads for submodules
        import cython.cimports as _cimports

        if "__spec__" not in vars(_cimports):
            _cimports.__spec__ = None
    except ImportError:  # no Cython installed: only the compiled modules can run
        pass


def compiled() -> bool:
    """Tell whether the core modules in use are the compiled ones."""
    from . import position

    return not str(getattr(position, "__file__", "")).endswith(".py")
