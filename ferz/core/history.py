"""The history tables of one search thread: what the search learnt about moves, to order them.

Butterfly history (side, origin, target), continuation history (a quiet move right after the
moves one and two plies before), capture history ((piece, target) and the captured type),
killers and counter moves per ply, and the correction history of static evaluations per pawn
structure. All updates use gravity: values stay within +-history_max. The search decides what
to reward (search.py, `Search.reward`); the move picker reads the tables (movepick.py).
"""

from __future__ import annotations

from array import array

import cython
from cython.cimports.ferz.core.defs import DROP, EP, move_from, move_kind, move_to
from cython.cimports.ferz.core.evaluate import tdiv
from cython.cimports.ferz.core.position import Position
from cython.cimports.ferz.core.tt import MATE_BOUND

if not cython.compiled:  # the constants of history.pxd, for the uncompiled fallback
    CONT_MAX = 1 << 22
    CORR_SIZE = 16384
    from ferz.core.tt import MATE_BOUND


def _ints(n: int) -> array:
    """A zeroed int array."""
    return array("i", bytes(4 * n))


@cython.final
@cython.cclass
class History:
    """The tables, sized for a position's variant, with killers and context for `plies` plies."""

    def __init__(
        self, pos: Position, plies: int, history_max: int, corr_limit: int, corr_div: int
    ) -> None:
        rules = pos.rules
        self.pos = pos
        self.nsq = pos.nsq
        # the search's parameters (ferz.params.SEARCH): the cells' bound, the correction's
        self.history_max = history_max
        self.corr_limit, self.corr_div = corr_limit, corr_div
        squares = rules.squares()
        self.sq_idx = _ints(self.nsq)
        for i, sq in enumerate(squares):
            self.sq_idx[sq] = i
        self.nplay = len(squares)
        # Butterfly history per side, origin (a playing square, or a dropped type after
        # them) and target: indexed by playing squares, not mailbox cells, so that it stays
        # small enough for the cache (36 KB in chess instead of 200 KB)
        self.hist_from = self.nplay + len(rules.pieces) + 1
        self.butterfly = _ints(2 * self.hist_from * self.nplay)
        # Continuation history: how good a quiet move (piece, target) has been right after
        # another move (piece, target) one or two plies before. Rows and columns are (piece
        # code, playing square); on large boards the table is folded to at most CONT_MAX cells.
        self.crows = pos.npc * self.nplay
        self.cont_size = min(self.crows * self.crows, CONT_MAX)
        self.cont = _ints(self.cont_size)
        self.ctx = array("i", [-1]) * (plies + 1)
        self.row1 = self.row2 = -1  # the rows of quiet_rows()
        # Capture history: (piece, target) and the captured type
        self.ntypes1 = len(rules.pieces) + 1
        self.capt = _ints(self.crows * self.ntypes1)
        self.killers = _ints(2 * plies)
        self.counter = _ints(self.nsq * self.nsq)
        self.corr = _ints(2 * CORR_SIZE)
        # Without pawns the pawn key is 0: one cell for every position would act as a drifting
        # bias (it cost KBNK conversions), so pawnless positions and variants without pawns
        # (xiangqi, shogi) are left uncorrected.
        self.corr_on = 1 if any(piece.pawn for piece in rules.pieces) else 0

    def clear(self) -> None:
        """Forget everything (a new game)."""
        _zero(self.butterfly)
        _zero(self.cont)
        _zero(self.capt)
        _zero(self.corr)
        _zero(self.counter)
        _zero(self.killers)

    def clear_killers(self) -> None:
        """Forget the killers (a new search: the plies mean other positions)."""
        _zero(self.killers)

    def gravity(self, table: cython.int[::1], idx: cython.int, bonus: cython.int) -> cython.void:
        """Add a bonus (or a malus) to a cell; the more it holds already, the less it grows."""
        h: cython.int = table[idx]
        mag: cython.int = bonus if bonus >= 0 else -bonus
        table[idx] = h + bonus - tdiv(h * mag, self.history_max)

    def move_row(self, m: cython.int) -> cython.int:
        """(piece code, target) of a move before it is played: its continuation-history row
        and column, and the first index of its capture-history cells."""
        pc: cython.int
        if move_kind(m) == DROP:
            pc = 2 * move_from(m) + self.pos.side
        else:
            pc = self.pos.board[move_from(m)]
        return pc * self.nplay + self.sq_idx[move_to(m)]

    def butterfly_index(self, m: cython.int) -> cython.int:
        """Butterfly-history cell of a quiet move of the side to move."""
        a: cython.int
        if move_kind(m) == DROP:
            a = self.nplay + move_from(m)  # a drop's origin is the dropped type
        else:
            a = self.sq_idx[move_from(m)]
        return (self.pos.side * self.hist_from + a) * self.nplay + self.sq_idx[move_to(m)]

    def cont_row(self, ply: cython.int) -> cython.longlong:
        """The first continuation-history cell (before folding) of the moves after the move
        made at `ply`, or -1 when there is none (the root's parent, a null move)."""
        if ply < 0 or self.ctx[ply] < 0:
            return -1
        return cython.cast(cython.longlong, self.ctx[ply]) * self.crows

    def cont_cell(self, row: cython.longlong, col: cython.int) -> cython.int:
        """The cell of column col in a row from cont_row()."""
        idx: cython.longlong = row + col
        if idx >= self.cont_size:
            idx %= self.cont_size  # a large board: the table is folded
        return cython.cast(cython.int, idx)

    def cont_index(self, ply: cython.int, col: cython.int) -> cython.int:
        """Continuation-history cell of a move (its column) after the move made at `ply`,
        or -1 when there is none."""
        row: cython.longlong = self.cont_row(ply)
        return -1 if row < 0 else self.cont_cell(row, col)

    def quiet(self, ply: cython.int, m: cython.int) -> cython.int:
        """The history of a quiet move: its own, and after the last two moves."""
        self.quiet_rows(ply)
        return self.quiet_at(m)

    def quiet_rows(self, ply: cython.int) -> cython.void:
        """Look up once the continuation rows that quiet_at() reads for the moves at `ply`
        (the move picker scores a whole list of them)."""
        self.row1 = self.cont_row(ply - 1)
        self.row2 = self.cont_row(ply - 2)

    def quiet_at(self, m: cython.int) -> cython.int:
        """quiet() at the ply of the last quiet_rows()."""
        col: cython.int = self.move_row(m)
        h: cython.int = self.butterfly[self.butterfly_index(m)]
        if self.row1 >= 0:
            h += self.cont[self.cont_cell(self.row1, col)]
        if self.row2 >= 0:
            h += self.cont[self.cont_cell(self.row2, col)]
        return h

    def capture_index(self, m: cython.int) -> cython.int:
        """Capture-history cell of a capture or promotion before it is played."""
        victim: cython.int = 0
        if move_kind(m) == EP:
            victim = self.pos.board[move_from(m)] >> 1  # a pawn of the mover's own type
        elif move_to(m) != move_from(m):
            victim = self.pos.board[move_to(m)] >> 1
        return self.move_row(m) * self.ntypes1 + victim

    def capture(self, m: cython.int) -> cython.int:
        """The history of a capture or promotion."""
        return self.capt[self.capture_index(m)]

    def bonus_quiet(self, ply: cython.int, m: cython.int, bonus: cython.int) -> cython.void:
        """Add a bonus (or a malus) to a quiet move's histories."""
        col: cython.int = self.move_row(m)
        i: cython.int
        self.gravity(self.butterfly, self.butterfly_index(m), bonus)
        i = self.cont_index(ply - 1, col)
        if i >= 0:
            self.gravity(self.cont, i, bonus)
        i = self.cont_index(ply - 2, col)
        if i >= 0:
            self.gravity(self.cont, i, bonus)

    def bonus_capture(self, m: cython.int, bonus: cython.int) -> cython.void:
        """Add a bonus (or a malus) to a capture's history."""
        self.gravity(self.capt, self.capture_index(m), bonus)

    def cutoff_quiet(self, ply: cython.int, m: cython.int, prev: cython.int) -> cython.void:
        """A quiet move caused a cutoff at `ply` after the move `prev` (0: none): it becomes
        the first killer there and the counter move of prev."""
        if self.killers[2 * ply] != m:
            self.killers[2 * ply + 1] = self.killers[2 * ply]
            self.killers[2 * ply] = m
        if prev:
            self.counter[move_from(prev) * self.nsq + move_to(prev)] = m

    def counter_move(self, prev: cython.int) -> cython.int:
        """The move that refuted `prev` last time (0: none, or no previous move)."""
        if prev == 0:
            return 0
        return self.counter[move_from(prev) * self.nsq + move_to(prev)]

    def corr_index(self) -> cython.int:
        """The correction-history cell of the side to move's pawn structure, or -1 for none
        (no pawns on the board, or none in the variant)."""
        if not self.corr_on or self.pos.pkey == 0:
            return -1
        return self.pos.side * CORR_SIZE + cython.cast(cython.int, self.pos.pkey & (CORR_SIZE - 1))

    def corrected(self, raw: cython.int) -> cython.int:
        """A static evaluation plus the correction learnt for this pawn structure."""
        i: cython.int = self.corr_index()
        if i < 0:
            return raw
        v: cython.int = raw + tdiv(self.corr[i], self.corr_div)
        if v >= MATE_BOUND:
            return MATE_BOUND - 1
        if v <= -MATE_BOUND:
            return -MATE_BOUND + 1
        return v

    def update_correction(self, diff: cython.int, depth: cython.int) -> cython.void:
        """Move this pawn structure's correction towards a search result `diff` centipawns
        from the static eval, the more the deeper the search (with gravity, in corr_limit)."""
        i: cython.int = self.corr_index()
        if i < 0:
            return
        cap: cython.int = self.corr_limit // 4
        bonus: cython.int = tdiv(diff * depth, 8)  # (diff < 0: C's division, also uncompiled)
        h: cython.int = self.corr[i]
        if bonus > cap:
            bonus = cap
        elif bonus < -cap:
            bonus = -cap
        self.corr[i] = h + bonus - tdiv(h * (bonus if bonus >= 0 else -bonus), self.corr_limit)


def _zero(table: cython.int[::1]) -> None:
    """Set every cell of a table to 0."""
    i: cython.Py_ssize_t
    for i in range(len(table)):
        table[i] = 0
