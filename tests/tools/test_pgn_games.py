"""tools/pgn_games.py: the seeded game files and the side-by-side speed run."""

from __future__ import annotations

import io
import sys

import chess.pgn

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import pgn_games  # noqa: E402


def test_files_are_seeded_legal_and_annotated(tmp_path) -> None:
    path = tmp_path / "games.pgn"
    pgn_games.main(["make", str(path), "--games", "4", "--seed", "3"])
    text = path.read_text()
    again = "".join(pgn_games.games_text(4, 3))
    assert text == again  # the seed makes the same file
    handle = io.StringIO(text)
    games = [chess.pgn.read_game(handle) for _ in range(4)]
    assert all(g is not None and not g.errors for g in games)
    assert chess.pgn.read_game(handle) is None
    assert "[%clk" in text and all(g.headers["WhiteElo"].isdigit() for g in games)
    plain = "".join(pgn_games.games_text(2, 3, "plain"))
    assert "{" not in plain and "(" not in plain


def test_the_speed_run_compares_the_readers(tmp_path, capsys) -> None:
    path = tmp_path / "games.pgn"
    pgn_games.make(str(path), 3, 1, "rich")
    pgn_games.main(["speed", str(path), "--repeat", "1"])
    out = capsys.readouterr().out
    assert "best: ferz.pgn read_game " in out and "ratio" in out
    assert out.count(" 3 games") >= 5
