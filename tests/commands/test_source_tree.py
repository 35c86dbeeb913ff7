"""`python -m ferz` in a checkout runs its uncompiled source tree (Python imports the ./ferz of
the folder it runs in first): ferz says so precisely, not that it was installed without a C
compiler, and tools/check_bench.py refuses to bench it (issue 53, "docs as written")."""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ferz import commands
from tests.programs import need_module

ROOT = Path(__file__).resolve().parents[2]


def source_tree(tmp_path: Path) -> Path:
    """A checkout's layout with the ferz package uncompiled (its sources, no built module)."""
    need_module("cython")  # the uncompiled core runs on Cython's pure-Python shadow
    tree = tmp_path / "checkout"
    skip = shutil.ignore_patterns("*.so", "*.pyd", "*.c", "*.html", "__pycache__", "nets")
    shutil.copytree(ROOT / "ferz", tree / "ferz", ignore=skip)
    shutil.copytree(ROOT / "tools", tree / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("setup.py", "pyproject.toml"):
        shutil.copy(ROOT / name, tree / name)
    return tree


def test_a_source_tree_is_not_called_an_install_without_a_compiler(tmp_path) -> None:
    """`python -m ferz` in a checkout imports its ./ferz: uncompiled, ferz says that it runs
    the source tree (and how to run the compiled one), not that it was installed without a C
    compiler; tools/check_bench.py refuses at once instead of benching for ten minutes."""
    tree = source_tree(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FERZ_PURE")}
    done = subprocess.run(
        [sys.executable, "-m", "ferz", "perft", "1"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    warning = done.stderr.strip()
    assert warning.startswith("ferz: warning: ") and "./ferz" in warning, warning
    assert "source tree" in warning and "pip install -e ." in warning, warning
    assert "installed without a C compiler" not in warning
    check = subprocess.run(
        [sys.executable, "tools/check_bench.py"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 2, check.stdout
    assert check.stdout.startswith("check_bench: not run: ") and "source tree" in check.stdout


def test_a_shadowed_install_is_named(tmp_path, monkeypatch) -> None:
    """Beside an installed ferz with a compiled core, the warning names both: the source tree
    that runs and the install that would be fast."""
    core = tmp_path / "site" / "ferz" / "core"
    core.mkdir(parents=True)
    (core.parent / "__init__.py").write_text("")
    (core / f"position{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    # (not syspath_prepend: it calls invalidate_caches on ferz.core's finder classes, which fails)
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site"), *sys.path])
    monkeypatch.setattr("ferz.core.compiled", lambda: False)
    monkeypatch.setattr("ferz.core.PURE", False)
    warning = commands.pure_warning() or ""
    assert "you are running the uncompiled source tree in" in warning, warning
    assert f"not the installed ferz in {core.parent}" in warning, warning
