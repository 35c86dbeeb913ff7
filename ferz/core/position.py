"""A position on the padded mailbox: its state, make/unmake, game ends by rule, FEN, repetition.

Cython pure-Python mode: position.pxd declares the class and its C methods. The C methods touch
only ints and typed memoryviews (no Python objects), so the search can call them without the GIL.
The rule tables come from core/tables.py, shared by all positions of a variant; the move
generator is core/movegen.py and the attack probes core/attacks.py.
"""

from array import array

import cython
from cython.cimports.ferz.core.defs import (
    CASTLE,
    DOUBLE,
    DROP,
    EMPTY,
    EP,
    MAX_CHECKS,
    MAXHAND,
    MAXMOVES,
    MAXP,
    MAXPLY,
    NN_RING,
    NORMAL,
    PROMO,
    WALL,
    move_from,
    move_kind,
    move_promo,
    move_to,
)

from . import fen as fenlib
from . import tables
from .rules import MAX_FILES, Rules
from .tables import ints

if not cython.compiled:  # the C loops of position.pxd (the uncompiled core runs its own)
    ferz_nn_add = ferz_nn_sub = ferz_nn_move = ferz_nn_add1 = ferz_nn_sub1 = ferz_nn_copy = None
    alloc_states = free = None

    class PlyRecord:
        """The uncompiled core's stand-in for position.pxd's PlyState (one ply's record)."""

        key = noted_key = move = piece = captured = castling = ep = halfmove = 0
        mg = eg = phase = noted_check = in_check = kings_facing = shak = checks_left = 0
        count_limit = count_ply = gated = gates = blasts = 0

        def __init__(self) -> None:
            """A zeroed record (the fields above until written; the explosion's own lists)."""
            self.blast_sq = [0] * 9
            self.blast_pc = [0] * 9


ROYAL_MOVES = 64  # room in flag_buf for the moves of one royal piece (endrules.flag_in_reach)


@cython.final
@cython.cclass
class Position:
    """A variant position with incremental hashing and evaluation terms."""

    def __init__(self, rules: Rules) -> None:
        t = tables.of(rules)  # shared with every position of these rules, never written
        self.rules = rules
        self.trial = None
        self.files, self.ranks, self.stride, self.nsq = t.files, t.ranks, t.stride, t.nsq
        self.npc, self.nplay, self.sq_list, self.sq_file = t.npc, t.nplay, t.sq_list, t.sq_file
        self.sq_rank, self.rel_rank, self.file_idx = t.sq_rank, t.rel_rank, t.file_idx
        # movement and attacks
        self.a_start, self.a_end, self.a_vec, self.a_range = t.a_start, t.a_end, t.a_vec, t.a_range
        self.a_flags, self.a_leg, self.a_minr = t.a_flags, t.a_leg, t.a_minr
        self.pr_start, self.pr_vec, self.pr_range = t.pr_start, t.pr_vec, t.pr_range
        self.pr_kind, self.pr_leg, self.pr_minr = t.pr_kind, t.pr_leg, t.pr_minr
        self.pr_near, self.pr_far, self.line_dir = t.pr_near, t.pr_far, t.line_dir
        self.ray_mask, self.chk_kind = t.ray_mask, t.chk_kind
        self.chk_vec, self.chk_slow = t.chk_vec, t.chk_slow
        # the rule switches by concern: each group a struct (position.pxd) filled by name
        # from a copy of the table's group (uncompiled: the copy itself; tbgen writes one)
        self.end_rules, self.promo_rules = t.end_rules.copy(), t.promo_rules.copy()
        self.drop_rules, self.move_rules = t.drop_rules.copy(), t.move_rules.copy()
        self.gate_rules = t.gate_rules.copy()
        # piece roles, zones, promotions, drops
        self.is_pawn, self.is_royal, self.region = t.is_pawn, t.is_royal, t.region
        self.dbl_zone, self.promo_zone, self.ep_ok = t.dbl_zone, t.promo_zone, t.ep_ok
        self.dead, self.promo_list, self.promo_limit = t.dead, t.promo_list, t.promo_limit
        self.promoted, self.demoted, self.can_promote = t.promoted, t.demoted, t.can_promote
        self.ep_vec, self.ep_pc, self.drop_zone = t.ep_vec, t.ep_pc, t.drop_zone
        # rules beyond chess
        self.ext_types, self.flag_sq, self.flag_start = t.ext_types, t.flag_sq, t.flag_start
        self.flag_type, self.flag_zone, self.blast_vec = t.flag_type, t.flag_zone, t.blast_vec
        self.sit_zone, self.sit_types, self.gate_bit = t.sit_zone, t.sit_types, t.gate_bit
        self.z_gate, self.shak_type = t.z_gate, t.shak_type
        # janggi
        self.a_leg2, self.pr_leg2, self.diag_ok = t.a_leg2, t.pr_leg2, t.diag_ok
        self.jcannon, self.mat_w = t.jcannon, t.mat_w
        # hashing
        self.z_piece, self.z_castle, self.z_ep = t.z_piece, t.z_castle, t.z_ep
        self.z_hand, self.z_side, self.z_checks = t.z_hand, t.z_side, t.z_checks
        self._init_state()

    def __dealloc__(self) -> None:
        """Free the ply records (compiled; the stand-in's list goes with the object)."""
        if cython.compiled:
            free(self.states)

    def _init_state(self) -> None:
        """The arrays this position owns: board, pieces, castling, undo stacks, scratch."""
        nsq, npc = self.nsq, self.npc
        board = ints(nsq, WALL)
        for sq in self.sq_list:
            board[sq] = EMPTY
        self.board = board
        self.plist = ints(2 * MAXP)
        self.pidx = ints(nsq)
        self.pcount = ints(2)
        self.royal = ints(2, -1)
        self.count = ints(npc)
        self.hand = ints(npc)
        self.c_king_from, self.c_rook_from = ints(4), ints(4)
        self.c_king_to, self.c_rook_to = ints(4), ints(4)
        self.c_mask = ints(nsq, 15)
        self.pst_mg = ints(npc * nsq)
        self.pst_eg = ints(npc * nsq)
        self.phase_w = ints(npc)
        self.lvalue = ints(npc)
        if cython.compiled:  # (zeroed: every field starts at 0, as the stand-in's)
            if self.states == cython.NULL:
                self.states = alloc_states(MAXPLY + 1)
                if self.states == cython.NULL:
                    raise MemoryError("no memory for a position's ply records")
        else:
            self.states = [PlyRecord() for _ in range(MAXPLY + 1)]
        self.hint_move = self.hint_chk = 0
        self.hint_key = 0
        self.scratch = ints(MAXMOVES)
        self.file_count = ints(2 * MAX_FILES)
        self.flag_buf = ints(ROYAL_MOVES)
        self.blk_mark = ints(self.nsq)
        self.blk_stamp = 0
        self.checks_left = ints(2)
        self.cap_end = self.overflow = 0
        self.side = self.halfmove = self.ep = self.castling = 0
        self.ply = self.game_ply = self.mg = self.eg = self.phase = 0
        self.fullmove = 1
        self.key = self.pkey = 0
        self.cnt_limit = self.cnt_ply = 0
        self.gates = 0
        self.net = None
        self.nn = self.nn_h = self.nn_max = 0
        self.nn_w = self.nn_b = self.acc = array("h", [0])
        self.nn_row = ints(1)
        self.nn_kings = self.nn_kb0 = self.nn_kb1 = self.nn_krow = self.nn_refreshes = 0
        self.nn_at = self.nn_sp = self.nn_floor = 0
        self.nn_kbs = ints(2 * NN_RING)
        self.nn_kmap = self.nn_cboard = ints(1)
        self.nn_cache = array("h", [0])
        self.nn_hands = 0
        self.nn_hrow = self.nn_chand = ints(1)

    # ------------------------------------------------------------------ piece bookkeeping

    def put(self, p: cython.int, sq: cython.int) -> cython.void:
        """Place piece p on an empty square (board, piece list, counts, pawn key)."""
        c: cython.int = p & 1
        i: cython.int = self.pcount[c]
        self.pkey ^= self.pawn_hash(p, sq)
        self.board[sq] = p
        self.plist[c * MAXP + i] = sq
        self.pidx[sq] = i
        self.pcount[c] = i + 1
        self.count[p] += 1
        if self.is_royal[p >> 1]:
            self.royal[c] = sq
        if self.nn:
            self.nn_piece(p, sq, True)
            if self.nn_kings and self.royal[c] == sq:
                self.nn_king(c)

    def lift(self, sq: cython.int) -> cython.void:
        """Remove the piece on sq (board, piece list, counts, pawn key)."""
        p: cython.int = self.board[sq]
        c: cython.int = p & 1
        i: cython.int = self.pidx[sq]
        last: cython.int = self.pcount[c] - 1
        moved: cython.int = self.plist[c * MAXP + last]
        self.pkey ^= self.pawn_hash(p, sq)
        self.plist[c * MAXP + i] = moved
        self.pidx[moved] = i
        self.pcount[c] = last
        self.board[sq] = EMPTY
        self.count[p] -= 1
        if self.royal[c] == sq:
            self.royal[c] = -1
        if self.nn:
            self.nn_piece(p, sq, False)

    def pawn_hash(self, p: cython.int, sq: cython.int) -> cython.ulonglong:
        """The pawn key's share of piece p on sq: 0 unless p is a pawn."""
        return self.z_piece[p * self.nsq + sq] if self.is_pawn[p >> 1] else 0

    def shift(self, fr: cython.int, to: cython.int) -> cython.void:
        """Move the piece on fr to the empty square to (pawn key; the full key is the caller's)."""
        p: cython.int = self.board[fr]
        i: cython.int = self.pidx[fr]
        self.pkey ^= self.pawn_hash(p, fr) ^ self.pawn_hash(p, to)
        self.board[fr] = EMPTY  # first: fr == to (a sittuyin promotion in place) keeps p
        self.board[to] = p
        self.plist[(p & 1) * MAXP + i] = to
        self.pidx[to] = i
        if self.royal[p & 1] == fr:
            self.royal[p & 1] = to
        if self.nn and fr != to:
            self.nn_change(p, fr, p, to)
            if self.nn_kings and self.royal[p & 1] == to:
                self.nn_king(p & 1)

    # The accumulators: each view's hidden units are the bias plus the weight rows of the
    # pieces on the board, updated as pieces come and go (two rows per view and move). They
    # live on a ring of NN_RING entries, one per move made: make copies the current entry to
    # the next and updates that one, unmake steps back to the entry it left (no update to undo;
    # only an unmake past the ring's oldest entry computes its entry again). The compiled core
    # runs the C loops of position.pxd; the same loops follow for the fallback.

    def nn_push(self) -> cython.void:
        """Make's first step: the next ring entry starts as a copy of the current one."""
        n: cython.Py_ssize_t = 2 * self.nn_h
        slot: cython.int = self.nn_sp & (NN_RING - 1)
        at: cython.Py_ssize_t
        self.nn_kbs[2 * slot] = self.nn_kb0
        self.nn_kbs[2 * slot + 1] = self.nn_kb1
        self.nn_sp += 1
        if self.nn_sp - self.nn_floor >= NN_RING:
            self.nn_floor = self.nn_sp - NN_RING + 1  # the oldest entry is overwritten now
        at = (self.nn_sp & (NN_RING - 1)) * n
        if cython.compiled:
            ferz_nn_copy(cython.address(self.acc[at]), cython.address(self.acc[self.nn_at]), n)
        else:
            self.acc[at : at + n] = self.acc[self.nn_at : self.nn_at + n]
        self.nn_at = at

    def nn_pop(self) -> cython.void:
        """Unmake's last step: back to the previous ring entry (computed again if the ring
        has overwritten it)."""
        slot: cython.int
        self.nn_sp -= 1
        slot = self.nn_sp & (NN_RING - 1)
        self.nn_at = slot * 2 * self.nn_h
        if self.nn_sp >= self.nn_floor:
            self.nn_kb0 = self.nn_kbs[2 * slot]
            self.nn_kb1 = self.nn_kbs[2 * slot + 1]
        else:
            self.nn_floor = self.nn_sp
            self.nn_rebuild()

    def nn_rebuild(self) -> cython.void:
        """Compute the current ring entry from the pieces on the board and in hand."""
        h: cython.Py_ssize_t = self.nn_h
        at: cython.Py_ssize_t = self.nn_at
        i: cython.Py_ssize_t
        c: cython.int
        p: cython.int
        sq: cython.int
        if self.nn_kings:  # each view from the cache entry of its king's index
            self.nn_kb0 = self.nn_kb1 = -1
            self.nn_king(0)
            self.nn_king(1)
            return
        for i in range(h):
            self.acc[at + i] = self.nn_b[i]
            self.acc[at + h + i] = self.nn_b[i]
        for c in range(2):
            for i in range(self.pcount[c]):
                sq = self.plist[c * MAXP + i]
                self.nn_piece(self.board[sq], sq, True)
        if self.nn_hands:
            for p in range(2, self.npc):
                for i in range(1, min(self.hand[p], MAXHAND - 1) + 1):
                    self.nn_hand(p, i, True)

    def accumulators(self) -> list:
        """The current accumulators, White's view then Black's (for tests)."""
        return list(self.acc[self.nn_at : self.nn_at + 2 * self.nn_h])

    def nn_piece(self, p: cython.int, sq: cython.int, add: cython.bint) -> cython.void:
        """Add piece p on sq to both views' hidden units, or take it out (add false)."""
        k: cython.Py_ssize_t = 2 * (p * self.nsq + sq)
        self.nn_rows(self.nn_row[self.nn_kb0 + k], self.nn_row[self.nn_kb1 + k + 1], add)

    def nn_rows(
        self, r0: cython.Py_ssize_t, r1: cython.Py_ssize_t, add: cython.bint
    ) -> cython.void:
        """Add weight row r0 to White's view and r1 to Black's (or take them out: add false)."""
        h: cython.Py_ssize_t = self.nn_h
        at: cython.Py_ssize_t = self.nn_at
        sign: cython.int = 1 if add else -1
        i: cython.Py_ssize_t
        if cython.compiled:
            if add:
                ferz_nn_add(cython.address(self.acc[at]), cython.address(self.nn_w[0]), h, r0, r1)
            else:
                ferz_nn_sub(cython.address(self.acc[at]), cython.address(self.nn_w[0]), h, r0, r1)
        else:
            for i in range(h):
                self.acc[at + i] += sign * self.nn_w[r0 + i]
                self.acc[at + h + i] += sign * self.nn_w[r1 + i]

    def nn_change(
        self, out: cython.int, fr: cython.int, into: cython.int, to: cython.int
    ) -> cython.void:
        """Piece `out` leaves fr and piece `into` stands on `to` (a move: the same piece; a
        promotion: the same square), in both views' hidden units."""
        h: cython.Py_ssize_t = self.nn_h
        k: cython.Py_ssize_t = 2 * (out * self.nsq + fr)
        j: cython.Py_ssize_t = 2 * (into * self.nsq + to)
        s0: cython.Py_ssize_t = self.nn_row[self.nn_kb0 + k]
        s1: cython.Py_ssize_t = self.nn_row[self.nn_kb1 + k + 1]
        a0: cython.Py_ssize_t = self.nn_row[self.nn_kb0 + j]
        a1: cython.Py_ssize_t = self.nn_row[self.nn_kb1 + j + 1]
        at: cython.Py_ssize_t = self.nn_at
        i: cython.Py_ssize_t
        if cython.compiled:
            ferz_nn_move(
                cython.address(self.acc[at]), cython.address(self.nn_w[0]), h, a0, a1, s0, s1
            )
        else:
            for i in range(h):
                self.acc[at + i] += self.nn_w[a0 + i] - self.nn_w[s0 + i]
                self.acc[at + h + i] += self.nn_w[a1 + i] - self.nn_w[s1 + i]

    def nn_hand(self, p: cython.int, i: cython.int, add: cython.bint) -> cython.void:
        """The hand of p's colour now holds an i-th piece of p's type (add), or no longer
        holds it (add false): that input's row in both views (none above the type's cap, and
        nothing without a network that sees hands, so make and unmake call it unguarded)."""
        if not (self.nn_hands and self.nn) or i <= 0 or i >= MAXHAND:
            return
        k: cython.Py_ssize_t = 2 * (p * MAXHAND + i)
        if self.nn_hrow[k] >= 0:
            self.nn_rows(self.nn_hrow[k], self.nn_hrow[k + 1], add)

    def nn_king(self, c: cython.int) -> cython.void:
        """Side c's king stands on a new square: if that changes its view's king index (bucket
        or mirror side), rebuild that view from the cache entry of the new index (the Finny
        table: the accumulator of the last board seen with that index) by the pieces that
        differ between that board and this one (and the hand inputs that differ between that
        entry's hands and these), and keep the result in the entry."""
        nsq: cython.Py_ssize_t = self.nsq
        h: cython.Py_ssize_t = self.nn_h
        k: cython.Py_ssize_t = self.nn_kmap[c * nsq + self.royal[c]]
        if k == (self.nn_kb0 if c == 0 else self.nn_kb1):
            return
        if c == 0:
            self.nn_kb0 = k
        else:
            self.nn_kb1 = k
        self.nn_refreshes += 1
        e: cython.Py_ssize_t = 2 * (k // self.nn_krow) + c  # the entry: (king index, view)
        n: cython.Py_ssize_t = len(self.sq_list)
        at: cython.Py_ssize_t = e * h
        i: cython.Py_ssize_t
        sq: cython.Py_ssize_t
        old: cython.int
        new: cython.int
        for i in range(n):
            sq = self.sq_list[i]
            old = self.nn_cboard[e * nsq + sq]
            new = self.board[sq]
            if old == new:
                continue
            self.nn_cboard[e * nsq + sq] = new
            if old > WALL:
                self.nn_cache_row(at, self.nn_row[k + 2 * (old * nsq + sq) + c], False)
            if new > WALL:
                self.nn_cache_row(at, self.nn_row[k + 2 * (new * nsq + sq) + c], True)
        if self.nn_hands:
            self.nn_cache_hands(e, at, c)
        for i in range(h):
            self.acc[self.nn_at + c * h + i] = self.nn_cache[at + i]

    def nn_cache_hands(
        self, e: cython.Py_ssize_t, at: cython.Py_ssize_t, c: cython.int
    ) -> cython.void:
        """Bring the hand inputs of cache entry e (view c, at `at`) to the current hands."""
        p: cython.Py_ssize_t
        i: cython.Py_ssize_t
        old: cython.int
        new: cython.int
        row: cython.Py_ssize_t
        for p in range(2, self.npc):
            old = self.nn_chand[e * self.npc + p]
            new = self.hand[p]
            if old == new:
                continue
            self.nn_chand[e * self.npc + p] = new
            for i in range(new + 1, min(old, MAXHAND - 1) + 1):
                row = self.nn_hrow[2 * (p * MAXHAND + i) + c]
                if row >= 0:
                    self.nn_cache_row(at, row, False)
            for i in range(old + 1, min(new, MAXHAND - 1) + 1):
                row = self.nn_hrow[2 * (p * MAXHAND + i) + c]
                if row >= 0:
                    self.nn_cache_row(at, row, True)

    def nn_cache_row(
        self, at: cython.Py_ssize_t, row: cython.Py_ssize_t, add: cython.bint
    ) -> cython.void:
        """Add a weight row to the cached accumulator at `at`, or take it out."""
        i: cython.Py_ssize_t
        if cython.compiled:
            if add:
                ferz_nn_add1(
                    cython.address(self.nn_cache[at]), cython.address(self.nn_w[0]), self.nn_h, row
                )
            else:
                ferz_nn_sub1(
                    cython.address(self.nn_cache[at]), cython.address(self.nn_w[0]), self.nn_h, row
                )
        else:
            for i in range(self.nn_h):
                self.nn_cache[at + i] += self.nn_w[row + i] if add else -self.nn_w[row + i]

    # ------------------------------------------------------------------ move generation

    def close_gates(
        self, p: cython.int, fr: cython.int, to: cython.int, kind: cython.int
    ) -> cython.void:
        """After a move of piece p: a piece leaving its gate (or castling with its rook) and a
        move onto an enemy gate close those gates, and a rook move onto the file or rank of the
        enemy king standing on its gate takes the king's leap away (as Fairy-Stockfish)."""
        us: cython.int = p & 1
        them: cython.int = us ^ 1
        nsq: cython.int = self.nsq
        k: cython.int = self.royal[them]
        if kind != DROP:
            self.gates &= ~self.gate_bit[us * nsq + fr]
        if kind == CASTLE:
            self.gates &= ~self.gate_bit[us * nsq + to]
        else:
            self.gates &= ~self.gate_bit[them * nsq + to]
        if (
            (p >> 1) == self.gate_rules.cambodian_rook
            and k >= 0
            and self.gates & self.gate_bit[them * nsq + k]
            and (self.sq_file[k] == self.sq_file[to] or self.sq_rank[k] == self.sq_rank[to])
        ):
            self.gates &= ~self.gate_bit[them * nsq + k]

    def hint_check(self, m: cython.int, check: cython.bint) -> cython.void:
        """Record whether m, if legal, checks the opponent from this position: make() then
        reads it for perpetualCheckIllegal instead of looking (every move of a shogi search)."""
        self.hint_move = m
        self.hint_chk = 1 if check else 0
        self.hint_key = self.key

    def note_check(self, check: cython.bint) -> cython.void:
        """Record whether the side to move is in check here (make's legality fast path
        trusts it for this ply while the key is unchanged); callers that know say so."""
        self.states[self.ply].noted_check = 1 if check else 0
        self.states[self.ply].noted_key = self.key

    # ------------------------------------------------------------------ attacks

    def explode(self, to: cython.int, ply: cython.int, key: cython.ulonglong) -> cython.ulonglong:
        """Atomic: a capture on `to` removes the capturer and every piece but pawns next to
        it (kings too); recorded per ply for unmake. Returns the updated hash key."""
        i: cython.int
        sq: cython.int
        p: cython.int
        n: cython.int = 0
        rights: cython.int = self.castling
        nsq: cython.int = self.nsq
        for i in range(9):
            sq = to + self.blast_vec[i]
            p = self.board[sq]
            if p <= WALL or (sq != to and self.is_pawn[p >> 1]):
                continue
            self.states[ply].blast_sq[n] = sq
            self.states[ply].blast_pc[n] = p
            n += 1
            self.lift(sq)
            key ^= self.z_piece[p * nsq + sq]
            self.mg -= self.pst_mg[p * nsq + sq]
            self.eg -= self.pst_eg[p * nsq + sq]
            self.phase -= self.phase_w[p]
            rights &= self.c_mask[sq]
        self.states[ply].blasts = n
        if rights != self.castling:
            key ^= self.z_castle[self.castling] ^ self.z_castle[rights]
            self.castling = rights
        return key

    def ep_square_after(self, leg: cython.int, them: cython.int) -> cython.int:
        """Whether a pawn of `them` could capture en passant on square leg."""
        i: cython.int
        v: cython.int
        for i in range(8):
            v = self.ep_vec[them * 8 + i]
            if v == 0:
                break
            if self.board[leg - v] == self.ep_pc[them * 8 + i]:
                return 1
        return 0

    # ------------------------------------------------------------------ make / unmake

    def make(self, m: cython.int) -> cython.bint:
        """Play a pseudo-legal move; undo it and return False if it leaves the royal attacked."""
        fr: cython.int = move_from(m)
        to: cython.int = move_to(m)
        kind: cython.int = move_kind(m)
        us: cython.int = self.side
        them: cython.int = us ^ 1
        ply: cython.int = self.ply
        nsq: cython.int = self.nsq
        key: cython.ulonglong = self.key
        p: cython.int
        q: cython.int
        capt: cython.int = 0
        r: cython.int
        kt: cython.int
        rt: cython.int
        victim: cython.int
        h: cython.int
        rights: cython.int
        check: cython.bint
        if ply >= MAXPLY - 1:
            return False
        if self.nn:
            self.nn_push()
        self.states[ply].move = m
        self.states[ply].castling = self.castling
        self.states[ply].ep = self.ep
        self.states[ply].halfmove = self.halfmove
        self.states[ply].key = key
        self.states[ply].mg = self.mg
        self.states[ply].eg = self.eg
        self.states[ply].phase = self.phase
        if self.end_rules.check_count:
            self.states[ply].checks_left = self.checks_left[us]
        if self.end_rules.counting:
            self.states[ply].count_limit = self.cnt_limit
            self.states[ply].count_ply = self.cnt_ply
        if self.gate_rules.any:  # cambodianMoves, seirawanGating
            self.states[ply].gates = self.gates
            self.states[ply].gated = 0
        if self.ep:
            key ^= self.z_ep[self.ep]
            self.ep = 0
        self.halfmove += 1
        if kind == CASTLE:
            r = 2 * us if self.c_rook_from[2 * us] == to else 2 * us + 1
            kt, rt = self.c_king_to[r], self.c_rook_to[r]
            p, q = self.board[fr], self.board[to]
            self.states[ply].piece = p
            self.lift(fr)
            self.lift(to)
            self.put(p, kt)
            self.put(q, rt)
            key ^= self.z_piece[p * nsq + fr] ^ self.z_piece[p * nsq + kt]
            key ^= self.z_piece[q * nsq + to] ^ self.z_piece[q * nsq + rt]
            self.mg += self.pst_mg[p * nsq + kt] - self.pst_mg[p * nsq + fr]
            self.mg += self.pst_mg[q * nsq + rt] - self.pst_mg[q * nsq + to]
            self.eg += self.pst_eg[p * nsq + kt] - self.pst_eg[p * nsq + fr]
            self.eg += self.pst_eg[q * nsq + rt] - self.pst_eg[q * nsq + to]
        elif kind == DROP:
            p = 2 * fr + us
            self.states[ply].piece = p
            key ^= self.z_hand[p * MAXHAND + self.hand[p]]
            self.nn_hand(p, self.hand[p], False)
            self.hand[p] -= 1
            key ^= self.z_hand[p * MAXHAND + self.hand[p]]
            q = p if move_promo(m) == 0 else 2 * move_promo(m) + us  # dropPromoted: +L@b1
            self.put(q, to)
            key ^= self.z_piece[q * nsq + to]
            self.mg += self.pst_mg[q * nsq + to] - self.pst_mg[p * nsq]
            self.eg += self.pst_eg[q * nsq + to] - self.pst_eg[p * nsq]
            if self.drop_rules.castle_drop:
                rights = self.castling | self.dropped_rights(p, to)
                if rights != self.castling:
                    key ^= self.z_castle[self.castling] ^ self.z_castle[rights]
                    self.castling = rights
        else:
            p = self.board[fr]
            self.states[ply].piece = p
            victim = to
            if kind == EP:
                victim = to - self.stride if us == 0 else to + self.stride
            capt = self.board[victim]
            if capt and victim == fr:
                capt = 0  # sittuyin: a pawn promoting where it stands captures nothing
            if capt:
                self.lift(victim)
                key ^= self.z_piece[capt * nsq + victim]
                self.mg -= self.pst_mg[capt * nsq + victim]
                self.eg -= self.pst_eg[capt * nsq + victim]
                self.phase -= self.phase_w[capt]
                self.halfmove = 0
                if self.drop_rules.capt_to_hand:
                    h = 2 * self.demoted[capt >> 1] + us
                    key ^= self.z_hand[h * MAXHAND + self.hand[h]]
                    self.hand[h] += 1
                    key ^= self.z_hand[h * MAXHAND + self.hand[h]]
                    self.nn_hand(h, self.hand[h], True)
                    self.mg += self.pst_mg[h * nsq]
                    self.eg += self.pst_eg[h * nsq]
            self.shift(fr, to)
            key ^= self.z_piece[p * nsq + fr] ^ self.z_piece[p * nsq + to]
            self.mg += self.pst_mg[p * nsq + to] - self.pst_mg[p * nsq + fr]
            self.eg += self.pst_eg[p * nsq + to] - self.pst_eg[p * nsq + fr]
            if self.is_pawn[p >> 1]:
                self.halfmove = 0
            if kind == PROMO:
                q = 2 * move_promo(m) + us
                self.board[to] = q
                if self.nn:
                    self.nn_change(p, to, q, to)
                self.pkey ^= self.pawn_hash(p, to) ^ self.pawn_hash(q, to)
                self.count[p] -= 1
                self.count[q] += 1
                key ^= self.z_piece[p * nsq + to] ^ self.z_piece[q * nsq + to]
                self.mg += self.pst_mg[q * nsq + to] - self.pst_mg[p * nsq + to]
                self.eg += self.pst_eg[q * nsq + to] - self.pst_eg[p * nsq + to]
                self.phase += self.phase_w[q] - self.phase_w[p]
            elif kind == DOUBLE and self.move_rules.ep_enabled:
                victim = (fr + to) >> 1
                if self.ep_ok[victim] and self.ep_square_after(victim, them):
                    self.ep = victim
                    key ^= self.z_ep[victim]
        self.states[ply].captured = capt
        if self.castling:
            rights = self.castling
            if kind != DROP:  # a drop lands on an empty square: no right depends on it
                rights &= self.c_mask[to] & self.c_mask[fr]
            if rights != self.castling:
                key ^= self.z_castle[self.castling] ^ self.z_castle[rights]
                self.castling = rights
        if self.gates:
            self.close_gates(p, fr, to, kind)  # gates are not hashed, as in Fairy-Stockfish
        if capt and self.move_rules.blast:
            key = self.explode(to, ply, key)
        self.side = them
        self.key = key ^ self.z_side
        self.ply = ply + 1
        self.game_ply += 1
        if self.end_rules.counting:
            endrules.update_count(self, us, capt, kind)
        if self.move_rules.blast:
            if not attacks.blast_legal(self, us):
                self.unmake()
                return False
        elif self.royal[us] >= 0:
            if (
                self.move_rules.fast_legal
                and kind != EP
                and kind != CASTLE
                and self.royal[us] != to
                and self.states[ply].noted_key == self.states[ply].key
                and self.states[ply].noted_check == 0
            ):
                # not in check before, not a king move: only a discovered rider attack can hurt
                if kind != DROP and attacks.discovered(self, self.royal[us], fr, them):
                    self.unmake()
                    return False
            elif attacks.attacked(self, self.royal[us], them) and not (
                self.end_rules.bik_rule
                and self.states[ply].kings_facing
                and fr == to
                and kind == NORMAL
            ):  # (janggi: a pass while the kings face each other is legal even in check)
                self.unmake()
                return False
        if self.gate_rules.seirawan:
            # after the legality test: a gated piece never covers its own king (FSF 11.1)
            self.gate_in(m, us, ply)
        if self.move_rules.flying and attacks.kings_facing(self):
            self.unmake()
            return False
        # drops that may not check (dropChecks = false); a pawn drop that mates is legal but
        # loses (Fairy-Stockfish's reading of shogiPawnDropMateIllegal): see pawn_drop_check
        if kind == DROP and not self.drop_rules.drop_checks and attacks.in_check(self):
            self.unmake()
            return False
        if self.end_rules.after_rules:
            # racing kings: no move may check; 3check: a check uses up one of the mover's
            check = attacks.in_check(self)
            if check and (
                self.end_rules.no_checking or (kind == PROMO and self.promo_rules.sit_promo)
            ):
                self.unmake()
                return False
            if check and self.end_rules.check_count and self.checks_left[us] > 0:
                h = us * MAX_CHECKS + self.checks_left[us]
                self.key ^= self.z_checks[h] ^ self.z_checks[h - 1]
                self.checks_left[us] -= 1
            self.note_check(check)
        if self.end_rules.perpetual_rule:
            if self.hint_move == m and self.hint_key == self.states[ply].key:
                self.states[ply + 1].in_check = self.hint_chk
            else:
                self.states[ply + 1].in_check = attacks.in_check(self)
        if self.end_rules.ply_rules:  # (one test for janggi's bikjang and shatar's checks)
            if self.end_rules.bik_rule:
                # bikjang: the side facing the enemy king must part the kings (or pass)
                if (
                    self.states[ply].kings_facing
                    and not (fr == to and kind == NORMAL)
                    and attacks.kings_see(self)
                ):
                    self.unmake()
                    return False
                self.states[ply + 1].kings_facing = attacks.kings_see(self)
            if self.end_rules.shatar:
                self.states[ply + 1].shak = attacks.shak(self)
        return True

    def dropped_rights(self, p: cython.int, to: cython.int) -> cython.int:
        """castlingDroppedPiece: the castling rights a drop of p on `to` gains: a king on its
        castling square those of the rooks in the corners, a rook dropped in a corner its
        own while the king stands on its square (the tables are set for every right)."""
        us: cython.int = p & 1
        r: cython.int
        gained: cython.int = 0
        rook: cython.int
        king_dropped: cython.bint
        for r in range(2 * us, 2 * us + 2):
            rook = self.board[self.c_rook_from[r]]
            if rook <= WALL or (rook & 1) != us or (rook >> 1) != self.c_rook_type:
                continue
            king_dropped = to == self.c_king_from[r] and self.is_royal[p >> 1]
            if king_dropped or (
                to == self.c_rook_from[r] and self.royal[us] == self.c_king_from[r]
            ):
                gained |= 1 << r
        return gained

    # --- gating and two-board games (vargate)

    def gate_in(self, m: cython.int, us: cython.int, ply: cython.int) -> cython.void:
        """seirawanGating, after a legal move m: the gated piece (the promotion field of a
        normal move or castling) leaves the hand for the move's origin, or for the rook's
        square (bit 27 of a castling move); a side whose hand is empty loses its gates (in a
        game without captures to hand, as in FSF); the key follows the gates."""
        kind: cython.int = move_kind(m)
        g: cython.int = move_promo(m) if kind == NORMAL or kind == CASTLE else 0  # noqa: SIM109 - C ints
        nsq: cython.int = self.nsq
        key: cython.ulonglong = self.key
        sq: cython.int
        q: cython.int
        t: cython.int
        held: cython.bint = False
        if g:
            sq = move_to(m) if (m >> 27) & 1 else move_from(m)
            q = 2 * g + us
            key ^= self.z_hand[q * MAXHAND + self.hand[q]]
            self.nn_hand(q, self.hand[q], False)
            self.hand[q] -= 1
            key ^= self.z_hand[q * MAXHAND + self.hand[q]]
            self.put(q, sq)
            key ^= self.z_piece[q * nsq + sq]
            self.mg += self.pst_mg[q * nsq + sq] - self.pst_mg[q * nsq]
            self.eg += self.pst_eg[q * nsq + sq] - self.pst_eg[q * nsq]
            self.phase += self.phase_w[q]
            self.states[ply].gated = q
        if not self.drop_rules.capt_to_hand and (self.gates >> (16 * us)) & 0xFFFF:
            for t in range(2 + us, self.npc, 2):
                if self.hand[t] > 0:
                    held = True
            if not held:
                self.gates &= ~(cython.cast(cython.longlong, 0xFFFF) << (16 * us))
        if self.gates != self.states[ply].gates:
            key ^= self.gate_key(self.gates) ^ self.gate_key(self.states[ply].gates)
            if not self.drop_rules.capt_to_hand:
                self.strand(self.states[ply].gates, self.gates)
        self.key = key

    def strand(self, old: cython.longlong, new: cython.longlong) -> cython.void:
        """A side whose last gate closed can never bring its pieces in hand into play (without
        captures to hand): they leave the evaluation's material (refresh agrees)."""
        c: cython.int
        t: cython.int
        for c in range(2):
            if (old >> (16 * c)) & 0xFFFF and not (new >> (16 * c)) & 0xFFFF:
                for t in range(2 + c, self.npc, 2):
                    self.mg -= self.hand[t] * self.pst_mg[t * self.nsq]
                    self.eg -= self.hand[t] * self.pst_eg[t * self.nsq]

    def gate_out(self, m: cython.int, ply: cython.int) -> cython.void:
        """Undo gate_in's piece: back from its square to the hand (the caller restores the
        gates and the key)."""
        sq: cython.int = move_to(m) if (m >> 27) & 1 else move_from(m)
        q: cython.int = self.states[ply].gated
        self.lift(sq)
        self.hand[q] += 1
        self.nn_hand(q, self.hand[q], True)

    def gate_key(self, gates: cython.longlong) -> cython.ulonglong:
        """The hash of a set of gates (seirawanGating)."""
        key: cython.ulonglong = 0
        i: cython.int
        for i in range(32):
            if (gates >> i) & 1:
                key ^= self.z_gate[i]
        return key

    def unmake(self) -> cython.void:
        """Undo the last move made with make (nothing when there is none: a Python caller's
        slip must not write before the undo stacks)."""
        ply: cython.int = self.ply - 1
        m: cython.int
        fr: cython.int
        to: cython.int
        kind: cython.int
        us: cython.int = self.side ^ 1
        p: cython.int
        capt: cython.int
        q: cython.int
        r: cython.int
        h: cython.int
        i: cython.int
        nn: cython.bint = self.nn
        if ply < 0:
            return
        m = self.states[ply].move
        fr, to, kind = move_from(m), move_to(m), move_kind(m)
        p, capt = self.states[ply].piece, self.states[ply].captured
        self.nn = 0  # the pieces go back without the network: nn_pop steps back to its entry
        self.ply = ply
        self.game_ply -= 1
        self.side = us
        if self.gate_rules.any:
            if self.states[ply].gated:
                self.gate_out(m, ply)
            self.gates = self.states[ply].gates
        if self.end_rules.check_count:
            self.checks_left[us] = self.states[ply].checks_left
        if capt and self.move_rules.blast:
            for i in range(self.states[ply].blasts - 1, -1, -1):
                self.put(self.states[ply].blast_pc[i], self.states[ply].blast_sq[i])
        if kind == CASTLE:
            r = 2 * us if self.c_rook_from[2 * us] == to else 2 * us + 1
            q = self.board[self.c_rook_to[r]]
            self.lift(self.c_king_to[r])
            self.lift(self.c_rook_to[r])
            self.put(p, fr)
            self.put(q, to)
        elif kind == DROP:
            self.lift(to)
            self.hand[p] += 1
            self.nn_hand(p, self.hand[p], True)
        else:
            if kind == PROMO:
                q = self.board[to]
                self.board[to] = p
                if self.nn:
                    self.nn_change(q, to, p, to)
                self.pkey ^= self.pawn_hash(p, to) ^ self.pawn_hash(q, to)
                self.count[q] -= 1
                self.count[p] += 1
            self.shift(to, fr)
            if capt:
                if kind == EP:
                    self.put(capt, to - self.stride if us == 0 else to + self.stride)
                else:
                    self.put(capt, to)
                if self.drop_rules.capt_to_hand:
                    h = 2 * self.demoted[capt >> 1] + us
                    self.nn_hand(h, self.hand[h], False)
                    self.hand[h] -= 1
        self.castling = self.states[ply].castling
        self.ep = self.states[ply].ep
        self.halfmove = self.states[ply].halfmove
        if self.end_rules.counting:
            self.cnt_limit = self.states[ply].count_limit
            self.cnt_ply = self.states[ply].count_ply
        self.key = self.states[ply].key
        self.mg = self.states[ply].mg
        self.eg = self.states[ply].eg
        self.phase = self.states[ply].phase
        if nn:
            self.nn = 1
            self.nn_pop()

    def make_null(self) -> cython.void:
        """Pass the move (null-move pruning); unmake_null undoes it."""
        ply: cython.int = self.ply
        self.states[ply].move = 0
        self.states[ply].ep = self.ep
        self.states[ply].halfmove = self.halfmove
        self.states[ply].key = self.key
        if self.ep:
            self.key ^= self.z_ep[self.ep]
            self.ep = 0
        self.key ^= self.z_side
        self.halfmove = 0  # a repetition may not reach back across a null move
        self.states[ply + 1].in_check = 0
        self.states[ply + 1].kings_facing = self.states[ply].kings_facing
        self.states[ply + 1].shak = 0
        self.side ^= 1
        self.ply = ply + 1

    def unmake_null(self) -> cython.void:
        """Undo make_null."""
        self.ply -= 1
        self.side ^= 1
        self.ep = self.states[self.ply].ep
        self.halfmove = self.states[self.ply].halfmove
        self.key = self.states[self.ply].key

    def is_repetition(self) -> cython.bint:
        """Whether the current position occurred before since the last irreversible move."""
        return self.last_repetition() >= 0

    def last_repetition(self) -> cython.int:
        """The ply of the latest earlier occurrence of the current position since the last
        irreversible move, or -1."""
        i: cython.int = self.ply - 2
        stop: cython.int = self.ply - self.halfmove
        while i >= stop and i >= 0:
            if self.states[i].key == self.key:
                return i
            i -= 2
        return -1

    def perpetual(self) -> cython.int:
        """perpetualCheckIllegal: over the cycle back to the latest repetition of the current
        position, 1 if the opponent gave check in every one of our positions (the side to move
        wins), -1 if we did in every one of theirs, else 0 (no repetition, or no perpetual)."""
        i: cython.int = self.last_repetition()
        j: cython.int
        ours: cython.bint = True
        theirs: cython.bint = True
        if i < 0:
            return 0
        for j in range(i + 1, self.ply + 1):
            if (self.ply - j) & 1:
                theirs = theirs and self.states[j].in_check != 0
            else:
                ours = ours and self.states[j].in_check != 0
        if ours == theirs:
            return 0
        return 1 if ours else -1

    def move_at(self, ply: int) -> int:
        """The move made at `ply` since set_fen (0 for a null move)."""
        if not 0 <= ply < self.ply:
            raise IndexError(f"no move at ply {ply}")
        return self.states[ply].move

    # ------------------------------------------------------------------ Python interface

    def set_fen(self, fen: str) -> None:
        """Set up a position from FEN; a ValueError (naming the field) changes nothing."""
        setup = fenlib.parse(self.rules, fen)
        trial: Position = self
        if self.pcount[0] + self.pcount[1]:
            # validate in a spare position, so that a refused FEN leaves this one as it was
            # (its undo stacks take a few arrays to allocate: keep the spare for next time)
            if self.trial is None:
                self.trial = Position(self.rules)
            trial = self.trial
        trial._load(setup)
        them = setup.side ^ 1
        if (
            trial.royal[them] >= 0
            and attacks.attacked(trial, trial.royal[them], setup.side)
            and not (
                trial.move_rules.blast  # atomic: touching kings, or the king to move has exploded
                and (
                    trial.royal[setup.side] < 0
                    or attacks.touching(trial, trial.royal[them], trial.royal[setup.side])
                )
            )
        ):
            if trial is self:
                self._clear()
            raise ValueError("side to move: the side not to move is in check")
        if trial.move_rules.flying and attacks.kings_facing(trial):
            if trial is self:
                self._clear()
            raise ValueError("piece placement: the kings face each other on an open file")
        if trial is not self:
            self._load(setup)

    def _clear(self) -> None:
        """Empty the board and reset the state."""
        self._load(fenlib.Setup(pieces={}))

    def _load(self, setup: fenlib.Setup) -> None:
        """Fill the arrays from a Setup (already validated) and hash from scratch."""
        self.nn = 0  # (refresh computes the accumulators once the pieces stand)
        for sq in self.rules.squares():
            self.board[sq] = EMPTY
        self.pkey = 0
        for c in (0, 1):
            self.pcount[c] = 0
            self.royal[c] = -1
        for p in range(self.npc):
            self.count[p] = 0
            self.hand[p] = 0
        for sq, p in sorted(setup.pieces.items()):
            self.put(p, sq)
        for p, n in setup.hand.items():
            self.hand[p] = n
        self.side = setup.side
        self.halfmove, self.fullmove = setup.halfmove, setup.fullmove
        self.game_ply = 2 * (setup.fullmove - 1) + setup.side
        self.ply = 0
        self._load_castling(setup)
        self.ep = 0
        if setup.ep and self.ep_ok[setup.ep] and self.ep_square_after(setup.ep, setup.side):
            self.ep = setup.ep
        checks = setup.checks if setup.checks is not None else (1, 1)  # FSF's default
        self.checks_left[0], self.checks_left[1] = checks
        self.cnt_limit = setup.count_limit if self.end_rules.counting else 0
        self.cnt_ply = setup.count_ply if self.end_rules.counting else 0
        self.gates = 0
        for color, file in setup.gates:
            self.gates |= 1 << (16 * color + file)
        self.refresh()
        self.states[0].in_check = (
            1 if self.end_rules.perpetual_rule and attacks.in_check(self) else 0
        )
        self.states[0].kings_facing = (
            1 if self.end_rules.bik_rule and attacks.kings_see(self) else 0
        )
        self.states[0].shak = attacks.shak(self) if self.end_rules.shatar else 0

    def _load_castling(self, setup: fenlib.Setup) -> None:
        """Castling tables for the rights of a setup (given as rook squares)."""
        rooks: list = setup.castling
        rules = self.rules
        for sq in range(self.nsq):
            self.c_mask[sq] = 15
        self.castling = 0
        self.c_rook_type = rules.piece_index(rules.castling_rook) if rules.castling else 0
        if self.drop_rules.castle_drop:
            # placement: every right has its king on the castling file, its rook in a corner
            for r in range(4):
                color, kingside = r >> 1, r & 1 == 0
                rank = rules.castling_rank_of(color)
                king = rules.square(rules.castling_king_file, rank)
                rook = rules.square(rules.files - 1 if kingside else 0, rank)
                king_file = (
                    rules.castling_kingside_file if kingside else rules.castling_queenside_file
                )
                self.c_king_from[r], self.c_rook_from[r] = king, rook
                self.c_king_to[r] = rules.square(king_file, rank)
                self.c_rook_to[r] = rules.square(king_file - 1 if kingside else king_file + 1, rank)
                self.c_mask[king] &= ~(3 << (2 * color))
                self.c_mask[rook] &= ~(1 << r)
        for rook in rooks:
            color = self.board[rook] & 1
            king = fenlib.castling_king_square(rules, setup, color)
            kingside = rules.file_of(rook) > rules.file_of(king)
            r = 2 * color + (0 if kingside else 1)
            rank = rules.rank_of(king)
            king_file = rules.castling_kingside_file if kingside else rules.castling_queenside_file
            rook_file = king_file - 1 if kingside else king_file + 1
            self.castling |= 1 << r
            self.c_king_from[r], self.c_rook_from[r] = king, rook
            self.c_king_to[r] = rules.square(king_file, rank)
            self.c_rook_to[r] = rules.square(rook_file, rank)
            self.c_mask[king] &= ~(3 << (2 * color))
            self.c_mask[rook] &= ~(1 << r)

    def refresh(self) -> None:
        """Recompute the hash key and evaluation terms from scratch."""
        nsq = self.nsq
        key = self.z_side if self.side else 0
        mg = eg = phase = 0
        for sq in self.rules.squares():
            p = self.board[sq]
            if p > WALL:
                key ^= self.z_piece[p * nsq + sq]
                mg += self.pst_mg[p * nsq + sq]
                eg += self.pst_eg[p * nsq + sq]
                phase += self.phase_w[p]
        for p in range(2, self.npc):
            if self.hand[p]:
                key ^= self.z_hand[p * MAXHAND] ^ self.z_hand[p * MAXHAND + self.hand[p]]
                if (
                    self.gate_rules.seirawan
                    and not self.drop_rules.capt_to_hand
                    and not (self.gates >> (16 * (p & 1))) & 0xFFFF
                ):
                    continue  # no gate left: these can never enter (see strand)
                mg += self.hand[p] * self.pst_mg[p * nsq]
                eg += self.hand[p] * self.pst_eg[p * nsq]
        key ^= self.z_castle[self.castling]
        if self.ep:
            key ^= self.z_ep[self.ep]
        if self.end_rules.check_count:
            key ^= self.z_checks[self.checks_left[0]]
            key ^= self.z_checks[MAX_CHECKS + self.checks_left[1]]
        if self.gate_rules.seirawan:
            key ^= self.gate_key(self.gates)
        self.key, self.mg, self.eg, self.phase = key, mg, eg, phase
        self.nn_refresh()

    def set_net(self, net) -> None:
        """Keep the accumulators of a network (core.nnue.Network, fitted to these rules), or
        of none (None): the evaluation then uses the network where `nn` is set."""
        tables = None if net is None else net.tables(self.rules)  # (NetworkError: why not)
        self.net = net
        self.nn = 0
        if net is not None:
            rows, kings, hand_rows = tables
            self.nn_h = net.hidden
            self.nn_w = net.ft_w
            self.nn_b = net.ft_b
            self.nn_max = net.max_pieces
            self.nn_row = rows
            self.acc = array("h", bytes(4 * net.hidden * NN_RING))
            self.nn_kings = 1 if net.kings else 0
            self.nn_kb0 = self.nn_kb1 = 0
            self.nn_krow = 2 * self.npc * self.nsq  # one table of nn_row per king index
            self.nn_kmap = array("i", [k * self.nn_krow for k in kings])
            entries = 2 * (len(self.nn_row) // self.nn_krow)  # (king index, view)
            self.nn_cache = array("h", net.ft_b) * entries  # each: the bias of an empty board
            self.nn_cboard = ints(entries * self.nsq)
            self.nn_hands = 1 if net.hands else 0
            self.nn_hrow = hand_rows
            self.nn_chand = ints(entries * self.npc)  # each: empty hands
        self.nn_refresh()

    def nn_refresh(self) -> None:
        """Compute the accumulators from scratch. More pieces than the network's int16 units
        can hold (a FEN no game reaches) switch it off for this position and the moves from it
        (pieces on the board and in hand together, each at most one input: no move adds to
        them, a drop or a gate moves one from the hand to the board)."""
        self.nn = 0
        self.nn_at = self.nn_sp = self.nn_floor = 0  # the ring starts again at this position
        if self.net is None:
            return
        pieces = self.pcount[0] + self.pcount[1]
        for p in range(2, self.npc):
            pieces += self.hand[p]
        if pieces > self.nn_max:
            return
        if self.nn_kings and (self.royal[0] < 0 or self.royal[1] < 0):
            return
        self.nn = 1
        self.nn_rebuild()

    def setup(self) -> fenlib.Setup:
        """The current position as a plain Setup."""
        pieces = {sq: self.board[sq] for sq in self.rules.squares() if self.board[sq] > WALL}
        rooks = [self.c_rook_from[r] for r in range(4) if self.castling & (1 << r)]
        hand = {p: self.hand[p] for p in range(2, self.npc) if self.hand[p]}
        checks = (self.checks_left[0], self.checks_left[1]) if self.end_rules.check_count else None
        setup = fenlib.Setup(
            pieces, self.side, rooks, self.ep, self.halfmove, self.fullmove_number(), hand, checks
        )
        setup.count_limit, setup.count_ply = self.cnt_limit, self.cnt_ply
        setup.gates = [(g >> 4, g & 15) for g in range(32) if self.gates >> g & 1]
        return setup

    def fullmove_number(self) -> int:
        """The FEN fullmove number of the current position."""
        return self.game_ply // 2 + 1

    def fen(self) -> str:
        """The current position as FEN."""
        return fenlib.render(self.rules, self.setup())

    def set_tables(self, mg: array, eg: array, phase: array) -> None:
        """Install evaluation tables (indexed p * nsq + sq; square 0 = in hand) and refresh."""
        need = self.npc * self.nsq
        if len(mg) != need or len(eg) != need or len(phase) != self.npc:
            raise ValueError("evaluation tables have the wrong size")
        self.pst_mg, self.pst_eg, self.phase_w = mg, eg, phase
        self.refresh()

    def quiet_moves(self) -> list:
        """The moves of gen_quiets (for tests)."""
        buf = ints(MAXMOVES)
        n = movegen.gen_quiets(self, buf, 0, 0)
        return [buf[i] for i in range(n)]

    def pseudo_moves(self, captures_only: bool = False) -> list:
        """Pseudo-legal moves as a list of ints (in check where pieces are simple, only those
        that may parry it: movegen.keep_parries); ValueError if there are more than MAXMOVES."""
        buf = ints(MAXMOVES)
        self.overflow = 0
        n = movegen.gen(self, buf, 0, captures_only)
        if self.overflow:
            self.overflow = 0
            raise ValueError(f"position has more than {MAXMOVES} moves: {self.fen()}")
        return list(buf[:n])

    def legal_moves(self) -> list:
        """Legal moves as a list of ints, in generation order."""
        out = []
        for m in self.pseudo_moves():
            if self.make(m):
                self.unmake()
                out.append(m)
        return out

    def copy(self):
        """An independent position with the same tables and current state (no move history)."""
        other = Position(self.rules)
        other.set_tables(array("i", self.pst_mg), array("i", self.pst_eg), array("i", self.phase_w))
        other.lvalue = array("i", self.lvalue)
        other.set_net(self.net)
        other._load(self.setup())
        return other


# Imported last: movegen, attacks and endrules cimport Position from here (uncompiled, this
# module must define it before they load; compiled, the order does not matter).
from cython.cimports.ferz.core import attacks, endrules, movegen  # noqa: E402
