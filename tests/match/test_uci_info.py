"""UCI `info` lines read back (ferz/match/uci.py `read_info`, the one reader the match's
drivers and the web's engine workers share): every field ferz writes, strict and lenient
reading, and the reply a match driver keeps from them (a USI or UCCI driver's in ferz's
notation)."""

from __future__ import annotations

import pytest

from ferz.engine import Info
from ferz.match.engines import EngineSpec, MoveLimits, Reply
from ferz.match.uci import parse_info, read_info
from ferz.match.usi import UcciDriver
from ferz.protocol.uci import format_info
from ferz.score import MATE_CP


@pytest.mark.parametrize(
    "info",
    [
        Info(depth=7, seldepth=12, multipv=2, score_cp=-35, nodes=9000, nps=300000, time_ms=30,
             hashfull=4, pv=["e2e4", "e7e5"]),
        Info(depth=20, multipv=1, score_mate=-3, bound="upper", nodes=5, pv=["a1a8"]),
        Info(depth=3, score_cp=12, bound="lower", wdl=(300, 600, 100), pv=["P@e4", "b10c8+"]),
        Info(depth=9, currmove="g1f3", currmovenumber=4),
        Info(string="book move e2e4"),
    ],
)  # fmt: skip
def test_info_lines_read_back_as_ferz_writes_them(info: Info):
    assert read_info(format_info(info, show_wdl=True)) == info


def test_fields_ferz_does_not_read_are_skipped():
    line = "info depth 5 tbhits 0 sbhits 0 refutation e2e4 e7e5 score cp 9 pv d2d4"
    assert read_info(line) == Info(depth=5, score_cp=9, pv=["d2d4"])
    assert read_info("info string  two  spaces") == Info(string="two  spaces")
    assert read_info("info") == Info()


@pytest.mark.parametrize(
    "line", ["info depth x pv e2e4", "info score cp 1.5", "info wdl 1 2 three", "info score mate +"]
)
def test_a_malformed_number_is_an_error_when_strict_and_left_out_otherwise(line: str):
    with pytest.raises(ValueError):
        read_info(line)
    lenient = read_info(line, strict=False)
    assert lenient.depth is lenient.score_cp is lenient.score_mate is lenient.wdl is None
    assert read_info("info depth x nodes 12 pv e2e4", strict=False) == Info(nodes=12, pv=["e2e4"])


def feed(reply: Reply, line: str) -> None:
    """One info line to a match driver's reply, split as the driver splits it."""
    parse_info(line.split(), reply)


def test_a_match_reply_keeps_depth_nodes_exact_scores_and_the_pv():
    reply = Reply()
    feed(reply, "info depth 4 nodes 100 score cp 25 pv e2e4 e7e5")
    assert (reply.depth, reply.nodes, reply.score, reply.pv) == (4, 100, 25, ["e2e4", "e7e5"])
    feed(reply, "info depth 5 score cp 90 lowerbound nodes 150")  # a bound
    assert (reply.depth, reply.nodes, reply.score, reply.pv) == (5, 150, 25, ["e2e4", "e7e5"])
    feed(reply, "info depth 6 score mate 3 pv")  # `pv` without moves: kept
    assert (reply.score, reply.pv) == (MATE_CP - 3, ["e2e4", "e7e5"])
    feed(reply, "info score mate -2")
    assert reply.score == -MATE_CP + 2
    feed(reply, "info score mate + depth 7")  # USI's sign-only mate: skipped
    assert (reply.score, reply.depth) == (-MATE_CP + 2, 7)
    feed(reply, "info string depth 9 score cp 1")  # a string says nothing
    assert (reply.score, reply.depth) == (-MATE_CP + 2, 7)


def test_a_ucci_drivers_pv_is_translated_once():
    engine = UcciDriver(EngineSpec([], protocol="ucci"))
    engine.ranks = 10  # xiangqi: UCCI counts ranks from 0, ferz from 1
    reply = Reply()
    first, then = "info depth 2 score 30 pv h2e2 h9g7", "info depth 2 nodes 500"
    engine._info(first.split(), reply)
    assert (reply.score, reply.pv) == (30, ["h3e3", "h10g8"])
    engine._info(then.split(), reply)  # no pv: the last one stays as it is
    assert (reply.nodes, reply.pv) == (500, ["h3e3", "h10g8"])


@pytest.mark.parametrize(("offered", "expected"), [(True, "time 61500"), (False, "time 61")])
def test_a_ucci_driver_gives_milliseconds_only_after_usemillisec(offered: bool, expected: str):
    """UCCI's go times are seconds unless the engine offered usemillisec and the driver set it
    (it does where it is offered); 61.5 s on the clock is `time 61` otherwise."""
    engine = UcciDriver(EngineSpec([], protocol="ucci"))
    sent: list[str] = []
    engine.send = sent.append  # type: ignore[method-assign]
    if offered:
        engine.option_names.add("usemillisec")
    engine.configure()
    assert sent == (["setoption usemillisec true"] if offered else [])
    limits = MoveLimits(wtime=61500, btime=30000, winc=2000, binc=2000)
    go = engine._go(limits, white=True)
    assert expected in go and ("opptime 30000" if offered else "opptime 30") in go
    assert ("increment 2000" if offered else "increment 2 ") in go + " "
