"""xboard/CECP parsing and output formatting (pure functions, no engine)."""

from __future__ import annotations

import shlex

import pytest

from ferz.options import Option
from ferz.protocol.xboard import (
    Clock,
    format_features,
    format_option,
    format_thinking,
    parse_base,
    parse_level,
    parse_number,
    xboard_score,
)
from ferz.score import Score
from tests.protocol.standin import Info


def test_level_base_in_minutes_or_minutes_seconds() -> None:
    assert parse_level(["40", "5", "0"]) == (40, 300_000, 0)
    assert parse_level(["0", "2:30", "1"]) == (0, 150_000, 1000)
    assert parse_level(["0", "0:01", "0.01"]) == (0, 1000, 10)
    assert parse_base("0.5") == 30_000


@pytest.mark.parametrize(
    "args", [[], ["40", "5"], ["x", "5", "0"], ["40", "5:zz", "0"], ["-1", "5", "0"]]
)
def test_level_malformed(args: list[str]) -> None:
    with pytest.raises(ValueError):
        parse_level(args)


def test_numbers() -> None:
    assert parse_number("sd", ["7"]) == 7
    assert parse_number("st", ["0.01"], float) == 0.01
    for bad in ([], ["1", "2"], ["-3"], ["nan"], ["x"]):
        with pytest.raises(ValueError):
            parse_number("st", bad, float)


def test_scores_in_xboard_units() -> None:
    assert xboard_score(Score(cp=35)) == 35
    assert xboard_score(Score(mate=3)) == 100003
    assert xboard_score(Score(mate=-2)) == -100002
    assert xboard_score(Score(cp=-7)) == -7


def test_thinking_line_in_centiseconds() -> None:
    info = Info(depth=6, score_cp=-41, nodes=5400, time_ms=1234, pv=["e2e4", "e7e5"])
    assert format_thinking(info) == "6 -41 123 5400 e2e4 e7e5"
    assert format_thinking(Info(depth=2, score_mate=1, time_ms=5, pv=["h5f7"])) == (
        "2 100001 0 0 h5f7"
    )


def test_thinking_skips_bounds_other_pvs_and_bare_updates() -> None:
    assert format_thinking(Info(depth=6, score_cp=1, bound="lower", pv=["a2a3"])) is None
    assert format_thinking(Info(depth=6, score_cp=1, multipv=2, pv=["a2a3"])) is None
    assert format_thinking(Info(depth=6, currmove="a2a3", currmovenumber=1)) is None
    assert format_thinking(Info(string="hello")) is None


def test_option_features() -> None:
    assert format_option(Option("Move Overhead", "spin", 10, 0, 5000)) == (
        'feature option="Move Overhead -spin 10 0 5000"'
    )
    assert format_option(Option("UCI_LimitStrength", "check", False)) == (
        'feature option="UCI_LimitStrength -check 0"'
    )
    combo = Option("Style", "combo", "Normal", choices=("Solid", "Normal"))
    assert format_option(combo) == 'feature option="Style -combo Solid /// *Normal"'
    assert format_option(Option("Clear Hash", "button")) == 'feature option="Clear Hash -button"'
    assert format_option(Option("BookFile", "string", "")) == 'feature option="BookFile -file "'
    assert format_option(Option("SyzygyPath", "string", "")) == 'feature option="SyzygyPath -path "'
    assert format_option(Option("Name", "string", "x y")) == 'feature option="Name -string x y"'
    # xboard sets these with its own commands (memory, cores, hard/easy, variant).
    for name in ("Hash", "Threads", "Ponder", "UCI_Variant"):
        assert format_option(Option(name, "spin", 1, 1, 2)) is None


def test_features_parse_like_python_chess() -> None:
    lines = format_features("ferz 0.1", ["normal", "fischerandom"], [])
    assert lines[0] == "feature done=0" and lines[-1] == "feature done=1"
    features = {}
    for line in lines:
        for item in shlex.split(line.split(" ", 1)[1]):
            key, value = item.split("=", 1)
            features[key] = value
    for key in ("ping", "setboard", "usermove", "analyze", "reuse", "sigint", "colors"):
        assert key in features
    # python-chess rejects these values with a warning (XBoard's default sigterm=1 is fine)
    assert features.get("sigterm", "1") != "0" and features["reuse"] != "0"
    assert features["ping"] == features["setboard"] == features["usermove"] == "1"
    assert features["san"] == "0" and features["myname"] == "ferz 0.1"
    assert features["variants"] == "normal,fischerandom"


def test_clock_to_limits() -> None:
    clock = Clock(mps=40, base_ms=300_000, inc_ms=0, own_ms=120_000, opp_ms=90_000)
    fields = clock.limits(engine_white=False, own_moves_made=45)
    assert fields == dict(wtime=90_000, btime=120_000, winc=0, binc=0, movestogo=35)
    clock = Clock(mps=0, base_ms=60_000, inc_ms=500)
    assert clock.limits(True, 0) == dict(wtime=60_000, btime=60_000, winc=500, binc=500)
    assert Clock(st_ms=2000, depth=4).limits(True, 3) == dict(depth=4, movetime=2000)
    assert Clock(st_ms=500_000, nps=1).limits(True, 0) == dict(nodes=500)
