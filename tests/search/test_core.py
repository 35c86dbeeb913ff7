"""Core pieces of the search: transposition table, SEE, evaluation symmetry, time budgets."""

from __future__ import annotations

import chess
import pytest

from ferz import bench, timeman
from ferz.core import factory
from ferz.core.evaluate import Evaluator
from ferz.core.search import Search, mate_in
from ferz.core.tt import TT
from ferz.variants import get
from tests.pure_core import run_pure
from tests.search.helpers import bench_lines

MATE = 32000


def test_tt_store_probe_and_mate_scores():
    """Entries come back as stored; mate scores are relative to the node's ply."""
    tt = TT(1)
    key = 0x123456789ABCDEF0
    assert tt.lookup(key) is None
    tt.put(key, 5, 777, MATE - 9, 12, 6, 3)  # mate found 4 plies below a node at ply 5
    move, score, static, depth, bound = tt.lookup(key, 5)
    assert (move, score, static, depth, bound) == (777, MATE - 9, 12, 6, 3)
    assert tt.lookup(key, 1)[1] == MATE - 5  # the same mate seen from ply 1
    tt.put(key, 0, 0, -50, 0, 7, 1)  # no move: the old one is kept
    assert tt.lookup(key)[0] == 777
    tt.clear()
    assert tt.lookup(key) is None
    with pytest.raises(ValueError):
        tt.resize(0)


def test_tt_replaces_shallow_entries_in_full_buckets():
    """A full bucket gives way to new entries; the table never loses the newest one."""
    tt = TT(1)
    keys = [(i << 32) | 7 for i in range(1, 10)]  # same bucket, different check bits
    for i, key in enumerate(keys):
        tt.put(key, 0, i + 1, 0, 0, i, 3)
    assert tt.lookup(keys[-1]) is not None
    assert sum(tt.lookup(k) is not None for k in keys) == 4


def _position(fen: str):
    """A chess position with a hand-made evaluator."""
    rules = get("chess")
    ev = Evaluator(rules)
    return factory.position(rules, fen, ev), ev


def _mirror(fen: str) -> str:
    """The colour-flipped position (python-chess mirror)."""
    return chess.Board(fen).mirror().fen()


@pytest.mark.parametrize(
    "fen",
    [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
        "8/8/8/4k3/8/8/8/3BKN2 w - - 0 1",
        "6k1/5ppp/8/3P4/8/8/5PPP/6K1 b - - 0 1",
    ],
)
def test_evaluation_is_colour_symmetric(fen):
    """The side to move's evaluation does not change when the colours are swapped."""
    pos, ev = _position(fen)
    mirrored, _ = _position(_mirror(fen))
    assert ev.eval(pos) == ev.eval(mirrored)


def test_evaluation_knows_material_and_mopup():
    """Up a rook is winning; a lone king in the corner is worse for it than in the centre."""
    pos, ev = _position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    assert ev.eval(pos) > 400
    corner, _ = _position("k7/8/2K5/8/8/8/8/7R w - - 0 1")
    centre, _ = _position("8/8/2K5/4k3/8/8/8/7R w - - 0 1")
    assert ev.eval(corner) > ev.eval(centre)
    draw, _ = _position("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1")
    assert abs(ev.eval(draw)) < 60  # a lone bishop cannot win


def test_see_values():
    """Static exchange: a defended pawn taken by a queen loses, an undefended one wins."""
    from ferz.board import Board

    pos, ev = _position("4k3/8/3p4/4p3/8/8/8/4QK2 w - - 0 1")
    search = Search(pos, TT(1), ev)
    board = Board("4k3/8/3p4/4p3/8/8/8/4QK2 w - - 0 1")
    qxe5 = board.parse_uci("e1e5").code
    assert search.see_value(qxe5) < 0
    pos2, ev2 = _position("4k3/8/8/4p3/8/8/8/4QK2 w - - 0 1")
    search2 = Search(pos2, TT(1), ev2)
    assert search2.see_value(qxe5) > 0


def test_mate_in_conversion():
    """Mate scores convert to moves; ordinary scores do not."""
    assert mate_in(MATE - 1) == 1
    assert mate_in(MATE - 3) == 2
    assert mate_in(-MATE + 2) == -1
    assert mate_in(150) is None


def test_time_budgets_never_exceed_the_clock():
    """Soft <= hard, and the hard limit always leaves the move overhead on the clock."""
    for clock in (50, 200, 1000, 10_000, 300_000):
        for inc in (0, 100, 2000):
            for mtg in (None, 1, 5, 40):
                budget = timeman.allocate(
                    0, wtime=clock, btime=clock, winc=inc, binc=inc, movestogo=mtg, overhead=30
                )
                assert budget.soft <= budget.hard
                assert budget.hard <= max(clock - 30, 5), (clock, inc, mtg, budget)
    # movetime is the GUI's choice: no Move Overhead, only the measured lag (at most a tenth)
    assert timeman.allocate(0, movetime=500, overhead=30) == timeman.Budget(500, 500)
    assert timeman.allocate(0, movetime=500, lag=20) == timeman.Budget(480, 480)
    assert timeman.allocate(0, movetime=500, lag=900) == timeman.Budget(450, 450)
    assert timeman.allocate(1, infinite=True) == timeman.Budget(None, None)
    assert timeman.allocate(1, wtime=1000) == timeman.Budget(None, None)  # black has no clock


def test_stability_spends_less_on_a_steady_best_move_and_more_after_a_change():
    """The soft limit's scale: 1 at low depth, above 1 right after the best move changed or
    the score fell, shrinking (to a floor) while the best move stays."""
    steady = timeman.Stability()
    scales = [steady.scale(7, 30, depth) for depth in range(1, 12)]
    assert scales[:3] == [1.0, 1.0, 1.0]
    assert all(a >= b for a, b in zip(scales[3:], scales[4:], strict=False))
    assert 0.5 <= scales[-1] < 1.0
    changed = timeman.Stability()
    for depth in range(1, 8):
        changed.scale(7, 30, depth)
    assert changed.scale(8, 30, 8) > 1.0  # a new best move
    falling = timeman.Stability()
    for depth in range(1, 8):
        falling.scale(7, 30, depth)
    assert falling.scale(7, -70, 8) > steady.scale(7, 30, 12)  # same move, score fell


def test_time_budgets_at_tiny_clocks_keep_most_of_the_clock():
    """Short clocks: the hard limit takes at most a fifth of what the overhead leaves."""
    for clock in (30, 60, 200, 325, 1000, 2999):
        for inc in (0, 10, 50):
            budget = timeman.allocate(0, wtime=clock, winc=inc, overhead=50)
            assert budget.hard <= max(1.0, (clock - 50) / 5), (clock, inc, budget)
            assert budget.hard <= 2 * budget.soft + 1e-9, (clock, inc, budget)
    # normal controls keep their budgets: 10+0.1 s thinks 0.56 s, up to 2 s on hard moves
    budget = timeman.allocate(0, wtime=10_000, winc=100, overhead=50)
    assert 550 <= budget.soft <= 575 and budget.hard >= 1900


# Searches every bench position in a child Python with the uncompiled core (FERZ_PURE=1).
PURE_BENCH = """
import json, sys
from ferz.core import compiled
from tests.search.helpers import bench_lines
depth = json.loads(sys.stdin.read())
print(json.dumps({"compiled": compiled(), "results": bench_lines(depth)}))
"""


def check_uncompiled_bench(depth: int) -> None:
    """Every bench position searched to `depth` uncompiled: the compiled node count, best move
    and score (the nodes add up to `ferz bench DEPTH`'s signature)."""
    compiled = bench_lines(depth)
    assert sum(nodes for nodes, _, _ in compiled) == bench.run(depth)[0]
    pure = run_pure(PURE_BENCH, depth)
    for fen, want, got in zip(bench.POSITIONS, compiled, pure, strict=True):
        assert got == want, f"depth {depth}, {fen}: [nodes, move, score] uncompiled {got}"


def test_uncompiled_search_searches_the_same_tree():
    """The pure-Python fallback searches the compiled core's tree on every bench position
    (depth 3: position 9 differed there when a correction bonus of a negative difference
    was floored uncompiled and truncated compiled; about 10 s uncompiled)."""
    check_uncompiled_bench(3)


@pytest.mark.slow
def test_uncompiled_search_searches_the_same_tree_deeper():
    """The same at depth 6 (about a minute uncompiled)."""
    check_uncompiled_bench(6)


def test_late_move_reductions_grow_with_depth_and_move_number():
    """The base reduction is 0.75 + ln(depth) * ln(moves) / 2.25 plies, rounded down: none for
    the first moves at low depth, several plies for late moves deep in the tree."""
    search = factory.search(get("chess"))
    assert search.reduction(1, 1) == 0
    assert search.reduction(3, 4) == 1
    assert search.reduction(10, 20) == 3
    for d in range(1, 40):
        for n in range(1, 40):
            assert search.reduction(d, n) <= search.reduction(d + 1, n)
            assert search.reduction(d, n) <= search.reduction(d, n + 1)


def test_correction_history_learns_per_pawn_structure():
    """Searching a position teaches its pawn structure a correction of the static eval
    (bounded), a new game forgets it, and pawnless positions are never corrected."""
    pos, ev = _position("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8")
    search = Search(pos, TT(4), ev)
    assert search.correction() == 0
    search.set_root()
    search.node_limit = 60_000
    for _ in search.iterate(30, 1):
        pass
    learnt = search.correction()
    assert learnt != 0
    assert abs(learnt) <= search.corr_limit // search.corr_div
    search.clear()
    assert search.correction() == 0
    bare, ev2 = _position("4k3/8/8/8/8/8/2N5/R3K3 w - - 0 1")
    search2 = Search(bare, TT(4), ev2)
    search2.set_root()
    search2.node_limit = 20_000
    for _ in search2.iterate(30, 1):
        pass
    assert search2.correction() == 0
