"""Line I/O: splitting input into clean bounded lines, writing whole flushed lines."""

from __future__ import annotations

import io
import threading

from ferz.core.defs import MAX_GAME_PLY
from ferz.protocol.channel import MAX_LINE, Splitter, Writer, clean


def test_lines_split_across_chunks_with_crlf() -> None:
    splitter = Splitter()
    assert splitter.feed(b"uc") == []
    assert splitter.feed(b"i\r\nisre") == [("uci", False)]
    assert splitter.feed(b"ady\n\n") == [("isready", False), ("", False)]
    assert splitter.feed(b"quit") == []
    assert splitter.end() == [("quit", False)]


def test_garbage_bytes_become_spaces() -> None:
    assert clean(b"\xff\xfego\x00 depth\t1\x07").split() == ["go", "depth", "1"]


def test_oversized_line_is_flagged_once_and_its_rest_dropped() -> None:
    splitter = Splitter()
    got = splitter.feed(b"x" * (MAX_LINE + 10))
    assert got == [("x" * MAX_LINE, True)]
    assert splitter.feed(b"y" * (3 * MAX_LINE)) == []
    assert splitter.feed(b"zz\nisready\n") == [("isready", False)]
    long_in_one = Splitter().feed(b"a" * (MAX_LINE + 1) + b"\nb\n")
    assert long_in_one == [("a" * MAX_LINE, True), ("b", False)]


def test_a_line_holds_the_position_command_of_the_longest_game() -> None:
    # a GUI sends the whole game before every move: MAX_GAME_PLY moves of up to eight
    # characters, their spaces and a FEN of a 16 x 16 board must fit
    assert MAX_LINE >= MAX_GAME_PLY * 9 + 1024


def test_writer_lines_are_whole_under_threads() -> None:
    stream = io.StringIO()
    writer = Writer(stream)

    def spam(tag: str) -> None:
        for i in range(300):
            writer.line(f"{tag} {i} " + tag * 50)

    threads = [threading.Thread(target=spam, args=(t,)) for t in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 600
    assert all(line.endswith(line[0] * 50) for line in lines)


def test_writer_survives_a_console_without_the_characters() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    writer = Writer(stream)
    writer.line("8  ♜  ♞  8")
    writer.line("readyok")
    assert raw.getvalue().decode() == "8  ?  ?  8\nreadyok\n"
    assert not writer.closed


def test_writer_closes_quietly_when_the_gui_is_gone() -> None:
    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    writer = Writer(Gone())
    writer.line("bestmove e2e4")
    assert writer.closed
    writer.line("anything")  # no exception
