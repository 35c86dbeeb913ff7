"""Static exchange evaluation: the material outcome of the captures on one square.

Instead of attack tables (which would have to know every fairy piece's lines), the exchange is
played out on the position itself: each side recaptures with its least valuable legal capture
onto the square. Pins, x-rays, hoppers and lame leapers are then right for every variant, at the
price of a capture generation per exchange step, so callers first try the cheap exits.
"""

from __future__ import annotations

import cython
from cython.cimports.ferz.core.defs import (
    CASTLE,
    DROP,
    EMPTY,
    EP,
    move_from,
    move_kind,
    move_promo,
    move_to,
)
from cython.cimports.ferz.core.evaluate import Evaluator
from cython.cimports.ferz.core.position import Position

if not cython.compiled:
    from ferz.core.defs import move_from, move_kind, move_promo, move_to


def captured_value(pos: Position, ev: Evaluator, m: cython.int) -> cython.int:
    """Value of what m captures, plus the promotion gain (0 for a quiet move)."""
    kind: cython.int = move_kind(m)
    gain: cython.int = 0
    victim: cython.int
    if kind == CASTLE or kind == DROP:  # noqa: SIM109 - C comparisons, no tuple
        return 0
    if kind == EP:
        # the captured pawn is of the mover's own pawn type
        gain = ev.value[pos.board[move_from(m)] >> 1]
    else:
        victim = pos.board[move_to(m)]
        if victim != EMPTY:
            gain = ev.value[victim >> 1]
    if move_promo(m):
        gain += ev.value[move_promo(m)] - ev.value[pos.board[move_from(m)] >> 1]
    return gain


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _mover_value(pos: Position, ev: Evaluator, m: cython.int) -> cython.int:
    """Value of the piece standing on the target square after m."""
    if move_promo(m):
        return ev.value[move_promo(m)]
    return ev.value[pos.board[move_from(m)] >> 1]


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _least_attacker(
    pos: Position, ev: Evaluator, sq: cython.int, buf: cython.int[::1]
) -> cython.int:
    """The cheapest capture onto sq for the side to move (pseudo-legal), or 0."""
    n: cython.int = pos.gen(buf, 0, True)
    best: cython.int = 0
    best_value: cython.int = 1 << 30
    i: cython.int
    m: cython.int
    v: cython.int
    for i in range(n):
        m = buf[i]
        if move_to(m) != sq or move_kind(m) == CASTLE or move_kind(m) == EP:
            continue
        v = ev.value[pos.board[move_from(m)] >> 1]
        if v < best_value:
            best_value = v
            best = m
    return best


def see(pos: Position, ev: Evaluator, m: cython.int, buf: cython.int[::1]) -> cython.int:
    """Material balance of m followed by the best sequence of recaptures on its square."""
    gain = cython.declare(cython.int[40])  # at most 40 captures in a row
    sq: cython.int = move_to(m)
    d: cython.int = 0
    made: cython.int = 0
    r: cython.int
    on_square: cython.int
    if move_kind(m) == CASTLE or move_kind(m) == DROP:
        return 0
    gain[0] = captured_value(pos, ev, m)
    on_square = _mover_value(pos, ev, m)
    if not pos.make(m):
        return -(1 << 20)  # an illegal move loses everything
    made = 1
    while d < 39:
        r = _least_attacker(pos, ev, sq, buf)
        if r == 0:
            break
        d += 1
        gain[d] = on_square - gain[d - 1]
        # Neither side can gain by continuing: stop early.
        if (-gain[d - 1] if -gain[d - 1] > gain[d] else gain[d]) < 0:
            break
        if not pos.make(r):
            # The cheapest capture is illegal (pinned); look no further for this side.
            d -= 1
            break
        made += 1
        on_square = _mover_value_after(pos, ev, r, sq)
    while made > 0:
        pos.unmake()
        made -= 1
    while d > 0:
        d -= 1
        if -gain[d] < gain[d + 1]:
            gain[d] = -gain[d + 1]
    return gain[0]


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _mover_value_after(pos: Position, ev: Evaluator, m: cython.int, sq: cython.int) -> cython.int:
    """Value of the piece that m has just put on sq."""
    return ev.value[pos.board[sq] >> 1]


def see_ge(
    pos: Position, ev: Evaluator, m: cython.int, threshold: cython.int, buf: cython.int[::1]
) -> cython.bint:
    """Whether the exchange started by m wins at least `threshold` centipawns."""
    gain: cython.int = captured_value(pos, ev, m)
    if gain - threshold < 0:
        return False
    if gain - _mover_value(pos, ev, m) - threshold >= 0:
        return True  # even losing the mover leaves us above the threshold
    return see(pos, ev, m, buf) >= threshold
