"""`ferz match --ray`: a local Ray head plays the same node-limited match as the local runner,
game for game, and prints the same summary."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ferz import commands, pgn
from tests.programs import need_module

ARGS = [
    "match", "--quiet", "--engine", "cmd=ferz", "name=a", "--engine", "cmd=ferz", "name=b",
    "--nodes", "800", "--games", "4", "--max-moves", "40", "--concurrency", "2",
]  # fmt: skip


def play(capsys, tmp_path, name: str, *extra: str) -> tuple[list[str], list[pgn.Game]]:
    """Run the match; the summary lines (without time and PGN path) and the games."""
    out = tmp_path / f"{name}.pgn"
    assert commands.main([*ARGS, "--pgn", str(out), *extra]) == 0
    lines = capsys.readouterr().out.splitlines()
    return [line for line in lines if not line.startswith(("Time:", "PGN:"))], pgn.read_file(
        str(out)
    )


@pytest.mark.e2e
def test_ray_plays_the_local_match_game_for_game(capsys, tmp_path) -> None:
    ray = need_module("ray", "ray[default]")
    local_summary, local_games = play(capsys, tmp_path, "local")
    ray_summary, ray_games = play(capsys, tmp_path, "ray", "--ray", "local")
    assert not ray.is_initialized()  # the private head it started is gone again
    assert ray_summary == local_summary
    assert len(ray_games) == len(local_games) == 4
    for mine, theirs in zip(local_games, ray_games, strict=True):
        assert mine.mainline_moves() == theirs.mainline_moves()
        assert mine.headers["Result"] == theirs.headers["Result"]
        assert mine.headers["Round"] == theirs.headers["Round"]


def test_missing_ray_is_a_clear_error(capsys, monkeypatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        """Refuse to import ray."""
        if name == "ray":
            raise ImportError("no ray here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    assert commands.main([*ARGS, "--ray", "auto"]) == 2
    assert "pip install 'ferz[cluster]'" in capsys.readouterr().err


@pytest.mark.e2e
def test_a_game_whose_worker_dies_is_played_again(capsys, tmp_path, ray_local) -> None:
    """The engine of the first game kills its Ray worker; the game is replayed, none is lost.
    (Last in the module: the shared Ray instance passes on to test_match_resume's first test.)"""
    marker = tmp_path / "killed"
    standin = f"{sys.executable} {Path(__file__).resolve().parent / 'misbehave.py'}"
    code = commands.main(
        [
            "match", "--quiet", "--ray", "local", "--concurrency", "1", "--games", "2",
            "--movetime", "50", "--max-moves", "5",
            "--engine", f"cmd={standin} killparent {marker}", "--engine", f"cmd={standin} good",
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert marker.exists()  # the worker was killed once
    assert "Games: 2 of 2" in out and "Failures: 0 " in out, out
