"""What the evaluation's tables are built from: piece values derived from movement, the names
of known movements and square tables, and the layout of the tuned weights.

Plain Python (nothing here is hot): Evaluator.__init__ (core/evaluate.py) reads it once per
variant, the tuner (tools/tune.py) for its feature order.
"""

from __future__ import annotations

from ferz.params import EVAL, KNOWN_VALUES, TERMS

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
