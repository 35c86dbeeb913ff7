# C-level interface of the attack probes (implementation in attacks.py). See docs/architecture.md.

from ferz.core.position cimport Position

cpdef bint attacked(Position pos, int sq, int by) noexcept nogil
cdef int attacker(Position pos, int sq, int by, bint least) noexcept nogil
cdef bint parry_squares(Position pos) noexcept nogil
cdef int probe_attacker(Position pos, int sq, int by, bint least) noexcept nogil
cpdef bint in_check(Position pos) noexcept nogil
cdef bint kings_facing(Position pos) noexcept nogil
cpdef bint gives_check(Position pos, int m) noexcept nogil
cpdef bint checks(Position pos, int m) noexcept nogil
cdef bint discovered(Position pos, int king, int fr, int by) noexcept nogil
cdef bint touching(Position pos, int a, int b) noexcept nogil
cdef bint blast_legal(Position pos, int us) noexcept nogil
cdef bint castle_attacked(Position pos, int sq, int by, int king) noexcept nogil
cdef bint stands(Position pos, int sq, int color, int cond) noexcept nogil
cdef bint kin(int q, int screen, int target) noexcept nogil
cdef int diag_attacker(Position pos, int sq, int i, int by) noexcept nogil
cpdef bint kings_see(Position pos) noexcept nogil
cpdef int shak(Position pos) noexcept nogil
