# C-level interface of the search (implementation in search.py).
from ferz.core.position cimport Position
from ferz.core.evaluate cimport Evaluator
from ferz.core.tt cimport TT

cdef enum:
    MAXDEPTH = 128
    INF = 32001
    VALUE_NONE = 32002
    MAXQUIETS = 64
    MAXCAPTS = 32  # captures remembered per node for capture-history maluses
    CONT_MAX = 1 << 22  # continuation-history cells at most (large boards fold into this)
    SC_TT = 1 << 30
    SC_GOOD = 1 << 28
    SC_KILLER = 1 << 27
    SC_BAD = -(1 << 28)
    # move picking stages (next_move)
    ST_TT = 0
    ST_GEN_CAPTURES = 1
    ST_CAPTURES = 2
    ST_KILLERS = 3
    ST_GEN_QUIETS = 4
    ST_QUIETS = 5
    ST_BAD = 6
    ST_GEN_ALL = 7
    ST_ALL = 8
    ST_DONE = 9
    CHASE_CACHE = 4096
    CORR_SIZE = 16384  # correction-history cells per side (a power of two)

cdef class Search:
    cdef public Position pos
    cdef public TT tt
    cdef public Evaluator ev
    cdef public int stop, stopped, seldepth, nroot, draw_moves, stalemate_score, mate_score, null_verify_off
    cdef public long long nodes, node_limit
    # the root move being searched (read by the engine's watcher thread for currmove)
    cdef public int root_depth, root_index, root_move
    cdef int nsq, best_promo, variant_end, fast_checks
    # chasing rule (xiangqi): a Python judge of repetition cycles, its verdicts cached by cycle
    cdef public object chase_judge
    cdef public int chasing
    cdef public long long chase_calls
    cdef unsigned long long[::1] chase_keys
    cdef int[::1] chase_vals
    cdef int[::1] moves, scores, pv, pv_len, killers, history, counter, cur_move, evals
    # continuation and capture history (see __init__): playing-square index of each cell,
    # the (piece, target) row of the move made at each ply, the captures tried at each ply
    cdef int nplay, npc, crows, cont_size, ntypes1, hist_from
    cdef int[::1] sq_idx, cont, ctx, capt_hist, capts, excluded
    cdef int[::1] quiets, root_moves, see_buf, lmr, check_hint
    # correction history: how far the search's results stood from the static evaluation, per
    # side to move and pawn structure (in 1/corr_div centipawns)
    cdef int[::1] corr
    cdef public int corr_on
    # move picker state per ply: stage, TT move, staged or whole list, quiets skipped, killer
    # index, counter move, cursor and end of the captures (or whole list), start of the bad
    # captures, cursor and end of the quiets, score of the move returned
    cdef public int[::1] mp_stage, mp_ttm, mp_staged, mp_skip, mp_kidx, mp_cm, mp_cur
    cdef public int[::1] mp_end, mp_bad, mp_qcur, mp_qend, mp_score
    # tunables, named as in ferz.params.SEARCH
    cdef public int aspiration_delta, aspiration_min_depth, null_min_depth, null_base_reduction
    cdef public int null_depth_div, null_eval_div, null_verify_depth, rfp_max_depth, rfp_margin
    cdef public int razor_max_depth, razor_margin, futility_max_depth, futility_base
    cdef public int futility_per_depth, lmp_max_depth, lmp_base, lmr_min_depth, lmr_base, lmr_div
    cdef public int lmr_history_div, see_quiet_margin, see_capture_margin, see_max_depth
    cdef public int iir_min_depth, delta_margin, lazy_margin, history_bonus_max, history_max, poll_mask
    cdef public int se_min_depth, se_margin, corr_limit, corr_div

    cdef int root(self, int alpha, int beta, int depth, int first) noexcept nogil
    cdef int search(self, int alpha, int beta, int depth, int ply, bint cutnode) noexcept nogil
    cdef int qsearch(self, int alpha, int beta, int ply, bint checks) noexcept nogil
    cdef void poll(self) noexcept nogil
    cdef bint is_draw(self) noexcept nogil
    cdef bint rule_draw(self) noexcept nogil
    cdef int chase_value(self) noexcept nogil
    cdef bint in_check_at(self, int ply) noexcept nogil
    cdef bint has_pieces(self, int color) noexcept nogil
    cdef bint is_tactical(self, int m) noexcept nogil
    cdef void score_moves(self, int base, int n, int ply, int ttm, bint qs) noexcept nogil
    cdef int pick(self, int base, int i, int n) noexcept nogil
    cdef int drop_quiets(self, int i, int end) noexcept nogil
    cdef void pick_init(self, int ply, int ttm, bint staged) noexcept nogil
    cdef void pick_skip_quiets(self, int ply) noexcept nogil
    cdef void gen_list(self, int ply, int base, int ttm, bint captures) noexcept nogil
    cdef int next_move(self, int ply) noexcept nogil
    cdef void update_pv(self, int ply, int m) noexcept nogil
    cdef void update_history(self, int ply, int m, int depth, int nquiets, int ncapts) noexcept nogil
    cdef void gravity(self, int[::1] table, int idx, int bonus) noexcept nogil
    cdef int move_row(self, int m) noexcept nogil
    cdef int hist_index(self, int m) noexcept nogil
    cdef int cont_index(self, int ply, int col) noexcept nogil
    cdef int quiet_history(self, int ply, int m) noexcept nogil
    cdef int capture_index(self, int m) noexcept nogil
    cdef void bonus_quiet(self, int ply, int m, int bonus) noexcept nogil
    cdef int corr_index(self) noexcept nogil
    cdef int corrected(self, int raw) noexcept nogil
    cdef void update_correction(self, int diff, int depth) noexcept nogil
