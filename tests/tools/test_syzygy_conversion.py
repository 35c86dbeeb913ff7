"""tools/syzygy_conversion.py: the positions it picks and how it scores a game (no engines)."""

from __future__ import annotations

import sys

import chess
import chess.pgn
import chess.syzygy

from tests.conftest import DATA, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import syzygy_conversion as sc  # noqa: E402

MATERIALS = ["KRvKP", "KQvKR"]


def test_positions_are_classified_by_the_tables() -> None:
    """Won = WDL 2 for the side to move, drawn = WDL 0; legal, no capture; a slice is the same."""
    with chess.syzygy.open_tablebase(str(DATA / "syzygy")) as tables:
        for kind, wdl in (("won", 2), ("drawn", 0)):
            tasks = sc.pick_positions(tables, MATERIALS, kind, seed=7, count=3)
            assert [t.index for t in tasks] == [0, 1, 2]
            for task in tasks:
                board = chess.Board(task.fen)
                assert board.is_valid() and task.material in MATERIALS
                assert not any(board.is_capture(m) for m in board.legal_moves)
                assert tables.probe_wdl(board) == wdl
            again = sc.pick_positions(tables, MATERIALS, kind, seed=7, count=2)
            assert [t.fen for t in again] == [t.fen for t in tasks[:2]]


def test_ferz_side() -> None:
    """ferz wins a won position with the side to move and holds a drawn one with less material."""
    board = chess.Board("8/8/3k4/7q/8/6R1/2K5/8 w - - 0 1")
    assert sc.ferz_side(board, "won") == chess.WHITE
    assert sc.ferz_side(board, "drawn") == chess.WHITE  # R 5 against Q 9
    even = chess.Board("8/8/3k4/7r/8/6R1/2K5/8 w - - 0 1")
    assert sc.ferz_side(even, "drawn") == chess.BLACK  # equal: the side not to move


def test_half_points_lost() -> None:
    """A won position drawn costs 1, lost 2; a drawn one lost costs 1; a capped win fails."""
    game = chess.pgn.Game()

    def played(kind: str, result: str) -> sc.Played:
        task = sc.Task(kind, 0, "KRvKP", chess.STARTING_FEN)
        return sc.Played(task, chess.WHITE, result, "", 10, game)

    assert [played("won", r).half_points_lost for r in ("1-0", "1/2-1/2", "0-1")] == [0, 1, 2]
    assert [played("drawn", r).half_points_lost for r in ("1-0", "1/2-1/2", "0-1")] == [0, 0, 1]
    assert not played("won", "*").ok and played("drawn", "*").ok
