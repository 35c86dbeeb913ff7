# C-level interface of the game-end rules (implementation in endrules.py).

from ferz.core.position cimport Position

cpdef bint pawn_drop_check(Position pos) noexcept nogil
cpdef int end_value(Position pos) noexcept nogil
cpdef bint reply_first(Position pos) noexcept nogil
cdef bint extinct(Position pos, int c, int extra) noexcept nogil
cdef bint flag_reached(Position pos, int c) noexcept nogil
cdef bint flag_in_reach(Position pos, int c) noexcept nogil
cdef int count_limit(Position pos, int c) noexcept nogil
cdef void update_count(Position pos, int mover, int capt, int kind) noexcept nogil
cdef bint pawns_left(Position pos) noexcept nogil
cpdef bint promotions_only(Position pos) noexcept nogil
cdef bint is_pass(int m) noexcept nogil
cdef int janggi_end(Position pos) noexcept nogil
cpdef int material_result(Position pos) noexcept nogil
cpdef int shatar_value(Position pos) noexcept nogil
cpdef int no_moves_value(Position pos, bint in_check) noexcept nogil
cpdef int repetition_value(Position pos, int checkers, int chasers) noexcept nogil
