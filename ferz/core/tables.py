"""The rule tables of a variant, compiled once per Rules and shared by all its positions.

A Position reads its movement atoms, attack probes, zones, hashing keys and rule switches from
here (the same arrays, not copies); only its board, piece lists and undo stacks are its own.
Nothing here is hot, so this module stays plain Python. What a piece is for (the counting
rule's rook, the shogi pawn...) arrives as letters in Rules fields: no piece is known by name.
"""

from __future__ import annotations

import random
from array import array

from .defs import (
    F_CAPT,
    F_DIAG,
    F_HOP,
    F_INITIAL,
    F_LEG,
    F_MOVE,
    F_RANK,
    LINE_REACH,
    LINE_SPAN,
    MAX_CHECKS,
    MAXHAND,
    PROBE_DIAG,
    PROBE_HOP,
    PROBE_LEG,
    PROBE_RAY,
    UNLIMITED,
)
from .rules import MAX_TYPES, Rules

ZOBRIST_SEED = 0x66657A72  # fixed, so that keys are equal across runs and threads
COUNTING = {"none": 0, "makruk": 1, "asean": 2, "cambodian": 3}  # Rules.counting_rule
ENDS = {"win": 1, "draw": 0, "loss": -1}  # Rules.extinction_value, for the side to move


def ints(n: int, value: int = 0) -> array:
    """An int array of n copies of value."""
    return array("i", [value]) * n


def _keys(rng: random.Random, n: int) -> array:
    """n random 64-bit Zobrist keys."""
    return array("Q", [rng.getrandbits(64) for _ in range(n)])


class RuleGroup:
    """One group of a variant's rule switches (ints), read and written as attributes: the
    fields of the struct of position.pxd of the same name (EndRules for `end_rules`...).
    A Position takes a copy; compiled, Cython fills its struct from the copy by name
    (`group["name"]`), and a field missing here is a ValueError there."""

    def __getitem__(self, name: str) -> int:
        return self.__dict__[name]

    def copy(self) -> RuleGroup:
        """A group of the same fields and values (a Position's own)."""
        group = RuleGroup()
        group.__dict__.update(self.__dict__)
        return group

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value}" for name, value in self.__dict__.items())
        return f"RuleGroup({fields})"


def of(rules: Rules) -> Tables:
    """The tables of these rules, compiled on first use (Rules must not change afterwards)."""
    tables = rules.__dict__.get("_tables")
    if tables is None:
        tables = Tables(rules)
        rules.__dict__["_tables"] = tables
    return tables


def _index(rules: Rules, letter: str) -> int:
    """Type number of a letter, or -1 for none ("")."""
    return rules.piece_index(letter) if letter else -1


class Tables:
    """Read-only arrays and switches of one variant (field names as in position.pxd)."""

    def __init__(self, rules: Rules) -> None:
        ntypes = len(rules.pieces)
        if ntypes > MAX_TYPES:
            raise ValueError(f"{rules.name}: at most {MAX_TYPES} piece types, got {ntypes}")
        self.rules = rules
        self.files, self.ranks = rules.files, rules.ranks
        self.stride, self.nsq = rules.stride, rules.nsq
        self.npc = 2 * ntypes + 2
        # the rule switches by concern, each a struct of position.pxd of the same fields
        self.end_rules, self.promo_rules, self.drop_rules = RuleGroup(), RuleGroup(), RuleGroup()
        self.move_rules, self.gate_rules = RuleGroup(), RuleGroup()
        self.move_rules.flying = 1 if rules.flying_general else 0
        self.move_rules.ep_enabled = 1 if rules.en_passant else 0
        self.drop_rules.drops = 1 if rules.drops else 0
        self.drop_rules.capt_to_hand = 1 if rules.captures_to_hand else 0
        self.squares = rules.squares()
        self.nplay = len(self.squares)
        self.sq_list = array("i", self.squares)
        self._pieces(rules)
        self._probes(rules)
        self._zones(rules)
        self._variant_rules(rules)
        self._endings(rules)
        self._gates(rules)
        self._hash_keys()
        self._vargate(rules)
        self._lines(rules)
        self._checks(rules)
        self._janggi(rules)

    def vector(self, dx: int, dy: int, color: int) -> int:
        """Mailbox offset of a step seen from White, mirrored for Black."""
        return (dy if color == 0 else -dy) * self.stride + dx

    def _pieces(self, rules: Rules) -> None:
        """Movement atoms per piece code, and per-type rule flags."""
        npc = self.npc
        starts, ends = ints(npc), ints(npc)
        vec, rng, flags, leg, minr, leg2 = [], [], [], [], [], []
        for p in range(2, npc):
            piece = rules.pieces[(p >> 1) - 1]
            starts[p] = len(vec)
            for atom in piece.atoms:
                minr.append(atom.min_rank)
                vec.append(self.vector(atom.dx, atom.dy, p & 1))
                rng.append(UNLIMITED if atom.range == 0 else atom.range)
                flag = (F_MOVE if atom.move else 0) | (F_CAPT if atom.capture else 0)
                flag |= (F_HOP if atom.hop else 0) | (F_INITIAL if atom.initial else 0)
                flag |= F_RANK if atom.min_rank else 0
                flag |= F_DIAG if atom.diagonal else 0
                if atom.leg is not None:
                    flag |= F_LEG
                    leg.append(self.vector(atom.leg[0], atom.leg[1], p & 1))
                else:
                    leg.append(0)
                second = atom.leg2 if atom.leg2 is not None else atom.leg
                leg2.append(self.vector(second[0], second[1], p & 1) if second else 0)
                flags.append(flag)
            ends[p] = len(vec)
        self.a_start, self.a_end = starts, ends
        self.a_vec, self.a_range = array("i", vec), array("i", rng)
        self.a_flags, self.a_leg = array("i", flags), array("i", leg)
        self.a_minr = array("i", minr or [0])
        self.a_leg2 = array("i", leg2 or [0])  # = a_leg unless the leaper has two legs
        ntypes = len(rules.pieces)
        self.is_pawn = array("i", [0] + [1 if p.pawn else 0 for p in rules.pieces])
        self.is_royal = array("i", [0] + [1 if p.royal else 0 for p in rules.pieces])
        # promotion choices: White's then Black's, each padded with 0 to the longer list
        white = [rules.promotion_type(x) for x in rules.promotion_letters]
        black_letters = rules.promotion_letters_black
        black = white if black_letters is None else [rules.promotion_type(x) for x in black_letters]
        width = max(len(white), len(black))
        padded = white + [0] * (width - len(white)) + black + [0] * (width - len(black))
        self.promo_list = array("i", padded or [0])
        self.promo_rules.n_promo = width
        self.promoted = ints(ntypes + 1)
        self.demoted = array("i", range(ntypes + 1))
        for t, piece in enumerate(rules.pieces, start=1):
            if piece.promoted:
                self.promoted[t] = rules.piece_index(piece.promoted)
            if piece.demoted:
                self.demoted[t] = rules.piece_index(piece.demoted)
        # a move of this type to an empty square may promote (captures-only generation must
        # look at such moves; for other types it skips the empty squares)
        self.can_promote = array(
            "i", [0] + [1 if (p.pawn and width) or p.promoted else 0 for p in rules.pieces]
        )
        # en passant: the capture vectors of each colour's pawns (at most 8 per colour)
        self.ep_vec, self.ep_pc = ints(16), ints(16)
        for color in (0, 1):
            slot = 0
            for t, piece in enumerate(rules.pieces, start=1):
                if not piece.pawn:
                    continue
                for atom in piece.atoms:
                    if atom.capture and not atom.move and not atom.hop and slot < 8:
                        self.ep_vec[color * 8 + slot] = self.vector(atom.dx, atom.dy, color)
                        self.ep_pc[color * 8 + slot] = 2 * t + color
                        slot += 1

    def _probes(self, rules: Rules) -> None:
        """Attack probes per attacking colour: rays, hoppers and lame leapers grouped by vector."""
        starts, vec, rng, kind, leg, near, far, minr = [0], [], [], [], [], [], [], []
        leg2 = []
        for color in (0, 1):
            rays: dict[int, list[int]] = {}
            other: dict[tuple[int, int, int, int, int, int], int] = {}
            for t, piece in enumerate(rules.pieces, start=1):
                bit = 1 << t
                for atom in piece.atoms:
                    if not atom.capture:
                        continue
                    v = self.vector(atom.dx, atom.dy, color)
                    r = UNLIMITED if atom.range == 0 else atom.range
                    cond = -1 if atom.initial else atom.min_rank
                    if atom.diagonal:  # (the hop flag rides in the leg field)
                        key = (PROBE_DIAG, v, r, 1 if atom.hop else 0, cond, 0)
                    elif atom.hop:
                        key = (PROBE_HOP, v, r, 0, cond, 0)
                    elif atom.leg is not None:
                        lg = self.vector(atom.leg[0], atom.leg[1], color)
                        second = atom.leg2 if atom.leg2 is not None else atom.leg
                        lg2 = self.vector(second[0], second[1], color)
                        key = (PROBE_LEG, v, 1, lg, cond, lg2)
                    elif r in (1, UNLIMITED) and not cond:
                        masks = rays.setdefault(v, [0, 0])
                        masks[0] |= bit
                        if r == UNLIMITED:
                            masks[1] |= bit
                        continue
                    else:
                        key = (PROBE_RAY, v, r, 0, cond, 0)
                    other[key] = other.get(key, 0) | bit
            for v, (near_mask, far_mask) in rays.items():
                vec.append(v)
                rng.append(UNLIMITED if far_mask else 1)
                kind.append(PROBE_RAY)
                leg.append(0)
                near.append(near_mask)
                far.append(far_mask)
                minr.append(0)
                leg2.append(0)
            for (k, v, r, lg, mr, lg2), mask in other.items():
                vec.append(v)
                rng.append(r)
                kind.append(k)
                leg.append(lg)
                leg2.append(lg2)
                near.append(mask)
                far.append(mask)
                minr.append(mr)
            starts.append(len(vec))
        self.pr_start = array("i", starts)
        self.pr_vec, self.pr_range = array("i", vec or [0]), array("i", rng or [0])
        self.pr_kind, self.pr_leg = array("i", kind or [0]), array("i", leg or [0])
        self.pr_near, self.pr_far = array("Q", near or [0]), array("Q", far or [0])
        self.pr_minr = array("i", minr or [0])
        self.pr_leg2 = array("i", leg2 or [0])

    def _lines(self, rules: Rules) -> None:
        """Tables for the legality fast path: after a non-king move by a side not in check,
        only an unlimited rider on the line king-origin can attack the king. Variants with
        hoppers, lame leapers, limited riders or regions use the full attack test instead.

        The line table is indexed by the (file, rank) offset from the king, not by the mailbox
        difference: on a padded mailbox two different offsets can share one difference (on
        8 files, 5 files left and 5 ranks down equals 6 files right and 6 ranks down)."""
        nsq = self.nsq
        self.sq_file, self.sq_rank = ints(nsq), ints(nsq)
        for sq in self.squares:
            self.sq_file[sq], self.sq_rank[sq] = rules.file_of(sq), rules.rank_of(sq)
        self.line_dir = ints(LINE_SPAN * LINE_SPAN)
        self.ray_mask = array("Q", [0]) * (4 * nsq)
        # tiny boards: rider vectors of different directions could share a mailbox offset
        simple = rules.files >= 4
        for t, piece in enumerate(rules.pieces, start=1):
            if piece.region is not None:
                simple = False
            for atom in piece.atoms:
                if atom.hop or atom.leg is not None or atom.range not in (0, 1) or atom.diagonal:
                    if atom.capture:
                        simple = False
                if atom.capture and atom.range == 0 and not atom.diagonal:
                    for color in (0, 1):
                        v = self.vector(atom.dx, atom.dy, color)
                        dy = atom.dy if color == 0 else -atom.dy
                        self.ray_mask[color * 2 * nsq + v + nsq] |= 1 << t
                        for k in range(1, max(rules.files, rules.ranks)):
                            fx, fy = -k * atom.dx, -k * dy  # from the king towards the rider
                            if abs(fx) <= LINE_REACH and abs(fy) <= LINE_REACH:
                                index = (fx + LINE_REACH) * LINE_SPAN + fy + LINE_REACH
                                self.line_dir[index] = -v
        # explosions remove blockers and touching kings ignore checks: no shortcut in atomic
        self.move_rules.fast_legal = 1 if simple and not rules.blast_on_capture else 0

    def _checks(self, rules: Rules) -> None:
        """Direct-check table for `checks`: per piece code and (file, rank) offset from the
        piece to a king, 1 = attacks it whatever stands between (a leap or a single step),
        2 = attacks it along chk_vec if the squares between are empty, 3 = unknown here (a
        conditional atom or two riders reaching the offset: `checks` asks make/in_check)."""
        span2 = LINE_SPAN * LINE_SPAN
        npc = self.npc
        self.chk_kind, self.chk_vec = ints(npc * span2), ints(npc * span2)
        self.chk_slow = ints(npc)
        reach = max(rules.files, rules.ranks)
        for p in range(2, npc):
            piece = rules.pieces[(p >> 1) - 1]
            color = p & 1
            base = p * span2
            for atom in piece.atoms:
                if not atom.capture:
                    continue
                if (
                    atom.hop
                    or atom.leg is not None
                    or atom.initial
                    or atom.min_rank
                    or atom.diagonal
                ):
                    self.chk_slow[p] = 1
                    continue
                if atom.range not in (0, 1):
                    self.chk_slow[p] = 1
                    continue
                dy = atom.dy if color == 0 else -atom.dy
                v = self.vector(atom.dx, atom.dy, color)
                for k in range(1, 2 if atom.range == 1 else reach):
                    fx, fy = k * atom.dx, k * dy
                    if abs(fx) > LINE_REACH or abs(fy) > LINE_REACH:
                        break
                    i = base + (fx + LINE_REACH) * LINE_SPAN + fy + LINE_REACH
                    if k == 1:
                        self.chk_kind[i], self.chk_vec[i] = 1, v
                    elif self.chk_kind[i] == 0:
                        self.chk_kind[i], self.chk_vec[i] = 2, v
                    elif self.chk_kind[i] == 2 and self.chk_vec[i] != v:
                        self.chk_slow[p] = 1
        # every piece simple: attack tests may go piece by piece through the table
        moves = self.move_rules
        moves.chk_all = 1 if moves.fast_legal and not any(self.chk_slow) else 0

    def _zones(self, rules: Rules) -> None:
        """Mobility regions per piece code, double-step and promotion zones per colour."""
        nsq, npc = self.nsq, self.npc
        region = ints(npc * nsq)
        for p in range(2, npc):
            allowed = rules.pieces[(p >> 1) - 1].region
            for sq in self.squares:
                where = (rules.file_of(sq), rules.rank_of(sq))
                if allowed is None or where in allowed[p & 1]:
                    region[p * nsq + sq] = 1
        self.region = region
        self.dbl_zone, self.promo_zone = ints(2 * nsq), ints(2 * nsq)
        black_double = rules.double_step_ranks_black
        if black_double is None:
            black_double = rules.double_step_ranks
        self.ep_ok = ints(nsq, 1)
        for sq in self.squares:
            rank = rules.rank_of(sq)
            for color, relative in ((0, rank), (1, rules.ranks - 1 - rank)):
                if relative in (rules.double_step_ranks if color == 0 else black_double):
                    self.dbl_zone[color * nsq + sq] = 1
                if relative in rules.promotion_ranks:
                    self.promo_zone[color * nsq + sq] = 1
            region = rules.en_passant_region
            if region is not None and (rules.file_of(sq), rank) not in region:
                self.ep_ok[sq] = 0

    def _variant_rules(self, rules: Rules) -> None:
        """Tables for rules beyond chess: ranks seen from each side, squares a piece could never
        leave (immobility), where each piece may be dropped, promotion limits, drop rules."""
        nsq, npc = self.nsq, self.npc
        squares = self.squares
        self.rel_rank, self.file_idx = ints(2 * nsq), ints(nsq)
        for sq in squares:
            self.rel_rank[sq] = rules.rank_of(sq)
            self.rel_rank[nsq + sq] = rules.ranks - 1 - rules.rank_of(sq)
            self.file_idx[sq] = rules.file_of(sq)
        on_board = set(squares)
        self.dead = ints(npc * nsq)
        self.move_rules.immobile = 1 if rules.immobility_illegal else 0
        if rules.immobility_illegal:
            for p in range(2, npc):
                for sq in squares:
                    if not self._can_leave(p, sq, on_board):
                        self.dead[p * nsq + sq] = 1
        rook_drop = _index(rules, rules.rook_drop_letter)
        self.drop_zone = ints(npc * nsq)
        for p in range(2, npc):
            piece, color = rules.pieces[(p >> 1) - 1], p & 1
            for sq in squares:
                where = (rules.file_of(sq), rules.rank_of(sq))
                ok = self.region[p * nsq + sq] and not self.dead[p * nsq + sq]
                if rules.drop_regions is not None and where not in rules.drop_regions[color]:
                    ok = False
                if (p >> 1) == rook_drop and self.rel_rank[color * nsq + sq] != 0:
                    ok = False  # sittuyin: rooks are dropped on the first rank
                if piece.pawn:
                    if self.promo_zone[color * nsq + sq] and not rules.promotion_zone_pawn_drops:
                        ok = False
                    if self.rel_rank[color * nsq + sq] == 0 and not rules.first_rank_pawn_drops:
                        ok = False
                self.drop_zone[p * nsq + sq] = 1 if ok else 0
        ntypes = len(rules.pieces)
        self.promo_limit = ints(ntypes + 1)
        for letter, limit in rules.promotion_limit.items():
            self.promo_limit[rules.piece_index(letter)] = limit
        self.promo_rules.mand_promo = 1 if rules.mandatory_promotion else 0
        self.promo_rules.mand_piece_promo = 1 if rules.mandatory_piece_promotion else 0
        drops = self.drop_rules
        drops.nodbl_type = rules.piece_index(rules.drop_no_doubled) if rules.drop_no_doubled else 0
        drops.nodbl_count = rules.drop_no_doubled_count
        drops.drop_checks = 1 if rules.drop_checks else 0
        drops.opp_bishop = max(0, _index(rules, rules.opposite_bishop_letter))  # type, 0 = none
        drops.castle_drop = 1 if rules.castling_dropped else 0
        self.end_rules.dropmate_type = max(0, _index(rules, rules.drop_mate_letter))
        self.move_rules.must_capture = 1 if rules.must_capture else 0
        self.move_rules.makpong = 1 if rules.makpong else 0

    def _can_leave(self, p: int, sq: int, on_board: set) -> bool:
        """Whether piece p on sq has a move on an otherwise empty board (immobility rule)."""
        color = p & 1
        for a in range(self.a_start[p], self.a_end[p]):
            if self.a_flags[a] & F_INITIAL and not self.dbl_zone[color * self.nsq + sq]:
                continue
            if self.a_minr[a] and self.rel_rank[color * self.nsq + sq] < self.a_minr[a]:
                continue
            to = sq + self.a_vec[a]
            if self.a_flags[a] & F_HOP:
                to += self.a_vec[a]  # the screen stands on the first square
            if to in on_board and self.region[p * self.nsq + to]:
                return True
        return False

    def _endings(self, rules: Rules) -> None:
        """Extinction, flags, check counting, counting rules, atomic blasts, sittuyin."""
        end = self.end_rules
        end.ext_on = 1 if rules.extinction_value else 0
        end.ext_value = ENDS.get(rules.extinction_value, 0)
        end.ext_all = 1 if rules.extinction_letters == "*" else 0
        types = [] if end.ext_all else [rules.piece_index(x) for x in rules.extinction_letters]
        self.ext_types, end.n_ext = array("i", types or [0]), len(types)
        end.ext_count = rules.extinction_count
        end.ext_opp = rules.extinction_opponent_count
        end.ext_claim = 1 if rules.extinction_claim else 0
        squares, starts, kinds = [], [0], []
        for color in (0, 1):
            letter = rules.flag_letters[color]
            kinds.append(rules.piece_index(letter) if letter and letter != "*" else 0)
            squares += sorted(rules.square(f, r) for f, r in rules.flag_regions[color])
            starts.append(len(squares))
        self.flag_sq, self.flag_start = array("i", squares or [0]), array("i", starts)
        self.flag_type = array("i", kinds)
        end.flag_on = 1 if squares else 0
        self.flag_zone = ints(2 * self.nsq)
        for color in (0, 1):
            for sq in squares[starts[color] : starts[color + 1]]:
                self.flag_zone[color * self.nsq + sq] = 1
        # flagMove: 1 with the royal piece as the flag piece (racing kings: a king that cannot
        # follow loses at once, both kings there draw), 2 with another piece (jesonmor)
        royal = [p.letter for p in rules.pieces if p.royal]
        end.flag_move = 0
        if rules.flag_move:
            end.flag_move = 1 if royal and rules.flag_letters[0] == royal[0] else 2
        end.check_count = 1 if rules.check_counting else 0
        end.counting = COUNTING[rules.counting_rule]
        end.perpetual_rule = 1 if rules.perpetual_check_illegal else 0
        end.chase_rule = 1 if rules.chasing_rule else 0
        # the values of having no legal move and of an n-fold repetition (endrules.py)
        end.mate_value = ENDS[rules.checkmate_value]
        end.stale_value = ENDS[rules.stalemate_value]
        end.stale_pieces = 1 if rules.stalemate_piece_count else 0
        end.nfold_value = ENDS[rules.n_fold_value]
        end.nfold_white = 1 if rules.n_fold_value_absolute else 0
        rook, khon, knight = rules.counting_letters
        end.cnt_rook = _index(rules, rook)
        end.cnt_khon = _index(rules, khon)
        end.cnt_knight = _index(rules, knight)
        end.no_checking = 0 if rules.checking else 1
        # rules judged after every legal move (whether it checks): off for chess
        end.after_rules = 1 if end.check_count or end.no_checking else 0
        end.any = 1 if end.ext_on or end.flag_on or end.check_count else 0
        if rules.king_pass or rules.bikjang:
            end.any = 1  # two passes or two bikjang positions in a row (janggi)
        self.move_rules.blast = 1 if rules.blast_on_capture else 0
        stride = self.stride
        self.blast_vec = array("i", [dy * stride + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
        self.drop_rules.must_drop = 1 if rules.must_drop else 0
        promos = self.promo_rules
        promos.sit_promo = 1 if rules.sittuyin_promotion else 0
        nsq = self.nsq
        self.sit_zone = ints(2 * nsq)
        for f, r in rules.promotion_region or ():
            self.sit_zone[rules.square(f, r)] = 1
            self.sit_zone[nsq + rules.square(f, rules.ranks - 1 - r)] = 1
        types = (
            [rules.promotion_type(x) for x in rules.promotion_letters] if promos.sit_promo else []
        )
        self.sit_types, promos.n_sit = array("i", types or [0]), len(types)
        if promos.sit_promo:
            end.after_rules = 1  # a sittuyin promotion may not give check

    def _gates(self, rules: Rules) -> None:
        """cambodianMoves: the gate bit of each square on a colour's gate (castling) rank, and
        the piece types with a part in it (the met leaps, a rook move may take a leap away)."""
        nsq = self.nsq
        gates = self.gate_rules
        gates.cambodian = 1 if rules.cambodian_moves else 0
        fers, rook = rules.cambodian_letters
        gates.cambodian_fers = _index(rules, fers)
        gates.cambodian_rook = _index(rules, rook)
        self.gate_bit = array("q", [0]) * (2 * nsq)
        if gates.cambodian:
            self._gate_bits(rules)
        # rules that is_pseudo_legal cannot judge from one piece's moves
        moves, must_drop = self.move_rules, self.drop_rules.must_drop
        moves.full_gen = 1 if moves.must_capture or self.end_rules.any or must_drop else 0
        moves.full_gen |= moves.makpong
        moves.gen_filter = 1 if moves.must_capture or moves.makpong or must_drop else 0
        moves.full_gen |= self.promo_rules.sit_promo | gates.cambodian  # (Cambodian leaps)

    def _gate_bits(self, rules: Rules) -> None:
        """Bit 16 * colour + file for each square of a colour's castling (gate) rank."""
        nsq = self.nsq
        for color in (0, 1):
            rank = rules.castling_rank_of(color)
            for file in range(rules.files):
                self.gate_bit[color * nsq + rules.square(file, rank)] = 1 << (16 * color + file)

    def _janggi(self, rules: Rules) -> None:
        """Janggi's rules: the palace diagonals (squares), the janggi cannons (per type),
        passing, bikjang, and the material count's weight per piece type."""
        self.diag_ok = ints(self.nsq)
        for f, r in rules.diagonal_lines:
            self.diag_ok[rules.square(f, r)] = 1
        self.jcannon = array("i", [0] + [1 if p.janggi_cannon else 0 for p in rules.pieces])
        end, promos = self.end_rules, self.promo_rules
        self.move_rules.king_pass = 1 if rules.king_pass else 0
        end.bik_rule = 1 if rules.bikjang else 0
        end.mat_count = {"none": 0, "janggi": 1, "unweighted": 2}[rules.material_counting]
        self.mat_w = ints(len(rules.pieces) + 1)
        for letter, weight in rules.material_letters:
            self.mat_w[rules.piece_index(letter)] = weight
        end.jang = 1 if self.move_rules.king_pass or end.bik_rule else 0
        # kyoto and micro shogi: pieces that turn over (promote or demote) as they move
        promos.toggle = 1 if rules.piece_demotion or rules.promotion_on_capture else 0
        promos.demote = 1 if rules.piece_demotion else 0
        promos.promo_capt = 1 if rules.promotion_on_capture else 0
        self.drop_rules.drop_promo = 1 if rules.drop_promoted else 0
        # shatar: the types whose checks are a shak, the knight (a mate by knights alone)
        end.shatar = 1 if rules.shatar_mate else 0
        self.shak_type = ints(len(rules.pieces) + 1)
        for letter in rules.shak_letters:
            self.shak_type[rules.piece_index(letter)] = 1
        end.mate_knight = _index(rules, rules.mate_knight_letter)
        end.ply_rules = 1 if end.bik_rule or end.shatar else 0  # make records a ply's facts
        if end.shatar and not self.move_rules.chk_all:
            raise ValueError("shatarMateRule needs plain leapers and riders only")
        if promos.toggle:
            # a quiet move that turns a piece over is a quiet move (staged generation and
            # quiescence leave it to the quiet stage): no captures-only look at empty squares
            for t in range(1, len(rules.pieces) + 1):
                if not rules.pieces[t - 1].pawn:
                    self.can_promote[t] = 0

    def _hash_keys(self) -> None:
        """Zobrist keys, drawn in a fixed order from a fixed seed."""
        nsq, npc = self.nsq, self.npc
        rng = random.Random(ZOBRIST_SEED)
        self.z_piece = _keys(rng, npc * nsq)
        self.z_castle = _keys(rng, 16)
        self.z_castle[0] = 0
        self.z_ep = _keys(rng, nsq)
        self.z_hand = _keys(rng, npc * MAXHAND)
        self.z_side = rng.getrandbits(64)
        # drawn after the chess keys, so that chess hashes (and the bench) do not change
        self.z_checks = _keys(rng, 2 * MAX_CHECKS)

    # --- gating and two-board games (vargate)

    def _vargate(self, rules: Rules) -> None:
        """seirawanGating: the gate bit of each square of a colour's castling rank (bit
        16 * colour + file, as for cambodianMoves) and a key per gate bit (gates are hashed);
        mustDropType: the type whose presence in hand forces a drop (0: any piece)."""
        gates = self.gate_rules
        gates.seirawan = 1 if rules.seirawan_gating else 0
        if gates.seirawan:
            self._gate_bits(rules)
        # a stream of its own, so that every other key stays as it was
        self.z_gate = _keys(random.Random(ZOBRIST_SEED + 1), 32)
        self.drop_rules.must_drop_type = max(0, _index(rules, rules.must_drop_letter))
        gates.any = 1 if gates.cambodian or gates.seirawan else 0  # make saves the gates per ply
