"""ferz.core's import hooks (its __init__): they live with the rest of Python's importers."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize("pure", ["0", "1"])
def test_importlib_can_invalidate_caches_after_ferz_core(pure: str) -> None:
    """The hooks sit in sys.meta_path as classes: importlib.invalidate_caches() (which pip,
    pytest and notebooks call) must work with them there, compiled or not."""
    code = "import ferz.core, importlib; importlib.invalidate_caches(); print('ok')"
    env = {**os.environ, "FERZ_PURE": pure}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


def test_uncompiled_cimports_leave_ferz_a_package() -> None:
    """Uncompiled, a core module's `cython.cimports.ferz...` import is the module itself: its
    own spec stays (importlib.resources reads ferz's data files through it)."""
    code = (
        "import ferz.core.san, ferz, importlib.resources; "
        "print(ferz.__spec__.name, ferz.core.__spec__.name, "
        "len(importlib.resources.files('ferz').joinpath('polyglot_random64.txt').read_text()) > 0)"
    )
    env = {**os.environ, "FERZ_PURE": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stdout.split() == ["ferz", "ferz.core", "True"], done.stderr[-2000:]
