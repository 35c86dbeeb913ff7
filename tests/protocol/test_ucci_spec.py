"""UCCI as its spec has it (https://www.xqbase.com/protocol/cchess_ucci.htm, version 3.0;
ElephantEye is the reference engine): one-word options set without `name`/`value`, the
standard options (usemillisec, batch, debug, hashsize, threads, ponder, usebook, newgame),
`go time` in seconds unless the GUI set usemillisec, batch mode. Driven through a plain `ferz`
whose first line is `ucci`, as a UCCI GUI starts it."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.protocol.proc import EngineProcess

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
STANDARD = ("usemillisec", "batch", "debug", "hashsize", "threads", "ponder", "usebook", "newgame")


@pytest.fixture
def ucci() -> Iterator[EngineProcess]:
    engine = EngineProcess()
    engine.send("ucci")
    engine.output = engine.expect("ucciok", timeout=30)
    yield engine
    engine.send("quit")
    engine.expect("bye")
    assert engine.close() == 0


def bestmove_ms(engine: EngineProcess, go: str) -> float:
    """Milliseconds from `go` to its bestmove."""
    engine.send("isready")
    engine.expect("readyok")
    start = time.monotonic()
    engine.send(go)
    engine.expect("bestmove", timeout=20)
    return (time.monotonic() - start) * 1000


def test_options_are_one_word_and_include_the_standard_ones(ucci: EngineProcess) -> None:
    options = [line.split() for line in ucci.output if line.startswith("option ")]
    # `option <one word> type <type> ...`: no `name`, no name with a space
    assert all(words[2] == "type" and words[1] != "name" for words in options), options
    names = [words[1] for words in options]
    assert set(STANDARD) <= set(names)
    assert "Move_Overhead" in names and "Hash" not in names and "OwnBook" not in names
    assert ["option", "usemillisec", "type", "check", "default", "false"] in options
    assert ["option", "hashsize", "type", "spin", "min", "1", "max", "4096", "default", "16"] in (
        options
    )


def test_setoption_name_value_without_keywords(ucci: EngineProcess) -> None:
    ucci.send(
        "setoption debug true",
        "setoption hashsize 32",
        "setoption usebook false",
        "setoption Move_Overhead 100",
        "setoption idle large",  # the spec: an option the engine does not offer is no error
        "setoption threads 0",  # 0: the engine's choice
        "isready",
    )
    lines = ucci.expect("readyok")
    messages = [x for x in lines if x.startswith("info ")]
    assert "info message Hash set to 32" in messages
    assert "info message OwnBook set to False" in messages
    assert "info message Move Overhead set to 100" in messages
    assert "info message Threads set to 1" in messages
    assert not [x for x in messages if "error" in x], messages


def test_go_time_is_in_seconds_until_usemillisec(ucci: EngineProcess) -> None:
    ucci.send(f"position fen {START}")
    # 10 s on the clock is worth some 500 ms; read as 10 ms it was answered at once
    assert bestmove_ms(ucci, "go time 10 increment 0 opptime 10 oppincrement 0") >= 100
    # the spec's example: the GUI sets the usemillisec the engine offered, then gives ms
    ucci.send("setoption usemillisec true", "setoption usebook false")
    ucci.send(f"position fen {START}")
    # 600 ms on the clock; read as 600 s it would think for half a minute
    assert bestmove_ms(ucci, "go time 600 increment 0 opptime 600 oppmovestogo 5") < 10_000
    ucci.send("setoption usemillisec false", "go time abc", "isready")
    lines = ucci.expect("readyok")
    assert any(x.startswith("info message error: go:") for x in lines), lines


def test_newgame_clears_the_hash(ucci: EngineProcess) -> None:
    def nodes() -> int:
        ucci.send(f"position fen {START}", "go depth 6")
        lines = ucci.expect("bestmove")
        last = [x.split() for x in lines if x.startswith("info depth 6 ")][-1]
        return int(last[last.index("nodes") + 1])

    first = nodes()
    assert nodes() != first  # the hash remembers the first search
    ucci.send("setoption newgame")
    assert nodes() == first  # forgotten: the same search as on a fresh engine


def test_batch_mode_reads_nothing_until_the_search_ends(ucci: EngineProcess) -> None:
    # The spec's batch example: without batch, the commands after `go` would arrive while
    # thinking (ferz stops the search for them); with it, each search runs to its depth.
    second = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    ucci.send(
        "setoption batch true",
        f"position fen {START}",
        "go depth 6",
        "isready",
        f"position fen {second}",
        "go depth 6",
    )
    lines = ucci.expect(lambda line: line.startswith("bestmove") and "readyok" in ucci.output)
    ready = lines.index("readyok")
    best = [i for i, x in enumerate(lines) if x.startswith("bestmove")]
    assert len(best) == 2 and best[0] < ready < best[1], lines
    assert sum(x.startswith("info depth 6 ") for x in lines) >= 2, lines
