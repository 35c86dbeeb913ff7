"""UCI command parsing and output formatting (pure functions, no engine)."""

from __future__ import annotations

import pytest

from ferz.options import Option
from ferz.protocol.uci import (
    format_bestmove,
    format_info,
    format_option,
    parse_go,
    parse_position,
    parse_setoption,
)
from tests.protocol.standin import Info


def words(text: str) -> list[str]:
    """Tokens as the session splits them."""
    return text.split()


def test_go_clock_fields() -> None:
    fields = parse_go(words("wtime 60000 btime 59000 winc 1000 binc 900 movestogo 30"))
    assert fields == dict(wtime=60000, btime=59000, winc=1000, binc=900, movestogo=30)


def test_go_one_clock_only_like_fastchess() -> None:
    assert parse_go(["btime", "100"]) == {"btime": 100}


def test_go_limits_and_flags() -> None:
    fields = parse_go(words("depth 5 nodes 1000 mate 3 movetime 250 infinite ponder"))
    assert fields == dict(depth=5, nodes=1000, mate=3, movetime=250, infinite=True, ponder=True)


def test_go_searchmoves_last_or_in_the_middle() -> None:
    assert parse_go(words("searchmoves e2e4 d2d4")) == {"searchmoves": ["e2e4", "d2d4"]}
    fields = parse_go(words("searchmoves e2e4 depth 3"))
    assert fields == {"searchmoves": ["e2e4"], "depth": 3}
    assert parse_go(words("searchmoves 0000")) == {"searchmoves": []}


def test_go_negative_clock_is_zero_and_case_insensitive() -> None:
    assert parse_go(words("WTIME -50 btime 10")) == {"wtime": 0, "btime": 10}


@pytest.mark.parametrize(
    "text", ["depth", "depth x", "movetime 1.5", "nodes -3", "frobnicate 3", "perft", "wtime 1e3"]
)
def test_go_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        parse_go(text.split())


def test_go_perft() -> None:
    assert parse_go(["perft", "3"]) == {"perft": 3}


def test_position_startpos_and_fen() -> None:
    assert parse_position(["startpos"]) == (None, [])
    assert parse_position(words("startpos moves e2e4 e7e5")) == (None, ["e2e4", "e7e5"])
    fen = "8/8/8/8/8/8/8/K1k5 w - - 0 1"
    assert parse_position(["fen", *fen.split()]) == (fen, [])
    assert parse_position(["fen", *fen.split(), "moves", "a1a2"]) == (fen, ["a1a2"])


@pytest.mark.parametrize("text", ["", "fen", "fen moves e2e4", "startpos e2e4", "banana"])
def test_position_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        parse_position(text.split())


def test_setoption_names_and_values_with_spaces() -> None:
    assert parse_setoption(words("name Move Overhead value 100")) == ("Move Overhead", "100")
    assert parse_setoption(words("name Clear Hash")) == ("Clear Hash", None)
    assert parse_setoption(words("name SyzygyPath value")) == ("SyzygyPath", "")
    assert parse_setoption(words("name BookFile value /a b/c.bin")) == ("BookFile", "/a b/c.bin")
    with pytest.raises(ValueError):
        parse_setoption(["Hash", "16"])
    with pytest.raises(ValueError):
        parse_setoption(["name", "value", "3"])


def test_option_lines() -> None:
    assert format_option(Option("Hash", "spin", 16, 1, 1024)) == (
        "option name Hash type spin default 16 min 1 max 1024"
    )
    assert format_option(Option("Ponder", "check", False)) == (
        "option name Ponder type check default false"
    )
    assert format_option(Option("Clear Hash", "button")) == "option name Clear Hash type button"
    assert format_option(Option("SyzygyPath", "string", "")) == (
        "option name SyzygyPath type string default <empty>"
    )
    combo = Option("UCI_Variant", "combo", "chess", choices=("chess", "shogi"))
    assert format_option(combo) == (
        "option name UCI_Variant type combo default chess var chess var shogi"
    )


def test_info_field_order_like_stockfish() -> None:
    info = Info(
        depth=7,
        seldepth=11,
        multipv=1,
        score_cp=-35,
        bound="lower",
        wdl=(100, 700, 200),
        nodes=12345,
        nps=6000,
        hashfull=12,
        time_ms=2057,
        pv=["e2e4", "e7e5"],
    )
    assert format_info(info, show_wdl=True) == (
        "info depth 7 seldepth 11 multipv 1 score cp -35 lowerbound wdl 100 700 200 "
        "nodes 12345 nps 6000 hashfull 12 time 2057 pv e2e4 e7e5"
    )
    assert " wdl " not in format_info(info, show_wdl=False)


def test_info_mate_and_integers_only() -> None:
    info = Info(depth=3, score_mate=-2, nodes=10.0, nps=3.7, time_ms=1.9, pv=["a1a2"])  # type: ignore[arg-type]
    line = format_info(info)
    assert line == "info depth 3 score mate -2 nodes 10 nps 3 time 1 pv a1a2"
    assert "." not in line


def test_info_currmove_and_string() -> None:
    assert format_info(Info(depth=9, currmove="g1f3", currmovenumber=4)) == (
        "info depth 9 currmove g1f3 currmovenumber 4"
    )
    assert format_info(Info(string="hello\nworld  x")) == "info string hello world x"
    assert format_info(Info()) is None


def test_bestmove_line() -> None:
    assert format_bestmove("e2e4", "e7e5") == "bestmove e2e4 ponder e7e5"
    assert format_bestmove("e2e4") == "bestmove e2e4"
    assert format_bestmove(None) == "bestmove (none)"
