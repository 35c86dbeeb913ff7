# C-level interface of the search (implementation in search.py).
from ferz.core.position cimport Position
from ferz.core.evaluate cimport Evaluator, Scratch
from ferz.core.tt cimport TT
from ferz.core.history cimport History
from ferz.core.movepick cimport MovePicker

cdef enum:
    MAXDEPTH = 128
    INF = 32001
    VALUE_NONE = 32002
    MAXQUIETS = 64
    MAXCAPTS = 32  # captures remembered per node for capture-history maluses
    CHASE_CACHE = 4096
    TB_FAIL = 99  # tb_wdl(): the tables have no verdict

cdef class Search:
    cdef readonly Position pos  # set_position changes it (the picker's and histories' too)
    cdef public TT tt
    cdef public Evaluator ev
    cdef Scratch scratch  # the evaluation's scratch of this thread (the Evaluator is shared)
    cdef public int stop, stopped, seldepth, nroot, draw_moves, nfold_rule, null_verify_off
    cdef public long long nodes, node_limit
    # the root move being searched (read by the engine's watcher thread for currmove)
    cdef public int root_depth, root_index, root_move
    cdef int nsq, variant_end, fast_checks
    cdef int chk_move, chk_val  # checks(): the last move asked about and the answer
    cdef unsigned long long chk_key
    # chasing rule (xiangqi): a Python judge of repetition cycles, its verdicts cached by cycle
    cdef public object chase_judge
    cdef public int chasing
    cdef public long long chase_calls
    cdef unsigned long long[::1] chase_keys
    cdef int[::1] chase_vals
    # Syzygy tablebases (ferz.syzygy): a Python prober called with the GIL right after a
    # capture or pawn move with at most tb_pieces men left (0: off); its verdicts count in tb_hits
    cdef public object tb_probe
    cdef public int tb_pieces, tb_depth, tb_rule50
    cdef public int tb_own  # ferz's own tables (ferz.tablebase): tb_probe takes the Position
    cdef public long long tb_hits
    cdef int[::1] tb_role, tb_square
    cdef int[::1] pv, pv_len, cur_move, evals, excluded, check_hint
    # the quiet moves and the captures tried at each ply (punished after a cutoff)
    cdef int[::1] quiets, capts
    cdef int[::1] root_moves, see_buf, lmr
    # the history tables (history.py) and the move picker (movepick.py) of this thread
    cdef public History hist
    cdef public MovePicker mp
    # tunables, named as in ferz.params.SEARCH
    cdef public int aspiration_delta, aspiration_min_depth, null_min_depth, null_base_reduction
    cdef public int null_depth_div, null_eval_div, null_verify_depth, rfp_max_depth, rfp_margin
    cdef public int razor_max_depth, razor_margin, futility_max_depth, futility_base
    cdef public int futility_per_depth, lmp_max_depth, lmp_base, lmr_min_depth, lmr_base, lmr_div
    cdef public int lmr_history_div, see_quiet_margin, see_capture_margin, see_max_depth
    cdef public int iir_min_depth, delta_margin, lazy_margin, history_bonus_max, history_max, poll_mask
    cdef public int se_min_depth, se_margin, corr_limit, corr_div, lmp_checks, lmr_check

    cdef int root(self, int alpha, int beta, int depth, int first) noexcept nogil
    cdef int search(self, int alpha, int beta, int depth, int ply, bint cutnode) noexcept nogil
    cdef int qsearch(self, int alpha, int beta, int ply, bint checks) noexcept nogil
    cdef void poll(self) noexcept nogil
    cdef bint checks(self, int m) noexcept nogil
    cdef bint is_draw(self) noexcept nogil
    cdef bint rule_draw(self) noexcept nogil
    cdef int chase_value(self) noexcept nogil
    cdef int nfold_value(self) noexcept nogil
    cdef int tb_wdl(self) noexcept nogil
    cdef bint in_check_at(self, int ply) noexcept nogil
    cdef int mated(self, int ply) noexcept nogil
    cdef bint has_pieces(self, int color) noexcept nogil
    cdef void update_pv(self, int ply, int m) noexcept nogil
    cdef void reward(self, int ply, int m, int depth, int nquiets, int ncapts) noexcept nogil
