# C-level interface of the SAN move matcher (implementation in san.py). See docs/architecture.md.

from ferz.core.position cimport Position

cdef enum:
    SAN_NONE = -1
    SAN_AMBIGUOUS = -2
    SAN_OVERFLOW = -3

cdef class Matcher:
    cdef int[::1] buf, file_of, rank_of, letter, promo_letter
    cdef int ntypes

    cpdef long long play(self, Position pos, int letter, int to, int file, int rank, int promo,
                         bint takes) noexcept
    cpdef long long castle(self, Position pos, bint kingside) noexcept
    cdef int _gen(self, Position pos, int letter, bint takes) noexcept
    cdef bint _fits(self, int m, int file, int rank, int promo) noexcept nogil
    cdef long long _single(self, Position pos, int m, int letter, int to, int file, int rank,
                           int promo) noexcept
    cdef long long _make(self, Position pos, int m, int disamb) noexcept
    cdef int _check(self, Position pos) noexcept
