# C-level interface of ferz's own endgame tables (implementation in tbgen.py).

cimport cython
from ferz.core.position cimport Position

cdef enum:
    TB_MAXK = 8  # pieces of one table at most
    TB_WIN = 32000  # a win in d plies is TB_WIN - d, a loss in d plies d - TB_WIN
    TB_WINMIN = 2000  # values at least this far from 0 are wins or losses
    TB_DRAWN = 1  # a draw fixed by a rule (a terminal position), not open to the retrograde
    TB_INVALID = -32768  # an index that is no position (pieces on one square, a king in check)
    TB_NONE = -32767  # no value (not in the table; no e.p. capture)
    TB_RULE = 10000  # distances from here on are losses by a repetition rule (perpetual check)
    TB_UNSURE = 2  # a draw unless a repetition rule decides otherwise (no exact value)


@cython.final
cdef class Table:
    cdef public object name  # the material, as 'KRvK'
    cdef public int k, nsq, files, mid, mirror
    cdef public long long size
    # per slot: piece code, number of squares, squares (slot * nsq + i), index of a square;
    # the count of each piece code; mirrored square and file of each mailbox square
    cdef public int[::1] codes, count, nsqs, sqs, sqidx, mir, fl
    cdef public long long[::1] mul
    cdef public short[::1] val
    cdef int[::1] w, used  # scratch: squares of a position being located, slots taken

    cdef long long index_of(self, int[::1] sq, int stm) noexcept nogil
    cdef void decode(self, long long idx, int[::1] sq) noexcept nogil
    cdef bint canonical(self, int[::1] sq) noexcept nogil
    cdef long long locate(self, Position pos) noexcept nogil


@cython.final
cdef class Builder:
    cdef Table t
    cdef Position pos
    cdef object tables  # material name -> Table: the tables a capture or promotion leads to
    cdef unsigned char[::1] cnt
    cdef short[::1] lmax
    cdef int[::1] buf, rev_start, rev_sq, sq, cur, pre, msq
    cdef int placed, ep_rule
    cdef public long long unmoves

    cdef void place(self, int[::1] sq, int stm) noexcept
    cdef int exit_value(self) except? -32768
    cdef int ep_best(self) except? -32768
    cdef void init_one(self, long long idx) except *
    cdef int unmoves_of(self, int[::1] sq, int stm, int d, bint loss) except -1
    cdef int layers(self, int d, int top, object progress) except -1
    cdef long long successor(self) noexcept
