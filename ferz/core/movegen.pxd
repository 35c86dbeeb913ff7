# C-level interface of the move generator (implementation in movegen.py). See docs/architecture.md.

from ferz.core.position cimport Position

cdef int only_captures(Position pos, int[::1] out, int first, int n) noexcept nogil
cdef int makpong_moves(Position pos, int[::1] out, int first, int n) noexcept nogil
cdef int gen(Position pos, int[::1] out, int n, bint captures_only) noexcept nogil
cdef int gen_piece(Position pos, int[::1] out, int n, int fr, int p, int mode) noexcept nogil
cdef int gen_quiets(Position pos, int[::1] out, int n, int first) noexcept nogil
cdef int keep_parries(Position pos, int[::1] out, int first, int n) noexcept nogil
cdef int gen_castling(Position pos, int[::1] out, int n) noexcept nogil
cdef int gen_drops(Position pos, int[::1] out, int n, bint narrow) noexcept nogil
cdef bint is_pseudo_legal(Position pos, int m) noexcept nogil
cdef bint is_drop(Position pos, int m) noexcept nogil
cdef int gen_sittuyin(Position pos, int[::1] out, int n) noexcept nogil
cdef bint hits_enemy(Position pos, int p, int sq, int empty_sq) noexcept nogil
cdef int keep_drops(Position pos, int[::1] out, int first, int n, bint captures_only) noexcept nogil
cdef int gen_leaps(Position pos, int[::1] out, int n, int fr, int p) noexcept nogil
# gating and two-board games (vargate)
cdef int gen_gated(Position pos, int[::1] out, int n, int start, int fr, int p) noexcept nogil
cdef int gen_gated_castle(Position pos, int[::1] out, int n, int kf, int rf) noexcept nogil
cdef int gen_diagonal(Position pos, int[::1] out, int n, int fr, int p, int a, int mode,
                      bint quiets) noexcept nogil
cdef int add_toggle(Position pos, int[::1] out, int n, int fr, int to, int p, int mode) noexcept nogil
