# C-level interface of the history tables (implementation in history.py).

cimport cython
from ferz.core.position cimport Position

cdef enum:
    CONT_MAX = 1 << 22  # continuation-history cells at most (large boards fold into this)
    CORR_SIZE = 16384  # correction-history cells per side (a power of two)


@cython.final
cdef class History:
    # cpdef: the search calls them in C (a final class: no dispatch), tests from Python
    cdef Position pos
    cdef int nsq, nplay, crows, cont_size, ntypes1, hist_from
    cdef int history_max, corr_limit, corr_div
    cdef long long row1, row2
    cdef public int corr_on
    # playing-square index of each cell; the (piece, target) row of the move made at each ply
    cdef int[::1] sq_idx
    cdef public int[::1] ctx
    # butterfly, continuation, capture and correction histories; killers and counter moves
    cdef int[::1] butterfly, cont, capt, corr
    cdef public int[::1] killers, counter

    cdef void gravity(self, int[::1] table, int idx, int bonus) noexcept nogil
    cdef int move_row(self, int m) noexcept nogil
    cdef int butterfly_index(self, int m) noexcept nogil
    cdef long long cont_row(self, int ply) noexcept nogil
    cdef int cont_cell(self, long long row, int col) noexcept nogil
    cdef int cont_index(self, int ply, int col) noexcept nogil
    cpdef int quiet(self, int ply, int m) noexcept nogil
    cdef void quiet_rows(self, int ply) noexcept nogil
    cdef int quiet_at(self, int m) noexcept nogil
    cdef int capture_index(self, int m) noexcept nogil
    cpdef int capture(self, int m) noexcept nogil
    cpdef void bonus_quiet(self, int ply, int m, int bonus) noexcept nogil
    cpdef void bonus_capture(self, int m, int bonus) noexcept nogil
    cpdef void cutoff_quiet(self, int ply, int m, int prev) noexcept nogil
    cpdef int counter_move(self, int prev) noexcept nogil
    cdef int corr_index(self) noexcept nogil
    cpdef int corrected(self, int raw) noexcept nogil
    cpdef void update_correction(self, int diff, int depth) noexcept nogil
