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
from functools import partial

import cython
from cython.cimports.ferz.core import attacks, endrules, movegen
from cython.cimports.ferz.core.defs import (
    DROP,
    MAXMOVES,
    MAXP,
    NO_END,
    PROMO,
    move_kind,
)
from cython.cimports.ferz.core.evaluate import K_PIECE, Evaluator, Scratch, tdiv
from cython.cimports.ferz.core.history import History
from cython.cimports.ferz.core.movepick import SC_TT, SKIP_NONE, MovePicker, is_tactical
from cython.cimports.ferz.core.position import Position
from cython.cimports.ferz.core.see import captured_value, see, see_ge
from cython.cimports.ferz.core.tt import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    MATE,
    MATE_BOUND,
    TB_WIN,
    TT,
    tt_bound,
    tt_depth,
    tt_eval,
    tt_move,
    tt_score,
)

from ferz.core.chase import Chases, cycle_value
from ferz.params import SEARCH, has_palace, values

if not cython.compiled:  # the constants of search.pxd, for the uncompiled fallback
    MAXDEPTH = 128
    INF = 32001
    VALUE_NONE = 32002
    MAXQUIETS = 64
    MAXCAPTS = 32
    CHASE_CACHE = 4096
    TB_FAIL = 99
    from ferz.core.evaluate import K_PIECE
    from ferz.core.movepick import SC_TT, SKIP_NONE
    from ferz.core.tt import BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, MATE, MATE_BOUND, TB_WIN


DEPTH_LIMIT = 124  # the deepest iteration (MAXDEPTH - 4 leaves room for the extensions)
# hashing a repetition cycle's keys for the chase cache (masked: plain Python ints do not wrap)
CYCLE_MIX = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)
MASK64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)

RootLine = namedtuple("RootLine", "score bound pv")  # bound: "lower", "upper" or None (exact)
Iteration = namedtuple("Iteration", "depth seldepth lines nodes")


def mate_in(score: int) -> int | None:
    """Moves to mate (negative when getting mated) of a mate score, None for other scores."""
    if score > TB_WIN:
        return (MATE - score + 1) // 2
    if score < -TB_WIN:
        return -((MATE + score) // 2)
    return None


def tb_plies(score: int) -> int | None:
    """Plies from the root to the position where the tablebases decided a tablebase score
    (negative when it is lost), None for other scores."""
    if MATE_BOUND <= score <= TB_WIN:
        return TB_WIN - score
    if -TB_WIN <= score <= -MATE_BOUND:
        return -(TB_WIN + score)
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
        self.scratch = Scratch()
        self.nsq = self.pos.nsq
        # SEE's least-attacker test reads piece values per piece code from the position
        # (Evaluator.install sets them too, for positions swapped in later)
        pos.lvalue = array("i", [ev.value[p >> 1] for p in range(pos.npc)])
        self.read_params()
        rules = pos.rules
        self.draw_moves = 2 * rules.n_move_rule if rules.n_move_rule > 0 else 0
        self.nfold_rule = rules.n_fold_rule
        self.variant_end = 1 if pos.end_rules.any else 0
        # checks of a move are found before playing it where the rules allow (attacks.checks)
        self.fast_checks = 1 if pos.move_rules.fast_legal else 0
        self.chk_move = 0  # the last move asked about by checks(), its position and answer
        self.chk_key = 0
        self.chk_val = 0
        self.pv = _ints(MAXDEPTH * MAXDEPTH)
        self.pv_len = _ints(MAXDEPTH + 1)
        self.hist = History(pos, MAXDEPTH + 1, self.history_max, self.corr_limit, self.corr_div)
        self.mp = MovePicker(pos, ev, self.hist, MAXDEPTH + 1)
        self.excluded = _ints(MAXDEPTH + 1)  # the move left out at each ply (singular search)
        self.capts = _ints(MAXDEPTH * MAXCAPTS)
        self.cur_move = _ints(MAXDEPTH + 1)
        self.evals = _ints(MAXDEPTH + 1)
        # in check at each ply, as learnt by the parent after its move (-1 = unknown)
        self.check_hint = array("i", [-1]) * (MAXDEPTH + 1)
        self.quiets = _ints(MAXDEPTH * MAXQUIETS)
        self.root_moves = _ints(MAXMOVES)
        self.see_buf = _ints(MAXMOVES)
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
        self.tb_probe = None
        self.tb_pieces = 0
        self.tb_own = 0
        self.tb_depth = 1
        self.tb_rule50 = 1
        self.tb_hits = 0
        self.tb_role = _ints(1)
        self.tb_square = _ints(1)
        self.chasing = 0
        if pos.rules.chasing_rule:  # (xiangqi's: repetitions are judged, not drawn)
            self.set_chase_judge(partial(cycle_value, chases=Chases(pos.rules)))
        self.chase_calls = 0
        self.chase_keys = array("Q", bytes(8 * CHASE_CACHE))
        self.chase_vals = _ints(CHASE_CACHE)

    def read_params(self) -> None:
        """The search parameters from ferz.params.SEARCH (in drop games with DROPS' values, in
        games with a palace with PALACE's), each into its declared field."""
        palace = has_palace(self.pos.rules)
        # ferz.params' tunables, read by name
        p = dict(values(SEARCH, self.pos.drop_rules.drops, palace))
        self.aspiration_delta = p.pop("aspiration_delta")
        self.aspiration_min_depth = p.pop("aspiration_min_depth")
        self.null_min_depth = p.pop("null_min_depth")
        self.null_base_reduction = p.pop("null_base_reduction")
        self.null_depth_div = p.pop("null_depth_div")
        self.null_eval_div = p.pop("null_eval_div")
        self.null_verify_depth = p.pop("null_verify_depth")
        self.rfp_max_depth = p.pop("rfp_max_depth")
        self.rfp_margin = p.pop("rfp_margin")
        self.razor_max_depth = p.pop("razor_max_depth")
        self.razor_margin = p.pop("razor_margin")
        self.futility_max_depth = p.pop("futility_max_depth")
        self.futility_base = p.pop("futility_base")
        self.futility_per_depth = p.pop("futility_per_depth")
        self.lmp_max_depth = p.pop("lmp_max_depth")
        self.lmp_base = p.pop("lmp_base")
        self.lmr_min_depth = p.pop("lmr_min_depth")
        self.lmr_base = p.pop("lmr_base")
        self.lmr_div = p.pop("lmr_div")
        self.lmr_history_div = p.pop("lmr_history_div")
        self.lmr_check = p.pop("lmr_check")
        self.see_quiet_margin = p.pop("see_quiet_margin")
        self.see_capture_margin = p.pop("see_capture_margin")
        self.see_max_depth = p.pop("see_max_depth")
        self.iir_min_depth = p.pop("iir_min_depth")
        self.delta_margin = p.pop("delta_margin")
        self.lmp_checks = p.pop("lmp_checks")
        self.lazy_margin = p.pop("lazy_margin")
        self.history_bonus_max = p.pop("history_bonus_max")
        self.history_max = p.pop("history_max")
        self.se_min_depth = p.pop("se_min_depth")
        self.se_margin = p.pop("se_margin")
        self.corr_limit = p.pop("corr_limit")
        self.corr_div = p.pop("corr_div")
        self.poll_mask = p.pop("poll_mask")
        if p:
            raise KeyError(f"search parameters without a Search field: {sorted(p)}")

    # ------------------------------------------------------------------ Python interface

    def set_position(self, pos: Position) -> None:
        """Search another position of the same rules (a new `go`): the tables stay."""
        self.pos = pos
        self.hist.pos = pos
        self.mp.pos = pos

    def set_chase_judge(self, judge) -> None:
        """Judge repetitions in the tree by the chasing rule: judge(position) gives +1, 0 or -1
        for the side to move (ferz.core.chase.cycle_value, set at the start for rules with a
        chasing rule); None: repetitions are draws."""
        self.chase_judge = judge
        self.chasing = 0 if judge is None else 1

    def set_tablebase(
        self, probe, pieces: int, depth: int, rule50: bool, roles, squares, own: bool = False
    ) -> None:
        """Probe tablebases in the tree (ferz.syzygy): probe(white, black, kings, queens,
        rooks, bishops, knights, pawns, ep, white_to_move) gives the WDL (-2..2) of the side to
        move or None; positions with at most `pieces` men (exactly `pieces`: from `depth`
        plies left) right after a zeroing move; `rule50`: cursed wins and blessed losses are
        draws. roles: per piece code, 1 king .. 6 pawn (0: not in the tables); squares: per
        mailbox index, 0..63. probe None or pieces 0: off. `own`: ferz's own tables
        (ferz.tablebase), probe(position) instead of bitboards, for any variant."""
        self.tb_own = 1 if own else 0

        def wdl(*men) -> int:
            found = probe(*men)
            return TB_FAIL if found is None else found

        self.tb_probe = (probe if own else wdl) if probe is not None else None
        self.tb_pieces = pieces if probe is not None else 0
        self.tb_depth = depth
        self.tb_rule50 = 1 if rule50 else 0
        if probe is not None:
            self.tb_role = array("i", roles)
            self.tb_square = array("i", squares)

    def clear(self) -> None:
        """Forget histories, killers and counter moves (a new game)."""
        self.hist.clear()

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
        self.tb_hits = 0
        self.seldepth = 0
        if main:
            self.tt.new_search()
        self.hist.clear_killers()
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
                        found = RootLine(score, "lower", self._pv_list(self.root_moves[k]))
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
                lines.append(RootLine(score, bound, self._pv_list(self.root_moves[k])))
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
        return self.hist.corrected(0)

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
        return attacks.in_check(self.pos)

    def checks(self, m: cython.int) -> cython.bint:
        """Whether m gives check here; pruning and extensions may each ask of one move."""
        if m != self.chk_move or self.pos.key != self.chk_key:
            self.chk_move = m
            self.chk_key = self.pos.key
            self.chk_val = 1 if attacks.checks(self.pos, m) else 0
            self.pos.hint_check(m, self.chk_val == 1)  # make() need not look again
        return self.chk_val == 1

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
        return self.pos.pcount[self.pos.side] == 2 and endrules.promotions_only(self.pos)

    def chase_value(self) -> cython.int:
        """The chasing rule at a repetition: +1 or -1 for the side to move when one side alone
        chased through the cycle, else 0. The judge is Python (run with the GIL, 0.3 ms); its
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
            sig = ((sig ^ self.pos.states[j].key) * CYCLE_MIX) & MASK64
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

    def nfold_value(self) -> cython.int:
        """nFoldValue at a repetition (shogi's fourfold repetition loses for sente): +1 or -1
        for the side to move once the position has occurred n_fold_rule times in the game and
        the tree together, else 0 (a draw, as every repetition is in chess). Scoring the first
        repetition inside the tree as decisive, as for a draw, cost 66 +- 59 Elo in shogi at
        20 000 nodes (143 games): sente then shunned every move back."""
        i: cython.int = self.pos.last_repetition()
        count: cython.int = 1
        while i >= self.pos.ply - self.pos.halfmove and i >= 0:
            if self.pos.states[i].key == self.pos.key:
                count += 1
            i -= 2
        if count < self.nfold_rule:
            return 0
        return endrules.repetition_value(self.pos, 0, 0)

    def tb_wdl(self) -> cython.int:
        """The tablebases' WDL (-2..2) of the side to move here, TB_FAIL without a verdict.
        The position goes to the Python prober as bitboards (a1 = bit 0), with the GIL."""
        c: cython.int
        i: cython.int
        sq: cython.int
        pc: cython.int
        role: cython.int
        r: cython.int = TB_FAIL
        bit: cython.ulonglong
        if self.tb_own:
            with cython.gil:
                try:
                    r = self.tb_probe(self.pos)  # (TB_FAIL without a verdict)
                except Exception:  # a prober that fails gives no verdict
                    r = TB_FAIL
            return r
        white: cython.ulonglong = 0
        black: cython.ulonglong = 0
        kings: cython.ulonglong = 0
        queens: cython.ulonglong = 0
        rooks: cython.ulonglong = 0
        bishops: cython.ulonglong = 0
        knights: cython.ulonglong = 0
        pawns: cython.ulonglong = 0
        for c in range(2):
            for i in range(self.pos.pcount[c]):
                sq = self.pos.plist[c * MAXP + i]
                pc = self.pos.board[sq]
                role = self.tb_role[pc]
                if role == 0:
                    return TB_FAIL
                bit = cython.cast(cython.ulonglong, 1) << self.tb_square[sq]
                if c == 0:
                    white |= bit
                else:
                    black |= bit
                if role == 1:
                    kings |= bit
                elif role == 2:
                    queens |= bit
                elif role == 3:
                    rooks |= bit
                elif role == 4:
                    bishops |= bit
                elif role == 5:
                    knights |= bit
                else:
                    pawns |= bit
        ep: cython.int = self.tb_square[self.pos.ep] if self.pos.ep else 0
        turn: cython.bint = self.pos.side == 0
        with cython.gil:
            try:
                r = self.tb_probe(
                    white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn
                )
            except Exception:  # a prober that fails gives no verdict
                r = TB_FAIL
        return r

    def mated(self, ply: cython.int) -> cython.int:
        """The score of a side to move in check without a legal move: the variant's value of
        a checkmate (endrules.no_moves_value)."""
        return (MATE - ply) * endrules.no_moves_value(self.pos, True)

    def has_pieces(self, color: cython.int) -> cython.bint:
        """Whether `color` has a piece other than pawns and royals (null-move zugzwang guard)."""
        i: cython.int
        for i in range(self.pos.pcount[color]):
            if self.ev.kind[self.pos.board[self.pos.plist[color * MAXP + i]] >> 1] == K_PIECE:
                return True
        return False

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

    def reward(
        self,
        ply: cython.int,
        m: cython.int,
        depth: cython.int,
        nquiets: cython.int,
        ncapts: cython.int,
    ) -> cython.void:
        """Reward the move that caused a cutoff; punish the quiet moves tried before it (when
        it is quiet) and the captures tried before it."""
        bonus: cython.int = depth * depth * 16
        i: cython.int
        q: cython.int
        if bonus > self.history_bonus_max:
            bonus = self.history_bonus_max
        if is_tactical(self.pos, m):
            self.hist.bonus_capture(m, bonus)
        else:
            self.hist.cutoff_quiet(ply, m, self.cur_move[ply - 1] if ply > 0 else 0)
            self.hist.bonus_quiet(ply, m, bonus)
            for i in range(nquiets):
                q = self.quiets[ply * MAXQUIETS + i]
                if q != m:
                    self.hist.bonus_quiet(ply, q, -bonus)
        for i in range(ncapts):
            q = self.capts[ply * MAXCAPTS + i]
            if q != m:
                self.hist.bonus_capture(q, -bonus)

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
            self.hist.ctx[0] = self.hist.move_row(m)
            if not self.pos.make(m):
                continue
            self.cur_move[0] = m
            newdepth = depth - 1
            self.check_hint[1] = 1 if attacks.in_check(self.pos) else 0
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
        hist: cython.int  # the quiet history of the move being searched
        value: cython.int  # a draw, game-end, razoring or verification result
        null_r: cython.int
        null_score: cython.int
        se_beta: cython.int
        bound: cython.int
        prev: cython.int
        sc: cython.int
        old_alpha: cython.int = alpha

        # Step 1. Draws by repetition or the n-move rule (a perpetual check loses where the
        # variant says so); quiescence at the horizon. The line from here is empty first: a
        # node that returns at once must not hand its parent an older search's moves.
        self.pv_len[ply] = ply
        if self.is_draw():
            if self.pos.end_rules.perpetual_rule:
                value = self.pos.perpetual()
                if value != 0:
                    return (MATE - ply) * value
            if self.chasing and self.pos.is_repetition():
                value = self.chase_value()  # a lone chaser through the cycle loses (xiangqi)
                if value != 0:
                    return (MATE - ply) * value
            if self.pos.end_rules.nfold_value:
                value = self.nfold_value()  # shogi: the fourth occurrence loses for sente
                if value != 0:
                    return (MATE - ply) * value
            if self.pos.end_rules.mat_count:
                return (MATE - ply) * endrules.material_result(self.pos)  # janggi's count
            return 0
        if self.variant_end:
            value = endrules.end_value(self.pos)
            if value != NO_END:
                return (MATE - ply) * value  # a variant rule (extinction, flag) ended the game
        if depth <= 0:
            return self.qsearch(alpha, beta, ply, True)
        self.nodes += 1
        self.poll()
        if self.stopped:
            return 0
        if ply > self.seldepth:
            self.seldepth = ply

        # Step 2. The ply limit and mate distance pruning.
        in_check = self.in_check_at(ply)
        if ply >= MAXDEPTH - 2:
            return 0 if in_check else self.ev.evaluate(self.pos, self.scratch)
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

        # Step 3b. Tablebases: right after a capture or pawn move with few men left, the
        # tables' win, draw or loss ends the node where its bound allows, and is kept in the TT.
        if (
            self.tb_pieces
            and ply > 0
            and excl == 0
            and self.pos.halfmove == 0
            and self.pos.castling == 0
            and self.pos.pcount[0] + self.pos.pcount[1] <= self.tb_pieces
            and (self.pos.pcount[0] + self.pos.pcount[1] < self.tb_pieces or depth >= self.tb_depth)
        ):
            value = self.tb_wdl()
            if value != TB_FAIL:
                self.tb_hits += 1
                if value < -self.tb_rule50:
                    value = -TB_WIN + ply
                    bound = BOUND_UPPER
                elif value > self.tb_rule50:
                    value = TB_WIN - ply
                    bound = BOUND_LOWER
                else:
                    value = 2 * value * self.tb_rule50  # a draw; cursed or blessed: nearly
                    bound = BOUND_EXACT
                if (
                    bound == BOUND_EXACT
                    or (bound == BOUND_LOWER and value >= beta)
                    or (bound == BOUND_UPPER and value <= alpha)
                ):
                    self.tt.store(
                        self.pos.key, ply, 0, value, VALUE_NONE, min(depth + 6, MAXDEPTH - 1), bound
                    )
                    return value

        # Step 4. Static evaluation (the TT keeps it uncorrected), corrected by what searches
        # found for this pawn structure, refined by the TT score when its bound allows.
        if in_check:
            raw = VALUE_NONE
            static = VALUE_NONE
        else:
            if tthit and tt_eval(meta) != VALUE_NONE:
                raw = tt_eval(meta)
            else:
                raw = self.ev.evaluate(self.pos, self.scratch)
            static = self.hist.corrected(raw)
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
                value = self.qsearch(alpha, alpha + 1, ply, False)
                if value <= alpha:
                    return value

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
                null_r = self.null_base_reduction + depth // self.null_depth_div
                null_r += min((score - beta) // self.null_eval_div, 3)
                self.cur_move[ply] = 0
                self.hist.ctx[ply] = -1
                self.pos.make_null()
                self.tt.prefetch(self.pos.key)
                self.check_hint[ply + 1] = -1
                null_score = -self.search(
                    -beta, -beta + 1, depth - null_r - 1, ply + 1, not cutnode
                )
                self.pos.unmake_null()
                if self.stopped:
                    return 0
                if null_score >= beta:
                    if null_score >= MATE_BOUND:
                        null_score = beta
                    if depth < self.null_verify_depth:
                        return null_score
                    # Zugzwang guard at high depth: verify with a reduced normal search.
                    self.null_verify_off = 1
                    value = self.search(beta - 1, beta, depth - null_r - 1, ply, False)
                    self.null_verify_off = 0
                    if value >= beta:
                        return null_score

        # Step 8. Internal iterative reduction: a node without a TT move gets one ply less.
        if depth >= self.iir_min_depth and ttm == 0 and (pvnode or cutnode) and excl == 0:
            depth -= 1
        if ttm != 0 and not movegen.is_pseudo_legal(self.pos, ttm):
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
            se_beta = tts - self.se_margin * depth
            self.excluded[ply] = ttm
            score = self.search(se_beta - 1, se_beta, (depth - 1) // 2, ply, cutnode)
            self.excluded[ply] = 0
            if self.stopped:
                return 0
            if score < se_beta:
                ttm_ext = 1
            elif se_beta >= beta:
                return se_beta
            elif tts >= beta:
                ttm_ext = -1  # another move may do as well: the TT move gets less

        # Step 10. Move picking: the TT move before any generation (it often refutes the node),
        # then in stages: good captures, killers and the counter move, quiets, bad captures.
        prev = self.cur_move[ply - 1] if ply > 0 else 0
        self.pos.note_check(in_check)
        self.pv_len[ply] = ply
        self.mp.start(ply, ttm, not in_check and not self.pos.move_rules.full_gen, prev)

        # Step 11. The move loop.
        while True:
            m = self.mp.next(ply)
            if m == 0:
                break
            if m == excl:
                continue
            sc = self.mp.score[ply]
            tactical = is_tactical(self.pos, m)
            # Step 12. Pruning of late and losing moves (never while mated scores are possible).
            if ply > 0 and best > -MATE_BOUND and not in_check:
                if not tactical:
                    if (
                        depth <= self.lmp_max_depth
                        and self.mp.skip[ply] == SKIP_NONE  # (not yet: it may keep the checks)
                        and nquiets >= (self.lmp_base + depth * depth) // (2 - improving)
                    ):
                        # The picker returns no more quiet moves; in drop games it keeps the
                        # quiet checks: a mate by a drop is a quiet move that history rarely
                        # puts first.
                        self.mp.skip_quiets(ply, self.lmp_checks)
                        if not self.lmp_checks or not self.checks(m):
                            continue
                    # Futile and losing quiet moves are skipped unless they give check.
                    if (
                        depth <= self.futility_max_depth
                        and not pvnode
                        and static + self.futility_base + self.futility_per_depth * depth <= alpha
                        and m != self.hist.killers[2 * ply]
                        and not self.checks(m)
                    ):
                        continue
                    if (
                        depth <= self.see_max_depth
                        and not see_ge(
                            self.pos, self.ev, m, -self.see_quiet_margin * depth, self.see_buf
                        )
                        and not self.checks(m)
                    ):
                        continue
                elif (
                    depth <= self.see_max_depth
                    and sc < SC_TT
                    and not see_ge(
                        self.pos, self.ev, m, -self.see_capture_margin * depth * depth, self.see_buf
                    )
                    and not self.checks(m)
                ):
                    continue
            gives_check = self.fast_checks and self.checks(m)
            hist = 0 if tactical else self.hist.quiet(ply, m)
            self.hist.ctx[ply] = self.hist.move_row(m)
            if not self.pos.make(m):
                continue
            self.tt.prefetch(self.pos.key)
            legal += 1
            self.cur_move[ply] = m
            if not self.fast_checks:
                gives_check = attacks.in_check(self.pos)
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
                    r -= self.lmr_check
                if m == self.hist.killers[2 * ply] or m == self.hist.killers[2 * ply + 1]:
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
                        self.reward(ply, m, depth, nquiets, ncapts)
                        break
                    alpha = score

        # Step 16. No legal move: mate or stalemate (scored by the variant's rule); in the
        # search for a singular move, only that move was legal.
        if legal == 0:
            if excl != 0:
                return alpha
            return (MATE - ply) * endrules.no_moves_value(self.pos, in_check)

        # Step 17. Store the result (not that of a search without the singular move), and
        # teach the correction history how far it stood from the static eval: only where the
        # bound says on which side the truth lies, and not after a capture (material, not
        # structure, made the difference).
        if excl == 0:
            if best >= beta:
                bound = BOUND_LOWER
            elif pvnode and bestmove != 0 and best > old_alpha:
                bound = BOUND_EXACT
            else:
                bound = BOUND_UPPER
            self.tt.store(self.pos.key, ply, bestmove, best, raw, depth, bound)
            if (
                not in_check
                and (bestmove == 0 or not is_tactical(self.pos, bestmove))
                and -MATE_BOUND < best < MATE_BOUND
                and not (bound == BOUND_LOWER and best <= static)
                and not (bound == BOUND_UPPER and best >= static)
            ):
                self.hist.update_correction(best - static, depth)
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
        value: cython.int
        bound: cython.int

        # Step 1. Draws by rule, game ends by a variant rule, the ply limit.
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
            value = endrules.end_value(self.pos)
            if value != NO_END:
                return (MATE - ply) * value
        in_check = self.in_check_at(ply)
        if ply >= MAXDEPTH - 2:
            return 0 if in_check else self.ev.evaluate(self.pos, self.scratch)

        # Step 2. Transposition table: a usable bound ends non-PV nodes at once.
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

        # Step 3. Stand pat: the side to move may decline every capture (not when in check).
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
                raw = self.ev.evaluate(self.pos, self.scratch)
            static = self.hist.corrected(raw)
            best = static
            if best >= beta:
                return best
            if best > alpha:
                alpha = best

        # Step 4. The move loop: captures (with `checks`, quiet checks too; in check, every
        # evasion), pruned by delta and SEE.
        base = ply * MAXMOVES
        self.pos.note_check(in_check)
        n = movegen.gen(self.pos, self.mp.moves, base, not in_check and not checks) - base
        self.mp.score_moves(base, n, ply, ttm, 0)
        quiets = False  # reached the quiet moves: their order no longer matters
        for i in range(base, base + n):
            m = self.mp.moves[i] if quiets else self.mp.pick(base, i, n)
            if not in_check and checks and not is_tactical(self.pos, m):
                quiets = True
                # (drops are left out: in drop variants they would multiply the work)
                if (
                    move_kind(m) == DROP
                    or not self.checks(m)
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
                if self.mp.scores[i] < SC_TT and not see_ge(self.pos, self.ev, m, 0, self.see_buf):
                    continue
            if self.fast_checks:
                self.check_hint[ply + 1] = 1 if self.checks(m) else 0
            self.hist.ctx[ply] = self.hist.move_row(m)
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
        # Step 5. Mated (no evasion), else store the result.
        if in_check and legal == 0:
            return self.mated(ply)
        if best >= beta:
            bound = BOUND_LOWER
        elif pvnode and best > old_alpha:
            bound = BOUND_EXACT
        else:
            bound = BOUND_UPPER
        self.tt.store(self.pos.key, ply, bestmove, best, raw, 0, bound)
        return best
