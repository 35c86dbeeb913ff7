"""Build ferz: the modules of ferz/core/ are Cython pure-Python mode, compiled to C here.

Without a working C compiler the build does not fail: it prints one warning and installs the
same modules as plain Python (hundreds of times slower to search, but complete).

gcc and clang compile with FLAGS below, whatever Python was built with; FERZ_CFLAGS="..."
replaces them (to measure others: bench/build_flags.py). CFLAGS adds to them (`make pgo`).
"""

import glob
import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

# Every module of ferz/core/ is compiled to C, except the package file and the pure-Python helpers.
PYTHON_ONLY = {
    "__init__.py", "rules.py", "defs.py", "fen.py", "tables.py", "factory.py", "evaltables.py",
    "chase.py",
}  # fmt: skip
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "cdivision": True,
    "infer_types": True,
}
# The compiler flags, measured with bench/build_flags.py (docs/engine.md, "Build flags"): -O3
# searches 3.3 times as fast as -O2 (it vectorises the network's int16 loops), so it is set
# here rather than left to the interpreter's sysconfig (-O2 on Debian's Python) or lost when
# CFLAGS is set (setuptools then drops sysconfig's flags). -fno-plt, -fno-semantic-interposition
# and LTO gained nothing measurable; -fwrapv as CPython; no -march=native: a wheel must run on
# every CPU of its architecture.
FLAGS = ["-O3", "-fwrapv", "-DNDEBUG"]
FALLBACK = """
WARNING: ferz's core could not be compiled ({error}).
ferz is installed as plain Python: it plays, but searches hundreds of times slower.
Install a C compiler (Debian: apt-get install build-essential) and reinstall for full speed.
"""


class BuildCore(build_ext):
    """Compile the core; without a compiler, keep the pure-Python modules and say so once."""

    def build_extensions(self) -> None:
        """Add the measured flags (gcc and clang only: MSVC takes other ones)."""
        if self.compiler.compiler_type == "unix":
            flags = os.environ.get("FERZ_CFLAGS", " ".join(FLAGS)).split()
            for ext in self.extensions:
                ext.extra_compile_args = [*ext.extra_compile_args, *flags]
                ext.extra_link_args = [*ext.extra_link_args, *flags]  # -O for -flto
        super().build_extensions()

    def run(self) -> None:
        """Build every extension, or none: a half-compiled core cannot import across modules."""
        try:
            super().run()
        except Exception as error:  # CompileError, LinkError, a missing or broken compiler
            for path in self.get_outputs():
                if os.path.exists(path):
                    os.remove(path)
            self.extensions = []
            sys.stderr.write(FALLBACK.format(error=str(error).strip() or type(error).__name__))


def extensions():
    """Cythonize the core unless FERZ_PURE=1 asks for a Python-only install (or this is an sdist:
    it ships the .py sources, from which the wheel's build makes fresh C)."""
    if os.environ.get("FERZ_PURE") == "1" or "sdist" in sys.argv[1:]:
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


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildCore})
