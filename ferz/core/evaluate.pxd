# C-level interface of the evaluation (implementation in evaluate.py).
from ferz.core.position cimport Position

cdef enum:
    K_PIECE = 0
    K_PAWN = 1
    K_ROYAL = 2
    FL_COLORBOUND = 1
    FL_FILE_RIDER = 2
    FL_LEAPER = 4
    MAP_SIZE = 512
    SAFE_MAX = 20000
    ROYAL_VALUE = 20000
    PAWN_CACHE_SIZE = 16384

cdef int tdiv(int a, int b) noexcept nogil

cdef class Evaluator:
    cdef public object rules
    cdef public int nsq, files, ranks, stride, ntypes, max_phase, rook_value
    cdef int base  # the mailbox index of a1
    # 1 when checkmate is the only way to win, so too little material means a draw
    cdef public int material_draws
    cdef public int[::1] pst_mg, pst_eg, phase_w
    # per piece type (index = type): role, movement flags, value, mobility centre and scale
    cdef public int[::1] kind, flags, value, mob_centre, mob_scale, attack_unit
    # per piece code (2 * type + colour): ranges into the mobility / pawn-capture vectors
    cdef int[::1] mob_first, mob_last, mob_vec, mob_range
    cdef int[::1] cap_first, cap_last, cap_vec
    cdef int[::1] sq_file, sq_rank
    cdef unsigned long long[::1] pawn_cache
    cdef int pawn_mg, pawn_eg
    # weights of the terms computed at run time (names as in ferz.params.EVAL)
    cdef public int mobility_mg, mobility_eg
    cdef public int doubled_mg, doubled_eg, isolated_mg, isolated_eg, backward_mg, backward_eg
    cdef public int connected_mg, connected_eg, passed_mg, passed_eg, passed_free_eg
    cdef public int passed_king_dist_eg, candidate_mg, candidate_eg
    cdef public int bishop_pair_mg, bishop_pair_eg, rook_open_mg, rook_open_eg
    cdef public int rook_semiopen_mg, rook_semiopen_eg, rook_seventh_mg, rook_seventh_eg
    cdef public int outpost_mg, outpost_eg, threat_by_pawn_mg, threat_by_pawn_eg
    cdef public int shield_mg, king_open_file_mg, king_attack_weight, king_attack_max, tempo
    cdef public int scale_no_pawns_small, scale_opposite_bishops
    cdef public int mopup_edge, mopup_close, mopup_base
    cdef public int blast_win, blast_threat, blast_threats
    cdef public int blast  # captures explode (blastOnCapture)

    cdef int evaluate(self, Position pos) noexcept nogil
    cdef int material(self, Position pos) noexcept nogil
    cdef int _count_bits(self, int x) noexcept nogil
    cdef int _front_rank(self, int mask, int c) noexcept nogil
    cdef unsigned int _pawn_terms(self, Position pos, int* pmask, unsigned char* patt) noexcept nogil
    cdef int _any_rank(self, int* pmask, int c, int rank) noexcept nogil
    cdef int _dist(self, int a, int b) noexcept nogil
    cdef int _mopup(self, Position pos, int strong, int nbound, int bound_colour) noexcept nogil
    cdef int _blast_threats(self, Position pos, int c) noexcept nogil
