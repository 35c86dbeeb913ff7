"""The evaluation's tables and how they are built: piece values derived from movement, the
names of known movements and square tables, the layout of the tuned weights, and `build`, which
turns a variant's Rules and the weights into the arrays the compiled evaluation reads.

Plain Python (nothing here is hot): Evaluator.__init__ (core/evaluate.py) calls `build` once
per variant, the tuner (tools/tune.py) reads the feature order.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

from ferz.params import EVAL, KING_DANGER, KNOWN_VALUES, PST, TERMS

# The constants of evaluate.pxd (the source; tests/rules/test_constants.py compares), which the
# uncompiled evaluate.py imports from here.
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
MAX_TERMS = 160  # room for the counts of TERMS' weights (the scratch's term counts)
MAX_DANGER = 24  # room for the counts of KING_DANGER's weights, per colour
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

# Evaluation classes in the order of C_OTHER..C_QUEEN: mobility tables and king-danger weights
# are kept per class; "other" covers every piece whose movement is not chess-like.
CLASSES = ("other", "knight", "bishop", "rook", "queen")

# King-danger groups with one weight per class, then single weights (KING_DANGER keys).
DANGER_GROUPS = ("attacker", "zone", "check")
DANGER_SINGLES = ("weak", "no_queen", "bias")


def term_layout(terms: dict = TERMS) -> dict[str, tuple[int, int]]:
    """(offset, size) of every TERMS entry in the weight arrays: the tuner's feature order."""
    out = {}
    offset = 0
    for name, value in terms.items():
        size = len(value) if isinstance(value, list) else 1
        out[name] = (offset, size)
        offset += size
    return out


def danger_names() -> list[str]:
    """KING_DANGER keys in the order of the danger weight array (danger_eg apart)."""
    return [f"{g}_{c}" for g in DANGER_GROUPS for c in CLASSES] + list(DANGER_SINGLES)


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
KING_STEPS = _rays(_ORTHO + _DIAG, 1)


def movement_name(piece) -> str | None:
    """The name in KNOWN_VALUES of a piece's movement ('pawn', 'knight', ...) or None."""
    if piece.pawn:
        return "pawn"
    steps = _steps(piece)
    for name, movement in MOVEMENTS.items():
        if steps == movement:
            return name
    return None


def table_name(piece) -> str | None:
    """The name in PST of a piece's square table: its movement's, or 'king' for a royal piece
    that steps like a chess king."""
    if piece.royal:
        return "king" if _steps(piece) == KING_STEPS else None
    return movement_name(piece)


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


def home_squares(rules, piece) -> list[tuple[int, int]]:
    """The squares a white piece of this type may stand on."""
    squares = [(f, r) for r in range(rules.ranks) for f in range(rules.files)]
    if piece.region is not None:
        squares = [s for s in squares if s in piece.region[0]]
    return squares or [(0, 0)]


def piece_value(
    rules, index: int, weights: dict[str, int] = EVAL, values: dict | None = None
) -> tuple[int, int]:
    """(middlegame, endgame) value of piece type `index` (from 1): known, overridden or derived."""
    piece = rules.pieces[index - 1]
    if piece.royal:
        return 0, 0
    name = movement_name(piece)
    mg, eg = (values or KNOWN_VALUES)[name] if name else (0, 0)
    if name is None:
        # Moving and capturing count half each: a cannon, which moves as a rook but captures
        # only by a hop (nothing on the empty board), is worth less than a rook.
        squares = home_squares(rules, piece)
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


def relative(rules, color: int, rank: int) -> int:
    """A rank seen from `color`'s side (0 = its own first rank)."""
    return rank if color == 0 else rules.ranks - 1 - rank


# ------------------------------------------------------------------------------ building

# The passed-pawn terms, scaled by what promotion gains (_scale_passed).
PASSED_TERMS = ("passed", "passed_free", "passed_own_king", "passed_their_king", "candidate")


def tdiv(a: int, b: int) -> int:
    """Integer division rounding toward zero, as C does."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@dataclass
class EvalTables:
    """What Evaluator keeps of one variant: weights, per-type and per-square tables, vectors.

    Arrays are array('i'); per piece type means index = type (0 unused), per piece code
    index = 2 * type + colour."""

    weights: dict[str, int]  # EVAL with the overrides
    wmg: array  # TERMS weights, middlegame and endgame, in term_layout order
    weg: array
    offsets: dict[str, int]  # first index in wmg / weg of each TERMS entry
    kdw: array  # KING_DANGER weights in danger_names order
    danger: dict[str, int]  # index in kdw of each danger name
    danger_eg: int
    rook_value: int = 0
    max_phase: int = 1
    material_draws: int = 0  # 1 when checkmate is the only way to win
    # the first rank each colour's pawns promote on, where they can only become colour-bound
    # pieces and never leave their file without capturing (-1 otherwise; _bound_promotion)
    promo_rank: tuple[int, int] = (-1, -1)
    arrays: dict[str, array] = field(default_factory=dict)  # the per-type/code/square tables


def build(
    rules,
    weights: dict[str, int] | None = None,
    terms: dict | None = None,
    danger: dict[str, int] | None = None,
    values: dict | None = None,
    pst: dict | None = None,
) -> EvalTables:
    """The evaluation's tables of a variant; ValueError names unknown weights."""
    for given, known, what in (
        (weights, EVAL, "weights"),
        (terms, TERMS, "terms"),
        (danger, KING_DANGER, "danger"),
    ):
        unknown = set(given or {}) - set(known)
        if unknown:
            raise ValueError(f"unknown evaluation {what}: {', '.join(sorted(unknown))}")
    if rules.nsq > MAP_SIZE:
        raise ValueError(f"board of {rules.nsq} cells is larger than the evaluation supports")
    w = dict(EVAL, **(weights or {}))
    t = dict(TERMS, **(terms or {}))
    d = dict(KING_DANGER, **(danger or {}))
    layout = term_layout(t)
    mg, eg = [], []
    for value in t.values():
        for pair in value if isinstance(value, list) else [value]:
            mg.append(int(pair[0]))
            eg.append(int(pair[1]))
    if len(mg) > MAX_TERMS:
        raise ValueError(f"{len(mg)} term weights, more than the evaluation's {MAX_TERMS}")
    names = danger_names()
    if len(names) > MAX_DANGER:
        raise ValueError(f"{len(names)} danger weights, more than the evaluation's {MAX_DANGER}")
    out = EvalTables(
        weights=w,
        wmg=array("i", mg),
        weg=array("i", eg),
        offsets={name: offset for name, (offset, _) in layout.items()},
        kdw=array("i", [int(d[n]) for n in names]),
        danger={n: i for i, n in enumerate(names)},
        danger_eg=int(d["danger_eg"]),
    )
    _build_pieces(out, rules, w, layout, dict(values or KNOWN_VALUES), PST if pst is None else pst)
    _scale_passed(out, rules, values or KNOWN_VALUES)
    out.material_draws = int(_mate_only(rules))
    out.promo_rank = _bound_promotion(rules)
    return out


def _bound_promotion(rules) -> tuple[int, int]:
    """White's and Black's first promotion rank where every pawn steps only along its file
    (captures aside), must promote there, and can only become colour-bound pieces (makruk's
    met): against a bare king such a pawn is a piece on a known square colour. (-1, -1) where
    the rules differ."""
    pawns = [p for p in rules.pieces if p.pawn]
    if not pawns or not rules.promotion_ranks or not rules.mandatory_promotion:
        return (-1, -1)
    if rules.sittuyin_promotion or rules.promotion_region is not None:
        return (-1, -1)
    letters = {p.letter: p for p in rules.pieces}
    for piece in pawns:
        if any(atom.move and atom.dx != 0 for atom in piece.atoms):
            return (-1, -1)
        targets = set(rules.promotion_letters) | set(rules.promotion_letters_black or "")
        if piece.promoted:
            targets.add(piece.promoted)
        if not targets or any(
            x not in letters or not _flags(letters[x]) & FL_COLORBOUND for x in targets
        ):
            return (-1, -1)
    first = min(rules.promotion_ranks)
    return (first, rules.ranks - 1 - first)


def _mate_only(rules) -> bool:
    """Whether checkmate is the only way to win: only then can a side without pawns be judged
    unable to win by its material on the board (no drops, flags, check counts, extinction,
    explosions or losing-chess goals)."""
    return (
        rules.checkmate_value == "loss"
        and not rules.extinction_value
        and not any(rules.flag_letters)
        and not rules.check_counting
        and not rules.drops
        and not rules.must_capture
        and not rules.blast_on_capture
    )


def _scale_passed(out: EvalTables, rules, values: dict) -> None:
    """Passed-pawn terms in proportion to what promotion gains against chess's queen: a pawn
    that can only become a met (makruk) or fers (shatranj) is worth little more near its
    promotion rank, and should not be kept there instead of promoting."""
    value = out.arrays["value"]
    letters = {p.letter: i for i, p in enumerate(rules.pieces, start=1)}
    chess_gain = values["queen"][0] - values["pawn"][0]
    gain = 0
    for t, piece in enumerate(rules.pieces, start=1):
        if not piece.pawn:
            continue
        targets = set(rules.promotion_letters) | set(rules.promotion_letters_black or "")
        if piece.promoted:
            targets.add(piece.promoted)
        best = max((value[letters[x]] for x in targets if x in letters), default=0)
        gain = max(gain, best - value[t])
    pct = max(0, min(100, round(100 * gain / chess_gain)))
    if pct == 100:
        return  # chess and stronger promotions: the weights as tuned
    layout = term_layout()
    for name in PASSED_TERMS:
        offset, size = layout[name]
        for i in range(offset, offset + size):
            out.wmg[i] = tdiv(out.wmg[i] * pct, 100)
            out.weg[i] = tdiv(out.weg[i] * pct, 100)


def _build_pieces(
    out: EvalTables, rules, w: dict[str, int], layout, values: dict, pst: dict
) -> None:
    """Values, classes, piece-square tables and movement vectors of the variant's pieces."""
    nt = len(rules.pieces) + 1
    nsq = rules.nsq
    ncodes = 2 * nt
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
        flags[t] = _flags(piece)
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
                        bonus_mg, bonus_eg = _square_bonus(rules, kind[t], moves, avg, f, rel, w)
                    sq = rules.square(f, r)
                    pst_mg[code * nsq + sq] = sign * (mg + bonus_mg)
                    pst_eg[code * nsq + sq] = sign * (eg + bonus_eg)
            # square 0 (a wall) holds the value of a piece in hand
            pst_mg[code * nsq] = sign * mg
            pst_eg[code * nsq] = sign * eg
    out.rook_value = rook_value
    out.max_phase = max(1, _start_phase(rules, phase_w))
    tables = {
        "kind": kind, "flags": flags, "value": value, "cls": cls, "class_bit": class_bit,
        "bucket": bucket, "mob_off": mob_off, "mob_size": mob_size, "mob_centre": centre,
        "mob_scale": scale, "attack_unit": unit, "pst_mg": pst_mg, "pst_eg": pst_eg,
        "phase_w": phase_w, "sq_file": sq_file, "sq_rank": sq_rank,
    }  # fmt: skip
    tables.update(_check_vectors(rules, set(cls)))
    tables.update(_vectors(rules, nt))
    out.arrays = {name: array("i", values) for name, values in tables.items()}


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


def _square_bonus(rules, kind: int, moves, avg: float, f: int, rank: int, w) -> tuple[int, int]:
    """Positional (mg, eg) bonus of a white piece of this type on (file, rank), derived from
    its mobility (pieces and boards without a square table in PST)."""
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


def _vectors(rules, nt: int) -> dict[str, list[int]]:
    """Mailbox vectors for mobility (plain atoms) and for pawn attacks, per piece code."""
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
    return {
        "mob_first": mob_first, "mob_last": mob_last, "mob_vec": mob_vec or [0],
        "mob_range": mob_range or [0], "cap_first": cap_first, "cap_last": cap_last,
        "cap_vec": cap_vec or [0],
    }  # fmt: skip


def _check_vectors(rules, present: set[int]) -> dict[str, list[int]]:
    """Per class present in the variant, the movement walked back from a king to find the
    squares a piece of that class would check it from (the classes move symmetrically)."""
    stride = rules.stride
    first, vec, rng = [0] * (NCLASSES + 1), [], []
    for k in range(1, NCLASSES):
        first[k] = len(vec)
        if k in present:
            for dx, dy, reach in sorted(MOVEMENTS[CLASSES[k]]):
                vec.append(dy * stride + dx)
                rng.append(reach if reach > 0 else 64)
    first[NCLASSES] = len(vec)
    return {"cv_first": first, "cv_vec": vec or [0], "cv_range": rng or [0]}


def _start_phase(rules, phase_w: list[int]) -> int:
    """Total phase weight of the start position (the 'full middlegame' phase)."""
    total = 0
    for char in rules.start_fen.split()[0]:
        if char.isalpha():
            try:
                t = rules.piece_index(char)
            except ValueError:
                continue
            total += phase_w[2 * t]
    return total
