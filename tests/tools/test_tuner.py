"""tools/tune.py: the numpy model of the evaluation agrees with the compiled one, and fitting
lowers the error (the tuner's own guarantees; the tuned values are judged by matches)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from tests.programs import need
from tests.search.helpers import random_game

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import tune  # noqa: E402


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> tune.Traces:
    """Positions of random games (labelled with a made-up reference score), traced."""
    rng = random.Random(7)
    lines = []
    for _ in range(40):
        for board in random_game(rng, rng.randint(6, 60)):
            lines.append(f"{board.fen()};{rng.choice((0.0, 0.5, 1.0))};{rng.randint(-300, 300)}")
    path = tmp_path_factory.mktemp("tune") / "labelled.txt"
    path.write_text("\n".join(lines) + "\nnot a fen;0.5\n")
    return tune.Traces(path, 0)


def test_model_reproduces_the_compiled_evaluation(traces: tune.Traces) -> None:
    """The model's White score matches the compiled evaluation within rounding."""
    assert traces.n > 100 and traces.skipped >= 1  # the garbled line is skipped, not fatal
    scores, _ = tune.Model().forward(traces)
    drift = np.abs(scores - traces.compiled)
    assert drift.mean() < 1.0 and drift.max() <= 4.0


def test_fitting_lowers_the_error_and_keeps_every_name(traces: tune.Traces) -> None:
    """A short fit reduces the training error; the result names the same weights as params."""
    from ferz import params

    y, _ = tune.targets(traces, 0.25)
    start = tune.Model()
    k = tune.fit_k(start.forward(traces)[0], y)
    before = float(np.mean((tune.sigmoid(start.forward(traces)[0], k) - y) ** 2))
    model = tune.tune(traces, 60, 0.25, 2.0, 0.0, 0.0, 0.0)
    after = float(np.mean((tune.sigmoid(model.forward(traces)[0], k) - y) ** 2))
    assert after < before
    values, terms, danger, pst = tune.rounded(model)
    assert set(values) == set(params.KNOWN_VALUES) and set(terms) == set(params.TERMS)
    assert set(danger) == set(params.KING_DANGER) and set(pst) == set(params.PST)
    assert all(len(pst[name][phase]) == 64 for name in pst for phase in ("mg", "eg"))


def test_symmetric_fit_keeps_tables_mirrored(traces: tune.Traces) -> None:
    """With symmetric=True every square table stays equal to its left-right mirror."""
    model = tune.tune(traces, 20, 0.25, 2.0, 0.0, 0.0, 0.0, True)
    mirror = tune.mirror_index()
    for name in ("pmg", "peg"):
        assert np.allclose(model.w[name], model.w[name][mirror])


@pytest.mark.programs("stockfish")
def test_label_adds_the_reference_engines_static_evaluation(tmp_path: Path) -> None:
    """`tune.py label` asks Stockfish (through ferz's engine driver) for White's static score of
    every position with a result; lines without one are left out."""
    source = tmp_path / "games.txt"
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    no_rook = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 3 9"
    source.write_text(f"{start};0.5\n{no_rook};0.0\n{start}\n")
    out = tmp_path / "labelled.txt"
    assert tune.label(source, need("stockfish"), out) == 2
    rows = [line.split(";") for line in out.read_text().splitlines()]
    assert [row[:2] for row in rows] == [[start, "0.5"], [no_rook, "0.0"]]
    assert abs(int(rows[0][2])) < 100 and int(rows[1][2]) < -300
