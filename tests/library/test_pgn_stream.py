"""pgn.stream_games: a PGN stream read one game at a time, a bad game reported and skipped."""

from __future__ import annotations

import io

from ferz import pgn

GOOD = """[Event "one"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
"""
LONG_COMMENT = """[Event "two"]
[Result "*"]

1. d4 { a comment over lines,
[%clk 0:01:00] where a line looks like a tag } d5 *
"""
ILLEGAL = """[Event "three"]
[Result "*"]

1. e4 e5 2. Ke3 *
"""
BAD_FEN = """[Event "four"]
[SetUp "1"]
[FEN "not a position"]

1. e4 *
"""


def test_a_stream_gives_the_games_read_games_gives() -> None:
    text = GOOD + "\n" + LONG_COMMENT + "\n" + GOOD
    streamed = list(pgn.stream_games(io.StringIO(text)))
    whole = list(pgn.read_games(text))
    assert [pgn.write(g) for g in streamed] == [pgn.write(g) for g in whole]
    assert [g.headers["Event"] for g in streamed] == ["one", "two", "one"]
    assert streamed[1].mainline_moves() == ["d2d4", "d7d5"]  # the comment did not cut it
    assert all(not g.errors for g in streamed)


def test_games_are_read_as_they_are_needed() -> None:
    """The first game comes before the stream is read to its end (bounded memory)."""
    handle = io.StringIO(GOOD + "\n" + GOOD + "\n" + GOOD)
    games = pgn.stream_games(handle)
    assert next(games).headers["Event"] == "one"
    assert handle.tell() < len(handle.getvalue()) // 2


def test_a_bad_game_is_reported_with_its_line_and_the_next_ones_are_read() -> None:
    text = GOOD + "\n" + ILLEGAL + "\n" + BAD_FEN + "\n" + GOOD
    games = list(pgn.stream_games(io.StringIO(text)))
    assert [g.headers["Event"] for g in games] == ["one", "three", "four", "one"]
    illegal, bad_fen = games[1], games[2]
    line = text.splitlines().index("1. e4 e5 2. Ke3 *") + 1
    assert len(illegal.errors) == 1 and f"line {line}:" in illegal.errors[0]
    assert "game 2" in illegal.errors[0] and "'Ke3'" in illegal.errors[0]
    assert illegal.mainline_moves() == ["e2e4", "e7e5"]  # what was read before the error
    assert bad_fen.errors and not bad_fen.mainline_moves()
    assert not games[0].errors and not games[3].errors
    assert games[3].end_board().is_checkmate()


def test_stray_text_between_games_is_an_error_of_its_own() -> None:
    text = GOOD + "\n]]] garbage )(\n\n" + GOOD
    games = list(pgn.stream_games(io.StringIO(text)))
    assert [g.headers["Event"] for g in games if not g.errors] == ["one", "one"]
    assert any(g.errors for g in games)
