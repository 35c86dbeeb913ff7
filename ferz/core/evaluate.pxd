# C-level interface of the evaluation (implementation in evaluate.py; its tables are built by
# evaltables.py, which holds the uncompiled copy of these constants).
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
    MAX_TERMS = 160
    MAX_DANGER = 24
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
cdef class Scratch:
    # What one evaluation's steps share (filled anew by every call; per colour c). One per
    # search thread (Search.scratch): the Evaluator itself is shared by the threads.
    # att[c * MAP_SIZE + sq]: A_* and class bits of c's pieces attacking sq; kzone: the squares
    # of c's royal piece and next to it
    cdef unsigned short att[2 * MAP_SIZE]
    cdef unsigned char kzone[2 * MAP_SIZE]
    cdef int pmask[40]  # pawn ranks per colour and file: c * 20 + file + 1 (0 and 19: no file)
    cdef int pcol[4]  # pawns per colour and square colour
    cdef int npm[2]  # non-pawn material
    cdef int npawns[2]
    cdef int npieces[2]
    cdef int queens[2]  # pieces in the queen bucket
    cdef int nbound[2]  # colour-bound pieces
    cdef int bound_sq[2]  # square colour of the last colour-bound piece
    cdef int bound_mask[2]  # square colours of the colour-bound pieces
    cdef int attackers[2]  # pieces reaching the enemy king's zone
    cdef int natt[2 * NCLASSES]  # ... per class: c * NCLASSES + class
    cdef int nzone[2 * NCLASSES]  # zone squares hit, per colour and class
    cdef int dsum[2]  # king danger of c's king
    cdef unsigned long long pkey  # the pawn structure's hash
    cdef unsigned int passed  # files of passed pawns: bit 16 * c + file
    cdef int mg, eg  # the terms' sum (white minus black)
    # what the tuner reads (Evaluator.trace_features): every term's count, white minus black,
    # and every king-danger count per colour (c * MAX_DANGER + j); the endgame scale (64ths),
    # the mop-up bonus and whether the position was a dead draw. The counts are only summed
    # here; nothing of the search reads them.
    cdef int terms[MAX_TERMS]
    cdef int danger[2 * MAX_DANGER]
    cdef int scale, mopup, dead


@cython.final
cdef class Evaluator:
    cdef public object rules
    cdef public int nsq, files, ranks, stride, ntypes, max_phase, rook_value
    cdef int base  # the mailbox index of a1
    # 1 when checkmate is the only way to win, so too little material means a draw
    cdef public int material_draws
    # each colour's first promotion rank where pawns can only become colour-bound pieces
    cdef public int promo_white, promo_black
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
    # offsets of the terms in wmg / weg (from the layout of ferz.params.TERMS)
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
    cdef public int blast_win, blast_threat, blast_threats
    cdef public int blast  # captures explode (blastOnCapture)
    # the neural evaluation (core/nnue.py), used where a position keeps its accumulators
    cdef public Network net
    cdef public int nn_on

    cdef int evaluate(self, Position pos, Scratch s) noexcept nogil
    cdef int material(self, Position pos) noexcept nogil
    cdef int handmade(self, Position pos, Scratch s, bint cached) noexcept nogil
    # helpers
    cdef void term(self, Scratch s, int i, int n) noexcept nogil
    cdef void king_danger(self, Scratch s, int c, int j, int n) noexcept nogil
    cdef int _count_bits(self, int x) noexcept nogil
    cdef int _front_rank(self, int mask, int c) noexcept nogil
    cdef int _rank8(self, int rr) noexcept nogil
    cdef void _pawn_terms(self, Position pos, Scratch s) noexcept nogil
    cdef int _any_rank(self, Scratch s, int c, int rank) noexcept nogil
    cdef int _dist(self, int a, int b) noexcept nogil
    cdef int _mopup(self, Position pos, int strong, int nbound, int bound_colour) noexcept nogil
    cdef int _blast_threats(self, Position pos, int c) noexcept nogil
