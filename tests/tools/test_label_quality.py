"""tools/label_quality.py: a network's scores compared with a reference search's."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from ferz.engine import Engine
from tests.search.helpers import random_game

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import label_quality as tool  # noqa: E402


def test_a_network_off_by_a_constant_has_that_offset_and_orders_every_pair():
    """Scores 30 cp below the reference: offset +30, no error once it is taken off, every
    pair ordered as the reference; positions beyond 1 500 cp are left out."""
    reference = [-900, -200, -40, 0, 35, 120, 480, 2500]
    scores = [r - 30 for r in reference[:-1]] + [0]
    got = tool.compare("shifted", scores, reference, 500, 1)
    assert got["offset"] == 30 and got["level"] == 0 and got["order"] == 1
    assert got["mae"] > 0.01
    reversed_order = tool.compare("reversed", [-r for r in reference], reference, 500, 1)
    assert reversed_order["order"] == 0


def test_network_scores_are_the_engines_static_evaluation():
    """The shipped network's evaluation of random positions, side to move's view: what the
    engine (its default network) says they are."""
    net = ROOT / "ferz" / "nets" / "chess.nnue"
    rng = random.Random(3)
    fens = [list(random_game(rng, rng.randint(2, 30)))[-1].fen() for _ in range(10)]
    engine = Engine()
    want = []
    for fen in fens:
        engine.set_position(fen)
        want.append(engine.evaluate())
    assert tool.network_scores(net, fens, "chess") == want
