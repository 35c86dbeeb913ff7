"""ferz installs anywhere: without a C compiler the wheel carries the pure-Python core, says so,
and plays; the wheel holds the package data and no generated C."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def _wheel(out: Path, env: dict[str, str]) -> Path:
    """Build ferz's wheel into out from a copy of the work tree's source files (edits included;
    no build/ folder or compiled module that could hide a broken build)."""
    source = out / "src"
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    for name in files:
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
        check=True,
        env=env,
    )
    return next(out.glob("ferz-*.whl"))


def test_wheel_without_a_compiler_installs_the_pure_core(tmp_path: Path) -> None:
    """CC=/bin/false: the build succeeds, the wheel has no compiled module and no C, and the
    installed `ferz` warns once and counts perft correctly."""
    env = dict(os.environ, CC="/bin/false")
    env.pop("FERZ_PURE", None)
    wheel = _wheel(tmp_path, env)
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.endswith((".so", ".c", ".pyd"))]
    assert "ferz/data/epd/wac.epd" in names and "ferz/nets/chess.nnue" in names
    target = tmp_path / "venv"
    venv.create(target, system_site_packages=True, with_pip=False)
    python = target / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
        + [str(wheel)],
        check=True,
    )
    run = subprocess.run(
        [str(target / "bin" / "ferz"), "perft", "3"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FERZ_PURE")},
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "Nodes searched: 8902" in run.stdout
    assert run.stderr.count("warning: the core is not compiled") == 1
