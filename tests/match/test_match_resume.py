"""`ferz match --resume`: a stopped match continues as if it had never stopped; its state file
is checked (settings, PGN, integrity) and an existing PGN is never overwritten silently."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ferz import pgn
from tests.match.test_match import run, summary

HERE = Path(__file__).resolve().parent
STANDIN = f"{sys.executable} {HERE / 'misbehave.py'}"
# A plays its first legal move, B too but an illegal one at its 9th: wins, draws and failures
ENGINES = ("--engine", f"cmd={STANDIN} good", "name=first",
           "--engine", f"cmd={STANDIN} illegal 9", "name=second")  # fmt: skip


def figures(text: str) -> dict[str, str]:
    """The summary's `Key: value` lines but Time and PGN (which differ between runs)."""
    return {k: v for k, v in summary(text).items() if k not in ("Time", "PGN")}


def games(path: Path) -> list[tuple]:
    """What decides each game of a PGN: round, players, start, moves, result, termination."""
    return [
        (
            g.headers["Round"],
            g.headers["White"],
            g.headers["Black"],
            g.headers.get("FEN"),
            g.mainline_moves(),
            g.headers["Result"],
            g.headers["Termination"],
        )
        for g in pgn.read_file(str(path))
    ]


def state(path: Path) -> dict:
    """The state file of the match writing `path`."""
    return json.loads(Path(f"{path}.state.json").read_text())


@pytest.mark.e2e
def test_a_match_resumes_as_ray_tasks(capsys, tmp_path, ray_local) -> None:
    """Begun locally, resumed with --ray local: the missing games are played, the rest kept.
    (First in the module: it joins the Ray instance test_match_ray's last test left up.)"""
    common = [*ENGINES, "--movetime", "1000", "--concurrency", "2"]
    whole = tmp_path / "whole.pgn"
    code, out, _ = run(capsys, *common, "--games", "6", "--pgn", str(whole))
    assert code == 0
    part = tmp_path / "part.pgn"
    assert run(capsys, *common, "--games", "3", "--pgn", str(part))[0] == 0
    code, resumed, err = run(
        capsys, *common, "--games", "6", "--pgn", str(part), "--resume", "--ray", "local"
    )
    assert code == 0, err
    assert figures(resumed) == figures(out)
    assert games(part) == games(whole)


def test_a_match_stopped_by_sigterm_resumes_as_if_it_never_stopped(capsys, tmp_path) -> None:
    """Stopped after a few games (two at once, so they finish out of order) and resumed, a
    match ends with the games, W/D/L, pairs and failures of one that ran without a stop."""
    common = [*ENGINES, "--movetime", "1000", "--games", "24", "--concurrency", "2"]
    whole = tmp_path / "whole.pgn"
    code, out, _ = run(capsys, *common, "--pgn", str(whole))
    assert code == 0
    expected = figures(out)
    stopped = tmp_path / "stopped.pgn"
    command = [sys.executable, "-m", "ferz", "match", "--quiet", *common, "--pgn", str(stopped)]
    env = dict(os.environ, PYTHONPATH=str(HERE.parent.parent))
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not Path(f"{stopped}.state.json").exists() or len(state(stopped)["games"]) < 3:
        assert time.monotonic() < deadline and proc.poll() is None, "no games finished"
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    played = len(state(stopped)["games"])
    assert 3 <= played < 24
    assert len(games(stopped)) == played
    code, out, err = run(capsys, *common, "--pgn", str(stopped), "--resume")
    assert code == 0, err
    assert f"{played} games played" in err
    assert figures(out) == expected
    assert games(stopped) == games(whole)
    assert sorted(int(k) for k in state(stopped)["games"]) == list(range(24))


def test_a_second_match_on_the_pgn_of_a_running_one_is_refused(capsys, tmp_path) -> None:
    """Two matches writing one PGN would overwrite each other's games and state: while one
    runs, the same command (with or without --resume) exits 2 naming the running process."""
    common = [*ENGINES, "--movetime", "1000", "--games", "400", "--concurrency", "1"]
    running = tmp_path / "running.pgn"
    command = [sys.executable, "-m", "ferz", "match", "--quiet", *common, "--pgn", str(running)]
    env = dict(os.environ, PYTHONPATH=str(HERE.parent.parent))
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not Path(f"{running}.state.json").exists():
            assert time.monotonic() < deadline and proc.poll() is None, "no game finished"
            time.sleep(0.02)
        for resume in ([], ["--resume"]):
            code, _, err = run(capsys, *common, "--pgn", str(running), *resume)
            assert code == 2
            assert f"is being written by another ferz match (process {proc.pid})" in err
        assert proc.poll() is None  # the running match goes on
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    assert proc.returncode == 130


def test_a_resumed_match_may_be_extended_and_plays_what_one_longer_match_plays(
    capsys, tmp_path
) -> None:
    """ferz at fixed nodes is deterministic: 2 games, then --games 4 with --resume, give the
    games of one 4-game match; the last game of the first run is written again (as if the
    match had been killed before its state was saved) and is dropped and played again."""
    common = ["--engine", "cmd=ferz", "name=a", "--engine", "cmd=ferz", "name=b",
              "--nodes", "150", "--max-moves", "12", "--concurrency", "1"]  # fmt: skip
    whole = tmp_path / "whole.pgn"
    code, out, _ = run(capsys, *common, "--games", "4", "--pgn", str(whole))
    assert code == 0
    part = tmp_path / "part.pgn"
    assert run(capsys, *common, "--games", "2", "--pgn", str(part))[0] == 0
    kept = state(part)
    del kept["games"]["1"]  # the state as it was before game 2 was saved
    Path(f"{part}.state.json").write_text(json.dumps(kept))
    code, resumed, err = run(capsys, *common, "--games", "4", "--pgn", str(part), "--resume")
    assert code == 0, err
    assert "1 games played" in err
    assert figures(resumed) == figures(out)
    assert games(part) == games(whole)


def test_changed_settings_are_refused_naming_them(capsys, tmp_path) -> None:
    """Another seed, limit, engine or option: exit 2 with the difference named, files kept."""
    games_pgn = tmp_path / "g.pgn"
    common = ["--movetime", "1000", "--games", "2", "--pgn", str(games_pgn)]
    assert run(capsys, *ENGINES, *common)[0] == 0
    before = games_pgn.read_bytes(), Path(f"{games_pgn}.state.json").read_bytes()
    other = list(ENGINES)
    other[-1] = "name=third"
    cases = [
        ([*ENGINES, *common, "--seed", "2"], "--seed: stored 1, now 2"),
        ([*ENGINES, *common[2:], "--nodes", "100"], "--movetime: stored 1000, now None"),
        ([*other, *common], "engine B's name: stored 'second', now 'third'"),
        ([*ENGINES, *common, "--variant", "chess960"], "--variant: stored 'chess'"),
        ([*ENGINES, *common, "--sprt", "0", "5"], "--sprt: stored None, now [0.0, 5.0]"),
    ]
    for args, message in cases:
        code, _, err = run(capsys, *args, "--resume")
        assert code == 2 and message in err, (args, err)
        assert (games_pgn.read_bytes(), Path(f"{games_pgn}.state.json").read_bytes()) == before
    code, _, err = run(capsys, *ENGINES, *common[:2], "--games", "1", *common[4:], "--resume")
    assert code == 2 and "--games 1 is fewer than the 2" in err


def test_a_decided_sprt_or_a_complete_match_resumes_to_nothing(capsys, tmp_path) -> None:
    """A match whose SPRT decided says so, plays nothing, and exits 0 (even with more games)."""
    games_pgn = tmp_path / "sprt.pgn"
    args = ["--engine", f"cmd={STANDIN} crash 1", "--engine", f"cmd={STANDIN} good",
            "--movetime", "1000", "--concurrency", "1", "--sprt", "0", "100",
            "--pgn", str(games_pgn)]  # fmt: skip
    code, out, _ = run(capsys, *args, "--games", "60")
    assert code == 0 and figures(out)["SPRT"].endswith("H0 accepted")
    before = games_pgn.read_bytes()
    code, again, _ = run(capsys, *args, "--games", "100", "--resume")
    assert code == 0
    assert "Resumed: nothing to play, its SPRT had decided" in again
    assert figures(again)["SPRT"] == figures(out)["SPRT"]
    assert games_pgn.read_bytes() == before
    complete = tmp_path / "complete.pgn"
    common = [*ENGINES, "--movetime", "1000", "--games", "2", "--pgn", str(complete)]
    assert run(capsys, *common)[0] == 0
    code, again, _ = run(capsys, *common, "--resume")
    assert code == 0 and "Resumed: nothing to play, it was complete" in again
    assert figures(again)["Score"].startswith("W ") and figures(again)["Games"] == "2 of 2"


def test_a_bad_state_is_refused_and_left_intact(capsys, tmp_path) -> None:
    """A truncated or foreign state file, or a PGN that lacks the state's games: exit 2,
    nothing written."""
    games_pgn = tmp_path / "g.pgn"
    common = [*ENGINES, "--movetime", "1000", "--games", "2", "--pgn", str(games_pgn)]
    assert run(capsys, *common)[0] == 0
    path = Path(f"{games_pgn}.state.json")
    whole = path.read_bytes()
    written = games_pgn.read_bytes()
    for text, message in [
        (whole[: len(whole) // 2], "not a whole ferz match state"),
        (b"", "not a whole ferz match state"),
        (b'{"kind": "other"}', "not a whole ferz match state"),
        (whole.replace(b'"pgn": "g.pgn"', b'"pgn": "h.pgn"'), "is the state of h.pgn"),
    ]:
        path.write_bytes(text)
        code, _, err = run(capsys, *common, "--resume")
        assert code == 2 and message in err, err
        assert path.read_bytes() == text and games_pgn.read_bytes() == written
    path.write_bytes(whole)
    games_pgn.write_text(written.decode().replace('[Round "2"]', '[Round "7"]'))
    code, _, err = run(capsys, *common, "--resume")
    assert code == 2 and "does not hold game 2" in err
    assert path.read_bytes() == whole


def test_an_existing_pgn_is_never_overwritten_silently(capsys, tmp_path) -> None:
    """A PGN that holds games is refused without --resume, and with it when it has no state."""
    games_pgn = tmp_path / "old.pgn"
    games_pgn.write_text('[Event "mine"]\n\n1. e4 *\n')
    common = [*ENGINES, "--movetime", "1000", "--games", "2", "--pgn", str(games_pgn)]
    code, _, err = run(capsys, *common)
    assert code == 2 and "already holds a match: add --resume" in err
    code, _, err = run(capsys, *common, "--resume")
    assert code == 2 and "has no state file" in err
    assert games_pgn.read_text() == '[Event "mine"]\n\n1. e4 *\n'
    fresh = tmp_path / "new.pgn"  # --resume with nothing to resume starts the match
    code, _, _ = run(capsys, *[*common[:-1], str(fresh)], "--resume")
    assert code == 0 and len(games(fresh)) == 2
    code, _, err = run(capsys, *[*common[:-1], str(fresh)])
    assert code == 2 and "already holds a match" in err
    assert len(games(fresh)) == 2
