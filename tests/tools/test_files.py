"""ferz.files.write_atomically: the one way match states, SPSA states and datagen chunks are
written, so that a process killed while writing never leaves half a file."""

import os
import stat

import pytest

from ferz.files import write_atomically


def test_text_and_bytes_replace_the_file_and_leave_no_temporary(tmp_path):
    path = tmp_path / "state.json"
    write_atomically(path, "first é\n")
    write_atomically(str(path), b"\x00second")
    assert path.read_bytes() == b"\x00second"
    write_atomically(path, "third é")
    assert path.read_text(encoding="utf-8") == "third é"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_a_write_that_fails_keeps_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    write_atomically(path, "whole")

    def fail(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError, match="disk full"):
        write_atomically(path, "half")
    assert path.read_text() == "whole"


def test_the_file_gets_the_mode_any_new_file_gets(tmp_path):
    path = tmp_path / "chunk.fzd"
    write_atomically(path, b"data")
    plain = tmp_path / "plain"
    plain.write_bytes(b"data")
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)
