"""tools/tune.py selfplay plays its games through ferz's match runner; tools/nnue.py train reads
`ferz datagen` data and text alike."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import chess

from ferz.board import Board
from tests.programs import need_module

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


def test_nnue_train_reads_datagen_chunks_as_it_reads_text(tmp_path) -> None:
    np = need_module("numpy")
    nnue = load("nnue")
    from ferz.datagen import fileformat as ff

    fens = [
        chess.STARTING_FEN,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b Kq - 3 17",
    ]
    records = [ff.TrainingRecord(fen, 25 * i - 30, i - 1, i, 0) for i, fen in enumerate(fens)]
    out = tmp_path / "run"
    out.mkdir()
    ff.write_chunk(out / "chunk-000000.fzd", records, "chess", {})
    (out / "manifest.json").write_text('{"chunks": [{"file": "chunk-000000.fzd"}]}')
    text = tmp_path / "run.txt"
    text.write_text(
        "".join(f"{r.fen};{r.white_result()};{r.white_score()}\n" for r in records) + "bad\n"
    )
    binary = nnue.encode(nnue.data_files([out]), "chess", cache=False)
    plain = nnue.encode([text], "chess", cache=False)
    for field in nnue.FIELDS:
        assert np.array_equal(binary[field], plain[field]), field
    assert binary["score"].tolist() == [-30.0, -5.0, -20.0]  # White's view (Black moves last)
    assert binary["result"].tolist() == [0.0, 0.5, 0.0]


def test_nnue_gen_points_to_ferz_datagen(capsys) -> None:
    assert load("nnue").main(["gen"]) == 2
    assert "ferz datagen" in capsys.readouterr().err
