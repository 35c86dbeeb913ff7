"""ferz.files: write_atomically, the one way match states, SPSA states and datagen chunks are
written, so that a process killed while writing never leaves half a file; held_interrupts,
which keeps a Ctrl-C from landing between two files that change together; claim, which keeps
a second run off the files that a running one writes."""

import os
import signal
import stat
import subprocess
import sys
import threading

import pytest

from ferz.files import claim, held_interrupts, write_atomically


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


def test_a_ctrl_c_inside_held_interrupts_lands_after_the_block():
    """Both writes of the block happen, then the KeyboardInterrupt; the program's own handler
    is back afterwards, also for a SIGTERM sent from another thread meanwhile."""
    written = []
    # Python's own Ctrl-C handler, whatever an earlier test left (the protocol loop run in-process
    # ignores SIGINT, as an engine under a GUI must)
    before_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt), held_interrupts():
            os.kill(os.getpid(), signal.SIGINT)
            written.append("chunk")
            written.append("manifest")
        assert written == ["chunk", "manifest"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before_int)

    terms = []
    before = signal.signal(signal.SIGTERM, lambda number, _: terms.append(number))
    try:
        with held_interrupts():
            sender = threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGTERM))
            sender.start()
            sender.join()
            assert terms == []
        assert terms == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_second_process_cannot_claim_files_another_one_writes(tmp_path):
    """claim: while one process holds a run's files, another is refused with an error naming
    the holder; the same process may claim again, and the files are free once it has exited."""
    if os.name != "posix":
        pytest.skip("advisory locks (fcntl) are POSIX only")
    pgn = tmp_path / "games.pgn"
    claim(pgn, "ferz match")
    claim(pgn, "ferz match")  # the same process: already its own
    assert (tmp_path / "games.pgn.lock").read_text() == f"{os.getpid()}\n"
    code = "import sys; from ferz.files import claim; claim(sys.argv[1], 'ferz match')"
    other = [sys.executable, "-c", code]
    refused = subprocess.run([*other, str(pgn)], capture_output=True, text=True)
    assert refused.returncode == 1
    assert f"games.pgn is being written by another ferz match (process {os.getpid()})" in (
        refused.stderr
    )
    free = tmp_path / "other.pgn"
    assert subprocess.run([*other, str(free)]).returncode == 0
    claim(free, "ferz match")  # the first process's lock ended with it
