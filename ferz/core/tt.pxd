# Declarations of the transposition table for the search (see tt.py).
cdef enum:
    TT_BUCKET = 4
    BOUND_NONE = 0
    BOUND_UPPER = 1
    BOUND_LOWER = 2
    BOUND_EXACT = 3
    MATE = 32000
    MATE_BOUND = 31000
    TB_WIN = 31500  # a tablebase win found `ply` plies down scores TB_WIN - ply (below mates)
    TT_DEPTH_OFFSET = 8

cdef extern from *:
    """
    #define ferz_prefetch(address) __builtin_prefetch(address)
    """
    void ferz_prefetch(const void *address) noexcept nogil

cdef class TT:
    cdef unsigned long long[::1] table
    cdef long long nbuckets
    cdef public int generation
    cdef public int size_mb

    cdef long long probe(self, unsigned long long key) noexcept nogil
    cdef void store(self, unsigned long long key, int ply, int move, int score, int static_eval,
                    int depth, int bound) noexcept nogil
    cdef void prefetch(self, unsigned long long key) noexcept nogil

cdef int tt_move(unsigned long long data) noexcept nogil
cdef int tt_score(unsigned long long data, int ply) noexcept nogil
cdef int tt_eval(unsigned long long meta) noexcept nogil
cdef int tt_depth(unsigned long long meta) noexcept nogil
cdef int tt_bound(unsigned long long meta) noexcept nogil
