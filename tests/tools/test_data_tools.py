"""tools/tune.py selfplay and tools/nnue.py gen play their games through ferz's match runner."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import chess

from ferz.board import Board

ROOT = Path(__file__).resolve().parents[2]


def load(name: str):
    """Import a script of tools/ as a module."""
    sys.path.insert(0, str(ROOT / "tools"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tune_selfplay_keeps_quiet_positions_of_finished_games(tmp_path) -> None:
    tune = load("tune")
    out = tmp_path / "games.txt"
    count = tune.selfplay(2, 400, out, seed=3, variant="chess", concurrency=2)
    lines = out.read_text().splitlines()
    assert count == len(lines) > 10
    for line in lines:
        fen, result = line.split(";")
        board = Board(fen)
        assert not board.is_check() and result in ("0.0", "0.5", "1.0")


def test_selfplay_of_a_variant(tmp_path) -> None:
    tune = load("tune")
    out = tmp_path / "xiangqi.txt"
    assert tune.selfplay(1, 300, out, seed=4, variant="xiangqi") > 0
    fen = out.read_text().splitlines()[0].split(";")[0]
    assert Board(fen, variant="xiangqi").ranks == 10


def test_nnue_positions_of_a_record_skip_checks_captures_and_lost_starts() -> None:
    nnue = load("nnue")
    from ferz.match.openings import Opening
    from ferz.match.referee import GameRecord, Ply

    record = GameRecord(0, "chess", Opening(chess.STARTING_FEN), True, result="1-0")
    record.plies = [Ply("e2e4", 30), Ply("d7d5", -20), Ply("e4d5", 50), Ply("d8d5", -40)]
    lines = nnue.positions(record)
    # the captures e4d5 and d8d5 are not quiet; the others keep White's score and the result
    assert [line.split(";")[1:] for line in lines] == [["1.0", "30"], ["1.0", "20"]]
    record.plies[0] = Ply("e2e4", 900)
    assert nnue.positions(record) == []  # the random plies left a lost position
