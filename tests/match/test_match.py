"""`ferz match`: failures by stand-in engines, the summary's format, PGN output, SPRT stops,
and clear errors for bad input."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess.pgn
import pytest

from ferz import commands, pgn
from ferz.match import referee

HERE = Path(__file__).resolve().parent
STANDIN = f"{sys.executable} {HERE / 'misbehave.py'}"
SUMMARY_KEYS = [
    "Engines",
    "Variant",
    "Limits",
    "Games",
    "Score",
    "Elo",
    "Ptnml(0-2)",
    "Elo (pairs)",
    "nElo",
    "LOS",
    "Failures",
    "Terminations",
    "Time",
]


def run(capsys, *args: str) -> tuple[int, str, str]:
    """Run `ferz match ARGS`; (exit code, stdout, stderr)."""
    code = commands.main(["match", "--quiet", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def standins(behaviour: str) -> list[str]:
    """Two stand-in engines (misbehave.py): A behaves as `behaviour` says, B plays well."""
    return ["--engine", f"cmd={STANDIN} {behaviour}", "--engine", f"cmd={STANDIN} good"]


def summary(text: str) -> dict[str, str]:
    """The summary's `Key: value` lines."""
    return dict(
        line.split(": ", 1)
        for line in text.splitlines()
        if ": " in line and not line.startswith("game ")
    )


@pytest.mark.parametrize(
    ("kind", "termination"),
    [
        ("crash", "abandoned"),
        ("illegal", "rules infraction"),
        ("slow", "time forfeit"),
        ("stall", "abandoned"),
        ("disconnect", "abandoned"),
        ("nomove", "rules infraction"),
    ],
)
def test_a_failing_engine_loses_and_the_match_goes_on(capsys, tmp_path, kind, termination) -> None:
    """Each game ends with a loss for the failing engine and a recorded reason; the engine is
    restarted, so both games fail the same way and the summary counts them."""
    out_pgn = tmp_path / "games.pgn"
    code, out, _ = run(
        capsys, *standins(f"{kind} 2"), "name=good", "--tc", "1+0.01", "--grace", "1",
        "--games", "2", "--concurrency", "1", "--pgn", str(out_pgn),
    )  # fmt: skip
    assert code == 0, out
    figures = summary(out)
    failure = {"nomove": "protocol", "slow": "time"}.get(kind, kind)
    assert figures["Score"].startswith("W 0 D 0 L 2"), out
    assert figures["Failures"].startswith("2 (A 2, B 0;"), out
    assert f"{failure} 2" in figures["Failures"], out
    assert figures["Terminations"] == f"{termination} 2", out
    games = pgn.read_file(str(out_pgn))
    assert [g.headers["Termination"] for g in games] == [termination] * 2
    assert games[0].headers["Result"] == "0-1" and games[1].headers["Result"] == "1-0"
    assert games[0].headers["FerzFailure"] == f"A {failure}"
    assert f"{failure}:" in games[0].end().comment


def test_a_game_the_rules_never_end_is_drawn_when_the_referees_board_is_full(
    capsys, tmp_path, monkeypatch
) -> None:
    """No engine is blamed when a game outgrows the referee's board: it is adjudicated a
    draw at MAX_GAME_PLY plies (made small here), with the reason in the PGN."""
    monkeypatch.setattr(referee, "MAX_GAME_PLY", 8)
    out_pgn = tmp_path / "long.pgn"
    code, out, _ = run(
        capsys, *standins("good"), "--movetime", "20", "--games", "2", "--concurrency", "1",
        "--pgn", str(out_pgn),
    )  # fmt: skip
    assert code == 0, out
    figures = summary(out)
    assert figures["Score"].startswith("W 0 D 2 L 0"), out
    assert figures["Failures"].startswith("0"), out
    games = pgn.read_file(str(out_pgn))
    assert [g.headers["PlyCount"] for g in games] == ["8", "8"]
    assert "8 plies, the longest game the referee keeps" in games[0].end().comment


def test_summary_format_and_pgn_of_a_ferz_match(capsys, tmp_path) -> None:
    out_pgn = tmp_path / "ferz.pgn"
    code, out, _ = run(
        capsys, "--engine", "cmd=ferz", "name=one", "--engine", "cmd=ferz", "name=two",
        "option.Hash=8", "--nodes", "1500", "--games", "2", "--max-moves", "20",
        "--concurrency", "2", "--sprt", "-5", "5", "--pgn", str(out_pgn),
    )  # fmt: skip
    assert code == 0, out
    keys = [line.split(": ", 1)[0] for line in out.splitlines()]
    assert keys == SUMMARY_KEYS[:10] + ["SPRT"] + SUMMARY_KEYS[10:] + ["PGN"], out
    figures = summary(out)
    assert figures["Engines"] == "A = one, B = two"
    assert figures["Games"] == "2 of 2"
    assert figures["Failures"].startswith("0 ")
    assert figures["SPRT"].endswith("normalized: continue")
    text = out_pgn.read_text()
    games = [chess.pgn.read_game(io.StringIO(chunk)) for chunk in [text]]
    first = games[0]
    assert first is not None and not first.errors
    assert first.headers["White"] == "one" and first.headers["Round"] == "1"
    assert first.headers["TimeControl"] == "-" and first.headers["FerzLimits"] == "nodes=1500"
    assert "FEN" in first.headers  # the bundled openings
    comments = [node.comment for node in first.mainline()]
    assert all("s" in comment for comment in comments)
    assert "/" in comments[0]  # score/depth time
    ours = pgn.read_file(str(out_pgn))
    assert [g.headers["White"] for g in ours] == ["one", "two"]


def test_sprt_stops_the_match_when_decided(capsys) -> None:
    code, out, _ = run(
        capsys, *standins("crash 1"), "--movetime", "100", "--games", "60", "--concurrency", "1",
        "--sprt", "0", "200",  # (decided after 6 lost games; [0, 100] takes 14)
    )  # fmt: skip
    assert code == 0
    figures = summary(out)
    assert figures["SPRT"].endswith("H0 accepted"), out
    assert int(figures["Games"].split()[0]) < 60


def test_sigterm_stops_a_match_with_its_summary_and_games(tmp_path) -> None:
    """A `kill` (SIGTERM) ends a match as Ctrl-C does: the games played so far are summarised
    and kept in the PGN, and the exit code is 130."""
    games = tmp_path / "games.pgn"
    command = [
        sys.executable, "-m", "ferz", "match", "--quiet", "--engine", f"cmd={STANDIN} good",
        "--engine", f"cmd={STANDIN} good", "--movetime", "20", "--games", "400",
        "--concurrency", "1", "--pgn", str(games),
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(HERE.parent.parent))
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while b"[Result" not in (games.read_bytes() if games.exists() else b""):
        assert time.monotonic() < deadline and proc.poll() is None, "no game finished"
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    text = out.decode()
    assert "Stopped: interrupted" in text and "Score:" in text
    played = int(summary(text)["Games"].split()[0])
    assert 1 <= played < 400
    assert games.read_text().count("[Result ") == played


def test_stop_on_failure(capsys) -> None:
    code, out, _ = run(
        capsys, *standins("illegal 1"), "--movetime", "100", "--games", "10", "--concurrency", "1",
        "--stop-on-failure",
    )  # fmt: skip
    assert code == 0 and summary(out)["Games"] == "1 of 10", out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("--engine cmd=/no/such/engine --engine cmd=ferz --nodes 10",
         "engine A (engine) cannot run '/no/such/engine'"),
        ("--engine cmd=ferz --engine cmd=ferz --tc fast", "bad time control 'fast'"),
        ("--engine cmd=ferz --nodes 10", "--engine must be given twice"),
        ("--engine cmd=ferz --engine cmd=ferz", "no limit"),
        ("--engine cmd=ferz --engine cmd=ferz --nodes 10 --openings /no/file.epd",
         "cannot read openings /no/file.epd"),
        ("--engine cmd=ferz --engine cmd=ferz --nodes 10 --variant nosuch", "nosuch"),
        ("--engine cmd=ferz proto=cecp --engine cmd=ferz --nodes 10", "proto='cecp'"),
        ("--engine cmd=ferz option.NoSuchOption=1 --engine cmd=ferz --nodes 10",
         "has no option 'NoSuchOption'"),
    ],
)  # fmt: skip
def test_bad_input_is_a_clear_error(capsys, args, message) -> None:
    code, _, err = run(capsys, "--games", "2", *args.split())
    assert code == 2
    assert message in err and "Traceback" not in err


def test_bad_openings_name_file_and_line(capsys, tmp_path) -> None:
    bad = tmp_path / "bad.epd"
    bad.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nnot a position\n")
    code, _, err = run(
        capsys, "--engine", "cmd=ferz", "--engine", "cmd=ferz", "--nodes", "10",
        "--openings", str(bad),
    )  # fmt: skip
    assert code == 2 and f"{bad}:2: not a chess position" in err


def test_help_lists_every_option() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ferz", "match", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    for option in (
        "--engine",
        "--each",
        "--tc",
        "--movetime",
        "--nodes",
        "--depth",
        "--timemargin",
        "--openings",
        "--plies",
        "--shuffle",
        "--seed",
        "--concurrency",
        "--resign-score",
        "--draw-movenumber",
        "--max-moves",
        "--sprt",
        "--sprt-model",
        "--ray",
        "--pgn",
        "--resume",
    ):
        assert option in done.stdout, option


def test_params_reach_the_engine_and_an_epd_opening_is_played_twice(capsys, tmp_path) -> None:
    """FERZ_PARAMS goes to its engine only (an unknown name makes ferz refuse to start); an
    EPD opening is played twice, colours reversed (one pentanomial pair)."""
    openings = tmp_path / "o.epd"
    openings.write_text("4k3/8/8/8/8/8/4P3/4K2R w K - bm O-O;\n")
    base = ["--nodes", "300", "--games", "2", "--openings", str(openings), "--concurrency", "1"]
    code, out, _ = run(
        capsys, "--engine", "cmd=ferz", "params=lmr_div=190", "--engine", "cmd=ferz", *base
    )
    assert code == 0, out
    figures = summary(out)
    assert (
        figures["Games"] == "2 of 2" and sum(map(int, figures["Ptnml(0-2)"][1:-1].split(","))) == 1
    )
    code, _, err = run(
        capsys, "--engine", "cmd=ferz", "params=no_such_param=1", "--engine", "cmd=ferz", *base
    )
    assert code == 2 and "engine A (ferz)" in err
