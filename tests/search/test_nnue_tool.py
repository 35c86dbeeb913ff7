"""tools/nnue.py: Stockfish self-play positions, and a trained network that ferz reads and
scores as the float model does (the network's worth is judged by matches)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ferz.core import factory, nnue
from ferz.core.evaluate import Evaluator
from ferz.variants import get
from tests.programs import find, need_module
from tests.search.helpers import random_game

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import nnue as tool  # noqa: E402

STOCKFISH = find("stockfish")


@pytest.mark.e2e
@pytest.mark.programs("stockfish")
def test_gen_keeps_quiet_positions_with_scores_and_results(tmp_path):
    """Every kept line is a legal quiet position, a result and a score in range."""
    import chess

    out = tmp_path / "positions.txt"
    count = tool.gen(3, 300, out, seed=5, engine=STOCKFISH)
    lines = out.read_text().splitlines()
    assert count == len(lines) > 10
    for line in lines:
        fen, result, score = line.split(";")
        board = chess.Board(fen)
        assert board.is_valid() and not board.is_check()
        assert result in ("0.0", "0.5", "1.0")
        assert abs(int(score)) <= 3000


def test_trained_network_scores_like_the_float_model(tmp_path):
    """A short training run writes a network that loads, fits chess, and whose integer scores
    follow the float model's within the rounding of its weights."""
    torch = need_module("torch")
    import random

    rng = random.Random(3)
    lines = []
    for _ in range(60):
        *_, board = random_game(rng, rng.randint(4, 40))
        material = sum(
            {"P": 100, "N": 300, "B": 300, "R": 500, "Q": 900}.get(c.upper(), 0)
            * (1 if c.isupper() else -1)
            for c in board.fen().split()[0]
        )
        lines.append(f"{board.fen()};0.5;{material}")
    data = tmp_path / "data.txt"
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "tiny.nnue"
    torch.manual_seed(1)
    stats = tool.train([data], out, "chess", 16, 2, 16, 30, 64, 0.01, 0.0, 400, 1)
    assert stats["positions"] == 60
    net = nnue.read(out)
    rules = get("chess")
    assert net.fits(rules) and net.hidden == 16 and net.buckets == 2
    ev = Evaluator(rules, net=net)
    pos = factory.position(rules, None, ev)
    errors = []
    for line in lines:
        fen = line.split(";")[0]
        pos.set_fen(fen)
        if pos.pcount[0] == 1 or pos.pcount[1] == 1:
            continue  # (a bare king is evaluated by hand)
        expected = tool.float_score(stats["model"], "chess", fen, 16)
        # rounding the weights to 1/255 and 1/64 moves a score by a few centipawns; a
        # mistake in the inputs, the views or the output would move it by far more
        assert abs(ev.eval(pos) - expected) <= 15 + abs(expected) / 20, fen
        errors.append(abs(ev.eval(pos) - expected))
    assert sum(errors) / len(errors) < 5


def test_encoding_in_parallel_and_from_the_cache_gives_the_same_arrays(tmp_path):
    """Files encoded by two processes, or read back from their caches, give the arrays of one
    process in the files' order; a garbled line is skipped."""
    need_module("numpy")
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1;0.5;30\n"
        "8/8/4k3/8/8/4K3/4P3/8 w - - 0 1;1.0;250\n"
    )
    second.write_text("not a position;1.0;0\n4k3/8/8/8/8/8/8/R3K3 b - - 0 1;1.0;-900\n")
    one = tool.encode([first, second], "chess", cache=False, jobs=1)
    two = tool.encode([first, second], "chess", cache=True, jobs=2)
    cached = tool.encode([first, second], "chess", cache=True, jobs=2)
    assert len(list(tmp_path.glob("*.npz"))) == 2
    assert list(one["score"]) == [30.0, 250.0, -900.0]
    assert list(one["side"]) == [1, 0, 1]
    for key in (*tool.FIELDS, "nfeat"):
        assert (one[key] == two[key]).all() and (one[key] == cached[key]).all(), key
