"""tools/nnue.py's errors: a missing package (PyTorch) or file is one line and exit 2, as in
ferz's commands, not a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_trainer_without_torch_is_one_line(tmp_path, capsys, monkeypatch) -> None:
    """`tools/nnue.py train` where PyTorch is not installed: one line naming the package and
    the extra that brings it, exit 2, no traceback."""
    monkeypatch.setattr(sys, "path", [str(ROOT / "tools"), *sys.path])
    import nnue as tool

    monkeypatch.setitem(sys.modules, "torch", None)
    argv = ["train", str(tmp_path / "data"), "--out", str(tmp_path / "x.nnue")]
    assert tool.main(argv) == 2
    assert capsys.readouterr().err.splitlines() == [
        "nnue.py: error: train needs torch: pip install -e '.[train]' (or pip install torch)"
    ]
    assert not (tmp_path / "x.nnue").exists()


@pytest.mark.parametrize("argv", [["check", "missing.nnue", "data"]])
def test_the_trainer_reports_a_missing_file_in_one_line(argv, tmp_path, capsys, monkeypatch):
    """A file that is not there is one line too, as in ferz's commands."""
    monkeypatch.setattr(sys, "path", [str(ROOT / "tools"), *sys.path])
    monkeypatch.chdir(tmp_path)
    import nnue as tool

    assert tool.main(argv) == 2
    assert capsys.readouterr().err.splitlines() == [
        "nnue.py: error: missing.nnue: No such file or directory"
    ]
