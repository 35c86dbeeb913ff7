"""Alpha-beta search: iterative deepening, aspiration windows, principal variation search.

The tree search runs in C with the GIL released (`with nogil`), so other Python threads (the
protocol reader answering `stop` and `isready`, helper search threads) run while it thinks.
It stops when another thread sets `stop`, or at the node limit; it never prints: `iterate`
yields one Iteration per completed depth and the caller reports it.

Node recipe (`search`): draw and mate-distance checks, transposition table, static eval
(corrected by the pawn structure's correction history), reverse futility, razoring, null move
(verified at high depth), internal iterative reduction, then the moves in order (TT move, good
captures, killers, counter move, quiets by history, bad captures) with futility, late-move and
SEE pruning, check extension and late move reductions.
"""

from __future__ import annotations

import math
from array import array
from collections import namedtuple

import cython
from cython.cimports.ferz.core.defs import (
    CASTLE,
    DROP,
    EMPTY,
    EP,
    MAXMOVES,
    MAXP,
    NO_END,
    PROMO,
    move_from,
    move_kind,
    move_promo,
    move_to,
)
from cython.cimports.ferz.core.evaluate import K_PIECE, Evaluator, tdiv
from cython.cimports.ferz.core.position import Position
from cython.cimports.ferz.core.see import captured_value, see, see_ge
from cython.cimports.ferz.core.tt import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    MATE,
    MATE_BOUND,
    TT,
    tt_bound,
    tt_depth,
    tt_eval,
    tt_move,
    tt_score,
)

from ferz.params import SEARCH

if not cython.compiled:  # the constants of search.pxd, for the uncompiled fallback
    MAXDEPTH = 128
    INF = 32001
    VALUE_NONE = 32002
    MAXQUIETS = 64
    MAXCAPTS = 32
    CONT_MAX = 1 << 22
    SC_TT = 1 << 30  # move-ordering score bands (see score_moves)
    SC_GOOD = 1 << 28
    SC_KILLER = 1 << 27
    SC_BAD = -(1 << 28)
    ST_TT = 0  # move picking stages (next_move)
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
    CORR_SIZE = 16384
    from ferz.core.evaluate import K_PIECE
    from ferz.core.tt import BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, MATE, MATE_BOUND


DEPTH_LIMIT = 124  # the deepest iteration (MAXDEPTH - 4 leaves room for the extensions)
# hashing a repetition cycle's keys for the chase cache (masked: plain Python ints do not wrap)
CYCLE_MIX = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)
MASK64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)

Line = namedtuple("Line", "score bound pv")  # bound: "lower", "upper" or None (exact)
Iteration = namedtuple("Iteration", "depth seldepth lines nodes")


def mate_in(score: int) -> int | None:
    """Moves to mate (negative when getting mated) of a mate score, None for other scores."""
    if score >= MATE_BOUND:
        return (MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return -((MATE + score) // 2)
    return None


def _ints(n: int) -> array:
    """A zeroed int array."""
    return array("i", bytes(4 * n))


@cython.cclass
class Search:
    """One search thread's state: the position, its tables and the shared TT."""

    def __init__(self, pos: Position, tt: TT, ev: Evaluator) -> None:
        self.pos = pos
        self.tt = tt
        self.ev = ev
        self.nsq = self.pos.nsq
        # SEE's least-attacker test reads piece values per piece code from the position
        # (Evaluator.install sets them too, for positions swapped in later)
        pos.lvalue = array("i", [ev.value[p >> 1] for p in range(pos.npc)])
        for name, value in SEARCH.items():
            setattr(self, name, int(value))
        rules = pos.rules
        self.draw_moves = 2 * rules.n_move_rule if rules.n_move_rule > 0 else 0
        values = {"draw": 0, "loss": -1, "win": 1}
        self.stalemate_score = values[rules.stalemate_value]
        self.mate_score = values[getattr(rules, "checkmate_value", "loss")]
        self.variant_end = 1 if pos.end_rules else 0
        # checks of a move are found before playing it where the rules allow (Position.checks)
        self.fast_checks = 1 if pos.fast_legal else 0
        promos = [ev.value[rules.piece_index(c)] for c in rules.promotion_letters]
        self.best_promo = max(promos, default=0)
        self.moves = _ints(MAXDEPTH * MAXMOVES)
        self.scores = _ints(MAXDEPTH * MAXMOVES)
        self.pv = _ints(MAXDEPTH * MAXDEPTH)
        self.pv_len = _ints(MAXDEPTH + 1)
        self.killers = _ints(2 * (MAXDEPTH + 1))
        self.counter = _ints(self.nsq * self.nsq)
        squares = rules.squares()
        self.sq_idx = _ints(self.nsq)
        for i, sq in enumerate(squares):
            self.sq_idx[sq] = i
        self.nplay = len(squares)
        # Butterfly history per side, origin (a playing square, or a dropped type after
        # them) and target: indexed by playing squares, not mailbox cells, so that it stays
        # small enough for the cache (36 KB in chess instead of 200 KB)
        self.hist_from = self.nplay + len(rules.pieces) + 1
        self.history = _ints(2 * self.hist_from * self.nplay)
        # Continuation history: how good a quiet move (piece, target) has been right after
        # another move (piece, target) one or two plies before. Rows and columns are (piece
        # code, playing square); on large boards the table is folded to at most CONT_MAX cells.
        self.npc = pos.npc
        self.crows = self.npc * self.nplay
        self.cont_size = min(self.crows * self.crows, CONT_MAX)
        self.cont = _ints(self.cont_size)
        self.ctx = array("i", [-1]) * (MAXDEPTH + 2)
        self.excluded = _ints(MAXDEPTH + 1)  # the move left out at each ply (singular search)
        # Capture history: (piece, target) and the captured type
        self.ntypes1 = len(rules.pieces) + 1
        self.capt_hist = _ints(self.crows * self.ntypes1)
        self.capts = _ints(MAXDEPTH * MAXCAPTS)
        self.cur_move = _ints(MAXDEPTH + 1)
        self.evals = _ints(MAXDEPTH + 1)
        # in check at each ply, as learnt by the parent after its move (-1 = unknown)
        self.check_hint = array("i", [-1]) * (MAXDEPTH + 1)
        self.quiets = _ints(MAXDEPTH * MAXQUIETS)
        self.root_moves = _ints(MAXMOVES)
        self.see_buf = _ints(MAXMOVES)
        self.corr = _ints(2 * CORR_SIZE)
        # Without pawns the pawn key is 0: one cell for every position would act as a drifting
        # bias (it cost KBNK conversions), so pawnless positions and variants without pawns
        # (xiangqi, shogi) are left uncorrected.
        self.corr_on = 1 if any(piece.pawn for piece in rules.pieces) else 0
        # move picker state per ply (next_move)
        for name in (
            "mp_stage", "mp_ttm", "mp_staged", "mp_skip", "mp_kidx", "mp_cm", "mp_cur",
            "mp_end", "mp_bad", "mp_qcur", "mp_qend", "mp_score",
        ):  # fmt: skip
            setattr(self, name, _ints(MAXDEPTH + 1))
        lmr = _ints(64 * 64)
        for d in range(1, 64):
            for n in range(1, 64):
                # in hundredths of a ply: base / 100 + ln(d) * ln(n) / (div / 100)
                r = self.lmr_base + math.log(d) * math.log(n) * 10000 / self.lmr_div
                lmr[d * 64 + n] = int(r // 100)
        self.lmr = lmr
        self.nroot = 0
        self.root_depth = 0
        self.root_index = 0
        self.root_move = 0
        self.seldepth = 0
        self.null_verify_off = 0
        self.nodes = 0
        self.node_limit = 0
        self.stop = 0
        self.stopped = 0
        self.chase_judge = None
        self.chasing = 0
        self.chase_calls = 0
        self.chase_keys = array("Q", bytes(8 * CHASE_CACHE))
        self.chase_vals = _ints(CHASE_CACHE)

    # ------------------------------------------------------------------ Python interface

    def set_chase_judge(self, judge) -> None:
        """Judge repetitions in the tree by the chasing rule: judge(position) gives +1, 0 or -1
        for the side to move (ferz.variants.chase.cycle_value); None: repetitions are draws."""
        self.chase_judge = judge
        self.chasing = 0 if judge is None else 1

    def clear(self) -> None:
        """Forget histories, killers and counter moves (a new game)."""
        self._zero(self.history)
        self._zero(self.cont)
        self._zero(self.capt_hist)
        self._zero(self.corr)
        for i in range(len(self.counter)):
            self.counter[i] = 0
        for i in range(len(self.killers)):
            self.killers[i] = 0

    @staticmethod
    def _zero(table: cython.int[::1]) -> None:
        """Set every cell of a table to 0."""
        i: cython.Py_ssize_t
        for i in range(table.shape[0]):
            table[i] = 0

    def set_root(self, searchmoves=None) -> int:
        """Collect the legal root moves (restricted to `searchmoves` if given); their count."""
        legal = self.pos.legal_moves()
        if searchmoves:
            wanted = set(searchmoves)
            legal = [m for m in legal if m in wanted]
        for i, m in enumerate(legal):
            self.root_moves[i] = m
        self.nroot = len(legal)
        return self.nroot

    def root_move_list(self) -> list[int]:
        """The root moves in their current order (best first after an iteration)."""
        return [self.root_moves[i] for i in range(self.nroot)]

    def iterate(
        self,
        max_depth: int = DEPTH_LIMIT,
        multipv: int = 1,
        first_depth: int = 1,
        main: bool = True,
    ):
        """Search depth 1, 2, ... and yield an Iteration after each completed depth.

        The last Iteration yielded is the result; when `stop` interrupts a depth, an Iteration
        for the partial depth is yielded only if it already changed the best move. Lazy SMP
        helpers pass main=False (they leave the TT generation alone) and may start deeper.
        """
        self.stopped = 0
        self.nodes = 0
        self.seldepth = 0
        if main:
            self.tt.new_search()
        for i in range(MAXDEPTH + 1):
            self.killers[2 * i] = self.killers[2 * i + 1] = 0
        max_depth = max(1, min(max_depth, DEPTH_LIMIT))
        if self.nroot == 0:
            return
        npv = max(1, min(multipv, self.nroot))
        previous = [0] * npv
        for depth in range(max(1, min(first_depth, max_depth)), max_depth + 1):
            lines = []
            for k in range(npv):
                first_move = self.root_moves[k]
                delta = self.aspiration_delta
                if depth >= self.aspiration_min_depth and abs(previous[k]) < MATE_BOUND:
                    alpha = max(previous[k] - delta, -INF)
                    beta = min(previous[k] + delta, INF)
                else:
                    alpha, beta = -INF, INF
                found = None  # a better move found by this depth, as a lower bound
                while True:
                    score = self._root(alpha, beta, depth, k)
                    if (
                        score > -INF
                        and self.root_moves[k] != first_move
                        and (self.stopped or score >= beta)
                    ):
                        found = Line(score, "lower", self._pv_list(self.root_moves[k]))
                    if self.stopped:
                        break
                    if score <= alpha:
                        beta = (alpha + beta) // 2
                        alpha = max(score - delta, -INF)
                    elif score >= beta:
                        beta = min(score + delta, INF)
                    else:
                        break
                    delta += delta
                bound = None
                if score <= alpha:
                    bound = "upper"
                elif score >= beta:
                    bound = "lower"
                if self.stopped:
                    if k == 0 and found is not None and found.pv[0] == self.root_moves[0]:
                        # the interrupted depth already found a better move: report it
                        lines.append(found)
                    break
                previous[k] = score
                lines.append(Line(score, bound, self._pv_list(self.root_moves[k])))
            if len(lines) > 1 and not self.stopped:
                # Lines searched one after another can come out of order: best first.
                order = sorted(range(len(lines)), key=lambda j: -lines[j].score)
                lines = [lines[j] for j in order]
                previous = [previous[j] for j in order]
                for j, line in enumerate(lines):
                    self.root_moves[j] = line.pv[0]
            if lines:
                yield Iteration(depth, self.seldepth, lines, self.nodes)
            if self.stopped:
                return

    def _root(self, alpha: int, beta: int, depth: int, first: int) -> int:
        """Search the root moves from index `first` with the GIL released."""
        a: cython.int = alpha
        b: cython.int = beta
        d: cython.int = depth
        f: cython.int = first
        score: cython.int
        with cython.nogil:
            score = self.root(a, b, d, f)
        return score

    def quiesce(self) -> int:
        """Quiescence value of the current position, side to move's view (for the tuner)."""
        i: cython.int
        self.stopped = 0
        for i in range(MAXDEPTH + 1):
            self.check_hint[i] = -1
        return self.qsearch(-INF, INF, 0, False)

    def see_value(self, m: int) -> int:
        """Static exchange value of move m in the current position (for tools and tests)."""
        return see(self.pos, self.ev, m, self.see_buf)

    def reduction(self, depth: int, moves: int) -> int:
        """The base late-move reduction in plies at `depth` for the `moves`-th move (tests)."""
        return self.lmr[min(depth, 63) * 64 + min(moves, 63)]

    def correction(self) -> int:
        """The correction (centipawns) this thread adds to the current position's static
        evaluation, learnt from its searches (tests and debugging)."""
        return self.corrected(0)

    def _pv_list(self, best: int) -> list[int]:
        """The principal variation at the root, starting with `best`."""
        n = self.pv_len[0]
        if n == 0 or self.pv[0] != best:
            return [best]
        return [self.pv[i] for i in range(n)]

    # ------------------------------------------------------------------ the tree search

    def poll(self) -> cython.void:
        """Check the stop flag and the node limit now and then."""
        if (self.nodes & self.poll_mask) == 0 and (
            self.stop or (self.node_limit > 0 and self.nodes >= self.node_limit)
        ):
            self.stopped = 1

    def in_check_at(self, ply: cython.int) -> cython.bint:
        """Whether the side to move is in check; the parent already knows after most moves."""
        hint: cython.int = self.check_hint[ply]
        if hint >= 0:
            return hint == 1
        return self.pos.in_check()

    def is_draw(self) -> cython.bint:
        """Repetition or a rule draw (a checkmate on the last move still counts as mate)."""
        return self.rule_draw() or self.pos.is_repetition()

    def rule_draw(self) -> cython.bint:
        """The n-move rule, the end of a count (makruk, ASEAN, Cambodian), or sittuyin's lone
        king and pawn that can only promote (tested only with two men left: cheap)."""
        if self.draw_moves and self.pos.halfmove >= self.draw_moves:
            return True
        if self.pos.cnt_limit != 0 and self.pos.cnt_ply > self.pos.cnt_limit:
            return True
        return self.pos.pcount[self.pos.side] == 2 and self.pos.promotions_only()

    def chase_value(self) -> cython.int:
        """The chasing rule at a repetition: +1 or -1 for the side to move when one side alone
        chased through the cycle, else 0. The judge is Python (run with the GIL, 0.6 ms); its
        verdicts are cached by the keys of the cycle's positions, which fix its moves."""
        first: cython.int = self.pos.last_repetition()
        j: cython.int
        slot: cython.int
        r: cython.int = 0
        sig: cython.ulonglong = self.pos.key
        if first < 0:
            return 0
        if first > 0:
            first -= 1  # the move into the first occurrence counts too
        for j in range(first, self.pos.ply):
            sig = ((sig ^ self.pos.u_key[j]) * CYCLE_MIX) & MASK64
        slot = cython.cast(cython.int, sig & cython.cast(cython.ulonglong, CHASE_CACHE - 1))
        if self.chase_keys[slot] == sig:
            return self.chase_vals[slot]
        with cython.gil:
            try:
                r = self.chase_judge(self.pos)
            except Exception:  # a judge that fails leaves the repetition a draw
                r = 0
            self.chase_calls += 1
        self.chase_keys[slot] = sig
        self.chase_vals[slot] = r
        return r

    def has_pieces(self, color: cython.int) -> cython.bint:
        """Whether `color` has a piece other than pawns and royals (null-move zugzwang guard)."""
        i: cython.int
        for i in range(self.pos.pcount[color]):
            if self.ev.kind[self.pos.board[self.pos.plist[color * MAXP + i]] >> 1] == K_PIECE:
                return True
        return False

    def is_tactical(self, m: cython.int) -> cython.bint:
        """Captures and promotions (moves that change the material)."""
        kind: cython.int = move_kind(m)
        if kind == EP or kind == PROMO:  # noqa: SIM109 - C comparisons, no tuple
            return True
        if kind == CASTLE or kind == DROP:  # noqa: SIM109 - C comparisons, no tuple
            return False
        return self.pos.board[move_to(m)] != EMPTY

    def update_pv(self, ply: cython.int, m: cython.int) -> cython.void:
        """pv[ply] = m followed by the child's principal variation."""
        i: cython.int
        base: cython.int = ply * MAXDEPTH
        child: cython.int = (ply + 1) * MAXDEPTH
        self.pv[base + ply] = m
        for i in range(ply + 1, self.pv_len[ply + 1]):
            self.pv[base + i] = self.pv[child + i]
        self.pv_len[ply] = self.pv_len[ply + 1] if self.pv_len[ply + 1] > ply + 1 else ply + 1
        if ply == 0:
            # keep the root line where the Python side reads it
            for i in range(self.pv_len[0]):
                self.pv[i] = self.pv[base + i]

    def gravity(self, table: cython.int[::1], idx: cython.int, bonus: cython.int) -> cython.void:
        """History update with gravity: values stay within +-history_max."""
        h: cython.int = table[idx]
        mag: cython.int = bonus if bonus >= 0 else -bonus
        table[idx] = h + bonus - tdiv(h * mag, self.history_max)

    def corr_index(self) -> cython.int:
        """The correction-history cell of the side to move's pawn structure, or -1 for none
        (no pawns on the board, or none in the variant)."""
        if not self.corr_on or self.pos.pkey == 0:
            return -1
        return self.pos.side * CORR_SIZE + cython.cast(cython.int, self.pos.pkey & (CORR_SIZE - 1))

    def corrected(self, raw: cython.int) -> cython.int:
        """A static evaluation plus the correction learnt for this pawn structure."""
        i: cython.int = self.corr_index()
        if i < 0:
            return raw
        v: cython.int = raw + tdiv(self.corr[i], self.corr_div)
        if v >= MATE_BOUND:
            return MATE_BOUND - 1
        if v <= -MATE_BOUND:
            return -MATE_BOUND + 1
        return v

    def update_correction(self, diff: cython.int, depth: cython.int) -> cython.void:
        """Move this pawn structure's correction towards a search result `diff` centipawns
        from the static eval, the more the deeper the search (with gravity, in corr_limit)."""
        i: cython.int = self.corr_index()
        if i < 0:
            return
        cap: cython.int = self.corr_limit // 4
        bonus: cython.int = diff * depth // 8
        h: cython.int = self.corr[i]
        if bonus > cap:
            bonus = cap
        elif bonus < -cap:
            bonus = -cap
        self.corr[i] = h + bonus - tdiv(h * (bonus if bonus >= 0 else -bonus), self.corr_limit)

    def move_row(self, m: cython.int) -> cython.int:
        """(piece code, target) of a move before it is played: its continuation-history row
        and column, and the first index of its capture-history cells."""
        pc: cython.int
        if move_kind(m) == DROP:
            pc = 2 * move_from(m) + self.pos.side
        else:
            pc = self.pos.board[move_from(m)]
        return pc * self.nplay + self.sq_idx[move_to(m)]

    def hist_index(self, m: cython.int) -> cython.int:
        """Butterfly-history cell of a quiet move of the side to move."""
        a: cython.int
        if move_kind(m) == DROP:
            a = self.nplay + move_from(m)  # a drop's origin is the dropped type
        else:
            a = self.sq_idx[move_from(m)]
        return (self.pos.side * self.hist_from + a) * self.nplay + self.sq_idx[move_to(m)]

    def cont_index(self, ply: cython.int, col: cython.int) -> cython.int:
        """Continuation-history cell of a move (its column) after the move made at `ply`,
        or -1 when there is none (the root's parent, a null move)."""
        row: cython.int
        idx: cython.longlong
        if ply < 0:
            return -1
        row = self.ctx[ply]
        if row < 0:
            return -1
        idx = cython.cast(cython.longlong, row) * self.crows + col
        if idx >= self.cont_size:
            idx %= self.cont_size  # a large board: the table is folded
        return cython.cast(cython.int, idx)

    def quiet_history(self, ply: cython.int, m: cython.int) -> cython.int:
        """The history of a quiet move: its own, and after the last two moves."""
        col: cython.int = self.move_row(m)
        h: cython.int = self.history[self.hist_index(m)]
        i: cython.int = self.cont_index(ply - 1, col)
        if i >= 0:
            h += self.cont[i]
        i = self.cont_index(ply - 2, col)
        if i >= 0:
            h += self.cont[i]
        return h

    def capture_index(self, m: cython.int) -> cython.int:
        """Capture-history cell of a capture or promotion before it is played."""
        victim: cython.int = 0
        if move_kind(m) == EP:
            victim = self.pos.board[move_from(m)] >> 1  # a pawn of the mover's own type
        elif move_to(m) != move_from(m):
            victim = self.pos.board[move_to(m)] >> 1
        return self.move_row(m) * self.ntypes1 + victim

    def bonus_quiet(self, ply: cython.int, m: cython.int, bonus: cython.int) -> cython.void:
        """Add a bonus (or a malus) to a quiet move's histories."""
        col: cython.int = self.move_row(m)
        i: cython.int
        self.gravity(self.history, self.hist_index(m), bonus)
        i = self.cont_index(ply - 1, col)
        if i >= 0:
            self.gravity(self.cont, i, bonus)
        i = self.cont_index(ply - 2, col)
        if i >= 0:
            self.gravity(self.cont, i, bonus)

    def update_history(
        self,
        ply: cython.int,
        m: cython.int,
        depth: cython.int,
        nquiets: cython.int,
        ncapts: cython.int,
    ) -> cython.void:
        """Reward the move that caused a cutoff; punish the quiet moves tried before it (when
        it is quiet) and the captures tried before it."""
        nsq: cython.int = self.nsq
        bonus: cython.int = depth * depth * 16
        i: cython.int
        q: cython.int
        prev: cython.int
        if bonus > self.history_bonus_max:
            bonus = self.history_bonus_max
        if self.is_tactical(m):
            self.gravity(self.capt_hist, self.capture_index(m), bonus)
        else:
            if self.killers[2 * ply] != m:
                self.killers[2 * ply + 1] = self.killers[2 * ply]
                self.killers[2 * ply] = m
            self.bonus_quiet(ply, m, bonus)
            for i in range(nquiets):
                q = self.quiets[ply * MAXQUIETS + i]
                if q != m:
                    self.bonus_quiet(ply, q, -bonus)
            if ply > 0:
                prev = self.cur_move[ply - 1]
                if prev:
                    self.counter[move_from(prev) * nsq + move_to(prev)] = m
        for i in range(ncapts):
            q = self.capts[ply * MAXCAPTS + i]
            if q != m:
                self.gravity(self.capt_hist, self.capture_index(q), -bonus)

    def score_moves(
        self, base: cython.int, n: cython.int, ply: cython.int, ttm: cython.int, qs: cython.bint
    ) -> cython.void:
        """Order scores: TT move, captures by MVV-LVA and capture history, killers, counter
        move, quiets by their histories."""
        i: cython.int
        m: cython.int
        s: cython.int
        attacker: cython.int
        nsq: cython.int = self.nsq
        k1: cython.int = self.killers[2 * ply]
        k2: cython.int = self.killers[2 * ply + 1]
        cm: cython.int = 0
        prev: cython.int
        if ply > 0 and not qs:
            prev = self.cur_move[ply - 1]
            if prev:
                cm = self.counter[move_from(prev) * nsq + move_to(prev)]
        for i in range(base, base + n):
            m = self.moves[i]
            if m == ttm:
                s = SC_TT
            elif self.is_tactical(m):
                if move_kind(m) == DROP:
                    attacker = 0
                else:
                    attacker = self.ev.value[self.pos.board[move_from(m)] >> 1]
                    if attacker > 4000:
                        attacker = 4000  # royal pieces capture last, but before bad captures
                s = SC_GOOD + captured_value(self.pos, self.ev, m) * 16 - attacker // 4
                s += tdiv(self.capt_hist[self.capture_index(m)], 8)
                if move_kind(m) == PROMO and self.ev.value[move_promo(m)] < self.best_promo:
                    s = SC_BAD + s - SC_GOOD  # under-promotions go behind the quiet moves
            elif m == k1:
                s = SC_KILLER + 2
            elif m == k2:
                s = SC_KILLER + 1
            elif m == cm:
                s = SC_KILLER
            else:
                s = self.quiet_history(ply, m)
            self.scores[i] = s
        return

    def pick_init(self, ply: cython.int, ttm: cython.int, staged: cython.bint) -> cython.void:
        """Start picking the moves of the node at `ply`; ttm is a pseudo-legal TT move or 0.
        Staged: captures, killers and quiets are generated and tried apart (not when in check
        or where a variant's rules need the whole move list at once)."""
        prev: cython.int
        self.mp_stage[ply] = ST_TT
        self.mp_ttm[ply] = ttm
        self.mp_staged[ply] = staged
        self.mp_skip[ply] = 0
        self.mp_kidx[ply] = 0
        self.mp_cm[ply] = 0
        if ply > 0:
            prev = self.cur_move[ply - 1]
            if prev:
                self.mp_cm[ply] = self.counter[move_from(prev) * self.nsq + move_to(prev)]

    def pick_skip_quiets(self, ply: cython.int) -> cython.void:
        """Late move pruning: no more quiet moves at this node."""
        self.mp_skip[ply] = 1
        if self.mp_stage[ply] == ST_ALL:
            self.mp_end[ply] = self.drop_quiets(self.mp_cur[ply], self.mp_end[ply])

    @cython.cfunc
    @cython.nogil
    @cython.exceptval(check=False)
    def gen_list(
        self, ply: cython.int, base: cython.int, ttm: cython.int, captures: cython.bint
    ) -> cython.void:
        """Generate and score the captures (or every move) of ply's list from base."""
        end: cython.int = self.pos.gen(self.moves, base, captures)
        self.score_moves(base, end - base, ply, ttm, captures)
        self.mp_cur[ply] = base
        self.mp_end[ply] = end

    def next_move(self, ply: cython.int) -> cython.int:
        """The next move to search at `ply` (0 when there is none), its ordering score in
        mp_score: the TT move, good captures by MVV-LVA (losing ones by SEE wait), killers and
        the counter move, quiets by history, then the losing captures."""
        base: cython.int = ply * MAXMOVES
        m: cython.int
        i: cython.int
        k: cython.int
        end: cython.int
        ttm: cython.int = self.mp_ttm[ply]
        while True:
            stage: cython.int = self.mp_stage[ply]
            if stage == ST_TT:
                self.mp_stage[ply] = ST_GEN_CAPTURES if self.mp_staged[ply] else ST_GEN_ALL
                if ttm:
                    self.mp_score[ply] = SC_TT
                    return ttm
            elif stage == ST_GEN_CAPTURES:
                self.gen_list(ply, base, ttm, True)
                self.mp_stage[ply] = ST_CAPTURES
            elif stage == ST_CAPTURES:
                i = self.mp_cur[ply]
                end = self.mp_end[ply]
                if i < end:
                    m = self.pick(base, i, end - base)
                    if self.scores[i] >= SC_GOOD:
                        if not see_ge(self.pos, self.ev, m, 0, self.see_buf):
                            self.scores[i] += SC_BAD - SC_GOOD  # a losing capture: later
                            continue
                        self.mp_cur[ply] = i + 1
                        if m == ttm:
                            continue
                        self.mp_score[ply] = self.scores[i]
                        return m
                self.mp_bad[ply] = i  # [i, end): losing captures and under-promotions
                self.mp_stage[ply] = ST_KILLERS
            elif stage == ST_KILLERS:
                k = self.mp_kidx[ply]
                self.mp_kidx[ply] = k + 1
                if k == 0:
                    m = self.killers[2 * ply]
                elif k == 1:
                    m = self.killers[2 * ply + 1]
                    if m == self.killers[2 * ply]:
                        continue
                elif k == 2:
                    m = self.mp_cm[ply]
                    if m == self.killers[2 * ply] or m == self.killers[2 * ply + 1]:
                        continue
                else:
                    self.mp_stage[ply] = ST_GEN_QUIETS
                    continue
                if (
                    m != 0
                    and m != ttm
                    and not self.mp_skip[ply]
                    and not self.is_tactical(m)
                    and self.pos.is_pseudo_legal(m)
                ):
                    self.mp_score[ply] = SC_KILLER
                    return m
            elif stage == ST_GEN_QUIETS:
                if self.mp_skip[ply]:
                    self.mp_cur[ply] = self.mp_bad[ply]
                    self.mp_stage[ply] = ST_BAD
                    continue
                end = self.mp_end[ply]
                self.mp_qend[ply] = self.pos.gen_quiets(self.moves, end, base)
                self.score_moves(end, self.mp_qend[ply] - end, ply, ttm, False)
                self.mp_qcur[ply] = end
                self.mp_stage[ply] = ST_QUIETS
            elif stage == ST_QUIETS:
                i = self.mp_qcur[ply]
                end = self.mp_end[ply]
                if self.mp_skip[ply] or i >= self.mp_qend[ply]:
                    self.mp_cur[ply] = self.mp_bad[ply]
                    self.mp_stage[ply] = ST_BAD
                    continue
                m = self.pick(end, i, self.mp_qend[ply] - end)
                self.mp_qcur[ply] = i + 1
                if (
                    m == ttm
                    or m == self.killers[2 * ply]
                    or m == self.killers[2 * ply + 1]
                    or m == self.mp_cm[ply]
                ):
                    continue  # tried already
                self.mp_score[ply] = self.scores[i]
                return m
            elif stage == ST_BAD:
                i = self.mp_cur[ply]
                end = self.mp_end[ply]
                if i >= end:
                    self.mp_stage[ply] = ST_DONE
                    return 0
                m = self.pick(base, i, end - base)
                self.mp_cur[ply] = i + 1
                if m == ttm:
                    continue
                self.mp_score[ply] = self.scores[i]
                return m
            elif stage == ST_GEN_ALL:
                self.gen_list(ply, base, ttm, False)
                self.mp_stage[ply] = ST_ALL
            elif stage == ST_ALL:
                i = self.mp_cur[ply]
                end = self.mp_end[ply]
                if i >= end:
                    self.mp_stage[ply] = ST_DONE
                    return 0
                m = self.pick(base, i, end - base)
                # Captures that lose material (by SEE) wait until after the quiet moves.
                while SC_GOOD <= self.scores[i] < SC_TT and not see_ge(
                    self.pos, self.ev, m, 0, self.see_buf
                ):
                    self.scores[i] += SC_BAD - SC_GOOD
                    m = self.pick(base, i, end - base)
                self.mp_cur[ply] = i + 1
                if m == ttm:
                    continue
                self.mp_score[ply] = self.scores[i]
                return m
            else:
                return 0

    def drop_quiets(self, i: cython.int, end: cython.int) -> cython.int:
        """Keep only the tactical moves of [i, end) (their order kept); returns the new end.
        Late move pruning has skipped the quiet ones: picking them would only cost time."""
        j: cython.int
        k: cython.int = i
        for j in range(i, end):
            if self.is_tactical(self.moves[j]):
                self.moves[k] = self.moves[j]
                self.scores[k] = self.scores[j]
                k += 1
        return k

    def pick(self, base: cython.int, i: cython.int, n: cython.int) -> cython.int:
        """Move the best-scored move of [i, base + n) to position i (selection sort step)."""
        j: cython.int
        best: cython.int = i
        end: cython.int = base + n
        for j in range(i + 1, end):
            if self.scores[j] > self.scores[best]:
                best = j
        if best != i:
            j = self.moves[i]
            self.moves[i] = self.moves[best]
            self.moves[best] = j
            j = self.scores[i]
            self.scores[i] = self.scores[best]
            self.scores[best] = j
        return self.moves[i]

    def root(
        self, alpha: cython.int, beta: cython.int, depth: cython.int, first: cython.int
    ) -> cython.int:
        """Search root moves [first, nroot); the best one moves to index `first`."""
        best: cython.int = -INF
        i: cython.int
        j: cython.int
        m: cython.int
        score: cython.int
        newdepth: cython.int
        self.pv_len[0] = 0
        self.nodes += 1
        self.root_depth = depth
        for i in range(first, self.nroot):
            m = self.root_moves[i]
            self.root_index = i + 1  # 1-based, as UCI's currmovenumber
            self.root_move = m
            self.ctx[0] = self.move_row(m)
            if not self.pos.make(m):
                continue
            self.cur_move[0] = m
            newdepth = depth - 1
            self.check_hint[1] = 1 if self.pos.in_check() else 0
            if self.check_hint[1]:
                newdepth += 1
            if i == first:
                score = -self.search(-beta, -alpha, newdepth, 1, False)
            else:
                score = -self.search(-alpha - 1, -alpha, newdepth, 1, True)
                if score > alpha and score < beta and not self.stopped:
                    score = -self.search(-beta, -alpha, newdepth, 1, False)
            self.pos.unmake()
            if self.stopped:
                break
            if score > best:
                best = score
                if score > alpha or i == first:
                    self.update_pv(0, m)
                    # rotate the new best move to the front, keeping the others' order
                    for j in range(i, first, -1):
                        self.root_moves[j] = self.root_moves[j - 1]
                    self.root_moves[first] = m
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best

    def search(
        self,
        alpha: cython.int,
        beta: cython.int,
        depth: cython.int,
        ply: cython.int,
        cutnode: cython.bint,
    ) -> cython.int:
        """Principal variation search of one node: exact inside (alpha, beta), else a bound."""
        pvnode: cython.bint = beta - alpha > 1
        in_check: cython.bint
        slot: cython.longlong
        meta: cython.ulonglong
        data: cython.ulonglong
        ttm: cython.int = 0
        tts: cython.int = 0
        ttd: cython.int = -100
        ttb: cython.int = 0
        tthit: cython.bint = False
        static: cython.int
        raw: cython.int
        improving: cython.bint = False
        score: cython.int
        best: cython.int = -INF
        bestmove: cython.int = 0
        i: cython.int
        m: cython.int
        legal: cython.int = 0
        nquiets: cython.int = 0
        ncapts: cython.int = 0
        excl: cython.int
        ttm_ext: cython.int = 0
        tactical: cython.bint
        gives_check: cython.bint
        newdepth: cython.int
        r: cython.int
        hist: cython.int
        skip_quiets: cython.bint = False
        sc: cython.int
        old_alpha: cython.int = alpha

        # Step 1. Draws by repetition or the n-move rule (a perpetual check loses where the
        # variant says so); quiescence at the horizon.
        if self.is_draw():
            if self.pos.perp:
                r = self.pos.perpetual()
                if r != 0:
                    return (MATE - ply) * r
            if self.chasing and self.pos.is_repetition():
                r = self.chase_value()  # a lone chaser through the cycle loses (xiangqi)
                if r != 0:
                    return (MATE - ply) * r
            return 0
        if self.variant_end:
            r = self.pos.end_value()
            if r != NO_END:
                return (MATE - ply) * r  # a variant rule (extinction, flag) ended the game
        if depth <= 0:
            return self.qsearch(alpha, beta, ply, True)
        self.pv_len[ply] = ply
        self.nodes += 1
        self.poll()
        if self.stopped:
            return 0
        if ply > self.seldepth:
            self.seldepth = ply

        # Step 2. The ply limit and mate distance pruning.
        in_check = self.in_check_at(ply)
        if ply >= MAXDEPTH - 2:
            return 0 if in_check else self.ev.evaluate(self.pos)
        if alpha < -MATE + ply:
            alpha = -MATE + ply
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha

        # Step 3. Transposition table: a deep enough bound ends non-PV nodes at once. (Not in
        # the search for a singular move: it looks at the same position without one move.)
        excl = self.excluded[ply]
        slot = self.tt.probe(self.pos.key) if excl == 0 else -1
        if slot >= 0:
            data = self.tt.table[2 * slot + 1]
            meta = self.tt.table[2 * slot] ^ data
            if (meta >> 32) == (self.pos.key >> 32):
                tthit = True
                ttm = tt_move(data)
                tts = tt_score(data, ply)
                ttd = tt_depth(meta)
                ttb = tt_bound(meta)
                if (
                    not pvnode
                    and ttd >= depth
                    and (
                        ttb == BOUND_EXACT
                        or (ttb == BOUND_LOWER and tts >= beta)
                        or (ttb == BOUND_UPPER and tts <= alpha)
                    )
                ):
                    return tts

        # Step 4. Static evaluation (the TT keeps it uncorrected), corrected by what searches
        # found for this pawn structure, refined by the TT score when its bound allows.
        if in_check:
            raw = VALUE_NONE
            static = VALUE_NONE
        else:
            if tthit and tt_eval(meta) != VALUE_NONE:
                raw = tt_eval(meta)
            else:
                raw = self.ev.evaluate(self.pos)
            static = self.corrected(raw)
        self.evals[ply] = static
        if not in_check and ply >= 2 and self.evals[ply - 2] != VALUE_NONE:
            improving = static > self.evals[ply - 2]
        score = static
        if (
            tthit
            and not in_check
            and -MATE_BOUND < tts < MATE_BOUND
            and (
                ttb == BOUND_EXACT
                or (ttb == BOUND_LOWER and tts > static)
                or (ttb == BOUND_UPPER and tts < static)
            )
        ):
            score = tts  # the better estimate for the pruning decisions below

        if not in_check and not pvnode:
            # Step 5. Reverse futility: far above beta at low depth, the node will fail high.
            if (
                depth <= self.rfp_max_depth
                and score - self.rfp_margin * (depth - improving) >= beta
                and beta > -MATE_BOUND
                and score < MATE_BOUND
            ):
                return score

            # Step 6. Razoring: hopeless at low depth unless a capture saves it.
            if depth <= self.razor_max_depth and score + self.razor_margin * depth < alpha:
                r = self.qsearch(alpha, alpha + 1, ply, False)
                if r <= alpha:
                    return r

            # Step 7. Null move: if passing still fails high, the node is good enough.
            if (
                depth >= self.null_min_depth
                and score >= beta
                and static >= beta
                and ply > 0
                and self.cur_move[ply - 1] != 0
                and excl == 0
                and not self.null_verify_off
                and beta > -MATE_BOUND
                and self.has_pieces(self.pos.side)
            ):
                r = self.null_base_reduction + depth // self.null_depth_div
                i = (score - beta) // self.null_eval_div
                r += i if i < 3 else 3
                self.cur_move[ply] = 0
                self.ctx[ply] = -1
                self.pos.make_null()
                self.tt.prefetch(self.pos.key)
                self.check_hint[ply + 1] = -1
                hist = -self.search(-beta, -beta + 1, depth - r - 1, ply + 1, not cutnode)
                self.pos.unmake_null()
                if self.stopped:
                    return 0
                if hist >= beta:
                    if hist >= MATE_BOUND:
                        hist = beta
                    if depth < self.null_verify_depth:
                        return hist
                    # Zugzwang guard at high depth: verify with a reduced normal search.
                    self.null_verify_off = 1
                    r = self.search(beta - 1, beta, depth - r - 1, ply, False)
                    self.null_verify_off = 0
                    if r >= beta:
                        return hist

        # Step 8. Internal iterative reduction: a node without a TT move gets one ply less.
        if depth >= self.iir_min_depth and ttm == 0 and (pvnode or cutnode) and excl == 0:
            depth -= 1
        if ttm != 0 and not self.pos.is_pseudo_legal(ttm):
            ttm = 0

        # Step 9. Singular extension: when every other move fails well below the TT move's
        # score (a search without it, at half depth), the TT move is extended by one ply; when
        # even that search beats beta, several moves do and the node is cut (multi-cut).
        if (
            ttm != 0
            and excl == 0
            and ply > 0
            and depth >= self.se_min_depth
            and ttb != BOUND_UPPER
            and ttd >= depth - 3
            and -MATE_BOUND < tts < MATE_BOUND
            and ply < 2 * self.root_depth
        ):
            r = tts - self.se_margin * depth
            self.excluded[ply] = ttm
            score = self.search(r - 1, r, (depth - 1) // 2, ply, cutnode)
            self.excluded[ply] = 0
            if self.stopped:
                return 0
            if score < r:
                ttm_ext = 1
            elif r >= beta:
                return r
            elif tts >= beta:
                ttm_ext = -1  # another move may do as well: the TT move gets less

        # Step 10. Move picking: the TT move before any generation (it often refutes the node),
        # then in stages: good captures, killers and the counter move, quiets, bad captures.
        self.pos.note_check(in_check)
        self.pv_len[ply] = ply
        self.pick_init(ply, ttm, not in_check and not self.pos.full_gen)

        # Step 11. The move loop.
        while True:
            m = self.next_move(ply)
            if m == 0:
                break
            if m == excl:
                continue
            sc = self.mp_score[ply]
            tactical = self.is_tactical(m)
            if skip_quiets and not tactical:
                continue
            # Step 12. Pruning of late and losing moves (never while mated scores are possible).
            if ply > 0 and best > -MATE_BOUND and not in_check:
                if not tactical:
                    if depth <= self.lmp_max_depth and nquiets >= (
                        self.lmp_base + depth * depth
                    ) // (2 - improving):
                        skip_quiets = True
                        self.pick_skip_quiets(ply)
                        continue
                    # Futile and losing quiet moves are skipped unless they give check.
                    if (
                        depth <= self.futility_max_depth
                        and not pvnode
                        and static + self.futility_base + self.futility_per_depth * depth <= alpha
                        and m != self.killers[2 * ply]
                        and not self.pos.checks(m)
                    ):
                        continue
                    if (
                        depth <= self.see_max_depth
                        and not see_ge(
                            self.pos, self.ev, m, -self.see_quiet_margin * depth, self.see_buf
                        )
                        and not self.pos.checks(m)
                    ):
                        continue
                elif (
                    depth <= self.see_max_depth
                    and sc < SC_TT
                    and not see_ge(
                        self.pos, self.ev, m, -self.see_capture_margin * depth * depth, self.see_buf
                    )
                    and not self.pos.checks(m)
                ):
                    continue
            gives_check = self.fast_checks and self.pos.checks(m)
            hist = 0 if tactical else self.quiet_history(ply, m)
            self.ctx[ply] = self.move_row(m)
            if not self.pos.make(m):
                continue
            self.tt.prefetch(self.pos.key)
            legal += 1
            self.cur_move[ply] = m
            if not self.fast_checks:
                gives_check = self.pos.in_check()
            self.check_hint[ply + 1] = 1 if gives_check else 0
            if not tactical:
                if nquiets < MAXQUIETS:
                    self.quiets[ply * MAXQUIETS + nquiets] = m
                    nquiets += 1
            elif ncapts < MAXCAPTS:
                self.capts[ply * MAXCAPTS + ncapts] = m
                ncapts += 1
            # Step 13. Extensions: checks, a singular TT move.
            newdepth = depth - 1
            if gives_check:
                newdepth += 1
            if m == ttm:
                newdepth += ttm_ext
            # Step 14. Late move reductions, then re-search at full depth or full window.
            if depth >= self.lmr_min_depth and legal > 1 + pvnode and not tactical:
                r = self.lmr[(depth if depth < 63 else 63) * 64 + (legal if legal < 63 else 63)]
                if pvnode:
                    r -= 1
                if cutnode:
                    r += 1
                if not improving:
                    r += 1
                if gives_check:
                    r -= 1
                if m == self.killers[2 * ply] or m == self.killers[2 * ply + 1]:
                    r -= 1
                r -= tdiv(hist, self.lmr_history_div)
                if r < 0:
                    r = 0
                if r > newdepth - 1:
                    r = newdepth - 1 if newdepth > 1 else 0
                score = -self.search(-alpha - 1, -alpha, newdepth - r, ply + 1, True)
                if score > alpha and r > 0:
                    score = -self.search(-alpha - 1, -alpha, newdepth, ply + 1, not cutnode)
            elif not pvnode or legal > 1:
                score = -self.search(-alpha - 1, -alpha, newdepth, ply + 1, not cutnode)
            if pvnode and (legal == 1 or (score > alpha and score < beta)):
                score = -self.search(-beta, -alpha, newdepth, ply + 1, False)
            self.pos.unmake()
            if self.stopped:
                return 0
            # Step 15. New best move: PV, cutoff, history.
            if score > best:
                best = score
                if score > alpha:
                    bestmove = m
                    if pvnode:
                        self.update_pv(ply, m)
                    if score >= beta:
                        self.update_history(ply, m, depth, nquiets, ncapts)
                        break
                    alpha = score

        # Step 16. No legal move: mate or stalemate (scored by the variant's rule); in the
        # search for a singular move, only that move was legal.
        if legal == 0:
            if excl != 0:
                return alpha
            if in_check:
                if self.pos.pawn_drop_check():
                    return MATE - ply  # mated by a pawn drop where that is illegal: a win
                return (MATE - ply) * self.mate_score
            if self.stalemate_score == 0:
                return 0
            return (MATE - ply) * self.stalemate_score

        # Step 17. Store the result (not that of a search without the singular move), and
        # teach the correction history how far it stood from the static eval: only where the
        # bound says on which side the truth lies, and not after a capture (material, not
        # structure, made the difference).
        if excl == 0:
            if best >= beta:
                r = BOUND_LOWER
            elif pvnode and bestmove != 0 and best > old_alpha:
                r = BOUND_EXACT
            else:
                r = BOUND_UPPER
            self.tt.store(self.pos.key, ply, bestmove, best, raw, depth, r)
            if (
                not in_check
                and (bestmove == 0 or not self.is_tactical(bestmove))
                and -MATE_BOUND < best < MATE_BOUND
                and not (r == BOUND_LOWER and best <= static)
                and not (r == BOUND_UPPER and best >= static)
            ):
                self.update_correction(best - static, depth)
        return best

    def qsearch(
        self, alpha: cython.int, beta: cython.int, ply: cython.int, checks: cython.bint
    ) -> cython.int:
        """Quiescence search: captures (all evasions when in check) until the position is quiet.

        With `checks` (the first ply below the main search) quiet moves that give check and do
        not lose material are tried too, so mates and forks by check just past the horizon
        are seen.
        """
        in_check: cython.bint
        slot: cython.longlong
        meta: cython.ulonglong
        data: cython.ulonglong
        ttm: cython.int = 0
        tts: cython.int
        ttb: cython.int
        static: cython.int = VALUE_NONE
        raw: cython.int = VALUE_NONE
        best: cython.int
        bestmove: cython.int = 0
        base: cython.int
        n: cython.int
        i: cython.int
        m: cython.int
        score: cython.int
        legal: cython.int = 0
        pvnode: cython.bint = beta - alpha > 1
        old_alpha: cython.int = alpha
        quiets: cython.bint

        self.nodes += 1
        self.poll()
        if self.stopped:
            return 0
        self.pv_len[ply] = ply
        if ply > self.seldepth:
            self.seldepth = ply
        if self.rule_draw():
            return 0
        if self.variant_end:
            i = self.pos.end_value()
            if i != NO_END:
                return (MATE - ply) * i
        in_check = self.in_check_at(ply)
        if ply >= MAXDEPTH - 2:
            return 0 if in_check else self.ev.evaluate(self.pos)

        slot = self.tt.probe(self.pos.key)
        if slot >= 0:
            data = self.tt.table[2 * slot + 1]
            meta = self.tt.table[2 * slot] ^ data
            if (meta >> 32) == (self.pos.key >> 32):
                ttm = tt_move(data)
                tts = tt_score(data, ply)
                ttb = tt_bound(meta)
                if not pvnode and (
                    ttb == BOUND_EXACT
                    or (ttb == BOUND_LOWER and tts >= beta)
                    or (ttb == BOUND_UPPER and tts <= alpha)
                ):
                    return tts
                raw = tt_eval(meta)

        # Stand pat: the side to move may decline every capture (not when in check).
        if in_check:
            best = -MATE + ply
            raw = VALUE_NONE
        else:
            if raw == VALUE_NONE:
                # Lazy evaluation: far above beta on material alone, the full eval cannot
                # bring the score back below it. (Not with a network: it costs less than
                # the hand-made evaluation, and its scale is not the material's.)
                if not self.pos.nn:
                    static = self.ev.material(self.pos)
                    if static - self.lazy_margin >= beta:
                        return static
                raw = self.ev.evaluate(self.pos)
            static = self.corrected(raw)
            best = static
            if best >= beta:
                return best
            if best > alpha:
                alpha = best

        base = ply * MAXMOVES
        self.pos.note_check(in_check)
        n = self.pos.gen(self.moves, base, not in_check and not checks) - base
        self.score_moves(base, n, ply, ttm, True)
        quiets = False  # reached the quiet moves: their order no longer matters
        for i in range(base, base + n):
            m = self.moves[i] if quiets else self.pick(base, i, n)
            if not in_check and checks and not self.is_tactical(m):
                quiets = True
                # (drops are left out: in drop variants they would multiply the work)
                if (
                    move_kind(m) == DROP
                    or not self.pos.checks(m)
                    or not see_ge(self.pos, self.ev, m, 0, self.see_buf)
                ):
                    continue
            elif not in_check:
                # Delta pruning: even winning the piece would not reach alpha.
                if (
                    move_kind(m) != PROMO
                    and static + captured_value(self.pos, self.ev, m) + self.delta_margin <= alpha
                ):
                    continue
                if self.scores[i] < SC_TT and not see_ge(self.pos, self.ev, m, 0, self.see_buf):
                    continue
            if self.fast_checks:
                self.check_hint[ply + 1] = 1 if self.pos.checks(m) else 0
            self.ctx[ply] = self.move_row(m)
            if not self.pos.make(m):
                continue
            self.tt.prefetch(self.pos.key)
            legal += 1
            self.cur_move[ply] = m
            if not self.fast_checks:
                self.check_hint[ply + 1] = -1
            score = -self.qsearch(-beta, -alpha, ply + 1, False)
            self.pos.unmake()
            if self.stopped:
                return 0
            if score > best:
                best = score
                if score > alpha:
                    bestmove = m
                    if pvnode:
                        self.update_pv(ply, m)
                    if score >= beta:
                        break
                    alpha = score
        if in_check and legal == 0:
            return MATE - ply if self.pos.pawn_drop_check() else (MATE - ply) * self.mate_score
        if best >= beta:
            i = BOUND_LOWER
        elif pvnode and best > old_alpha:
            i = BOUND_EXACT
        else:
            i = BOUND_UPPER
        self.tt.store(self.pos.key, ply, bestmove, best, raw, 0, i)
        return best
