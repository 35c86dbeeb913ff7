"""PGN openings for `ferz match --openings` and `ferz datagen --openings`: read one game at a
time, main lines only; a bad game is an error naming the file, game and line."""

from __future__ import annotations

import pytest

from ferz.board import Board
from ferz.match import openings

GAMES = """[Event "one"]

1. e4 { a comment } e5 (1... c5 2. Nf3) 2. Nf3 $1 Nc6 *

[Event "two"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]

1. e3 Kd7 *
"""


def test_pgn_openings_are_each_games_start_and_main_line(tmp_path) -> None:
    path = tmp_path / "o.pgn"
    path.write_text(GAMES)
    found = openings.load(str(path), "chess", None, 0, 1)
    assert [o.moves for o in found] == [("e2e4", "e7e5", "g1f3", "b8c6"), ("e2e3", "e8d7")]
    assert found[0].fen == Board().fen()
    assert [o.moves for o in openings.load(str(path), "chess", 2, 0, 1)][0] == ("e2e4", "e7e5")


def test_datagen_takes_the_position_after_each_main_line(tmp_path) -> None:
    path = tmp_path / "o.pgn"
    path.write_text(GAMES)
    fens = [o.fen for o in openings.read_positions(path, "chess")]
    board = Board()
    for move in ("e2e4", "e7e5", "g1f3", "b8c6"):
        board.push_uci(move)
    assert fens == [board.fen(), "8/3k4/8/8/8/4P3/8/4K3 w - - 1 2"]


def test_a_bad_pgn_opening_names_file_game_and_line(tmp_path) -> None:
    path = tmp_path / "o.pgn"
    path.write_text(GAMES + '\n[Event "three"]\n\n1. e4 e5 2. Ke3 *\n')
    with pytest.raises(ValueError, match=r"o\.pgn: game 3: line 12: illegal move 'Ke3'"):
        openings.load(str(path), "chess", None, 0, 1)
    with pytest.raises(ValueError, match="cannot read"):
        openings.load(str(tmp_path / "none.pgn"), "chess", None, 0, 1)
