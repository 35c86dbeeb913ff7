"""ferz installs anywhere: without a C compiler the wheel carries the pure-Python core, says so,
and plays; `python -m build` makes an sdist that holds what a build needs and a compiled wheel
(built from that sdist) that installs in a fresh venv and plays, speaks UCI and serves as a
library there; neither holds generated C."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
GIT = dict(cwd=ROOT, capture_output=True, text=True, check=True)


def _source(out: Path) -> Path:
    """A copy of the work tree's source files in out/src (edits included; no build/ folder,
    compiled module or generated C that could hide a broken build)."""
    source = out / "src"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], **GIT)
    files = listed.stdout.splitlines()
    for name in files:
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    return source


def _wheel(out: Path, env: dict[str, str]) -> Path:
    """Build ferz's wheel into out with pip from a copy of the source files."""
    source = _source(out)
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
    assert "ferz/nets/xiangqi.nnue" in names
    assert "ferz/nets/crazyhouse.nnue" in names and "ferz/nets/makruk.nnue" in names
    assert "ferz/nets/shogi.nnue" in names and "ferz/nets/capablanca.nnue" in names
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


CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FERZ_PURE", "CC")}
LIBRARY = """
import ferz.core
from ferz.board import Board
from ferz.pgn import read_game
board = Board()
board.push_san("e4")
assert ferz.core.compiled(), "the installed core is not compiled"
assert board.attackers(True, "d5") == {"e4"} and board.piece_at("e4") == "P"
assert Board(variant="xiangqi").perft(2) == 1920
print("library ok")
"""


@pytest.mark.timeout(2400)  # two builds and a compile: 15 minutes on the loaded shared machine
def test_build_makes_an_sdist_and_a_wheel_that_installs_in_a_fresh_venv(tmp_path: Path) -> None:
    """`python -m build` (sdist, then the wheel from the unpacked sdist) with this interpreter's
    setuptools and Cython (--no-isolation: no download); the sdist has the sources, .pxd files,
    package data, README and LICENSE but no C; the wheel installs with pip in a venv without
    the system's packages (its one dependency, Cython, from the configured index or cache) and
    runs `ferz bench 4`, the library and a UCI game start."""
    pytest.importorskip("build", reason="python -m build makes the packages (pip install build)")
    source = _source(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("FERZ_PURE", "CC", "CFLAGS")}
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "-o", str(dist), str(source)],
        check=True,
        env=env,
        capture_output=True,
    )
    sdist = next(dist.glob("ferz-*.tar.gz"))
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    expected = {"LICENSE", "README.md", "pyproject.toml", "setup.py", "MANIFEST.in"}
    expected |= {"ferz/core/position.pxd", "ferz/core/position.py", "ferz/nets/chess.nnue"}
    expected |= {"ferz/data/book.bin", "ferz/data/epd/wac.epd", "ferz/variants/builtin.ini"}
    assert expected <= names, expected - names
    assert not [n for n in names if n.endswith((".c", ".so", ".pyc")) or n.startswith("tests/")]
    wheel = next(dist.glob("ferz-*.whl"))
    inside = zipfile.ZipFile(wheel).namelist()
    assert [n for n in inside if n.startswith("ferz/core/position.") and n.endswith(".so")]
    assert not [n for n in inside if n.endswith(".c")]
    assert "ferz-0.1.0.dist-info/licenses/LICENSE" in inside
    tracked = subprocess.run(["git", "ls-files", "ferz"], **GIT).stdout.splitlines()
    assert not set(tracked) - set(inside), set(tracked) - set(inside)  # web page, nets, data

    target = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
    python, ferz = target / "bin" / "python", target / "bin" / "ferz"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        env=CLEAN_ENV,
        cwd=tmp_path,
    )
    run = dict(capture_output=True, text=True, cwd=tmp_path, env=CLEAN_ENV, timeout=300)
    isolated = subprocess.run([str(python), "-c", "import chess"], **run)
    assert isolated.returncode != 0, "the venv sees the system's packages"
    bench = subprocess.run([str(ferz), "bench", "4"], **run)
    assert bench.returncode == 0 and "Nodes searched:" in bench.stdout, bench.stderr
    library = subprocess.run([str(python), "-c", LIBRARY], **run)
    assert library.stdout.strip() == "library ok", library.stderr
    assert _uci_bestmove(ferz, "position startpos moves e2e4 e7e5", "go depth 4") != "0000"


def _uci_bestmove(ferz: Path, *commands: str) -> str:
    """The best move of an installed `ferz uci` after the handshake and the commands given,
    read line by line (quit only once it has answered)."""
    engine = subprocess.Popen(
        [str(ferz), "uci"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=CLEAN_ENV,
    )
    assert engine.stdin is not None and engine.stdout is not None
    try:
        engine.stdin.write("\n".join(["uci", "isready", *commands]) + "\n")
        engine.stdin.flush()
        seen = []
        for line in engine.stdout:
            seen.append(line.strip())
            if line.startswith("bestmove "):
                break
        assert "uciok" in seen and "readyok" in seen, seen
        assert seen[-1].startswith("bestmove "), seen
        engine.stdin.write("quit\n")
        engine.stdin.flush()
        assert engine.wait(timeout=30) == 0
        return seen[-1].split()[1]
    finally:
        if engine.poll() is None:
            engine.kill()
