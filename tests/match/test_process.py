"""ferz.match.engines.Process, the one line driver of engines for ferz match, tests and tools:
lines come back in order and stamped, every failure is an EngineError of the right kind."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from ferz.match.engines import EngineError, Process

# A child that echoes each input line as "got <line>" (its bytes as repr for a non-UTF-8 one),
# exits with code 3 on "die" and closes its output on "close".
ECHO = r"""
import os
import sys
for raw in sys.stdin.buffer:
    line = raw.rstrip(b"\n")
    if line == b"die":
        sys.exit(3)
    if line == b"close":
        os.close(1)
        sys.stdin.buffer.read()
        break
    try:
        text = line.decode()
    except UnicodeDecodeError:
        text = repr(line)
    print("got", text, flush=True)
"""


@pytest.fixture
def echo():
    """A started echo process, ended after the test."""
    proc = Process()
    proc.spawn([sys.executable, "-c", ECHO], stderr=subprocess.DEVNULL)
    yield proc
    proc.kill()


def test_expect_returns_the_lines_up_to_the_match(echo: Process) -> None:
    """expect: the lines read, the matching one last; wait_for: the lines before it."""
    for word in ("a", "b", "c"):
        echo.send(word)
    assert echo.expect("got b", 10) == ["got a", "got b"]
    assert echo.expect(lambda line: line.endswith("c"), 10) == ["got c"]
    echo.send("x y")
    assert echo.wait_for("got", 10, "echo") == []


def test_raw_bytes_and_stamps(echo: Process) -> None:
    """send_bytes writes bytes as they are; readline gives each line its arrival time."""
    before = time.monotonic()
    echo.send_bytes(b"\xff\xfe\n")
    stamp, line = echo.readline(time.monotonic() + 10)
    assert line == "got b'\\xff\\xfe'" and before <= stamp <= time.monotonic()


def test_timeout_is_a_stall_naming_what_came(echo: Process) -> None:
    """No matching line in time: a stall, whose message shows the lines that came."""
    echo.send("a")
    with pytest.raises(EngineError) as error:
        echo.expect("never", 0.5)
    assert error.value.kind == "stall" and "got a" in str(error.value)


def test_exit_is_a_crash_with_its_code(echo: Process) -> None:
    """A process that exits: a crash, with its exit code."""
    echo.send("die")
    with pytest.raises(EngineError) as error:
        echo.expect("got", 10)
    assert error.value.kind == "crash" and "code 3" in str(error.value)
    assert not echo.alive()


def test_closed_output_of_a_running_process_is_a_disconnect(echo: Process) -> None:
    """Output closed while the process runs: a disconnect."""
    echo.send("close")
    with pytest.raises(EngineError) as error:
        echo.expect("got", 10)
    assert error.value.kind == "disconnect" and echo.alive()


def test_a_missing_program_is_a_start_error() -> None:
    """A command that cannot run: a start error."""
    with pytest.raises(EngineError) as error:
        Process().spawn(["/nonexistent/engine"])
    assert error.value.kind == "start"
