"""Outside programs and optional Python packages that some tests need.

A test asks for what it needs with `need("stockfish")`, `need_module("torch")` or the marker
`@pytest.mark.programs("xboard", "Xvfb")` (checked by tests/conftest.py before the test runs).
When the thing is missing the test is skipped with a reason that names what to install (the
Debian package or the pip requirement), so the README's test command passes on a machine with
only Python and a C compiler. Under `FERZ_REQUIRE_PROGRAMS=1` (set by `.ci/run`, which installs
all of them) a missing one fails the test instead, so CI runs every one of these tests.
"""

from __future__ import annotations

import importlib
import os
import shutil
from types import ModuleType

import pytest

# Program name -> the Debian package that installs it.
PACKAGES = {
    "stockfish": "stockfish",
    "fairy-stockfish": "fairy-stockfish",
    "fairymax": "fairymax",
    "xboard": "xboard",
    "polyglot": "polyglot",
    "Xvfb": "xvfb",
    "chromium": "chromium",
    "import": "imagemagick",
    "tkscid": "scid",
    "valgrind": "valgrind",
    "node": "nodejs",
}

# Debian installs game engines in /usr/games, which a root shell often has off its PATH.
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/games"])


def required() -> bool:
    """Whether a missing program is a failure (CI) rather than a skip (a user's machine)."""
    return os.environ.get("FERZ_REQUIRE_PROGRAMS", "") not in ("", "0")


def find(program: str) -> str | None:
    """The full path of `program` on PATH or in /usr/games, or None."""
    return shutil.which(program, path=SEARCH_PATH)


def _missing(reason: str) -> None:
    """Skip (or, in CI, fail) the calling test for a missing dependency."""
    if required():
        pytest.fail(f"{reason} (FERZ_REQUIRE_PROGRAMS is set)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)  # also from a module's top level


def need(*programs: str) -> str:
    """The path of the first program, after checking that every one exists; else skip or fail."""
    paths = []
    for program in programs:
        path = find(program)
        if path is None:
            package = PACKAGES.get(program, program)
            _missing(f"needs {program} (apt-get install {package})")
        paths.append(path)
    return paths[0]


def need_library(name: str, package: str) -> str:
    """The file of a shared C library (ctypes' search); skip (or, in CI, fail) without it."""
    import ctypes.util

    found = ctypes.util.find_library(name)
    if found is None:
        _missing(f"needs the C library lib{name} (apt-get install {package})")
    return str(found)


def need_module(name: str, pip: str | None = None) -> ModuleType:
    """Import an optional Python package; skip (or, in CI, fail) when it is missing."""
    try:
        return importlib.import_module(name)
    except ImportError:
        _missing(f"needs the Python package {name} (pip install {pip or name.split('.')[0]})")
        raise  # not reached: skip and fail raise
