"""Static evaluation built from the variant's data: tapered material and piece-square tables,
mobility, pawn structure, king safety, piece terms, drawish-endgame scaling and mop-up.

Nothing here asks which variant is played. A piece's value and its square preferences come from
its movement (`Rules.pieces[*].atoms`): a piece that moves like a knight is valued like one in
any variant, other pieces are valued from their mobility on the empty board. Material and the
piece-square tables are kept incrementally by the Position (`pos.mg`, `pos.eg`, `pos.phase`);
`Evaluator.evaluate` adds the terms that depend on several pieces at once.
"""

from __future__ import annotations

from array import array

import cython
from cython.cimports.ferz.core.defs import EMPTY, MAXP, WALL
from cython.cimports.ferz.core.position import Position

from ferz.params import EVAL, KNOWN_VALUES

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

# Hashing of pawn structures for the pawn cache (splitmix64 finaliser constants).
MIX1 = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)
MIX2 = cython.declare(cython.ulonglong, 0xBF58476D1CE4E5B9)
MASK64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)

RUNTIME_WEIGHTS = (
    "mobility_mg", "mobility_eg", "doubled_mg", "doubled_eg", "isolated_mg", "isolated_eg",
    "backward_mg", "backward_eg", "connected_mg", "connected_eg", "passed_mg", "passed_eg",
    "passed_free_eg", "passed_king_dist_eg", "candidate_mg", "candidate_eg", "bishop_pair_mg",
    "bishop_pair_eg", "rook_open_mg", "rook_open_eg", "rook_semiopen_mg", "rook_semiopen_eg",
    "rook_seventh_mg", "rook_seventh_eg", "outpost_mg", "outpost_eg", "threat_by_pawn_mg",
    "threat_by_pawn_eg", "shield_mg", "king_open_file_mg", "king_attack_weight",
    "king_attack_max", "tempo", "scale_no_pawns_small", "scale_opposite_bishops", "mopup_edge",
    "mopup_close", "mopup_base", "blast_win", "blast_threat", "blast_threats",
)  # fmt: skip


# the passed-pawn weights, scaled by what promotion gains (Evaluator._scale_passed)
PASSED_WEIGHTS = (
    "passed_mg",
    "passed_eg",
    "passed_free_eg",
    "passed_king_dist_eg",
    "candidate_mg",
    "candidate_eg",
)


def tdiv(a: cython.int, b: cython.int) -> cython.int:
    """Integer division rounding toward zero, as C does (identical compiled and uncompiled)."""
    q: cython.int = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _steps(piece) -> frozenset:
    """The piece's plain atoms as (dx, dy, range) when every atom moves and captures alike."""
    out = set()
    for atom in piece.atoms:
        if not (atom.move and atom.capture) or atom.hop or atom.leg or atom.initial:
            return frozenset()
        out.add((atom.dx, atom.dy, atom.range))
    return frozenset(out)


def _rays(vectors: list[tuple[int, int]], rng: int) -> frozenset:
    """Atoms along the given vectors with one range."""
    return frozenset((dx, dy, rng) for dx, dy in vectors)


_ORTHO = [(1, 0), (-1, 0), (0, 1), (0, -1)]
_DIAG = [(1, 1), (-1, 1), (1, -1), (-1, -1)]
_KNIGHT_LEAPS = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
MOVEMENTS = {
    "knight": _rays(_KNIGHT_LEAPS, 1),
    "bishop": _rays(_DIAG, 0),
    "rook": _rays(_ORTHO, 0),
    "queen": _rays(_ORTHO + _DIAG, 0),
}


def movement_name(piece) -> str | None:
    """The name in KNOWN_VALUES of a piece's movement ('pawn', 'knight', ...) or None."""
    if piece.pawn:
        return "pawn"
    steps = _steps(piece)
    for name, movement in MOVEMENTS.items():
        if steps == movement:
            return name
    return None


def empty_board_moves(rules, piece, file: int, rank: int, need: str = "") -> int:
    """How many squares a white piece on (file, rank) reaches on an otherwise empty board
    (need "move" or "capture": only by the atoms that move, or capture, there)."""
    targets = set()
    for atom in piece.atoms:
        if atom.hop or atom.initial or not (atom.move or atom.capture):
            continue
        if (need == "move" and not atom.move) or (need == "capture" and not atom.capture):
            continue
        limit = atom.range if atom.range > 0 else max(rules.files, rules.ranks)
        f, r = file, rank
        for _ in range(limit):
            f += atom.dx
            r += atom.dy
            if not (0 <= f < rules.files and 0 <= r < rules.ranks):
                break
            if piece.region is not None and (f, r) not in piece.region[0]:
                break
            targets.add((f, r))
    return len(targets)


def _home_squares(rules, piece) -> list[tuple[int, int]]:
    """The squares a white piece of this type may stand on."""
    squares = [(f, r) for r in range(rules.ranks) for f in range(rules.files)]
    if piece.region is not None:
        squares = [s for s in squares if s in piece.region[0]]
    return squares or [(0, 0)]


def piece_value(rules, index: int, weights: dict[str, int] = EVAL) -> tuple[int, int]:
    """(middlegame, endgame) value of piece type `index` (from 1): known, overridden or derived."""
    piece = rules.pieces[index - 1]
    if piece.royal:
        return 0, 0
    name = movement_name(piece)
    mg, eg = KNOWN_VALUES[name] if name else (0, 0)
    if name is None:
        # Moving and capturing count half each: a cannon, which moves as a rook but captures
        # only by a hop (nothing on the empty board), is worth less than a rook.
        squares = _home_squares(rules, piece)
        reach = sum(
            empty_board_moves(rules, piece, f, r, "move")
            + empty_board_moves(rules, piece, f, r, "capture")
            for f, r in squares
        )
        avg = reach / (2 * len(squares))
        mg = round(weights["derived_base"] + weights["derived_per_move"] * avg)
        eg = mg * weights["derived_eg_percent"] // 100
    if piece.value_mg is not None:
        mg = piece.value_mg
    if piece.value_eg is not None:
        eg = piece.value_eg
    elif piece.value_mg is not None:
        eg = piece.value_mg
    return mg, eg


def _relative(rules, color: int, rank: int) -> int:
    """A rank seen from `color`'s side (0 = its own first rank)."""
    return rank if color == 0 else rules.ranks - 1 - rank


@cython.cclass
class Evaluator:
    """Evaluation tables and weights for one variant."""

    def __init__(self, rules, weights: dict[str, int] | None = None) -> None:
        w = dict(EVAL)
        if weights:
            unknown = set(weights) - set(EVAL)
            if unknown:
                raise ValueError(f"unknown evaluation weights: {', '.join(sorted(unknown))}")
            w.update(weights)
        self.rules = rules
        self.files = rules.files
        self.ranks = rules.ranks
        self.stride = rules.stride
        self.base = rules.square(0, 0)
        self.nsq = rules.nsq
        if self.nsq > MAP_SIZE:
            raise ValueError(f"board of {self.nsq} cells is larger than the evaluation supports")
        self.ntypes = len(rules.pieces)
        for name in RUNTIME_WEIGHTS:
            setattr(self, name, int(w[name]))
        self._build(w)
        self._scale_passed(rules)
        self.material_draws = int(self._mate_only(rules))
        self.blast = 1 if rules.blast_on_capture else 0
        self.pawn_cache = array("Q", bytes(16 * PAWN_CACHE_SIZE))

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

    def _scale_passed(self, rules) -> None:
        """Passed-pawn terms in proportion to what promotion gains against chess's queen: a
        pawn that can only become a met (makruk) or fers (shatranj) is worth little more near
        its promotion rank, and should not be kept there instead of promoting."""
        letters = {p.letter: i for i, p in enumerate(rules.pieces, start=1)}
        chess_gain = KNOWN_VALUES["queen"][0] - KNOWN_VALUES["pawn"][0]
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
        for name in PASSED_WEIGHTS:
            setattr(self, name, tdiv(getattr(self, name) * pct, 100))

    def _build(self, w: dict[str, int]) -> None:
        """Compute values, piece-square tables and movement vectors from the rules."""
        rules = self.rules
        nt = self.ntypes + 1
        nsq = self.nsq
        ncodes = 2 * nt
        kind = [K_PIECE] * nt
        flags = [0] * nt
        value = [0] * nt
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
        rook_value = KNOWN_VALUES["rook"][0]
        for t in range(1, nt):
            piece = rules.pieces[t - 1]
            mg, eg = piece_value(rules, t, w)
            value[t] = mg if not piece.royal else ROYAL_VALUE
            kind[t] = K_ROYAL if piece.royal else K_PAWN if piece.pawn else K_PIECE
            flags[t] = self._flags(piece)
            squares = _home_squares(rules, piece)
            moves = {s: empty_board_moves(rules, piece, *s) for s in squares}
            avg = sum(moves.values()) / len(moves)
            # Pieces rarely see the whole empty board; centre mobility at half of it.
            centre[t] = round(avg / 2)
            scale[t] = min(100, round(1200 / max(avg, 1)))
            unit[t] = 1 + min(3, mg // 350)
            if kind[t] == K_PIECE:
                phase = max(0, round(mg / w["phase_div"]))
                phase_w[2 * t] = phase_w[2 * t + 1] = phase
            for color in (0, 1):
                code = 2 * t + color
                sign = 1 if color == 0 else -1  # tables are white minus black
                for f in range(rules.files):
                    for r in range(rules.ranks):
                        rel = _relative(rules, color, r)
                        white_rank = rel  # the table of a white piece on the mirrored square
                        bonus_mg, bonus_eg = self._square_bonus(
                            piece, kind[t], moves, avg, f, white_rank, w
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
        """Positional (mg, eg) bonus of a white piece of this type on (file, rank)."""
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
        """Give a position this evaluation's material and piece-square tables."""
        pos.set_tables(self.pst_mg, self.pst_eg, self.phase_w)
        pos.lvalue = array("i", [self.value[p >> 1] for p in range(pos.npc)])  # for SEE

    def eval(self, pos: Position) -> int:
        """Static evaluation of a position from the side to move's view (for tools and tests)."""
        return self.evaluate(pos)

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

    def evaluate(self, pos: Position) -> cython.int:
        """Static evaluation in centipawns from the side to move's point of view."""
        # squares attacked by a pawn / next to the royal piece of colour c: [c * MAP_SIZE + sq]
        # (two byte maps written with plain stores: OR-ing bits into one map right after
        # clearing it stalled on store forwarding)
        patt = cython.declare(cython.uchar[1024])  # 2 * MAP_SIZE
        kzone = cython.declare(cython.uchar[1024])  # 2 * MAP_SIZE
        pmask = cython.declare(cython.int[40])  # pawn ranks per colour and file: c * 20 + f + 1
        npm = cython.declare(cython.int[2])  # non-pawn material
        npawns = cython.declare(cython.int[2])
        npieces = cython.declare(cython.int[2])
        bound_sq = cython.declare(cython.int[2])  # square colour of the last colour-bound piece
        bound_mask = cython.declare(cython.int[2])  # square colours of the colour-bound pieces
        nbound = cython.declare(cython.int[2])
        units = cython.declare(cython.int[2])  # attack units against the enemy royal
        attackers = cython.declare(cython.int[2])
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
        score: cython.int
        phase: cython.int
        scale: cython.int
        strong: cython.int
        weak: cython.int
        full: cython.int = (1 << ranks) - 1
        q: cython.int
        zone: cython.int
        pkey: cython.ulonglong = 0
        x: cython.ulonglong
        w0: cython.ulonglong
        w1: cython.ulonglong
        slot: cython.int
        pmg: cython.int = 0
        peg: cython.int = 0
        passed: cython.uint = 0

        for i in range(nsq):
            patt[i] = 0
            patt[MAP_SIZE + i] = 0
            kzone[i] = 0
            kzone[MAP_SIZE + i] = 0
        for i in range(40):
            pmask[i] = 0
        for c in range(2):
            npm[c] = 0
            npawns[c] = 0
            npieces[c] = 0
            nbound[c] = 0
            bound_sq[c] = 0
            bound_mask[c] = 0
            units[c] = 0
            attackers[c] = 0

        # Step 1. Pawn files and pawn attacks; material counts.
        for c in range(2):
            for i in range(pos.pcount[c]):
                sq = pos.plist[c * MAXP + i]
                p = pos.board[sq]
                t = p >> 1
                if self.kind[t] == K_PAWN:
                    npawns[c] += 1
                    pmask[c * 20 + self.sq_file[sq] + 1] |= 1 << self.sq_rank[sq]
                    x = ((cython.cast(cython.ulonglong, p * nsq + sq) + MIX1) * MIX2) & MASK64
                    pkey ^= x ^ (x >> 31)
                    for k in range(self.cap_first[p], self.cap_last[p]):
                        to = sq + self.cap_vec[k]
                        if 0 <= to < nsq:
                            patt[c * MAP_SIZE + to] = 1
                elif self.kind[t] == K_PIECE:
                    npm[c] += self.value[t]
                    npieces[c] += 1
                    if self.flags[t] & FL_COLORBOUND:
                        nbound[c] += 1
                        bound_sq[c] = (self.sq_file[sq] + self.sq_rank[sq]) & 1
                        bound_mask[c] |= 1 << bound_sq[c]
            # Step 2. The royal piece's zone: its square and the squares next to it.
            ksq = pos.royal[c]
            if ksq >= 0:
                for f in range(-1, 2):
                    for r in range(-1, 2):
                        to = ksq + r * stride + f
                        if 0 <= to < nsq and pos.board[to] != WALL:
                            kzone[c * MAP_SIZE + to] = 1

        # Step 3. Pieces: mobility, king attacks, threats by pawns, rooks, outposts.
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
                        za += kzone[zone + to]
                        if q == EMPTY:
                            if not patt[zone + to]:
                                mob += 1
                        else:
                            if (q & 1) != c:
                                mob += 1
                            break
                        steps -= 1
                mob = (mob - self.mob_centre[t]) * self.mob_scale[t]
                mg += sign * tdiv(self.mobility_mg * mob, 100)
                eg += sign * tdiv(self.mobility_eg * mob, 100)
                if za:
                    attackers[c] += 1
                    units[c] += za * self.attack_unit[t]
                if patt[them * MAP_SIZE + sq]:
                    mg -= sign * self.threat_by_pawn_mg
                    eg -= sign * self.threat_by_pawn_eg
                f = self.sq_file[sq]
                r = self.sq_rank[sq]
                rr = r if c == 0 else ranks - 1 - r
                if self.flags[t] & FL_FILE_RIDER:
                    if pmask[c * 20 + f + 1] == 0:
                        if pmask[them * 20 + f + 1] == 0:
                            mg += sign * self.rook_open_mg
                            eg += sign * self.rook_open_eg
                        else:
                            mg += sign * self.rook_semiopen_mg
                            eg += sign * self.rook_semiopen_eg
                    if rr == ranks - 2 and ranks >= 6:
                        ksq = pos.royal[them]
                        tr = ranks - 2 if c == 0 else 1  # the absolute rank of our "seventh"
                        if (ksq >= 0 and self.sq_rank[ksq] == (ranks - 1 if c == 0 else 0)) or (
                            self._any_rank(pmask, them, tr)
                        ):
                            mg += sign * self.rook_seventh_mg
                            eg += sign * self.rook_seventh_eg
                if self.flags[t] & FL_LEAPER and rr >= ranks // 2 and patt[c * MAP_SIZE + sq]:
                    # No enemy pawn on an adjacent file can ever attack this square.
                    if c == 0:
                        ahead = full & ~((2 << r) - 1)
                    else:
                        ahead = (1 << r) - 1
                    if ((pmask[them * 20 + f] | pmask[them * 20 + f + 2]) & ahead) == 0:
                        mg += sign * self.outpost_mg
                        eg += sign * self.outpost_eg

        # Step 4. Pawn structure. The terms that depend on pawns only come from the pawn cache
        # (lockless like the TT: a torn entry fails its check); passed pawns, stored as one
        # file bit per colour (only the front pawn of a file can be passed), then get the terms
        # that depend on the other pieces.
        if pkey != 0:
            slot = cython.cast(cython.int, pkey & (PAWN_CACHE_SIZE - 1))
            w1 = self.pawn_cache[2 * slot + 1]
            w0 = self.pawn_cache[2 * slot]
            if (w0 ^ w1) == pkey:
                pmg = cython.cast(cython.int, w1 & 0xFFFF) - 32768
                peg = cython.cast(cython.int, (w1 >> 16) & 0xFFFF) - 32768
                passed = cython.cast(cython.uint, w1 >> 32)
            else:
                passed = self._pawn_terms(pos, pmask, patt)
                pmg = self.pawn_mg
                peg = self.pawn_eg
                w1 = (
                    cython.cast(cython.ulonglong, (pmg + 32768) & 0xFFFF)
                    | (cython.cast(cython.ulonglong, (peg + 32768) & 0xFFFF) << 16)
                    | (cython.cast(cython.ulonglong, passed) << 32)
                )
                self.pawn_cache[2 * slot] = pkey ^ w1
                self.pawn_cache[2 * slot + 1] = w1
        mg += pmg
        eg += peg
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
                tr = rr * 6 // (ranks - 2) if ranks > 2 else 1
                if 0 <= stop < nsq and pos.board[stop] == EMPTY:
                    eg += sign * self.passed_free_eg * tr
                if pos.royal[0] >= 0 and pos.royal[1] >= 0 and 0 <= stop < nsq:
                    k = self._dist(pos.royal[them], stop) - self._dist(pos.royal[c], stop)
                    eg += sign * tdiv(self.passed_king_dist_eg * k * tr, 4)

        # Step 5. King safety (middlegame only): pawn shield, open file, attackers.
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
                for v in range(-1, 2):
                    if 0 <= f + v < files:
                        if c == 0:
                            k += (pmask[c * 20 + f + v + 1] >> (r + 1)) & 1
                        elif r >= 1:
                            k += (pmask[c * 20 + f + v + 1] >> (r - 1)) & 1
                mg += sign * self.shield_mg * k
                if pmask[c * 20 + f + 1] == 0:
                    mg += sign * self.king_open_file_mg
            if attackers[them] >= 2:
                k = units[them] * units[them] * self.king_attack_weight // 8
                if k > self.king_attack_max:
                    k = self.king_attack_max
                mg -= sign * k

        # Step 6. Pairs of colour-bound pieces on both square colours.
        for c in range(2):
            sign = 1 if c == 0 else -1
            if nbound[c] >= 2:
                mg += sign * self.bishop_pair_mg
                eg += sign * self.bishop_pair_eg

        # Step 7. Taper, scale drawish endgames, add mop-up and tempo.
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
        if scale == 0 and npawns[weak] == 0:
            return 0  # neither side can win: a dead draw
        score = tdiv(mg * phase + tdiv(eg * scale, 64) * (self.max_phase - phase), self.max_phase)
        if pos.pcount[weak] == 1 and (
            npm[strong] >= self.rook_value
            or (self.material_draws and scale > 0 and npawns[strong] == 0 and npm[strong] > 0)
        ):
            score += (1 if strong == 0 else -1) * self._mopup(
                pos, strong, nbound[strong], bound_sq[strong]
            )
        if pos.side == 1:
            score = -score
        # Step 8. Explosions: a capture next to a royal piece blows it up. The side to move
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
    def _pawn_terms(self, pos: Position, pmask: cython.p_int, patt: cython.p_uchar) -> cython.uint:
        """Pawn-only terms into pawn_mg / pawn_eg (white minus black); the passed files."""
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
        mg: cython.int = 0
        eg: cython.int = 0
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
                own = pmask[c * 20 + f + 1]
                behind = r - 1 if c == 0 else r + 1
                if behind < 0:
                    behind = r
                opp = pmask[them * 20 + f + 1]
                adj = pmask[c * 20 + f] | pmask[c * 20 + f + 2]
                if own & ahead:
                    mg += sign * self.doubled_mg
                    eg += sign * self.doubled_eg
                if adj == 0:
                    mg += sign * self.isolated_mg
                    eg += sign * self.isolated_eg
                elif adj & ((1 << r) | (1 << behind)) & full:
                    mg += sign * self.connected_mg * (1 + rr // 2)
                    eg += sign * self.connected_eg * (1 + rr // 2)
                elif (
                    (adj & ~ahead & ~(1 << r)) == 0
                    and 0 <= stop < nsq
                    and patt[them * MAP_SIZE + stop]
                ):
                    # Only pawns ahead on the adjacent files and the stop square guarded by an
                    # enemy pawn: backward.
                    mg += sign * self.backward_mg
                    eg += sign * self.backward_eg
                sentries = (pmask[them * 20 + f] | pmask[them * 20 + f + 2]) & ahead
                tr = rr * 6 // (ranks - 2) if ranks > 2 else 1
                if (opp & ahead) == 0 and (own & ahead) == 0:
                    if sentries == 0:
                        mg += sign * (self.passed_mg * tr * tr // 4)
                        eg += sign * (self.passed_eg * tr * tr // 4)
                        passed |= cython.cast(cython.uint, 1) << (16 * c + f)
                    elif self._count_bits(adj & ~ahead) >= self._count_bits(sentries):
                        # Candidate: at least as many helpers beside or behind as sentries.
                        mg += sign * self.candidate_mg * tr
                        eg += sign * self.candidate_eg * tr
        self.pawn_mg = mg
        self.pawn_eg = eg
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
        if nbound == 1 and self.files == self.ranks:
            # One colour-bound piece (bishop and knight): only its corners can be mated in.
            # Keep the push to the edge (a wrong corner is still better than the centre) and
            # add the nearness to a right corner, which grows along the edges towards it.
            d1: cython.int = f if f > r else r  # distance to (0, 0)
            d2: cython.int
            fo: cython.int = self.files - 1 - f
            ro: cython.int = self.ranks - 1 - r
            if bound_colour == 0:  # corners a1 / h8 have colour 0
                d2 = fo if fo > ro else ro
            else:
                d1 = f if f > ro else ro
                d2 = fo if fo > r else r
            edge += 2 * (self.files - 1 - (d1 if d1 < d2 else d2))
        bonus: cython.int = self.mopup_base + self.mopup_edge * edge
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
            a = pos.probe_attacker(sq, c ^ 1, True)
            if a >= 0 and self.kind[pos.board[a] >> 1] != K_ROYAL:
                n += 1
        return n
