"""The search's histories (core/history.py): bonuses with gravity, killers, counter moves,
capture history and the correction of static evaluations."""

from __future__ import annotations

from ferz.core.history import History
from tests.core.conftest import Setup, setup

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
BOUND = 16384  # the cells' bound (history_max)
CORR_LIMIT, CORR_DIV = 1024, 32
XIANGQI = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


def _history(s: Setup) -> History:
    """A History of a set-up position, with the shipped bound and correction parameters."""
    return History(s.pos, 8, BOUND, CORR_LIMIT, CORR_DIV)


def test_a_bonus_raises_a_quiet_move_and_a_malus_lowers_it() -> None:
    s = setup(START)
    h = _history(s)
    g1f3, b1c3 = s.code("g1f3"), s.code("b1c3")
    h.bonus_quiet(0, g1f3, 300)
    h.bonus_quiet(0, b1c3, -300)
    assert h.quiet(0, g1f3) > 0 > h.quiet(0, b1c3)
    assert h.quiet(0, s.code("e2e4")) == 0  # other moves keep their cells


def test_gravity_keeps_every_cell_within_its_bound() -> None:
    """Repeated bonuses grow less and less and never pass history_max, nor maluses -max."""
    s = setup(START)
    h = _history(s)
    m = s.code("e2e4")
    steps = []
    for _ in range(400):
        before = h.quiet(0, m)
        h.bonus_quiet(0, m, 2000)
        steps.append(h.quiet(0, m) - before)
    assert 0 < h.quiet(0, m) <= BOUND
    assert steps[-1] < steps[0]  # the fuller the cell, the smaller the step
    for _ in range(400):
        h.bonus_quiet(0, m, -2000)
    assert -BOUND <= h.quiet(0, m) < 0


def test_the_histories_are_the_side_to_moves() -> None:
    """The same from-to move of the other side has its own butterfly cell."""
    s = setup("4k3/8/8/8/8/8/R7/4K3 w - - 0 1")
    h = _history(s)
    white_move = s.code("a2a7")
    h.bonus_quiet(0, white_move, 500)
    black = setup("4k3/8/8/8/8/8/r7/4K3 b - - 0 1")
    s.pos.set_fen(black.board.fen())  # the same tables, black to move
    black_move = black.code("a2a7")
    assert h.quiet(0, black_move) == 0
    s.pos.set_fen("4k3/8/8/8/8/8/R7/4K3 w - - 0 1")
    assert h.quiet(0, white_move) > 0


def test_a_cutoff_makes_the_first_killer_and_shifts_the_old_one() -> None:
    s = setup(START)
    h = _history(s)
    a, b = s.code("g1f3"), s.code("b1c3")
    h.cutoff_quiet(3, a, 0)
    h.cutoff_quiet(3, b, 0)
    assert list(h.killers[6:8]) == [b, a]
    h.cutoff_quiet(3, b, 0)  # the first killer again: no shift, no duplicate
    assert list(h.killers[6:8]) == [b, a]
    assert list(h.killers[:6]) == [0] * 6  # other plies untouched


def test_a_cutoff_records_the_counter_move_of_the_move_before() -> None:
    s = setup(START)
    h = _history(s)
    prev, reply = s.code("e2e4"), s.code("g1f3")
    assert h.counter_move(prev) == 0
    h.cutoff_quiet(1, reply, prev)
    assert h.counter_move(prev) == reply
    assert h.counter_move(0) == 0  # no move before (the root, a null move): no counter


def test_capture_history_is_per_piece_target_and_victim() -> None:
    s = setup("4k3/8/8/3q4/4P3/8/3Q4/4K3 w - - 0 1")
    h = _history(s)
    pawn_takes, queen_takes = s.code("e4d5"), s.code("d2d5")
    h.bonus_capture(pawn_takes, 700)
    assert h.capture(pawn_takes) > 0
    assert h.capture(queen_takes) == 0
    h.bonus_capture(queen_takes, -700)
    assert h.capture(queen_takes) < 0 < h.capture(pawn_takes)


def test_the_correction_moves_toward_the_search_and_stays_bounded() -> None:
    """A search that keeps finding the position better than its static eval raises the
    corrected eval, by at most corr_limit / corr_div centipawns."""
    s = setup(START)
    h = _history(s)
    assert h.corrected(50) == 50
    h.update_correction(200, 6)
    first = h.corrected(50)
    assert first > 50
    for _ in range(2000):
        h.update_correction(100000, 60)
    assert first <= h.corrected(50) <= 50 + CORR_LIMIT // CORR_DIV
    for _ in range(4000):
        h.update_correction(-100000, 60)
    assert 50 - CORR_LIMIT // CORR_DIV <= h.corrected(50) < 50


def test_pawnless_positions_are_not_corrected() -> None:
    """Without pawns every position would share one cell (a drifting bias): none is kept."""
    s = setup("4k3/8/8/8/8/8/8/RB2K3 w - - 0 1")
    h = _history(s)
    h.update_correction(500, 10)
    assert h.corrected(30) == 30
    xiangqi = setup(XIANGQI, "xiangqi")
    hx = _history(xiangqi)
    assert hx.corr_on == 0  # xiangqi's soldiers are not pawns to the pawn key
    hx.update_correction(500, 10)
    assert hx.corrected(30) == 30
