# C-level interface of the evaluation (implementation in evaluate.py).
cimport cython
from ferz.core.position cimport Position
from ferz.core.nnue cimport Network

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
    # evaluation classes of pieces (tables of TERMS and KING_DANGER are kept per class)
    C_OTHER = 0
    C_KNIGHT = 1
    C_BISHOP = 2
    C_ROOK = 3
    C_QUEEN = 4
    NCLASSES = 5
    # attack-map bits: what attacks a square, by value bucket
    A_PAWN = 1
    A_MINOR = 2
    A_ROOK = 4
    A_QUEEN = 8
    A_KING = 16
    CB_KNIGHT = 32  # class bits: CB_KNIGHT << (class - 1) for knight, bishop, rook, queen

cdef int tdiv(int a, int b) noexcept nogil


@cython.final
cdef class Evaluator:
    cdef public object rules
    cdef public int nsq, files, ranks, stride, ntypes, max_phase, rook_value
    cdef int base  # the mailbox index of a1
    # 1 when checkmate is the only way to win, so too little material means a draw
    cdef public int material_draws
    cdef public int[::1] pst_mg, pst_eg, phase_w
    # per piece type (index = type): role, movement flags, value, evaluation class, attack-map
    # bucket, mobility table (offset, size) or centre and scale, attack unit of other pieces
    cdef public int[::1] kind, flags, value, cls, class_bit, bucket, mob_off, mob_size
    cdef public int[::1] mob_centre, mob_scale, attack_unit
    # per piece code (2 * type + colour): ranges into the mobility / pawn-capture vectors
    cdef int[::1] mob_first, mob_last, mob_vec, mob_range
    cdef int[::1] cap_first, cap_last, cap_vec
    # per class: the class's movement (from cv_first[k] to cv_first[k + 1]), for safe checks
    cdef int[::1] cv_first, cv_vec, cv_range
    cdef int[::1] sq_file, sq_rank
    cdef unsigned long long[::1] pawn_cache
    # weights: TERMS (middlegame, endgame) and KING_DANGER, in params order
    cdef public int[::1] wmg, weg, kdw
    cdef public int danger_eg, tempo
    # offsets of the terms in wmg / weg (set from the layout of ferz.params.TERMS)
    cdef public int o_mobility_other, o_doubled, o_isolated, o_backward, o_connected, o_passed
    cdef public int o_passed_free, o_passed_own_king, o_passed_their_king, o_candidate
    cdef public int o_bishop_pair, o_rook_open, o_rook_semiopen, o_rook_seventh
    cdef public int o_outpost_leaper, o_outpost_bishop, o_minor_behind_pawn, o_bad_bishop
    cdef public int o_threat_by_pawn, o_threat_minor_on_rook, o_threat_minor_on_queen
    cdef public int o_threat_rook_on_queen, o_hanging, o_hanging_pawn
    cdef public int o_shield_near, o_shield_far, o_king_open_file
    # offsets of the king-danger weights in kdw
    cdef public int d_attacker, d_zone, d_check, d_weak, d_no_queen, d_bias, n_danger
    cdef public int scale_no_pawns_small, scale_opposite_bishops
    cdef public int mopup_edge, mopup_close, mopup_corner, mopup_base
    # accumulators of one evaluation, and the tuner's trace (counts per term, per side danger)
    cdef int acc_mg, acc_eg
    cdef int[::1] dsum
    cdef public int tracing, t_phase, t_scale, t_mopup, t_dead
    cdef public int[::1] trace, kd_trace
    cdef public int blast_win, blast_threat, blast_threats
    cdef public int blast  # captures explode (blastOnCapture)
    # the neural evaluation (core/nnue.py), used where a position keeps its accumulators
    cdef public Network net
    cdef public int nn_on

    cdef int evaluate(self, Position pos) noexcept nogil
    cdef int material(self, Position pos) noexcept nogil
    cdef void term(self, int i, int n) noexcept nogil
    cdef void kd(self, int c, int j, int n) noexcept nogil
    cdef int _count_bits(self, int x) noexcept nogil
    cdef int _front_rank(self, int mask, int c) noexcept nogil
    cdef int _rank8(self, int rr) noexcept nogil
    cdef unsigned int _pawn_terms(self, Position pos, int* pmask, unsigned short* att) noexcept nogil
    cdef int _any_rank(self, int* pmask, int c, int rank) noexcept nogil
    cdef int _dist(self, int a, int b) noexcept nogil
    cdef int _mopup(self, Position pos, int strong, int nbound, int bound_colour) noexcept nogil
    cdef int _blast_threats(self, Position pos, int c) noexcept nogil
