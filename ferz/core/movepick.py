"""The move picker: the moves of a node, best first, generated in stages where the rules allow.

Order: the TT move (before any generation), good captures by MVV-LVA and capture history
(captures that lose material by SEE wait), the killers and the counter move, quiet moves by
their histories (core/history.py), then the losing captures and under-promotions. Where a
variant's rules need the whole move list at once, or in check, one list is scored and picked.
"""

from __future__ import annotations

from array import array

import cython
from cython.cimports.ferz.core import attacks, movegen
from cython.cimports.ferz.core.defs import (
    CASTLE,
    DROP,
    EMPTY,
    EP,
    MAXMOVES,
    PROMO,
    move_from,
    move_kind,
    move_promo,
    move_to,
)
from cython.cimports.ferz.core.evaluate import Evaluator, tdiv
from cython.cimports.ferz.core.history import History
from cython.cimports.ferz.core.position import Position
from cython.cimports.ferz.core.see import captured_value, see_ge

if not cython.compiled:  # the constants of movepick.pxd, for the uncompiled fallback
    SC_TT = 1 << 30  # move-ordering score bands (see score_moves)
    SC_GOOD = 1 << 28
    SC_KILLER = 1 << 27
    SC_BAD = -(1 << 28)
    ST_TT = 0  # move picking stages (next)
    ST_GEN_CAPTURES = 1
    ST_CAPTURES = 2
    ST_KILLERS = 3
    ST_GEN_QUIETS = 4
    ST_QUIETS = 5
    ST_BAD = 6
    ST_GEN_ALL = 7
    ST_ALL = 8
    ST_DONE = 9
    SKIP_NONE = 0  # quiet moves skipped by late move pruning (skip)
    SKIP_QUIETS = 1
    SKIP_NON_CHECKS = 2


def _ints(n: int) -> array:
    """A zeroed int array."""
    return array("i", bytes(4 * n))


def is_tactical(pos: Position, m: cython.int) -> cython.bint:
    """Captures and promotions (moves that change the material)."""
    kind: cython.int = move_kind(m)
    if kind == EP or kind == PROMO:  # noqa: SIM109 - C comparisons, no tuple
        return True
    if kind == CASTLE or kind == DROP:  # noqa: SIM109 - C comparisons, no tuple
        return False
    # (a janggi pass, the king to its own square, takes nothing)
    return pos.board[move_to(m)] != EMPTY and move_to(m) != move_from(m)


@cython.final
@cython.cclass
class MovePicker:
    """The move lists and picking state of every ply of one search thread."""

    def __init__(self, pos: Position, ev: Evaluator, hist: History, plies: int) -> None:
        rules = pos.rules
        self.pos = pos
        self.ev = ev
        self.hist = hist
        promos = [ev.value[rules.piece_index(c)] for c in rules.promotion_letters]
        self.best_promo = max(promos, default=0)
        self.moves = _ints(plies * MAXMOVES)
        self.scores = _ints(plies * MAXMOVES)
        self.see_buf = _ints(MAXMOVES)
        self.stage, self.ttm, self.staged = _ints(plies), _ints(plies), _ints(plies)
        self.skip, self.kidx, self.cm = _ints(plies), _ints(plies), _ints(plies)
        self.prev = _ints(plies)
        self.cur, self.end, self.bad = _ints(plies), _ints(plies), _ints(plies)
        self.qcur, self.qend, self.score = _ints(plies), _ints(plies), _ints(plies)

    def score_moves(
        self, base: cython.int, n: cython.int, ply: cython.int, ttm: cython.int, prev: cython.int
    ) -> cython.void:
        """Order scores: TT move, captures by MVV-LVA and capture history, killers, the
        counter move of `prev` (the move before; 0: none), quiets by their histories."""
        cm: cython.int = self.hist.counter_move(prev)  # now: the children may have changed it
        i: cython.int
        m: cython.int
        s: cython.int
        attacker: cython.int
        k1: cython.int = self.hist.killers[2 * ply]
        k2: cython.int = self.hist.killers[2 * ply + 1]
        self.hist.quiet_rows(ply)
        for i in range(base, base + n):
            m = self.moves[i]
            if m == ttm:
                s = SC_TT
            elif is_tactical(self.pos, m):
                if move_kind(m) == DROP:
                    attacker = 0
                else:
                    attacker = self.ev.value[self.pos.board[move_from(m)] >> 1]
                    if attacker > 4000:
                        attacker = 4000  # royal pieces capture last, but before bad captures
                s = SC_GOOD + captured_value(self.pos, self.ev, m) * 16 - attacker // 4
                s += tdiv(self.hist.capture(m), 8)
                if move_kind(m) == PROMO and self.ev.value[move_promo(m)] < self.best_promo:
                    s = SC_BAD + s - SC_GOOD  # under-promotions go behind the quiet moves
            elif m == k1:
                s = SC_KILLER + 2
            elif m == k2:
                s = SC_KILLER + 1
            elif m == cm:
                s = SC_KILLER
            else:
                s = self.hist.quiet_at(m)
            self.scores[i] = s

    def start(
        self, ply: cython.int, ttm: cython.int, staged: cython.bint, prev: cython.int
    ) -> cython.void:
        """Start picking the moves of the node at `ply`, reached by the move `prev` (0: none);
        ttm is a pseudo-legal TT move or 0. Staged: captures, killers and quiets are generated
        and tried apart (not when in check or where a variant's rules need the whole move list
        at once)."""
        self.stage[ply] = ST_TT
        self.ttm[ply] = ttm
        self.staged[ply] = staged
        self.skip[ply] = SKIP_NONE
        self.kidx[ply] = 0
        self.prev[ply] = prev
        self.cm[ply] = self.hist.counter_move(prev)

    def skip_quiets(self, ply: cython.int, checks: cython.bint) -> cython.void:
        """Late move pruning: no more quiet moves at this node, or (`checks`) only those that
        give check."""
        self.skip[ply] = SKIP_NON_CHECKS if checks else SKIP_QUIETS
        if self.stage[ply] == ST_ALL:
            self.end[ply] = self.drop_quiets(self.cur[ply], self.end[ply], checks)
        elif self.stage[ply] == ST_QUIETS and checks:
            self.qend[ply] = self.drop_quiets(self.qcur[ply], self.qend[ply], True)

    def gen_list(
        self, ply: cython.int, base: cython.int, ttm: cython.int, captures: cython.bint
    ) -> cython.void:
        """Generate and score the captures (or every move) of ply's list from base."""
        end: cython.int = movegen.gen(self.pos, self.moves, base, captures)
        self.score_moves(base, end - base, ply, ttm, self.prev[ply])
        self.cur[ply] = base
        self.end[ply] = end

    def next(self, ply: cython.int) -> cython.int:
        """The next move to search at `ply` (0 when there is none), its ordering score in
        score[ply]."""
        base: cython.int = ply * MAXMOVES
        m: cython.int
        i: cython.int
        k: cython.int
        end: cython.int
        stage: cython.int
        ttm: cython.int = self.ttm[ply]
        while True:
            stage = self.stage[ply]
            if stage == ST_TT:
                self.stage[ply] = ST_GEN_CAPTURES if self.staged[ply] else ST_GEN_ALL
                if ttm:
                    self.score[ply] = SC_TT
                    return ttm
            elif stage == ST_GEN_CAPTURES:
                self.gen_list(ply, base, ttm, True)
                self.stage[ply] = ST_CAPTURES
            elif stage == ST_CAPTURES:
                i = self.cur[ply]
                end = self.end[ply]
                if i < end:
                    m = self.pick(base, i, end - base)
                    if self.scores[i] >= SC_GOOD:
                        if not see_ge(self.pos, self.ev, m, 0, self.see_buf):
                            self.scores[i] += SC_BAD - SC_GOOD  # a losing capture: later
                            continue
                        self.cur[ply] = i + 1
                        if m == ttm:
                            continue
                        self.score[ply] = self.scores[i]
                        return m
                self.bad[ply] = i  # [i, end): losing captures and under-promotions
                self.stage[ply] = ST_KILLERS
            elif stage == ST_KILLERS:
                k = self.kidx[ply]
                self.kidx[ply] = k + 1
                if k == 0:
                    m = self.hist.killers[2 * ply]
                elif k == 1:
                    m = self.hist.killers[2 * ply + 1]
                    if m == self.hist.killers[2 * ply]:
                        continue
                elif k == 2:
                    m = self.cm[ply]
                    if m == self.hist.killers[2 * ply] or m == self.hist.killers[2 * ply + 1]:
                        continue
                else:
                    self.stage[ply] = ST_GEN_QUIETS
                    continue
                if (
                    m != 0
                    and m != ttm
                    and self.skip[ply] != SKIP_QUIETS
                    and not is_tactical(self.pos, m)
                    and movegen.is_pseudo_legal(self.pos, m)
                    and (self.skip[ply] == SKIP_NONE or attacks.checks(self.pos, m))
                ):
                    self.score[ply] = SC_KILLER
                    return m
            elif stage == ST_GEN_QUIETS:
                if self.skip[ply] == SKIP_QUIETS:
                    self.cur[ply] = self.bad[ply]
                    self.stage[ply] = ST_BAD
                    continue
                end = self.end[ply]
                self.qend[ply] = movegen.gen_quiets(self.pos, self.moves, end, base)
                if self.skip[ply] == SKIP_NON_CHECKS:
                    self.qend[ply] = self.drop_quiets(end, self.qend[ply], True)
                self.score_moves(end, self.qend[ply] - end, ply, ttm, self.prev[ply])
                self.qcur[ply] = end
                self.stage[ply] = ST_QUIETS
            elif stage == ST_QUIETS:
                i = self.qcur[ply]
                end = self.end[ply]
                if self.skip[ply] == SKIP_QUIETS or i >= self.qend[ply]:
                    self.cur[ply] = self.bad[ply]
                    self.stage[ply] = ST_BAD
                    continue
                m = self.pick(end, i, self.qend[ply] - end)
                self.qcur[ply] = i + 1
                if (
                    m == ttm
                    or m == self.hist.killers[2 * ply]
                    or m == self.hist.killers[2 * ply + 1]
                    or m == self.cm[ply]
                ):
                    continue  # tried already
                self.score[ply] = self.scores[i]
                return m
            elif stage == ST_BAD:
                i = self.cur[ply]
                end = self.end[ply]
                if i >= end:
                    self.stage[ply] = ST_DONE
                    return 0
                m = self.pick(base, i, end - base)
                self.cur[ply] = i + 1
                if m == ttm:
                    continue
                self.score[ply] = self.scores[i]
                return m
            elif stage == ST_GEN_ALL:
                self.gen_list(ply, base, ttm, False)
                self.stage[ply] = ST_ALL
            elif stage == ST_ALL:
                i = self.cur[ply]
                end = self.end[ply]
                if i >= end:
                    self.stage[ply] = ST_DONE
                    return 0
                m = self.pick(base, i, end - base)
                # Captures that lose material (by SEE) wait until after the quiet moves.
                while SC_GOOD <= self.scores[i] < SC_TT and not see_ge(
                    self.pos, self.ev, m, 0, self.see_buf
                ):
                    self.scores[i] += SC_BAD - SC_GOOD
                    m = self.pick(base, i, end - base)
                self.cur[ply] = i + 1
                if m == ttm:
                    continue
                self.score[ply] = self.scores[i]
                return m
            else:
                return 0

    def drop_quiets(self, i: cython.int, end: cython.int, checks: cython.bint) -> cython.int:
        """Keep only the tactical moves of [i, end) (and with `checks` the quiet checks; their
        order kept); returns the new end. Late move pruning has skipped the others: picking
        them would only cost time."""
        j: cython.int
        k: cython.int = i
        for j in range(i, end):
            if is_tactical(self.pos, self.moves[j]) or (
                checks and attacks.checks(self.pos, self.moves[j])
            ):
                self.moves[k] = self.moves[j]
                self.scores[k] = self.scores[j]
                k += 1
        return k

    def pick(self, base: cython.int, i: cython.int, n: cython.int) -> cython.int:
        """Move the best-scored move of [i, base + n) to position i (selection sort step)."""
        j: cython.int
        best: cython.int = i
        end: cython.int = base + n
        top: cython.int = self.scores[i]  # (in a local: the loop reads one score a move)
        for j in range(i + 1, end):
            if self.scores[j] > top:
                best = j
                top = self.scores[j]
        if best != i:
            j = self.moves[i]
            self.moves[i] = self.moves[best]
            self.moves[best] = j
            j = self.scores[i]
            self.scores[i] = self.scores[best]
            self.scores[best] = j
        return self.moves[i]
