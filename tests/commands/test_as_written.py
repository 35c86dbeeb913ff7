"""What README.md and docs/ promise, as a newcomer meets it (issue 53, "docs as written"): the
first `ferz spsa` run, and no lock file left beside a match's PGN."""

from __future__ import annotations

import sys

from ferz import commands


def test_the_first_spsa_run_makes_its_cache_folder(tmp_path, capsys, monkeypatch) -> None:
    """With no ~/.cache/ferz/spsa yet, `ferz spsa` makes it (as `ferz datagen` makes its own)
    instead of failing to write NAME.json there, and leaves no lock file when it ends."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "fresh"))
    argv = ["spsa", "--param", "rfp_margin,150,80,250", "--iterations", "1", "--nodes", "50"]
    assert commands.main([*argv, "--concurrency", "1", "--quiet"]) == 0, capsys.readouterr().err
    folder = tmp_path / "fresh" / "ferz" / "spsa"
    assert [p.suffix for p in folder.iterdir()] == [".json"]


def test_a_match_leaves_no_lock_beside_its_pgn(tmp_path, capsys) -> None:
    """FILE.lock keeps a second match off a running one's PGN; once the match has ended
    (finished, or unable to start) it is gone, and a match that played nothing leaves no
    PGN either."""
    games = tmp_path / "games.pgn"
    common = ["match", "--depth", "1", "--games", "2", "--max-moves", "10", "--quiet"]
    common += ["--pgn", str(games)]
    assert commands.main([*common, "--engine", "cmd=ferz", "--engine", "cmd=ferz"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.pgn", "games.pgn.state.json"]
    other = tmp_path / "other.pgn"
    exits = f"cmd={sys.executable} -c pass"
    argv = [*common[:-1], str(other), "--engine", exits, "--engine", "cmd=ferz"]
    assert commands.main(argv) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.pgn", "games.pgn.state.json"]
    out = capsys.readouterr().out
    assert out.count("Games: 2 of 2") == 1 and "Games: 0" not in out  # no empty summary
