"""tools/syzygy_check.py: the agreement check with python-chess and the endgame test sets."""

from __future__ import annotations

import shutil
import sys

from tests.conftest import DATA, ROOT
from tests.programs import need, need_library

sys.path.insert(0, str(ROOT / "tools"))
import syzygy_check  # noqa: E402


def test_agree_on_a_sample(tmp_path, capsys) -> None:
    """Sampled positions of the 3-man tables agree; the report names each table."""
    need_library("fathom", "libfathom1")
    for name in ("KQvK", "KRvK", "KBvK", "KNvK", "KPvK"):  # KPvK promotes into the others
        for suffix in (".rtbw", ".rtbz"):
            shutil.copy(DATA / "syzygy" / f"{name}{suffix}", tmp_path)
    assert syzygy_check.main(["agree", str(tmp_path), "--men", "2", "--sample", "30"]) == 0
    out = capsys.readouterr().out
    assert "KQvK" in out and "KPvK" in out and "mismatches: 0" in out


def test_positions_are_labelled(tmp_path) -> None:
    """Each record is a legal position Stockfish scores as a tablebase win or draw."""
    need("stockfish")
    out = tmp_path / "endgames.epd"
    argv = ["positions", str(DATA / "syzygy"), "--out", str(out), "--count", "2", "--depth", "8"]
    assert syzygy_check.main(argv) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 4
    assert sum('c0 "win"' in line for line in lines) == 2
    assert sum('c0 "draw"' in line for line in lines) == 2
