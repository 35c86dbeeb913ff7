# C-level interface of Position (implementation in position.py). See docs/architecture.md.
# The move generator (movegen.pxd) and the attack probes (attacks.pxd) are functions of it.

cimport cython
from libc.stdlib cimport calloc, free

# The network's accumulator updates (see Position.nn_piece): plain C loops that gcc vectorises,
# compiled twice where gcc can (AVX2 and the baseline) and picked by the CPU at load time.
cdef extern from *:
    """
    #ifndef FERZ_SIMD
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define FERZ_SIMD __attribute__((target_clones("avx2", "default"), unused))
    #else
    #define FERZ_SIMD __attribute__((unused))
    #endif
    #endif
    /* acc[v * h + i] += (or -=) w[row_v + i] for the two views v */
    FERZ_SIMD static void ferz_nn_add(short *restrict acc, const short *restrict w,
                                      Py_ssize_t h, Py_ssize_t r0, Py_ssize_t r1) {
        for (Py_ssize_t i = 0; i < h; i++) acc[i] += w[r0 + i];
        for (Py_ssize_t i = 0; i < h; i++) acc[h + i] += w[r1 + i];
    }
    FERZ_SIMD static void ferz_nn_sub(short *restrict acc, const short *restrict w,
                                      Py_ssize_t h, Py_ssize_t r0, Py_ssize_t r1) {
        for (Py_ssize_t i = 0; i < h; i++) acc[i] -= w[r0 + i];
        for (Py_ssize_t i = 0; i < h; i++) acc[h + i] -= w[r1 + i];
    }
    /* a piece moves: row a_v in, row s_v out */
    FERZ_SIMD static void ferz_nn_move(short *restrict acc, const short *restrict w,
                                       Py_ssize_t h, Py_ssize_t a0, Py_ssize_t a1,
                                       Py_ssize_t s0, Py_ssize_t s1) {
        for (Py_ssize_t i = 0; i < h; i++) acc[i] += w[a0 + i] - w[s0 + i];
        for (Py_ssize_t i = 0; i < h; i++) acc[h + i] += w[a1 + i] - w[s1 + i];
    }
    /* one view: acc[i] += w[a + i] (king-bucket cache refreshes) */
    FERZ_SIMD static void ferz_nn_add1(short *restrict acc, const short *restrict w,
                                       Py_ssize_t h, Py_ssize_t a) {
        for (Py_ssize_t i = 0; i < h; i++) acc[i] += w[a + i];
    }
    FERZ_SIMD static void ferz_nn_sub1(short *restrict acc, const short *restrict w,
                                       Py_ssize_t h, Py_ssize_t s) {
        for (Py_ssize_t i = 0; i < h; i++) acc[i] -= w[s + i];
    }
    /* the next ring entry of the accumulators starts as a copy of the current one */
    static inline void ferz_nn_copy(short *restrict dst, const short *restrict src, Py_ssize_t n) {
        memcpy(dst, src, (size_t)n * sizeof(short));
    }
    """
    void ferz_nn_copy(short *dst, const short *src, Py_ssize_t n) noexcept nogil
    void ferz_nn_add1(short *acc, const short *w, Py_ssize_t h, Py_ssize_t a) noexcept nogil
    void ferz_nn_sub1(short *acc, const short *w, Py_ssize_t h, Py_ssize_t s) noexcept nogil
    void ferz_nn_add(short *acc, const short *w, Py_ssize_t h, Py_ssize_t r0,
                     Py_ssize_t r1) noexcept nogil
    void ferz_nn_sub(short *acc, const short *w, Py_ssize_t h, Py_ssize_t r0,
                     Py_ssize_t r1) noexcept nogil
    void ferz_nn_move(short *acc, const short *w, Py_ssize_t h, Py_ssize_t a0, Py_ssize_t a1,
                      Py_ssize_t s0, Py_ssize_t s1) noexcept nogil


# One ply's record (as Stockfish's StateInfo): states[ply] holds what the position at that ply
# knows about itself and what make needs to undo the move made from it; Position allocates
# MAXPLY + 1 of them, once. Hot fields first (make and unmake touch the first line's worth).
cdef struct PlyState:
    unsigned long long key  # the hash key (repetitions look back through these)
    unsigned long long noted_key  # the key for which noted_check holds (note_check)
    int move  # the move made from here (0: a null move)
    int piece  # the piece it moved (dropped, castled with)
    int captured
    int castling, ep, halfmove
    int mg, eg, phase  # the evaluation's incremental terms
    int noted_check  # whether the side to move is in check (valid while key == noted_key)
    int in_check  # perpetualCheckIllegal: whether the side to move is in check
    int kings_facing  # janggi's bikjang: the kings face each other here
    int shak  # shatar: in check (1), by a shak (2), by something other than a knight (4)
    int checks_left  # 3check: the mover's checks left before the move
    int count_limit, count_ply  # makruk counting before the move
    int gated  # seirawanGating: the piece the move gated in (0 for none)
    long long gates  # cambodianMoves, seirawanGating: the gates before the move
    int blasts  # atomic: how many pieces the move's explosion removed, and which from where
    int blast_sq[9]
    int blast_pc[9]

# The rule switches of a variant, grouped by concern: each group a struct filled from
# tables.Tables's group of the same name (tables.RuleGroup, a mapping whose keys are these
# fields) when a Position is made. Read as pos.end_rules.mate_value in the core; from Python,
# pos.end_rules is a dict compiled and a RuleGroup uncompiled (read both as pos.end_rules["x"]).

# How a game ends and what it is worth (endrules.py), and the rules judged after each move
cdef struct EndRules:
    int any  # an ending beyond mate and repetition (extinction, flags, checks, janggi)
    int after_rules  # rules judged after every legal move: whether it checks (no_checking...)
    # the values (for the side to move: 1, 0, -1) of a checkmate, a stalemate (by the piece
    # count: stale_pieces) and an n-fold repetition (nfold_white: White's value)
    int mate_value, stale_value, stale_pieces, nfold_value, nfold_white
    int perpetual_rule  # perpetualCheckIllegal (PlyState.in_check)
    int chase_rule  # xiangqi's chasing rule (chase.py)
    int dropmate_type  # the type that may not mate by a drop (shogi's pawn), 0 for none
    # extinction: on, its value, every type (else ext_types[:n_ext]), the counts, claims
    int ext_on, ext_value, ext_all, n_ext, ext_count, ext_opp, ext_claim
    int flag_on, flag_move  # flags (flag_sq) and flagMove (1 royal flag piece, 2 another)
    int check_count, no_checking  # 3check (checks_left), racing kings (no move may check)
    # makruk counting (countingRule: 1 makruk, 2 asean, 3 cambodian) and the piece types
    # whose numbers set the pieces' honour limit (-1 for none)
    int counting, cnt_rook, cnt_khon, cnt_knight
    # janggi: bikjang (PlyState.kings_facing), passing or bikjang (jang), the material
    # count (materialCounting: 1 janggi's weights mat_w, 2 unweighted)
    int bik_rule, jang, mat_count
    int shatar, mate_knight  # shatar's mate rule (PlyState.shak), its knight type
    int ply_rules  # bik_rule or shatar: make records a ply's facts for them

# Promotions (movegen.py's add): the choices, mandatory ones, pieces that turn over
cdef struct PromoRules:
    int n_promo  # promotion choices per colour (promo_list)
    int mand_promo, mand_piece_promo  # a pawn, a piece must promote where it can
    int toggle, demote, promo_capt  # kyoto, micro shogi: pieceDemotion, promotion on capture
    int sit_promo, n_sit  # sittuyin's promotions in place (sit_types[:n_sit], sit_zone)

# Drops and hands
cdef struct DropRules:
    int drops, capt_to_hand  # pieces are dropped; captured pieces go to the captor's hand
    int drop_checks  # a drop may check
    int drop_promo  # dropPromoted: promoted pieces are dropped as such too
    int nodbl_type, nodbl_count  # no more than nodbl_count of this type on a file (nifu)
    int must_drop, must_drop_type  # mustDrop (of this type, 0 any) while the hand holds one
    int castle_drop  # castlingDroppedPiece: a dropped rook or king may castle
    int opp_bishop  # the bishop type dropped on the other colour's squares (0: none)

# How pieces move and which moves the generator lists
cdef struct MoveRules:
    int fast_legal, chk_all  # the legality and check fast paths hold (tables.Tables._lines)
    int ep_enabled, flying  # en passant; flying general (the kings may not face each other)
    int blast  # atomic: captures explode (blastOnCapture) on the squares blast_vec reaches
    int must_capture, makpong, immobile  # losers' captures, makpong, immobility illegal
    int gen_filter  # must_capture, makpong or must_drop narrow the list
    int full_gen  # the move list must be generated whole (see tables.Tables._gates)
    int king_pass  # janggi: the king may pass

# Gating: cambodianMoves and seirawanGating (gates in Position.gates)
cdef struct GateRules:
    int any  # cambodian or seirawan: make saves the gates per ply
    int cambodian, cambodian_fers, cambodian_rook, seirawan

cdef inline PlyState* alloc_states(Py_ssize_t n) noexcept nogil:
    return <PlyState*>calloc(n, sizeof(PlyState))  # zeroed (NULL: no memory)


@cython.final
cdef class Position:
    cdef public object rules
    cdef public int files, ranks, stride, nsq, npc, side, halfmove, fullmove, ep, castling
    cdef public int ply, game_ply, mg, eg, phase
    cdef public unsigned long long key
    cdef public unsigned long long pkey  # the pawns alone (correction history of the search)
    # board and piece bookkeeping
    cdef public int[::1] board, plist, pidx, pcount, royal, count, hand
    # movement atoms per piece code, and attack probes per attacking colour
    cdef int[::1] a_start, a_end, a_vec, a_range, a_flags, a_leg
    cdef int[::1] pr_start, pr_vec, pr_range, pr_kind, pr_leg
    cdef unsigned long long[::1] pr_near, pr_far
    cdef int[::1] region, dbl_zone, promo_zone, is_pawn, is_royal, promo_list, promoted, demoted
    cdef int[::1] can_promote
    cdef int[::1] sq_list
    cdef public int nplay
    # the rule switches by concern (the structs above), filled from tables.Tables
    cdef readonly EndRules end_rules
    cdef readonly PromoRules promo_rules
    cdef readonly DropRules drop_rules
    cdef readonly MoveRules move_rules
    cdef readonly GateRules gate_rules
    cdef int[::1] ep_vec, ep_pc
    # castling: per right (0 = white kingside, 1 = white queenside, 2, 3 black)
    cdef int[::1] c_king_from, c_rook_from, c_king_to, c_rook_to, c_mask
    cdef int c_rook_type
    # hashing and evaluation tables
    cdef unsigned long long[::1] z_piece, z_castle, z_ep, z_hand
    cdef unsigned long long z_side
    cdef public int[::1] pst_mg, pst_eg, phase_w
    # the record of each ply from the root (MAXPLY + 1 of them; see PlyState)
    cdef PlyState* states
    cdef int[::1] scratch
    # legality fast path: line directions from a king, rider masks per colour and vector
    cdef int[::1] line_dir, sq_file, sq_rank
    cdef unsigned long long[::1] ray_mask
    # direct checks per piece code and offset to the king (see tables.Tables._checks)
    cdef int[::1] chk_kind, chk_vec, chk_slow
    cdef public int[::1] lvalue  # piece value per code for SEE's least attacker (set by Evaluator)
    # rules beyond chess (ferz.variants): see tables.Tables._variant_rules
    cdef int[::1] a_minr, pr_minr, rel_rank, file_idx, dead, drop_zone, promo_limit, file_count
    cdef int[::1] ext_types, flag_sq, flag_start, flag_type
    cdef int cap_end  # the end of the room in the move buffer (movegen.add stops there)
    # 3check's checks left per colour, the e.p. region, flags per colour, the flag moves' buffer
    cdef public int[::1] checks_left
    cdef int[::1] ep_ok, flag_zone, flag_buf
    cdef unsigned long long[::1] z_checks
    cdef int[::1] blast_vec  # atomic: the squares an explosion reaches
    # sittuyin: promotions in place or to a fers square (sit_zone per colour), their types
    cdef int[::1] sit_zone, sit_types
    cdef public int overflow
    # the squares where a piece other than the royal one can parry the check
    # (attacks.parry_squares): marked with the current stamp
    cdef int[::1] blk_mark
    cdef int blk_stamp
    cdef object trial  # a spare Position that set_fen validates in (built on first use)
    # makruk counting (end_rules.counting): limit in plies (0 = none) and the count
    cdef public int cnt_limit, cnt_ply
    # a move known to give check or not here (hint_check), so make need not look (perpetual_rule)
    cdef int hint_move, hint_chk
    cdef unsigned long long hint_key
    # cambodianMoves: gates still open, bit 16 * colour + file (see Rules.cambodian_moves);
    # gate_bit[colour * nsq + sq] is the bit of a square on that colour's gate rank, else 0
    cdef public long long gates
    cdef long long[::1] gate_bit
    # neural evaluation (core/nnue.py): the network's hidden weights and biases, the offset of
    # each (piece code, square) row from both views, and the accumulators (White's view, then
    # Black's), kept by put, lift and shift while `nn` is set
    cdef public object net
    cdef public int nn, nn_h, nn_max
    cdef short[::1] nn_w, nn_b
    cdef public short[::1] acc
    # the ring of accumulators (position.py): the current entry's offset in acc, the moves
    # made since the last refresh, the oldest of them whose entry the ring still holds, and
    # each entry's king indices
    cdef public int nn_at, nn_sp, nn_floor
    cdef int[::1] nn_kbs
    cdef int[::1] nn_row
    # king buckets (format 2): each view's offset into nn_row (its king index times the size
    # of one table), the king index of each (view, king square) as such an offset, and the
    # cache of accumulators per (view, king index) with the board each was computed for
    cdef public int nn_kings, nn_kb0, nn_kb1, nn_krow
    cdef public long long nn_refreshes  # cache refreshes (tests and measurements)
    cdef int[::1] nn_kmap, nn_cboard
    cdef short[::1] nn_cache
    # hand inputs (format 3): whether the network has them, the offset of each (piece code,
    # count) row from both views (see nnue.hand_features), and each cache entry's hands
    cdef public int nn_hands
    cdef int[::1] nn_hrow, nn_chand
    # --- gating and two-board games (vargate): the gates' keys (seirawanGating)
    cdef unsigned long long[::1] z_gate
    # janggi (varmore): the second leg of each atom and probe (= the first for one-legged
    # leapers), the palace diagonals' squares, janggi cannons per type, the material count's
    # weights (end_rules.mat_count)
    cdef int[::1] a_leg2, pr_leg2, diag_ok, jcannon, mat_w
    # shatar's mate rule (end_rules.shatar): the shak types
    cdef int[::1] shak_type

    cdef void put(self, int p, int sq) noexcept nogil
    cdef void lift(self, int sq) noexcept nogil
    cdef void shift(self, int fr, int to) noexcept nogil
    cdef void nn_push(self) noexcept nogil
    cdef void nn_pop(self) noexcept nogil
    cdef void nn_rebuild(self) noexcept nogil
    cdef void nn_piece(self, int p, int sq, bint add) noexcept nogil
    cdef void nn_rows(self, Py_ssize_t r0, Py_ssize_t r1, bint add) noexcept nogil
    cdef void nn_change(self, int out, int fr, int into, int to) noexcept nogil
    cdef void nn_king(self, int c) noexcept nogil
    cdef void nn_cache_row(self, Py_ssize_t at, Py_ssize_t row, bint add) noexcept nogil
    cdef void nn_hand(self, int p, int i, bint add) noexcept nogil
    cdef void nn_cache_hands(self, Py_ssize_t e, Py_ssize_t at, int c) noexcept nogil
    cdef unsigned long long pawn_hash(self, int p, int sq) noexcept nogil
    cdef void note_check(self, bint check) noexcept nogil
    cdef void hint_check(self, int m, bint check) noexcept nogil
    cpdef bint make(self, int m) noexcept nogil
    cpdef void unmake(self) noexcept nogil
    cpdef void make_null(self) noexcept nogil
    cpdef void unmake_null(self) noexcept nogil
    cpdef bint is_repetition(self) noexcept nogil
    cpdef int last_repetition(self) noexcept nogil
    cpdef int perpetual(self) noexcept nogil
    cdef int ep_square_after(self, int leg, int them) noexcept nogil
    cdef unsigned long long explode(self, int to, int ply, unsigned long long key) noexcept nogil
    cdef void close_gates(self, int p, int fr, int to, int kind) noexcept nogil
    cdef int dropped_rights(self, int p, int to) noexcept nogil
    # --- gating and two-board games (vargate): seirawanGating (gates in `gates`, hashed by
    # z_gate; the piece gated at each ply, 0 for none), mustDropType
    cdef void gate_in(self, int m, int us, int ply) noexcept nogil
    cdef void gate_out(self, int m, int ply) noexcept nogil
    cdef unsigned long long gate_key(self, long long gates) noexcept nogil
    cdef void strand(self, long long old, long long new) noexcept nogil
