"""Static evaluation built from the variant's data: tapered material and piece-square tables,
mobility, pawn structure, threats, king safety, piece terms, drawish-endgame scaling and mop-up.

Nothing here asks which variant is played. A piece's value and its square preferences come from
its movement (`Rules.pieces[*].atoms`), in tables that core/evaltables.py builds once per
variant. Material and the piece-square tables are kept incrementally by the Position
(`pos.mg`, `pos.eg`, `pos.phase`); `Evaluator.evaluate` adds the terms that depend on several
pieces at once, in numbered steps (`hand`): one function per step, over one `Scratch` that holds
what the steps share (attack maps, pawn files, counts).

Every term is a count times a (middlegame, endgame) weight of `ferz.params.TERMS`, added through
`term()`, and king danger is a weighted sum of counts (`king_danger()`) that is then squared.
Both also sum the counts in the scratch, which the search never reads: the tuner's `trace_features`
clears them, evaluates without the network and the pawn cache, and reads them (tools/tune.py
fits the weights to labelled positions). So the trace has no flag in the steps to test.
"""

from __future__ import annotations

from array import array

import cython
from cython.cimports.ferz.core import attacks
from cython.cimports.ferz.core.defs import EMPTY, MAXP, WALL
from cython.cimports.ferz.core.nnue import Network, forward
from cython.cimports.ferz.core.position import Position

from ferz.core import evaltables

if not cython.compiled:  # the constants of evaluate.pxd, for the uncompiled fallback
    from ferz.core.evaltables import (  # noqa: F401 (what other modules cimport from here)
        A_KING,
        A_MINOR,
        A_PAWN,
        A_QUEEN,
        A_ROOK,
        C_BISHOP,
        C_KNIGHT,
        C_OTHER,
        C_QUEEN,
        C_ROOK,
        CB_KNIGHT,
        FL_COLORBOUND,
        FL_FILE_RIDER,
        FL_LEAPER,
        K_PAWN,
        K_PIECE,
        K_ROYAL,
        MAP_SIZE,
        MAX_DANGER,
        MAX_TERMS,
        NCLASSES,
        PAWN_CACHE_SIZE,
        ROYAL_VALUE,
        SAFE_MAX,
    )

# Hashing of pawn structures for the pawn cache (splitmix64 finaliser constants).
MIX1 = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)
MIX2 = cython.declare(cython.ulonglong, 0xBF58476D1CE4E5B9)
MASK64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)


def tdiv(a: cython.int, b: cython.int) -> cython.int:
    """Integer division rounding toward zero, as C does (identical compiled and uncompiled)."""
    q: cython.int = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@cython.final
@cython.cclass
class Scratch:
    """What the steps of one evaluation share (fields in evaluate.pxd); refilled by each call."""

    def __init__(self) -> None:
        if not cython.compiled:  # the C arrays of evaluate.pxd
            self.att = [0] * (2 * MAP_SIZE)
            self.kzone = [0] * (2 * MAP_SIZE)
            self.pmask = [0] * 40
            self.pcol = [0] * 4
            for name in (
                "npm", "npawns", "npieces", "queens", "nbound", "bound_sq", "bound_mask",
                "attackers", "dsum",
            ):  # fmt: skip
                setattr(self, name, [0, 0])
            self.natt = [0] * (2 * NCLASSES)
            self.nzone = [0] * (2 * NCLASSES)
            self.terms = [0] * MAX_TERMS
            self.danger = [0] * (2 * MAX_DANGER)
            self.pkey = self.passed = self.mg = self.eg = 0
            self.scale = self.mopup = self.dead = 0


@cython.final
@cython.cclass
class Evaluator:
    """Evaluation tables and weights for one variant."""

    def __init__(
        self,
        rules,
        weights: dict[str, int] | None = None,
        *,
        terms: dict | None = None,
        danger: dict[str, int] | None = None,
        values: dict | None = None,
        pst: dict | None = None,
        net: Network | None = None,
    ) -> None:
        built = evaltables.build(rules, weights, terms, danger, values, pst)
        if net is not None:
            net.require(rules)  # NetworkError (a ValueError) saying why it does not fit
        self.rules = rules
        self.files = rules.files
        self.ranks = rules.ranks
        self.stride = rules.stride
        self.base = rules.square(0, 0)
        self.nsq = rules.nsq
        self.ntypes = len(rules.pieces)
        w = built.weights
        self.tempo = int(w["tempo"])
        self.scale_no_pawns_small = int(w["scale_no_pawns_small"])
        self.scale_opposite_bishops = int(w["scale_opposite_bishops"])
        self.mopup_edge = int(w["mopup_edge"])
        self.mopup_close = int(w["mopup_close"])
        self.mopup_corner = int(w["mopup_corner"])
        self.mopup_base = int(w["mopup_base"])
        self.blast_win = int(w["blast_win"])
        self.blast_threat = int(w["blast_threat"])
        self.blast_threats = int(w["blast_threats"])
        self.wmg = built.wmg
        self.weg = built.weg
        o = built.offsets
        self.o_mobility_other = o["mobility_other"]
        self.o_doubled = o["doubled"]
        self.o_isolated = o["isolated"]
        self.o_backward = o["backward"]
        self.o_connected = o["connected"]
        self.o_passed = o["passed"]
        self.o_passed_free = o["passed_free"]
        self.o_passed_own_king = o["passed_own_king"]
        self.o_passed_their_king = o["passed_their_king"]
        self.o_candidate = o["candidate"]
        self.o_bishop_pair = o["bishop_pair"]
        self.o_rook_open = o["rook_open"]
        self.o_rook_semiopen = o["rook_semiopen"]
        self.o_rook_seventh = o["rook_seventh"]
        self.o_outpost_leaper = o["outpost_leaper"]
        self.o_outpost_bishop = o["outpost_bishop"]
        self.o_minor_behind_pawn = o["minor_behind_pawn"]
        self.o_bad_bishop = o["bad_bishop"]
        self.o_threat_by_pawn = o["threat_by_pawn"]
        self.o_threat_minor_on_rook = o["threat_minor_on_rook"]
        self.o_threat_minor_on_queen = o["threat_minor_on_queen"]
        self.o_threat_rook_on_queen = o["threat_rook_on_queen"]
        self.o_hanging = o["hanging"]
        self.o_hanging_pawn = o["hanging_pawn"]
        self.o_shield_near = o["shield_near"]
        self.o_shield_far = o["shield_far"]
        self.o_king_open_file = o["king_open_file"]
        self.kdw = built.kdw
        self.n_danger = len(built.danger)
        self.d_attacker = built.danger["attacker_other"]
        self.d_zone = built.danger["zone_other"]
        self.d_check = built.danger["check_other"]
        self.d_weak = built.danger["weak"]
        self.d_no_queen = built.danger["no_queen"]
        self.d_bias = built.danger["bias"]
        self.danger_eg = built.danger_eg
        a = built.arrays
        self.kind = a["kind"]
        self.flags = a["flags"]
        self.value = a["value"]
        self.cls = a["cls"]
        self.class_bit = a["class_bit"]
        self.bucket = a["bucket"]
        self.mob_off = a["mob_off"]
        self.mob_size = a["mob_size"]
        self.mob_centre = a["mob_centre"]
        self.mob_scale = a["mob_scale"]
        self.attack_unit = a["attack_unit"]
        self.pst_mg = a["pst_mg"]
        self.pst_eg = a["pst_eg"]
        self.phase_w = a["phase_w"]
        self.sq_file = a["sq_file"]
        self.sq_rank = a["sq_rank"]
        self.mob_first = a["mob_first"]
        self.mob_last = a["mob_last"]
        self.mob_vec = a["mob_vec"]
        self.mob_range = a["mob_range"]
        self.cap_first = a["cap_first"]
        self.cap_last = a["cap_last"]
        self.cap_vec = a["cap_vec"]
        self.cv_first = a["cv_first"]
        self.cv_vec = a["cv_vec"]
        self.cv_range = a["cv_range"]
        self.rook_value = built.rook_value
        self.max_phase = built.max_phase
        self.material_draws = built.material_draws
        self.promo_white, self.promo_black = built.promo_rank
        self.blast = 1 if rules.blast_on_capture else 0
        self.pawn_cache = array("Q", bytes(16 * PAWN_CACHE_SIZE))
        self.net = net
        self.nn_on = 1 if net is not None else 0

    def clear_cache(self) -> None:
        """Forget cached pawn structures (after weights were changed in place)."""
        for i in range(len(self.pawn_cache)):
            self.pawn_cache[i] = 0

    def install(self, pos: Position) -> None:
        """Give a position this evaluation's material and piece-square tables, and the
        accumulators of its network (or none)."""
        pos.set_tables(self.pst_mg, self.pst_eg, self.phase_w)
        pos.lvalue = array("i", [self.value[p >> 1] for p in range(pos.npc)])  # for SEE
        pos.set_net(self.net)

    def eval(self, pos: Position) -> int:
        """Static evaluation of a position from the side to move's view (for tools and tests;
        a scratch of its own, so a search running meanwhile is not disturbed)."""
        return self.evaluate(pos, Scratch())

    def trace_features(self, pos: Position) -> dict:
        """The evaluation of pos and what it is made of, for the tuner: the term counts
        (white minus black, in TERMS order), each side's king-danger counts, the incremental
        material and square-table part, the phase and the endgame scale (1/64ths). The
        hand-made evaluation only (no network), its pawn terms counted afresh (no cache)."""
        s: Scratch = Scratch()  # (counts start at zero)
        nd: cython.int = self.n_danger
        score = self.handmade(pos, s, False)
        phase = pos.phase if pos.phase < self.max_phase else self.max_phase
        return {
            "eval": score,  # side to move's view, tempo included, as the search sees it
            "side": pos.side,
            "terms": [s.terms[i] for i in range(len(self.wmg))],
            "danger": [
                [s.danger[i] for i in range(nd)],
                [s.danger[MAX_DANGER + i] for i in range(nd)],
            ],
            "mg": pos.mg,
            "eg": pos.eg,
            "phase": phase,
            "max_phase": self.max_phase,
            "scale": s.scale,
            "mopup": s.mopup if not s.dead else 0,
            "dead": s.dead,
        }

    def king_threats(self, pos: Position, color: int) -> int:
        """Python view of _blast_threats: squares where a capture would blow up colour's king."""
        return self._blast_threats(pos, color)

    # ------------------------------------------------------------------ evaluation

    def evaluate(self, pos: Position, s: Scratch) -> cython.int:
        """Static evaluation in centipawns from the side to move's point of view (s: the
        caller's scratch, one per search thread: the Evaluator is shared by them)."""
        # Step 0. The network, where the position keeps its accumulators (not against a bare
        # king: material and the mop-up of the hand-made evaluation drive it to the mate).
        score: cython.int
        if self.nn_on and pos.nn and not alone(pos, 0) and not alone(pos, 1):
            score = forward(pos, self.net)
            if score > SAFE_MAX:
                return SAFE_MAX
            if score < -SAFE_MAX:
                return -SAFE_MAX
            return score
        return self.handmade(pos, s, True)

    @cython.cfunc
    @cython.nogil
    @cython.exceptval(check=False)
    def handmade(self, pos: Position, s: Scratch, cached: cython.bint) -> cython.int:
        """The hand-made evaluation in its steps, side to move's view (cached: use the pawn
        cache; the tuner's trace counts the pawn terms afresh)."""
        clear(self, pos, s)  # 1
        census(self, pos, s)  # 2
        pawns(self, pos, s, cached)  # 3
        pieces(self, pos, s)  # 4
        threats(self, pos, s)  # 5
        passers(self, pos, s)  # 6
        king_safety(self, pos, s)  # 7
        pairs(self, s)  # 8
        score: cython.int = total(self, pos, s)  # 9
        if s.dead:
            return 0
        return explosions(self, pos, score)  # 10

    @cython.cfunc
    @cython.inline
    @cython.nogil
    @cython.exceptval(check=False)
    def term(self, s: Scratch, i: cython.int, n: cython.int) -> cython.void:
        """Add n times term i (n > 0 for White, < 0 for Black), and count it."""
        s.mg += self.wmg[i] * n
        s.eg += self.weg[i] * n
        s.terms[i] += n

    @cython.cfunc
    @cython.inline
    @cython.nogil
    @cython.exceptval(check=False)
    def king_danger(self, s: Scratch, c: cython.int, j: cython.int, n: cython.int) -> cython.void:
        """Add n times danger weight j to the danger of colour c's king, and count it."""
        s.dsum[c] += self.kdw[j] * n
        s.danger[c * MAX_DANGER + j] += n

    # ------------------------------------------------------------------ helpers

    @cython.cfunc
    @cython.nogil
    @cython.exceptval(check=False)
    def _count_bits(self, x: cython.int) -> cython.int:
        """Number of set bits."""
        n: cython.int = 0
        while x:
            x &= x - 1
            n += 1
        return n

    @cython.cfunc
    @cython.nogil
    @cython.exceptval(check=False)
    def _rank8(self, rr: cython.int) -> cython.int:
        """A relative rank scaled to 0..7 (the index of the rank tables on any board)."""
        if self.ranks <= 1:
            return 0
        rr = rr * 7 // (self.ranks - 1)
        return rr if rr < 7 else 7

    def material(self, pos: Position) -> cython.int:
        """Tapered material and piece-square score only, side to move's view (lazy evaluation)."""
        phase: cython.int = pos.phase if pos.phase < self.max_phase else self.max_phase
        score: cython.int = tdiv(pos.mg * phase + pos.eg * (self.max_phase - phase), self.max_phase)
        return (score if pos.side == 0 else -score) + self.tempo

    @cython.cfunc
    @cython.nogil
    @cython.exceptval(check=False)
    def _front_rank(self, mask: cython.int, c: cython.int) -> cython.int:
        """The rank of the most advanced pawn in a file's rank mask, for colour c."""
        r: cython.int
        if c == 0:
            r = self.ranks - 1
            while r > 0 and not (mask >> r) & 1:
                r -= 1
            return r
        r = 0
        while r < self.ranks - 1 and not (mask >> r) & 1:
            r += 1
        return r

    @cython.cfunc
    @cython.nogil
    @cython.exceptval(check=False)
    def _pawn_terms(self, pos: Position, s: Scratch) -> cython.void:
        """Pawn-only terms (added through term()), and the files of the passed pawns."""
        i: cython.int
        c: cython.int
        sq: cython.int
        t: cython.int
        f: cython.int
        r: cython.int
        rr: cython.int
        tr: cython.int
        sign: cython.int
        them: cython.int
        ahead: cython.int
        own: cython.int
        opp: cython.int
        adj: cython.int
        stop: cython.int
        behind: cython.int
        sentries: cython.int
        ranks: cython.int = self.ranks
        stride: cython.int = self.stride
        nsq: cython.int = self.nsq
        full: cython.int = (1 << ranks) - 1
        passed: cython.uint = 0
        for c in range(2):
            sign = 1 if c == 0 else -1
            them = c ^ 1
            for i in range(pos.pcount[c]):
                sq = pos.plist[c * MAXP + i]
                t = pos.board[sq] >> 1
                if self.kind[t] != K_PAWN:
                    continue
                f = self.sq_file[sq]
                r = self.sq_rank[sq]
                if c == 0:
                    ahead = full & ~((2 << r) - 1)  # ranks in front of the pawn
                    rr = r
                    stop = sq + stride
                else:
                    ahead = (1 << r) - 1
                    rr = ranks - 1 - r
                    stop = sq - stride
                tr = self._rank8(rr)
                own = s.pmask[c * 20 + f + 1]
                behind = r - 1 if c == 0 else r + 1
                if behind < 0:
                    behind = r
                opp = s.pmask[them * 20 + f + 1]
                adj = s.pmask[c * 20 + f] | s.pmask[c * 20 + f + 2]
                # Doubled: counted once per file, at its rearmost pawn (horde's files of four
                # pawns would otherwise outweigh its whole army).
                if own & ahead and not (own & ~ahead & ~(1 << r) & full):
                    self.term(s, self.o_doubled, sign)
                if adj == 0:
                    self.term(s, self.o_isolated, sign)
                elif adj & ((1 << r) | (1 << behind)) & full:
                    self.term(s, self.o_connected + tr, sign)
                elif (
                    (adj & ~ahead & ~(1 << r)) == 0
                    and 0 <= stop < nsq
                    and s.att[them * MAP_SIZE + stop] & A_PAWN
                ):
                    # Only pawns ahead on the adjacent files and the stop square guarded by an
                    # enemy pawn: backward.
                    self.term(s, self.o_backward, sign)
                sentries = (s.pmask[them * 20 + f] | s.pmask[them * 20 + f + 2]) & ahead
                if (opp & ahead) == 0 and (own & ahead) == 0:
                    if sentries == 0:
                        self.term(s, self.o_passed + tr, sign)
                        passed |= cython.cast(cython.uint, 1) << (16 * c + f)
                    elif self._count_bits(adj & ~ahead) >= self._count_bits(sentries):
                        # Candidate: at least as many helpers beside or behind as sentries.
                        self.term(s, self.o_candidate + tr, sign)
        s.passed = passed

    @cython.cfunc
    @cython.nogil
    @cython.exceptval(check=False)
    def _any_rank(self, s: Scratch, c: cython.int, rank: cython.int) -> cython.int:
        """Whether colour c has a pawn on this rank (any file)."""
        f: cython.int
        for f in range(self.files):
            if s.pmask[c * 20 + f + 1] & (1 << rank):
                return 1
        return 0

    @cython.cfunc
    @cython.nogil
    @cython.exceptval(check=False)
    def _dist(self, a: cython.int, b: cython.int) -> cython.int:
        """King-step distance between two squares."""
        df: cython.int = abs(self.sq_file[a] - self.sq_file[b])
        dr: cython.int = abs(self.sq_rank[a] - self.sq_rank[b])
        return df if df > dr else dr

    @cython.cfunc
    @cython.nogil
    @cython.exceptval(check=False)
    def _mopup(
        self, pos: Position, strong: cython.int, nbound: cython.int, bound_colour: cython.int
    ) -> cython.int:
        """Bonus for the side that mates a bare royal piece: edge or right corner, kings close."""
        weak: cython.int = strong ^ 1
        wk: cython.int = pos.royal[weak]
        sk: cython.int = pos.royal[strong]
        if wk < 0:
            return self.mopup_base
        f: cython.int = self.sq_file[wk]
        r: cython.int = self.sq_rank[wk]
        edge: cython.int = (abs(2 * f - (self.files - 1)) + abs(2 * r - (self.ranks - 1))) // 2
        corner: cython.int = 0
        if nbound == 1 and self.files == self.ranks:
            # One colour-bound piece (bishop and knight): only its corners can be mated in.
            # Keep the push to the edge (a wrong corner is still better than the centre) and
            # add the distance from the long diagonal of the other colour, which grows along
            # every edge from the wrong corners to the right ones.
            if bound_colour == 0:  # the corners a1 and h8 have colour 0
                corner = abs(self.files - 1 - f - r)
            else:
                corner = abs(f - r)
        bonus: cython.int = self.mopup_base + self.mopup_edge * edge + self.mopup_corner * corner
        if sk >= 0:
            bonus += self.mopup_close * (2 * self.files - self._dist(sk, wk))
        return bonus

    @cython.cfunc
    @cython.nogil
    @cython.exceptval(check=False)
    def _blast_threats(self, pos: Position, c: cython.int) -> cython.int:
        """Where captures explode: the squares next to colour c's royal piece holding c's
        pieces that the opponent can capture with a non-royal piece (blowing the royal up),
        leaving out those next to the opponent's own royal piece (that capture is illegal)."""
        ksq: cython.int = pos.royal[c]
        other: cython.int = pos.royal[c ^ 1]
        n: cython.int = 0
        i: cython.int
        sq: cython.int
        q: cython.int
        a: cython.int
        if ksq < 0:
            return 0
        for i in range(9):
            sq = ksq + pos.blast_vec[i]
            q = pos.board[sq]
            if sq == ksq or q <= WALL or (q & 1) != c:
                continue
            if other >= 0 and self._dist(sq, other) <= 1:
                continue
            a = attacks.probe_attacker(pos, sq, c ^ 1, True)
            if a >= 0 and self.kind[pos.board[a] >> 1] != K_ROYAL:
                n += 1
        return n


# ------------------------------------------------------------------ the steps of Evaluator.hand
# Module functions, not methods: each is called from handmade() alone, so the C compiler inlines
# them there (a method would also sit in the class's vtable and stay a call).


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def alone(pos: Position, c: cython.int) -> cython.bint:
    """Side c has its royal piece and nothing else: no other piece on the board or in hand (a
    crazyhouse king with pieces to drop is not bare)."""
    p: cython.int
    if pos.pcount[c] > 1:
        return False
    for p in range(2 + c, pos.npc, 2):
        if pos.hand[p]:
            return False
    return True


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def clear(ev: Evaluator, pos: Position, s: Scratch) -> cython.void:
    """Step 1. Empty the scratch (the attack maps only as far as this board reaches)."""
    i: cython.int
    c: cython.int
    for i in range(ev.nsq):
        s.att[i] = 0
        s.att[MAP_SIZE + i] = 0
        s.kzone[i] = 0
        s.kzone[MAP_SIZE + i] = 0
    for i in range(40):
        s.pmask[i] = 0
    for i in range(2 * NCLASSES):
        s.natt[i] = 0
        s.nzone[i] = 0
    for c in range(2):
        s.pcol[2 * c] = 0
        s.pcol[2 * c + 1] = 0
        s.npm[c] = 0
        s.npawns[c] = 0
        s.npieces[c] = 0
        s.queens[c] = 0
        s.nbound[c] = 0
        s.bound_sq[c] = 0
        s.bound_mask[c] = 0
        s.attackers[c] = 0
        s.dsum[c] = 0
    s.pkey = 0
    s.passed = 0
    s.mg = 0
    s.eg = 0


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def census(ev: Evaluator, pos: Position, s: Scratch) -> cython.void:
    """Step 2. Pawn files, pawn attacks and the pawn key; material counts; the royal
    piece's zone (its square and the squares next to it, which it also attacks)."""
    i: cython.int
    c: cython.int
    sq: cython.int
    p: cython.int
    t: cython.int
    k: cython.int
    f: cython.int
    r: cython.int
    to: cython.int
    ksq: cython.int
    nsq: cython.int = ev.nsq
    stride: cython.int = ev.stride
    x: cython.ulonglong
    pkey: cython.ulonglong = 0
    for c in range(2):
        for i in range(pos.pcount[c]):
            sq = pos.plist[c * MAXP + i]
            p = pos.board[sq]
            t = p >> 1
            if ev.kind[t] == K_PAWN:
                s.npawns[c] += 1
                s.pmask[c * 20 + ev.sq_file[sq] + 1] |= 1 << ev.sq_rank[sq]
                s.pcol[2 * c + ((ev.sq_file[sq] + ev.sq_rank[sq]) & 1)] += 1
                x = ((cython.cast(cython.ulonglong, p * nsq + sq) + MIX1) * MIX2) & MASK64
                pkey ^= x ^ (x >> 31)
                for k in range(ev.cap_first[p], ev.cap_last[p]):
                    to = sq + ev.cap_vec[k]
                    if 0 <= to < nsq:
                        s.att[c * MAP_SIZE + to] |= A_PAWN
            elif ev.kind[t] == K_PIECE:
                s.npm[c] += ev.value[t]
                s.npieces[c] += 1
                if ev.bucket[t] == A_QUEEN:
                    s.queens[c] += 1
                if ev.flags[t] & FL_COLORBOUND:
                    s.nbound[c] += 1
                    s.bound_sq[c] = (ev.sq_file[sq] + ev.sq_rank[sq]) & 1
                    s.bound_mask[c] |= 1 << s.bound_sq[c]
        ksq = pos.royal[c]
        if ksq >= 0:
            for f in range(-1, 2):
                for r in range(-1, 2):
                    to = ksq + r * stride + f
                    if 0 <= to < nsq and pos.board[to] != WALL:
                        s.kzone[c * MAP_SIZE + to] = 1
                        if to != ksq:
                            s.att[c * MAP_SIZE + to] |= A_KING
    s.pkey = pkey


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def pawns(ev: Evaluator, pos: Position, s: Scratch, cached: cython.bint) -> cython.void:
    """Step 3. Pawn structure, the first terms summed. The terms that depend on pawns only
    come from the pawn cache (lockless like the TT: a torn entry fails its check) unless
    `cached` is off. Passed pawns are kept as one file bit per colour (only the front pawn
    of a file can be passed) and get the terms that depend on other pieces in step 6."""
    pkey: cython.ulonglong = s.pkey
    w0: cython.ulonglong
    w1: cython.ulonglong
    slot: cython.int
    if pkey == 0:
        return
    slot = cython.cast(cython.int, pkey & (PAWN_CACHE_SIZE - 1))
    w1 = ev.pawn_cache[2 * slot + 1]
    w0 = ev.pawn_cache[2 * slot]
    if (w0 ^ w1) == pkey and cached:
        s.mg = cython.cast(cython.int, w1 & 0xFFFF) - 32768
        s.eg = cython.cast(cython.int, (w1 >> 16) & 0xFFFF) - 32768
        s.passed = cython.cast(cython.uint, w1 >> 32)
        return
    ev._pawn_terms(pos, s)
    w1 = (
        cython.cast(cython.ulonglong, (s.mg + 32768) & 0xFFFF)
        | (cython.cast(cython.ulonglong, (s.eg + 32768) & 0xFFFF) << 16)
        | (cython.cast(cython.ulonglong, s.passed) << 32)
    )
    ev.pawn_cache[2 * slot] = pkey ^ w1
    ev.pawn_cache[2 * slot + 1] = w1


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def pieces(ev: Evaluator, pos: Position, s: Scratch) -> cython.void:
    """Step 4. Pieces: mobility, attack maps (by value bucket and class), attacks on the
    enemy king's zone."""
    i: cython.int
    c: cython.int
    sq: cython.int
    p: cython.int
    t: cython.int
    k: cython.int
    v: cython.int
    to: cython.int
    q: cython.int
    sign: cython.int
    zone: cython.int
    mob: cython.int
    za: cython.int
    steps: cython.int
    bit: cython.int
    for c in range(2):
        sign = 1 if c == 0 else -1
        zone = (c ^ 1) * MAP_SIZE
        for i in range(pos.pcount[c]):
            sq = pos.plist[c * MAXP + i]
            p = pos.board[sq]
            t = p >> 1
            if ev.kind[t] != K_PIECE:
                continue
            mob = 0
            za = 0
            bit = ev.bucket[t] | ev.class_bit[t]
            for k in range(ev.mob_first[p], ev.mob_last[p]):
                v = ev.mob_vec[k]
                to = sq
                steps = ev.mob_range[k]
                # Leaps are at most 3 squares and the board has 3 rows/columns of wall
                # around it, so every ray ends on a wall square inside the array.
                while steps > 0:
                    to += v
                    q = pos.board[to]
                    if q == WALL:
                        break
                    s.att[c * MAP_SIZE + to] |= bit
                    za += s.kzone[zone + to]
                    if q == EMPTY:
                        if not (s.att[zone + to] & A_PAWN):
                            mob += 1
                    else:
                        if (q & 1) != c:
                            mob += 1
                        break
                    steps -= 1
            if ev.mob_size[t]:
                ev.term(
                    s,
                    ev.mob_off[t] + (mob if mob < ev.mob_size[t] else ev.mob_size[t] - 1),
                    sign,
                )
            else:
                ev.term(
                    s,
                    ev.o_mobility_other,
                    sign * tdiv((mob - ev.mob_centre[t]) * ev.mob_scale[t], 100),
                )
            if za:
                s.attackers[c] += 1
                s.natt[c * NCLASSES + ev.cls[t]] += 1
                if ev.cls[t] == C_OTHER:
                    za *= ev.attack_unit[t]
                s.nzone[c * NCLASSES + ev.cls[t]] += za


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def threats(ev: Evaluator, pos: Position, s: Scratch) -> cython.void:
    """Step 5. Threats and piece placement: pieces attacked by pawns or lesser pieces,
    hanging pieces, rooks on open files and the seventh rank, outposts, bad bishops."""
    i: cython.int
    c: cython.int
    sq: cython.int
    t: cython.int
    f: cython.int
    r: cython.int
    rr: cython.int
    tr: cython.int
    q: cython.int
    ea: cython.int
    ksq: cython.int
    sign: cython.int
    them: cython.int
    fwd: cython.int
    ahead: cython.int
    ranks: cython.int = ev.ranks
    stride: cython.int = ev.stride
    full: cython.int = (1 << ranks) - 1
    for c in range(2):
        sign = 1 if c == 0 else -1
        them = c ^ 1
        fwd = stride if c == 0 else -stride
        for i in range(pos.pcount[c]):
            sq = pos.plist[c * MAXP + i]
            t = pos.board[sq] >> 1
            if ev.kind[t] == K_ROYAL:
                continue
            ea = s.att[them * MAP_SIZE + sq]
            if ev.kind[t] == K_PAWN:
                if ea and not s.att[c * MAP_SIZE + sq]:
                    ev.term(s, ev.o_hanging_pawn, -sign)
                continue
            if ea:
                if ea & A_PAWN:
                    ev.term(s, ev.o_threat_by_pawn, -sign)
                elif ev.bucket[t] == A_ROOK and ea & A_MINOR:
                    ev.term(s, ev.o_threat_minor_on_rook, -sign)
                elif ev.bucket[t] == A_QUEEN and ea & A_MINOR:
                    ev.term(s, ev.o_threat_minor_on_queen, -sign)
                elif ev.bucket[t] == A_QUEEN and ea & A_ROOK:
                    ev.term(s, ev.o_threat_rook_on_queen, -sign)
                if not s.att[c * MAP_SIZE + sq]:
                    ev.term(s, ev.o_hanging, -sign)
            f = ev.sq_file[sq]
            r = ev.sq_rank[sq]
            rr = r if c == 0 else ranks - 1 - r
            if ev.flags[t] & FL_FILE_RIDER:
                if s.pmask[c * 20 + f + 1] == 0:
                    if s.pmask[them * 20 + f + 1] == 0:
                        ev.term(s, ev.o_rook_open, sign)
                    else:
                        ev.term(s, ev.o_rook_semiopen, sign)
                if rr == ranks - 2 and ranks >= 6:
                    ksq = pos.royal[them]
                    tr = ranks - 2 if c == 0 else 1  # the absolute rank of our "seventh"
                    if (ksq >= 0 and ev.sq_rank[ksq] == (ranks - 1 if c == 0 else 0)) or (
                        ev._any_rank(s, them, tr)
                    ):
                        ev.term(s, ev.o_rook_seventh, sign)
            if ev.flags[t] & (FL_LEAPER | FL_COLORBOUND):
                q = pos.board[sq + fwd]
                if q > WALL and (q & 1) == c and ev.kind[q >> 1] == K_PAWN:
                    ev.term(s, ev.o_minor_behind_pawn, sign)
                if rr >= ranks // 2 and s.att[c * MAP_SIZE + sq] & A_PAWN:
                    # No enemy pawn on an adjacent file can ever attack this square.
                    if c == 0:
                        ahead = full & ~((2 << r) - 1)
                    else:
                        ahead = (1 << r) - 1
                    if ((s.pmask[them * 20 + f] | s.pmask[them * 20 + f + 2]) & ahead) == 0:
                        if ev.flags[t] & FL_LEAPER:
                            ev.term(s, ev.o_outpost_leaper, sign)
                        else:
                            ev.term(s, ev.o_outpost_bishop, sign)
            if ev.flags[t] & FL_COLORBOUND:
                ev.term(s, ev.o_bad_bishop, sign * s.pcol[2 * c + ((f + r) & 1)])


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def passers(ev: Evaluator, pos: Position, s: Scratch) -> cython.void:
    """Step 6. Passed pawns (found in step 3): a free stop square, the kings' distances
    to it."""
    c: cython.int
    f: cython.int
    r: cython.int
    rr: cython.int
    tr: cython.int
    sq: cython.int
    stop: cython.int
    sign: cython.int
    them: cython.int
    ranks: cython.int = ev.ranks
    stride: cython.int = ev.stride
    nsq: cython.int = ev.nsq
    passed: cython.uint = s.passed
    if passed == 0:
        return
    for c in range(2):
        sign = 1 if c == 0 else -1
        them = c ^ 1
        for f in range(ev.files):
            if not (passed >> (16 * c + f)) & 1:
                continue
            r = ev._front_rank(s.pmask[c * 20 + f + 1], c)
            sq = ev.base + r * stride + f
            if c == 0:
                rr = r
                stop = sq + stride
            else:
                rr = ranks - 1 - r
                stop = sq - stride
            tr = ev._rank8(rr)
            if 0 <= stop < nsq and pos.board[stop] == EMPTY:
                ev.term(s, ev.o_passed_free + tr, sign)
            if pos.royal[0] >= 0 and pos.royal[1] >= 0 and 0 <= stop < nsq:
                ev.term(s, ev.o_passed_own_king, sign * ev._dist(pos.royal[c], stop) * tr)
                ev.term(s, ev.o_passed_their_king, sign * ev._dist(pos.royal[them], stop) * tr)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def king_safety(ev: Evaluator, pos: Position, s: Scratch) -> cython.void:
    """Step 7. King safety: pawn shield and open file, then the danger from the attackers
    (by class), their hits on the king's zone, their safe checks and the weak squares of
    the zone; the danger is squared (middlegame) once two pieces attack."""
    nchk = cython.declare(cython.int[5])  # NCLASSES
    i: cython.int
    c: cython.int
    k: cython.int
    d: cython.int
    f: cython.int
    r: cython.int
    rr: cython.int
    v: cython.int
    q: cython.int
    to: cython.int
    own: cython.int
    bit: cython.int
    steps: cython.int
    ksq: cython.int
    sign: cython.int
    them: cython.int
    files: cython.int = ev.files
    ranks: cython.int = ev.ranks
    stride: cython.int = ev.stride
    nsq: cython.int = ev.nsq
    for c in range(2):
        sign = 1 if c == 0 else -1
        them = c ^ 1
        ksq = pos.royal[c]
        if ksq < 0:
            continue
        f = ev.sq_file[ksq]
        r = ev.sq_rank[ksq]
        rr = r if c == 0 else ranks - 1 - r
        if rr <= 1:
            k = 0
            d = 0
            for v in range(-1, 2):
                if 0 <= f + v < files:
                    own = s.pmask[c * 20 + f + v + 1]
                    if c == 0:
                        k += (own >> (r + 1)) & 1
                        d += (own >> (r + 2)) & 1
                    else:
                        if r >= 1:
                            k += (own >> (r - 1)) & 1
                        if r >= 2:
                            d += (own >> (r - 2)) & 1
            ev.term(s, ev.o_shield_near, sign * k)
            ev.term(s, ev.o_shield_far, sign * d)
            if s.pmask[c * 20 + f + 1] == 0:
                ev.term(s, ev.o_king_open_file, sign)
        if s.attackers[them] < 2:
            continue
        for k in range(NCLASSES):
            nchk[k] = 0  # (other pieces' checks are not counted)
            ev.king_danger(s, c, ev.d_attacker + k, s.natt[them * NCLASSES + k])
            ev.king_danger(s, c, ev.d_zone + k, s.nzone[them * NCLASSES + k])
        # Safe checks: squares from which a piece of a class would check (the class's
        # movement walked back from the king), reached by such a piece, not defended.
        for k in range(1, NCLASSES):
            bit = CB_KNIGHT << (k - 1)
            for i in range(ev.cv_first[k], ev.cv_first[k + 1]):
                v = ev.cv_vec[i]
                to = ksq + v
                steps = ev.cv_range[i]
                while steps > 0:
                    q = pos.board[to]
                    if q == WALL or (q != EMPTY and (q & 1) == them):
                        break
                    if (s.att[them * MAP_SIZE + to] & bit) and not s.att[c * MAP_SIZE + to]:
                        nchk[k] += 1
                    if q != EMPTY:
                        break
                    to += v
                    steps -= 1
        for k in range(NCLASSES):
            ev.king_danger(s, c, ev.d_check + k, nchk[k])
        d = 0
        for v in range(-1, 2):
            for q in range(-1, 2):
                to = ksq + q * stride + v
                if (
                    0 <= to < nsq
                    and s.kzone[c * MAP_SIZE + to]
                    and s.att[them * MAP_SIZE + to]
                    and not (s.att[c * MAP_SIZE + to] & ~A_KING)
                ):
                    d += 1
        ev.king_danger(s, c, ev.d_weak, d)
        if s.queens[them] == 0:
            ev.king_danger(s, c, ev.d_no_queen, 1)
        ev.king_danger(s, c, ev.d_bias, 1)
        d = s.dsum[c]
        if d > 0:
            s.mg -= sign * (d * d // 4096)
            s.eg -= sign * tdiv(d * ev.danger_eg, 256)  # (C division, also uncompiled)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def pairs(ev: Evaluator, s: Scratch) -> cython.void:
    """Step 8. Pairs of colour-bound pieces (on both square colours)."""
    c: cython.int
    for c in range(2):
        if s.nbound[c] >= 2:
            ev.term(s, ev.o_bishop_pair, 1 if c == 0 else -1)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def total(ev: Evaluator, pos: Position, s: Scratch) -> cython.int:
    """Step 9. Taper, scale drawish endgames, add mop-up; side to move's view (0 for a
    dead draw). Records the scale, the mop-up and the dead draw in the scratch."""
    i: cython.int
    c: cython.int
    p: cython.int
    nsq: cython.int = ev.nsq
    mg: cython.int = pos.mg + s.mg
    eg: cython.int = pos.eg + s.eg
    phase: cython.int = pos.phase
    strong: cython.int
    weak: cython.int
    scale: cython.int = 64
    mop: cython.int = 0
    score: cython.int
    if phase > ev.max_phase:
        phase = ev.max_phase
    strong = 0 if eg > 0 else 1
    weak = strong ^ 1
    if ev.material_draws and s.npawns[strong] == 0:
        if (
            s.npieces[strong] == 0
            or (s.npieces[strong] == 1 and s.npm[strong] < ev.rook_value)
            or (s.nbound[strong] == s.npieces[strong] and s.bound_mask[strong] != 3)
        ):
            scale = 0  # a lone minor piece, or pieces bound to one square colour, cannot mate
        elif pos.pcount[weak] > 1 and s.npm[strong] - s.npm[weak] < ev.rook_value:
            scale = ev.scale_no_pawns_small
    elif (
        ev.material_draws
        and s.nbound[strong] == s.npieces[strong]
        and alone(pos, weak)
        and bound_colours(ev, pos, strong) | s.bound_mask[strong] != 3
    ):
        scale = 0  # pawns that will be colour-bound pieces on the pieces' colour cannot mate
    if (
        s.npieces[0] == 1
        and s.npieces[1] == 1
        and s.nbound[0] == 1
        and s.nbound[1] == 1
        and s.bound_sq[0] != s.bound_sq[1]
    ):
        scale = ev.scale_opposite_bishops
    s.scale = scale
    s.mopup = 0
    s.dead = 0
    if scale == 0 and s.npawns[weak] == 0:
        s.dead = 1
        return 0  # neither side can win: a dead draw
    if alone(pos, weak) and (
        s.npm[strong] >= ev.rook_value
        or (ev.material_draws and scale > 0 and s.npawns[strong] == 0 and s.npm[strong] > 0)
    ):
        # Against a bare king only material and the mop-up count: the square tables and
        # terms, fitted to positions with material on both sides, would pull the kings
        # and pieces elsewhere (and a pawn promotes once the mop-up has done its work).
        mop = 1
        mg = 0
        eg = 0
        for c in range(2):
            for i in range(pos.pcount[c]):
                p = pos.board[pos.plist[c * MAXP + i]]
                mg += ev.pst_mg[p * nsq]
                eg += ev.pst_eg[p * nsq]
    score = tdiv(mg * phase + tdiv(eg * scale, 64) * (ev.max_phase - phase), ev.max_phase)
    if mop:
        mop = (1 if strong == 0 else -1) * ev._mopup(
            pos, strong, s.nbound[strong], s.bound_sq[strong]
        )
        score += mop
        s.mopup = mop
    return score if pos.side == 0 else -score


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def bound_colours(ev: Evaluator, pos: Position, c: cython.int) -> cython.int:
    """The square colours (bit 0, bit 1) on which colour c's pawns will promote, where they can
    only promote into colour-bound pieces on their own file (3: unknown, or not so)."""
    i: cython.int
    sq: cython.int
    rank: cython.int = ev.promo_white if c == 0 else ev.promo_black
    mask: cython.int = 0
    if rank < 0:
        return 3
    for i in range(pos.pcount[c]):
        sq = pos.plist[c * MAXP + i]
        if ev.kind[pos.board[sq] >> 1] == K_PAWN:
            mask |= 1 << ((ev.sq_file[sq] + rank) & 1)
    return mask


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def explosions(ev: Evaluator, pos: Position, score: cython.int) -> cython.int:
    """Step 10. Explosions (a capture next to a royal piece blows it up: the side to move
    that can make one has won, one that faces one must parry it), the bounds, the tempo."""
    k: cython.int
    if ev.blast:
        k = ev._blast_threats(pos, pos.side)
        if ev._blast_threats(pos, pos.side ^ 1):
            score += ev.blast_win
        elif k:
            score -= ev.blast_threat * k + (ev.blast_threats if k >= 2 else 0)
    if score > SAFE_MAX:
        score = SAFE_MAX
    if score < -SAFE_MAX:
        score = -SAFE_MAX
    return score + ev.tempo
