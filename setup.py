"""Build ferz: the modules of ferz/core/ are Cython pure-Python mode, compiled to C here."""

import glob
import os

from setuptools import setup

# Every module of ferz/core/ is compiled to C, except the package file and the pure-Python helpers.
PYTHON_ONLY = {"__init__.py", "rules.py", "defs.py", "fen.py"}
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "cdivision": True,
    "infer_types": True,
}


def extensions():
    """Cythonize the core unless FERZ_PURE=1 asks for a Python-only install."""
    if os.environ.get("FERZ_PURE") == "1":
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:  # no Cython: the pure-Python fallback still works
        return []
    paths = sorted(p for p in glob.glob("ferz/core/*.py") if os.path.basename(p) not in PYTHON_ONLY)
    only = os.environ.get("FERZ_MODULES")  # e.g. "position,perft": rebuild just these
    if only:
        paths = [p for p in paths if os.path.basename(p)[:-3] in only.split(",")]
    return cythonize(paths, compiler_directives=DIRECTIVES, quiet=True, nthreads=2)


setup(ext_modules=extensions())
