# C-level interface of the move picker (implementation in movepick.py).

cimport cython
from ferz.core.evaluate cimport Evaluator
from ferz.core.history cimport History
from ferz.core.position cimport Position

cdef enum:
    SC_TT = 1 << 30  # move-ordering score bands (see score_moves)
    SC_GOOD = 1 << 28
    SC_KILLER = 1 << 27
    SC_BAD = -(1 << 28)
    # move picking stages (next)
    ST_TT = 0
    ST_GEN_CAPTURES = 1
    ST_CAPTURES = 2
    ST_KILLERS = 3
    ST_GEN_QUIETS = 4
    ST_QUIETS = 5
    ST_BAD = 6
    ST_GEN_ALL = 7
    ST_ALL = 8
    ST_DONE = 9
    # quiet moves skipped by late move pruning (skip)
    SKIP_NONE = 0
    SKIP_QUIETS = 1  # every quiet move
    SKIP_NON_CHECKS = 2  # every quiet move that gives no check

cdef bint is_tactical(Position pos, int m) noexcept nogil


@cython.final
cdef class MovePicker:
    # start, skip_quiets and next are cpdef: C calls from the search (a final class: no
    # dispatch), Python calls from tests
    cdef Position pos
    cdef Evaluator ev
    cdef History hist
    cdef int best_promo
    # the move lists of every ply (MAXMOVES from ply * MAXMOVES) and their ordering scores
    cdef public int[::1] moves, scores
    cdef int[::1] see_buf
    # per ply: stage, TT move, staged or whole list, quiets skipped (a SKIP_ value), killer
    # index, the move before and its counter move, cursor and end of the
    # captures (or whole list), start of the bad captures, cursor and end of the quiets, score
    # of the move returned
    cdef int[::1] stage, ttm, staged, skip, kidx, prev, cm, cur, end, bad, qcur, qend
    cdef public int[::1] score

    cdef void score_moves(self, int base, int n, int ply, int ttm, int prev) noexcept nogil
    cdef int pick(self, int base, int i, int n) noexcept nogil
    cdef int drop_quiets(self, int i, int end, bint checks) noexcept nogil
    cpdef void start(self, int ply, int ttm, bint staged, int prev) noexcept nogil
    cpdef void skip_quiets(self, int ply, bint checks) noexcept nogil
    cdef void gen_list(self, int ply, int base, int ttm, bint captures) noexcept nogil
    cpdef int next(self, int ply) noexcept nogil
