"""Static evaluation built from the variant's data: tapered material and piece-square tables,
mobility, pawn structure, threats, king safety, piece terms, drawish-endgame scaling and mop-up.

Nothing here asks which variant is played. A piece's value and its square preferences come from
its movement (`Rules.pieces[*].atoms`): a piece that moves like a knight is valued like one in
any variant (and uses the knight's square table on 8 x 8 boards), other pieces are valued from
their mobility on the empty board. Material and the piece-square tables are kept incrementally
by the Position (`pos.mg`, `pos.eg`, `pos.phase`); `Evaluator.evaluate` adds the terms that
depend on several pieces at once.

Every term is a count times a (middlegame, endgame) weight of `ferz.params.TERMS`, added through
`term()`, and king danger is a weighted sum of counts (`kd()`) that is then squared. With
`tracing` set, the counts are recorded too: `trace_features` hands them to the tuner
(tools/tune.py), which fits the weights to labelled positions.
"""

from __future__ import annotations

from array import array

import cython
from cython.cimports.ferz.core import attacks
from cython.cimports.ferz.core.defs import EMPTY, MAXP, WALL
from cython.cimports.ferz.core.nnue import Network, forward
from cython.cimports.ferz.core.position import Position

from ferz.core.evaltables import (
    CLASSES,
    MOVEMENTS,
    danger_names,
    empty_board_moves,
    home_squares,
    movement_name,
    piece_value,
    relative,
    table_name,
    term_layout,
)
from ferz.params import EVAL, KING_DANGER, KNOWN_VALUES, PST, TERMS

if not cython.compiled:  # the constants of evaluate.pxd, for the uncompiled fallback
    K_PIECE = 0  # roles of piece types (Evaluator.kind)
    K_PAWN = 1
    K_ROYAL = 2
    FL_COLORBOUND = 1  # every move keeps the square colour (bishop-like)
    FL_FILE_RIDER = 2  # rides along files (rook-like: open files, seventh rank)
    FL_LEAPER = 4  # no riders (knight-like: outposts)
    MAP_SIZE = 512  # larger than any Position.nsq (16x16 board with its padding)
    SAFE_MAX = 20000  # evaluations stay far from mate scores
    ROYAL_VALUE = 20000  # exchange value of a royal piece (it is never really captured)
    PAWN_CACHE_SIZE = 16384  # pawn cache entries of 16 bytes, a power of two
    C_OTHER = 0  # evaluation classes (CLASSES)
    C_KNIGHT = 1
    C_BISHOP = 2
    C_ROOK = 3
    C_QUEEN = 4
    NCLASSES = 5
    A_PAWN = 1  # attack-map bits
    A_MINOR = 2
    A_ROOK = 4
    A_QUEEN = 8
    A_KING = 16
    CB_KNIGHT = 32  # class bits: CB_KNIGHT << (class - 1) for knight, bishop, rook, queen

# Hashing of pawn structures for the pawn cache (splitmix64 finaliser constants).
MIX1 = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)
MIX2 = cython.declare(cython.ulonglong, 0xBF58476D1CE4E5B9)
MASK64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)

# Terms whose offsets the evaluation reads (attribute o_<name>); the mobility tables of the
# classes are read through mob_off per piece type.
OFFSET_TERMS = (
    "mobility_other", "doubled", "isolated", "backward", "connected", "passed", "passed_free",
    "passed_own_king", "passed_their_king", "candidate", "bishop_pair", "rook_open",
    "rook_semiopen", "rook_seventh", "outpost_leaper", "outpost_bishop", "minor_behind_pawn",
    "bad_bishop", "threat_by_pawn", "threat_minor_on_rook", "threat_minor_on_queen",
    "threat_rook_on_queen", "hanging", "hanging_pawn", "shield_near", "shield_far",
    "king_open_file",
)  # fmt: skip

# The passed-pawn terms, scaled by what promotion gains (Evaluator._scale_passed).
PASSED_TERMS = ("passed", "passed_free", "passed_own_king", "passed_their_king", "candidate")


def tdiv(a: cython.int, b: cython.int) -> cython.int:
    """Integer division rounding toward zero, as C does (identical compiled and uncompiled)."""
    q: cython.int = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


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
        w = dict(EVAL)
        if weights:
            unknown = set(weights) - set(EVAL)
            if unknown:
                raise ValueError(f"unknown evaluation weights: {', '.join(sorted(unknown))}")
            w.update(weights)
        t = dict(TERMS)
        t.update(terms or {})
        d = dict(KING_DANGER)
        d.update(danger or {})
        for given, known, what in ((terms, TERMS, "terms"), (danger, KING_DANGER, "danger")):
            unknown = set(given or {}) - set(known)
            if unknown:
                raise ValueError(f"unknown evaluation {what}: {', '.join(sorted(unknown))}")
        self.rules = rules
        self.files = rules.files
        self.ranks = rules.ranks
        self.stride = rules.stride
        self.base = rules.square(0, 0)
        self.nsq = rules.nsq
        if self.nsq > MAP_SIZE:
            raise ValueError(f"board of {self.nsq} cells is larger than the evaluation supports")
        self.ntypes = len(rules.pieces)
        for name in (
            "tempo", "scale_no_pawns_small", "scale_opposite_bishops", "mopup_edge",
            "mopup_close", "mopup_corner", "mopup_base", "blast_win", "blast_threat",
            "blast_threats",
        ):  # fmt: skip
            setattr(self, name, int(w[name]))
        self._weights(t, d)
        self._build(w, t, dict(values or KNOWN_VALUES), pst if pst is not None else PST)
        self._scale_passed(rules, values or KNOWN_VALUES)
        self.material_draws = int(self._mate_only(rules))
        self.blast = 1 if rules.blast_on_capture else 0
        self.pawn_cache = array("Q", bytes(16 * PAWN_CACHE_SIZE))
        self.dsum = array("i", [0, 0])
        self.tracing = 0
        self.trace = array("i", bytes(4 * len(self.wmg)))
        self.kd_trace = array("i", bytes(4 * 2 * self.n_danger))
        if net is not None and not net.fits(rules):
            raise ValueError(f"network {net.name} was not trained for {rules.name}")
        self.net = net
        self.nn_on = 1 if net is not None else 0

    def _weights(self, terms: dict, danger: dict) -> None:
        """Weight arrays and term offsets from the TERMS and KING_DANGER layouts."""
        layout = term_layout(terms)
        mg, eg = [], []
        for value in terms.values():
            for pair in value if isinstance(value, list) else [value]:
                mg.append(int(pair[0]))
                eg.append(int(pair[1]))
        self.wmg = array("i", mg)
        self.weg = array("i", eg)
        for name in OFFSET_TERMS:
            setattr(self, "o_" + name, layout[name][0])
        names = danger_names()
        self.kdw = array("i", [int(danger[n]) for n in names])
        self.n_danger = len(names)
        self.d_attacker = names.index("attacker_other")
        self.d_zone = names.index("zone_other")
        self.d_check = names.index("check_other")
        self.d_weak = names.index("weak")
        self.d_no_queen = names.index("no_queen")
        self.d_bias = names.index("bias")
        self.danger_eg = int(danger["danger_eg"])

    @staticmethod
    def _mate_only(rules) -> bool:
        """Whether checkmate is the only way to win: only then can a side without pawns be
        judged unable to win by its material on the board (no drops, flags, check counts,
        extinction, explosions or losing-chess goals)."""
        return (
            rules.checkmate_value == "loss"
            and not rules.extinction_value
            and not any(rules.flag_letters)
            and not rules.check_counting
            and not rules.drops
            and not rules.must_capture
            and not rules.blast_on_capture
        )

    def _scale_passed(self, rules, values: dict) -> None:
        """Passed-pawn terms in proportion to what promotion gains against chess's queen: a
        pawn that can only become a met (makruk) or fers (shatranj) is worth little more near
        its promotion rank, and should not be kept there instead of promoting."""
        letters = {p.letter: i for i, p in enumerate(rules.pieces, start=1)}
        chess_gain = values["queen"][0] - values["pawn"][0]
        gain = 0
        for t, piece in enumerate(rules.pieces, start=1):
            if not piece.pawn:
                continue
            targets = set(rules.promotion_letters) | set(rules.promotion_letters_black or "")
            if piece.promoted:
                targets.add(piece.promoted)
            best = max((self.value[letters[x]] for x in targets if x in letters), default=0)
            gain = max(gain, best - self.value[t])
        pct = max(0, min(100, round(100 * gain / chess_gain)))
        if pct == 100:
            return  # chess and stronger promotions: the weights as tuned
        layout = term_layout()
        for name in PASSED_TERMS:
            offset, size = layout[name]
            for i in range(offset, offset + size):
                self.wmg[i] = tdiv(self.wmg[i] * pct, 100)
                self.weg[i] = tdiv(self.weg[i] * pct, 100)

    def _build(self, w: dict[str, int], terms: dict, values: dict, pst: dict) -> None:
        """Compute values, classes, piece-square tables and movement vectors from the rules."""
        rules = self.rules
        nt = self.ntypes + 1
        nsq = self.nsq
        ncodes = 2 * nt
        layout = term_layout(terms)
        kind = [K_PIECE] * nt
        flags = [0] * nt
        value = [0] * nt
        cls = [C_OTHER] * nt
        class_bit = [0] * nt
        bucket = [0] * nt
        mob_off = [0] * nt
        mob_size = [0] * nt
        centre = [0] * nt
        scale = [0] * nt
        unit = [0] * nt
        pst_mg = [0] * (ncodes * nsq)
        pst_eg = [0] * (ncodes * nsq)
        phase_w = [0] * ncodes
        sq_file = [-1] * nsq
        sq_rank = [-1] * nsq
        for sq in rules.squares():
            sq_file[sq] = rules.file_of(sq)
            sq_rank[sq] = rules.rank_of(sq)
        rook_value = values["rook"][0]
        minor_top = (values["bishop"][0] + rook_value) // 2
        rook_top = (rook_value + values["queen"][0]) // 2
        square_tables = rules.files == 8 and rules.ranks == 8
        for t in range(1, nt):
            piece = rules.pieces[t - 1]
            mg, eg = piece_value(rules, t, w, values)
            value[t] = mg if not piece.royal else ROYAL_VALUE
            kind[t] = K_ROYAL if piece.royal else K_PAWN if piece.pawn else K_PIECE
            flags[t] = self._flags(piece)
            name = movement_name(piece)
            if kind[t] == K_PIECE and name in CLASSES:
                cls[t] = CLASSES.index(name)
                class_bit[t] = CB_KNIGHT << (cls[t] - 1)
                mob_off[t], mob_size[t] = layout["mobility_" + name]
            if kind[t] == K_PAWN:
                bucket[t] = A_PAWN
            elif kind[t] == K_ROYAL:
                bucket[t] = A_KING
            else:
                bucket[t] = A_MINOR if mg <= minor_top else A_ROOK if mg <= rook_top else A_QUEEN
            squares = home_squares(rules, piece)
            moves = {s: empty_board_moves(rules, piece, *s) for s in squares}
            avg = sum(moves.values()) / len(moves)
            # Pieces rarely see the whole empty board; centre mobility at half of it.
            centre[t] = round(avg / 2)
            scale[t] = min(100, round(1200 / max(avg, 1)))
            unit[t] = 1 + min(3, mg // 350)
            if kind[t] == K_PIECE:
                phase = max(0, round(mg / w["phase_div"]))
                phase_w[2 * t] = phase_w[2 * t + 1] = phase
            table = pst.get(table_name(piece)) if square_tables else None
            for color in (0, 1):
                code = 2 * t + color
                sign = 1 if color == 0 else -1  # tables are white minus black
                for f in range(rules.files):
                    for r in range(rules.ranks):
                        rel = relative(rules, color, r)
                        if table is not None:
                            bonus_mg = table["mg"][rel * 8 + f]
                            bonus_eg = table["eg"][rel * 8 + f]
                        else:
                            bonus_mg, bonus_eg = self._square_bonus(
                                piece, kind[t], moves, avg, f, rel, w
                            )
                        sq = rules.square(f, r)
                        pst_mg[code * nsq + sq] = sign * (mg + bonus_mg)
                        pst_eg[code * nsq + sq] = sign * (eg + bonus_eg)
                # square 0 (a wall) holds the value of a piece in hand
                pst_mg[code * nsq] = sign * mg
                pst_eg[code * nsq] = sign * eg
        self.rook_value = rook_value
        self.kind = array("i", kind)
        self.flags = array("i", flags)
        self.value = array("i", value)
        self.cls = array("i", cls)
        self.class_bit = array("i", class_bit)
        self.bucket = array("i", bucket)
        self._build_check_vectors(set(cls))
        self.mob_off = array("i", mob_off)
        self.mob_size = array("i", mob_size)
        self.mob_centre = array("i", centre)
        self.mob_scale = array("i", scale)
        self.attack_unit = array("i", unit)
        self.pst_mg = array("i", pst_mg)
        self.pst_eg = array("i", pst_eg)
        self.phase_w = array("i", phase_w)
        self.sq_file = array("i", sq_file)
        self.sq_rank = array("i", sq_rank)
        self._build_vectors(nt)
        self.max_phase = max(1, self._start_phase(phase_w))

    @staticmethod
    def _flags(piece) -> int:
        """Movement flags of a piece type (colour-bound, file rider, pure leaper)."""
        flags = FL_COLORBOUND | FL_LEAPER
        for atom in piece.atoms:
            if (atom.dx + atom.dy) % 2 != 0:
                flags &= ~FL_COLORBOUND
            if atom.range != 1:
                flags &= ~FL_LEAPER
                if atom.dx == 0 and atom.capture and atom.move:
                    flags |= FL_FILE_RIDER
        if piece.pawn or piece.royal:
            flags &= ~(FL_COLORBOUND | FL_LEAPER)
        return flags

    def _square_bonus(self, piece, kind: int, moves, avg: float, f: int, rank: int, w) -> tuple:
        """Positional (mg, eg) bonus of a white piece of this type on (file, rank), derived
        from its mobility (pieces and boards without a square table in PST)."""
        rules = self.rules
        mid_f = (rules.files - 1) / 2
        mid_r = (rules.ranks - 1) / 2
        centre_dist = abs(f - mid_f) + abs(rank - mid_r)
        if kind == K_PAWN:
            advance = rank - 1
            central = max(0.0, 2 - abs(f - mid_f))
            return (
                round(w["pst_pawn_advance_mg"] * advance + w["pst_pawn_centre_mg"] * central),
                round(w["pst_pawn_advance_eg"] * advance),
            )
        if kind == K_ROYAL:
            # Middlegame: stay home near a corner; endgame: come to the centre.
            return (
                round(-w["pst_king_mg_edge"] * (rank + max(0.0, 2 - abs(f - mid_f)))),
                round(-w["pst_king_eg_centre"] * centre_dist / 2),
            )
        extra = moves.get((f, rank), 0) - avg
        return round(w["pst_centre_mg"] * extra), round(w["pst_centre_eg"] * extra)

    def _build_vectors(self, nt: int) -> None:
        """Mailbox vectors for mobility (plain atoms) and for pawn attacks, per piece code."""
        rules = self.rules
        stride = rules.stride
        mob_first, mob_last, mob_vec, mob_range = [0] * (2 * nt), [0] * (2 * nt), [], []
        cap_first, cap_last, cap_vec = [0] * (2 * nt), [0] * (2 * nt), []
        for t in range(1, nt):
            piece = rules.pieces[t - 1]
            for color in (0, 1):
                code = 2 * t + color
                dy_sign = 1 if color == 0 else -1
                mob_first[code] = len(mob_vec)
                cap_first[code] = len(cap_vec)
                for atom in piece.atoms:
                    vec = atom.dy * dy_sign * stride + atom.dx
                    if atom.capture and not atom.hop and atom.range == 1 and not atom.initial:
                        cap_vec.append(vec)
                    if atom.move and atom.capture and not (atom.hop or atom.leg or atom.initial):
                        mob_vec.append(vec)
                        mob_range.append(atom.range if atom.range > 0 else 64)
                mob_last[code] = len(mob_vec)
                cap_last[code] = len(cap_vec)
        self.mob_first = array("i", mob_first)
        self.mob_last = array("i", mob_last)
        self.mob_vec = array("i", mob_vec or [0])
        self.mob_range = array("i", mob_range or [0])
        self.cap_first = array("i", cap_first)
        self.cap_last = array("i", cap_last)
        self.cap_vec = array("i", cap_vec or [0])

    def _build_check_vectors(self, present: set[int]) -> None:
        """Per class present in the variant, the movement walked back from a king to find the
        squares a piece of that class would check it from (the classes move symmetrically)."""
        stride = self.rules.stride
        first, vec, rng = [0] * (NCLASSES + 1), [], []
        for k in range(1, NCLASSES):
            first[k] = len(vec)
            if k in present:
                for dx, dy, reach in sorted(MOVEMENTS[CLASSES[k]]):
                    vec.append(dy * stride + dx)
                    rng.append(reach if reach > 0 else 64)
        first[NCLASSES] = len(vec)
        self.cv_first = array("i", first)
        self.cv_vec = array("i", vec or [0])
        self.cv_range = array("i", rng or [0])

    def _start_phase(self, phase_w: list[int]) -> int:
        """Total phase weight of the start position (the 'full middlegame' phase)."""
        placement = self.rules.start_fen.split()[0]
        total = 0
        for char in placement:
            if char.isalpha():
                try:
                    t = self.rules.piece_index(char)
                except ValueError:
                    continue
                total += phase_w[2 * t]
        return total

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
        """Static evaluation of a position from the side to move's view (for tools and tests)."""
        return self.evaluate(pos)

    def trace_features(self, pos: Position) -> dict:
        """The evaluation of pos and what it is made of, for the tuner: the term counts
        (white minus black, in TERMS order), each side's king-danger counts, the incremental
        material and square-table part, the phase and the endgame scale (1/64ths)."""
        for i in range(len(self.trace)):
            self.trace[i] = 0
        for i in range(len(self.kd_trace)):
            self.kd_trace[i] = 0
        self.t_scale = 64
        self.t_mopup = 0
        self.t_dead = 0
        self.tracing = 1
        score = self.evaluate(pos)
        self.tracing = 0
        nd = self.n_danger
        phase = pos.phase if pos.phase < self.max_phase else self.max_phase
        return {
            "eval": score,  # side to move's view, tempo included, as the search sees it
            "side": pos.side,
            "terms": list(self.trace),
            "danger": [list(self.kd_trace[:nd]), list(self.kd_trace[nd:])],
            "mg": pos.mg,
            "eg": pos.eg,
            "phase": phase,
            "max_phase": self.max_phase,
            "scale": self.t_scale,
            "mopup": self.t_mopup,
            "dead": self.t_dead,
        }

    @cython.cfunc
    @cython.inline
    @cython.nogil
    @cython.exceptval(check=False)
    def term(self, i: cython.int, n: cython.int) -> cython.void:
        """Add n times term i (n > 0 for White, < 0 for Black)."""
        self.acc_mg += self.wmg[i] * n
        self.acc_eg += self.weg[i] * n
        if self.tracing:
            self.trace[i] += n

    @cython.cfunc
    @cython.inline
    @cython.nogil
    @cython.exceptval(check=False)
    def kd(self, c: cython.int, j: cython.int, n: cython.int) -> cython.void:
        """Add n times danger weight j to the danger of colour c's king."""
        self.dsum[c] += self.kdw[j] * n
        if self.tracing:
            self.kd_trace[c * self.n_danger + j] += n

    def king_threats(self, pos: Position, color: int) -> int:
        """Python view of _blast_threats: squares where a capture would blow up colour's king."""
        return self._blast_threats(pos, color)

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

    def evaluate(self, pos: Position) -> cython.int:
        """Static evaluation in centipawns from the side to move's point of view."""
        # att[c * MAP_SIZE + sq]: A_* bits of colour c's pieces attacking sq (value buckets and
        # classes); kzone: squares next to the royal piece of colour c (plain stores)
        att = cython.declare(cython.ushort[1024])  # 2 * MAP_SIZE
        kzone = cython.declare(cython.uchar[1024])  # 2 * MAP_SIZE
        pmask = cython.declare(cython.int[40])  # pawn ranks per colour and file: c * 20 + f + 1
        pcol = cython.declare(cython.int[4])  # pawns per colour and square colour
        npm = cython.declare(cython.int[2])  # non-pawn material
        npawns = cython.declare(cython.int[2])
        npieces = cython.declare(cython.int[2])
        queens = cython.declare(cython.int[2])  # pieces in the queen bucket
        bound_sq = cython.declare(cython.int[2])  # square colour of the last colour-bound piece
        bound_mask = cython.declare(cython.int[2])  # square colours of the colour-bound pieces
        nbound = cython.declare(cython.int[2])
        attackers = cython.declare(cython.int[2])  # pieces of colour c reaching the enemy zone
        natt = cython.declare(cython.int[10])  # ... per class: c * NCLASSES + class
        nzone = cython.declare(cython.int[10])  # zone squares hit, per colour and class
        nchk = cython.declare(cython.int[5])
        i: cython.int
        c: cython.int
        sq: cython.int
        p: cython.int
        t: cython.int
        to: cython.int
        v: cython.int
        k: cython.int
        f: cython.int
        r: cython.int
        rr: cython.int
        sign: cython.int
        them: cython.int
        mob: cython.int
        za: cython.int
        steps: cython.int
        bit: cython.int
        ea: cython.int
        nsq: cython.int = self.nsq
        files: cython.int = self.files
        ranks: cython.int = self.ranks
        stride: cython.int = self.stride
        mg: cython.int = pos.mg
        eg: cython.int = pos.eg
        ahead: cython.int
        own: cython.int
        tr: cython.int
        stop: cython.int
        ksq: cython.int
        fwd: cython.int
        score: cython.int
        phase: cython.int
        scale: cython.int
        strong: cython.int
        weak: cython.int
        mop: cython.int
        full: cython.int = (1 << ranks) - 1
        q: cython.int
        zone: cython.int
        d: cython.int
        pkey: cython.ulonglong = 0
        x: cython.ulonglong
        w0: cython.ulonglong
        w1: cython.ulonglong
        slot: cython.int
        pmg: cython.int = 0
        peg: cython.int = 0
        passed: cython.uint = 0

        # Step 0. The network, where the position keeps its accumulators (not against a bare
        # king: material and the mop-up below drive it to the mate).
        if self.nn_on and pos.nn and not self.tracing and pos.pcount[0] > 1 and pos.pcount[1] > 1:
            score = forward(pos, self.net)
            if score > SAFE_MAX:
                return SAFE_MAX
            if score < -SAFE_MAX:
                return -SAFE_MAX
            return score

        for i in range(nsq):
            att[i] = 0
            att[MAP_SIZE + i] = 0
            kzone[i] = 0
            kzone[MAP_SIZE + i] = 0
        for i in range(40):
            pmask[i] = 0
        for i in range(10):
            natt[i] = 0
            nzone[i] = 0
        for c in range(2):
            pcol[2 * c] = 0
            pcol[2 * c + 1] = 0
            npm[c] = 0
            npawns[c] = 0
            npieces[c] = 0
            queens[c] = 0
            nbound[c] = 0
            bound_sq[c] = 0
            bound_mask[c] = 0
            attackers[c] = 0
            self.dsum[c] = 0
        self.acc_mg = 0
        self.acc_eg = 0

        # Step 1. Pawn files and pawn attacks; material counts.
        for c in range(2):
            for i in range(pos.pcount[c]):
                sq = pos.plist[c * MAXP + i]
                p = pos.board[sq]
                t = p >> 1
                if self.kind[t] == K_PAWN:
                    npawns[c] += 1
                    pmask[c * 20 + self.sq_file[sq] + 1] |= 1 << self.sq_rank[sq]
                    pcol[2 * c + ((self.sq_file[sq] + self.sq_rank[sq]) & 1)] += 1
                    x = ((cython.cast(cython.ulonglong, p * nsq + sq) + MIX1) * MIX2) & MASK64
                    pkey ^= x ^ (x >> 31)
                    for k in range(self.cap_first[p], self.cap_last[p]):
                        to = sq + self.cap_vec[k]
                        if 0 <= to < nsq:
                            att[c * MAP_SIZE + to] |= A_PAWN
                elif self.kind[t] == K_PIECE:
                    npm[c] += self.value[t]
                    npieces[c] += 1
                    if self.bucket[t] == A_QUEEN:
                        queens[c] += 1
                    if self.flags[t] & FL_COLORBOUND:
                        nbound[c] += 1
                        bound_sq[c] = (self.sq_file[sq] + self.sq_rank[sq]) & 1
                        bound_mask[c] |= 1 << bound_sq[c]
            # Step 2. The royal piece's zone (its square and the squares next to it), which
            # it also attacks.
            ksq = pos.royal[c]
            if ksq >= 0:
                for f in range(-1, 2):
                    for r in range(-1, 2):
                        to = ksq + r * stride + f
                        if 0 <= to < nsq and pos.board[to] != WALL:
                            kzone[c * MAP_SIZE + to] = 1
                            if to != ksq:
                                att[c * MAP_SIZE + to] |= A_KING

        # Step 3. Pawn structure. The terms that depend on pawns only come from the pawn cache
        # (lockless like the TT: a torn entry fails its check); the tuner's trace computes them
        # afresh. Passed pawns are stored as one file bit per colour (only the front pawn of a
        # file can be passed) and get the terms that depend on other pieces in step 6.
        if pkey != 0:
            slot = cython.cast(cython.int, pkey & (PAWN_CACHE_SIZE - 1))
            w1 = self.pawn_cache[2 * slot + 1]
            w0 = self.pawn_cache[2 * slot]
            if (w0 ^ w1) == pkey and not self.tracing:
                pmg = cython.cast(cython.int, w1 & 0xFFFF) - 32768
                peg = cython.cast(cython.int, (w1 >> 16) & 0xFFFF) - 32768
                passed = cython.cast(cython.uint, w1 >> 32)
            else:
                passed = self._pawn_terms(pos, pmask, att)
                pmg = self.acc_mg
                peg = self.acc_eg
                self.acc_mg = 0
                self.acc_eg = 0
                w1 = (
                    cython.cast(cython.ulonglong, (pmg + 32768) & 0xFFFF)
                    | (cython.cast(cython.ulonglong, (peg + 32768) & 0xFFFF) << 16)
                    | (cython.cast(cython.ulonglong, passed) << 32)
                )
                self.pawn_cache[2 * slot] = pkey ^ w1
                self.pawn_cache[2 * slot + 1] = w1
        mg += pmg
        eg += peg

        # Step 4. Pieces: mobility, attack maps (by value bucket and class), attacks on the
        # enemy king's zone.
        for c in range(2):
            sign = 1 if c == 0 else -1
            them = c ^ 1
            zone = them * MAP_SIZE
            for i in range(pos.pcount[c]):
                sq = pos.plist[c * MAXP + i]
                p = pos.board[sq]
                t = p >> 1
                if self.kind[t] != K_PIECE:
                    continue
                mob = 0
                za = 0
                bit = self.bucket[t] | self.class_bit[t]
                for k in range(self.mob_first[p], self.mob_last[p]):
                    v = self.mob_vec[k]
                    to = sq
                    steps = self.mob_range[k]
                    # Leaps are at most 3 squares and the board has 3 rows/columns of wall
                    # around it, so every ray ends on a wall square inside the array.
                    while steps > 0:
                        to += v
                        q = pos.board[to]
                        if q == WALL:
                            break
                        att[c * MAP_SIZE + to] |= bit
                        za += kzone[zone + to]
                        if q == EMPTY:
                            if not (att[zone + to] & A_PAWN):
                                mob += 1
                        else:
                            if (q & 1) != c:
                                mob += 1
                            break
                        steps -= 1
                if self.mob_size[t]:
                    self.term(
                        self.mob_off[t] + (mob if mob < self.mob_size[t] else self.mob_size[t] - 1),
                        sign,
                    )
                else:
                    self.term(
                        self.o_mobility_other,
                        sign * tdiv((mob - self.mob_centre[t]) * self.mob_scale[t], 100),
                    )
                if za:
                    attackers[c] += 1
                    natt[c * NCLASSES + self.cls[t]] += 1
                    if self.cls[t] == C_OTHER:
                        za *= self.attack_unit[t]
                    nzone[c * NCLASSES + self.cls[t]] += za

        # Step 5. Threats and piece placement: pieces attacked by pawns or lesser pieces,
        # hanging pieces, rooks on open files and the seventh rank, outposts, bad bishops.
        for c in range(2):
            sign = 1 if c == 0 else -1
            them = c ^ 1
            fwd = stride if c == 0 else -stride
            for i in range(pos.pcount[c]):
                sq = pos.plist[c * MAXP + i]
                t = pos.board[sq] >> 1
                if self.kind[t] == K_ROYAL:
                    continue
                ea = att[them * MAP_SIZE + sq]
                if self.kind[t] == K_PAWN:
                    if ea and not att[c * MAP_SIZE + sq]:
                        self.term(self.o_hanging_pawn, -sign)
                    continue
                if ea:
                    if ea & A_PAWN:
                        self.term(self.o_threat_by_pawn, -sign)
                    elif self.bucket[t] == A_ROOK and ea & A_MINOR:
                        self.term(self.o_threat_minor_on_rook, -sign)
                    elif self.bucket[t] == A_QUEEN and ea & A_MINOR:
                        self.term(self.o_threat_minor_on_queen, -sign)
                    elif self.bucket[t] == A_QUEEN and ea & A_ROOK:
                        self.term(self.o_threat_rook_on_queen, -sign)
                    if not att[c * MAP_SIZE + sq]:
                        self.term(self.o_hanging, -sign)
                f = self.sq_file[sq]
                r = self.sq_rank[sq]
                rr = r if c == 0 else ranks - 1 - r
                if self.flags[t] & FL_FILE_RIDER:
                    if pmask[c * 20 + f + 1] == 0:
                        if pmask[them * 20 + f + 1] == 0:
                            self.term(self.o_rook_open, sign)
                        else:
                            self.term(self.o_rook_semiopen, sign)
                    if rr == ranks - 2 and ranks >= 6:
                        ksq = pos.royal[them]
                        tr = ranks - 2 if c == 0 else 1  # the absolute rank of our "seventh"
                        if (ksq >= 0 and self.sq_rank[ksq] == (ranks - 1 if c == 0 else 0)) or (
                            self._any_rank(pmask, them, tr)
                        ):
                            self.term(self.o_rook_seventh, sign)
                if self.flags[t] & (FL_LEAPER | FL_COLORBOUND):
                    q = pos.board[sq + fwd]
                    if q > WALL and (q & 1) == c and self.kind[q >> 1] == K_PAWN:
                        self.term(self.o_minor_behind_pawn, sign)
                    if rr >= ranks // 2 and att[c * MAP_SIZE + sq] & A_PAWN:
                        # No enemy pawn on an adjacent file can ever attack this square.
                        if c == 0:
                            ahead = full & ~((2 << r) - 1)
                        else:
                            ahead = (1 << r) - 1
                        if ((pmask[them * 20 + f] | pmask[them * 20 + f + 2]) & ahead) == 0:
                            if self.flags[t] & FL_LEAPER:
                                self.term(self.o_outpost_leaper, sign)
                            else:
                                self.term(self.o_outpost_bishop, sign)
                if self.flags[t] & FL_COLORBOUND:
                    self.term(self.o_bad_bishop, sign * pcol[2 * c + ((f + r) & 1)])

        # Step 6. Passed pawns: a free stop square, the kings' distances to it.
        for c in range(2):
            sign = 1 if c == 0 else -1
            them = c ^ 1
            for f in range(files):
                if not (passed >> (16 * c + f)) & 1:
                    continue
                own = pmask[c * 20 + f + 1]
                r = self._front_rank(own, c)
                sq = self.base + r * stride + f
                if c == 0:
                    rr = r
                    stop = sq + stride
                else:
                    rr = ranks - 1 - r
                    stop = sq - stride
                tr = self._rank8(rr)
                if 0 <= stop < nsq and pos.board[stop] == EMPTY:
                    self.term(self.o_passed_free + tr, sign)
                if pos.royal[0] >= 0 and pos.royal[1] >= 0 and 0 <= stop < nsq:
                    self.term(self.o_passed_own_king, sign * self._dist(pos.royal[c], stop) * tr)
                    self.term(
                        self.o_passed_their_king, sign * self._dist(pos.royal[them], stop) * tr
                    )

        # Step 7. King safety: pawn shield and open file, then the danger from the attackers
        # (by class), their hits on the king's zone, their safe checks and the weak squares
        # of the zone; the danger is squared (middlegame) once two pieces attack.
        for c in range(2):
            sign = 1 if c == 0 else -1
            them = c ^ 1
            ksq = pos.royal[c]
            if ksq < 0:
                continue
            f = self.sq_file[ksq]
            r = self.sq_rank[ksq]
            rr = r if c == 0 else ranks - 1 - r
            if rr <= 1:
                k = 0
                d = 0
                for v in range(-1, 2):
                    if 0 <= f + v < files:
                        own = pmask[c * 20 + f + v + 1]
                        if c == 0:
                            k += (own >> (r + 1)) & 1
                            d += (own >> (r + 2)) & 1
                        else:
                            if r >= 1:
                                k += (own >> (r - 1)) & 1
                            if r >= 2:
                                d += (own >> (r - 2)) & 1
                self.term(self.o_shield_near, sign * k)
                self.term(self.o_shield_far, sign * d)
                if pmask[c * 20 + f + 1] == 0:
                    self.term(self.o_king_open_file, sign)
            if attackers[them] < 2:
                continue
            for k in range(NCLASSES):
                nchk[k] = 0  # (other pieces' checks are not counted)
                self.kd(c, self.d_attacker + k, natt[them * NCLASSES + k])
                self.kd(c, self.d_zone + k, nzone[them * NCLASSES + k])
            # Safe checks: squares from which a piece of a class would check (the class's
            # movement walked back from the king), reached by such a piece, not defended.
            for k in range(1, NCLASSES):
                bit = CB_KNIGHT << (k - 1)
                for i in range(self.cv_first[k], self.cv_first[k + 1]):
                    v = self.cv_vec[i]
                    to = ksq + v
                    steps = self.cv_range[i]
                    while steps > 0:
                        q = pos.board[to]
                        if q == WALL or (q != EMPTY and (q & 1) == them):
                            break
                        if (att[them * MAP_SIZE + to] & bit) and not att[c * MAP_SIZE + to]:
                            nchk[k] += 1
                        if q != EMPTY:
                            break
                        to += v
                        steps -= 1
            for k in range(NCLASSES):
                self.kd(c, self.d_check + k, nchk[k])
            d = 0
            for v in range(-1, 2):
                for q in range(-1, 2):
                    to = ksq + q * stride + v
                    if (
                        0 <= to < nsq
                        and kzone[c * MAP_SIZE + to]
                        and att[them * MAP_SIZE + to]
                        and not (att[c * MAP_SIZE + to] & ~A_KING)
                    ):
                        d += 1
            self.kd(c, self.d_weak, d)
            if queens[them] == 0:
                self.kd(c, self.d_no_queen, 1)
            self.kd(c, self.d_bias, 1)
            d = self.dsum[c]
            if d > 0:
                mg -= sign * (d * d // 4096)
                eg -= sign * (d * self.danger_eg // 256)

        # Step 8. Pairs of colour-bound pieces on both square colours.
        for c in range(2):
            if nbound[c] >= 2:
                self.term(self.o_bishop_pair, 1 if c == 0 else -1)

        # Step 9. Taper, scale drawish endgames, add mop-up and tempo.
        mg += self.acc_mg
        eg += self.acc_eg
        phase = pos.phase
        if phase > self.max_phase:
            phase = self.max_phase
        strong = 0 if eg > 0 else 1
        weak = strong ^ 1
        scale = 64
        if self.material_draws and npawns[strong] == 0:
            if (
                npieces[strong] == 0
                or (npieces[strong] == 1 and npm[strong] < self.rook_value)
                or (nbound[strong] == npieces[strong] and bound_mask[strong] != 3)
            ):
                scale = 0  # a lone minor piece, or pieces bound to one square colour, cannot mate
            elif pos.pcount[weak] > 1 and npm[strong] - npm[weak] < self.rook_value:
                scale = self.scale_no_pawns_small
        if (
            npieces[0] == 1
            and npieces[1] == 1
            and nbound[0] == 1
            and nbound[1] == 1
            and bound_sq[0] != bound_sq[1]
        ):
            scale = self.scale_opposite_bishops
        if self.tracing:
            self.t_scale = scale
        if scale == 0 and npawns[weak] == 0:
            if self.tracing:
                self.t_dead = 1
            return 0  # neither side can win: a dead draw
        mop = 0
        if pos.pcount[weak] == 1 and (
            npm[strong] >= self.rook_value
            or (self.material_draws and scale > 0 and npawns[strong] == 0 and npm[strong] > 0)
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
                    mg += self.pst_mg[p * nsq]
                    eg += self.pst_eg[p * nsq]
        score = tdiv(mg * phase + tdiv(eg * scale, 64) * (self.max_phase - phase), self.max_phase)
        if mop:
            mop = (1 if strong == 0 else -1) * self._mopup(
                pos, strong, nbound[strong], bound_sq[strong]
            )
            score += mop
            if self.tracing:
                self.t_mopup = mop
        if pos.side == 1:
            score = -score
        # Step 10. Explosions: a capture next to a royal piece blows it up. The side to move
        # that can make one has won; one that faces one must parry it.
        if self.blast:
            k = self._blast_threats(pos, pos.side)
            if self._blast_threats(pos, pos.side ^ 1):
                score += self.blast_win
            elif k:
                score -= self.blast_threat * k + (self.blast_threats if k >= 2 else 0)
        if score > SAFE_MAX:
            score = SAFE_MAX
        if score < -SAFE_MAX:
            score = -SAFE_MAX
        return score + self.tempo

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
    def _pawn_terms(self, pos: Position, pmask: cython.p_int, att: cython.p_ushort) -> cython.uint:
        """Pawn-only terms (added through term()); returns the files of the passed pawns."""
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
                own = pmask[c * 20 + f + 1]
                behind = r - 1 if c == 0 else r + 1
                if behind < 0:
                    behind = r
                opp = pmask[them * 20 + f + 1]
                adj = pmask[c * 20 + f] | pmask[c * 20 + f + 2]
                # Doubled: counted once per file, at its rearmost pawn (horde's files of four
                # pawns would otherwise outweigh its whole army).
                if own & ahead and not (own & ~ahead & ~(1 << r) & full):
                    self.term(self.o_doubled, sign)
                if adj == 0:
                    self.term(self.o_isolated, sign)
                elif adj & ((1 << r) | (1 << behind)) & full:
                    self.term(self.o_connected + tr, sign)
                elif (
                    (adj & ~ahead & ~(1 << r)) == 0
                    and 0 <= stop < nsq
                    and att[them * MAP_SIZE + stop] & A_PAWN
                ):
                    # Only pawns ahead on the adjacent files and the stop square guarded by an
                    # enemy pawn: backward.
                    self.term(self.o_backward, sign)
                sentries = (pmask[them * 20 + f] | pmask[them * 20 + f + 2]) & ahead
                if (opp & ahead) == 0 and (own & ahead) == 0:
                    if sentries == 0:
                        self.term(self.o_passed + tr, sign)
                        passed |= cython.cast(cython.uint, 1) << (16 * c + f)
                    elif self._count_bits(adj & ~ahead) >= self._count_bits(sentries):
                        # Candidate: at least as many helpers beside or behind as sentries.
                        self.term(self.o_candidate + tr, sign)
        return passed

    @cython.cfunc
    @cython.nogil
    @cython.exceptval(check=False)
    def _any_rank(self, pmask: cython.p_int, c: cython.int, rank: cython.int) -> cython.int:
        """Whether colour c has a pawn on this rank (any file)."""
        f: cython.int
        for f in range(self.files):
            if pmask[c * 20 + f + 1] & (1 << rank):
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
