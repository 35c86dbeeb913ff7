"""What XBoard must be told to play a variant it does not know: `setup` and `piece` lines.

CECP (XBoard 4.8+) lets an engine define a variant by name: after `variant NAME` it sends
`setup (PIECETOCHAR) WxH+S_PARENT FEN`, which maps the variant's letters onto XBoard's piece
images (a `-pieceToCharTable`), gives the board size, the holdings size and a parent variant
whose general rules XBoard applies, and one `piece L& BETZA` line per piece so that XBoard's
legality testing knows how each piece moves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: Variants XBoard 4.9 plays by its own rules under the same name and start position as ferz's
#: built-ins (Fairy-Stockfish 11.1, measured, sends no `setup` for these either).
XBOARD_KNOWS = frozenset(
    (
        "normal",
        "fischerandom",
        "nocastle",
        "shatranj",
        "makruk",
        "asean",
        "capablanca",
        "gothic",
        "caparandom",
        "janus",
        "knightmate",
        "grand",
        "xiangqi",
        "shogi",
        "crazyhouse",
        "seirawan",
        "bughouse",
    )
)


@dataclass(frozen=True)
class Layout:
    """XBoard's piece slots for a parent variant: the table length, the royal slot, and the
    offset from a piece's slot to its promoted form's slot (shogi), if any."""

    size: int
    royal: int
    promote: int | None
    preferred: dict[str, int]  # Betza text or type name -> preferred slot


# Slots follow XBoard's piece order (Pawn Knight Bishop Rook Queen Ferz Alfil Archbishop
# Chancellor Wazir Man Cannon Nightrider ...); a table shorter than all slots puts its last
# letter on the King (XBoard's SetCharTable).
FAIRY = Layout(
    22,
    21,
    None,
    {"N": 1, "B": 2, "R": 3, "Q": 4, "RB": 4, "BR": 4, "F": 5, "A": 6, "BN": 7, "NB": 7}
    | {"RN": 8, "NR": 8, "W": 9, "K": 10, "mRcpR": 11, "NN": 12, "N0": 12},
)
# Shogi: pawn, knight, bishop, rook, lance, silver, gold in fixed slots, promoted at +11.
SHOGI = Layout(
    18,
    17,
    11,
    {"shogiPawn": 0, "shogiKnight": 1, "bishop": 2, "rook": 3, "lance": 4, "silver": 5}
    | {"gold": 9, "fW": 0, "fN": 1, "B": 2, "R": 3, "fR": 4, "FfW": 5, "WfF": 9},
)
# Xiangqi: the general sits in the Wazir slot; the King slot stays empty.
XIANGQI = Layout(
    22,
    9,
    None,
    {"soldier": 0, "horse": 1, "rook": 3, "fers": 5, "elephant": 6, "cannon": 11}
    | {"nN": 1, "R": 3, "F": 5, "nA": 6, "mRcpR": 11},
)
LAYOUTS = {"fairy": FAIRY, "shogi": SHOGI, "xiangqi": XIANGQI}
FAIRY_LETTERS = "PNBRQFEACWMOHIJGDVLSUK"  # XBoard's default letter of each fairy slot
STANDARD = set("PNBRQK")


@dataclass
class XboardSetup:
    """The lines that teach XBoard one variant."""

    parent: str
    table: str
    holdings: int
    fen: str
    pieces: list[tuple[str, str]]  # (letter as XBoard writes it, Betza)

    def lines(self, files: int, ranks: int) -> list[str]:
        """The `setup` line and the `piece` lines."""
        head = f"setup ({self.table}) {files}x{ranks}+{self.holdings}_{self.parent} {self.fen}"
        return [head, *(f"piece {letter}& {betza}" for letter, betza in self.pieces)]


def xboard_betza(betza: str) -> str:
    """Betza as XBoard 4.9 reads it: Q as RB (same modifiers and range), and riders written
    with a doubled atom (NN, the nightrider) as the atom with range 0 (N0)."""
    betza = re.sub(r"([A-Z])\1(?!\d)", r"\g<1>0", betza)
    return re.sub(r"([a-z]*)Q(\d*)", r"\1R\2\1B\2", betza)


def piece_betza(rules: Any, piece: Any, defined: str) -> str:
    """The Betza XBoard should use for a piece: its definition fitted to the variant's rules."""
    betza = defined
    if piece.pawn and defined == "fmWfceFifmnD":  # Fairy-Stockfish's pawn, all options on
        if not rules.double_step_ranks:
            betza = betza.replace("ifmnD", "")
        if not rules.en_passant:
            betza = betza.replace("fceF", "fcF")
    if piece.royal and rules.castling and not rules.chess960:
        start = king_file(rules)
        if piece.letter == rules.castling_king and start is not None:
            betza += f"O{abs(rules.castling_kingside_file - start)}"
    if rules.cambodian_moves:  # the first leaps, as Fairy-Stockfish describes them to XBoard
        if piece.royal:
            betza += "ismN"
        elif piece.name == "fers":
            betza += "ifmD"
    return xboard_betza(betza)


def king_file(rules: Any) -> int | None:
    """The file of White's castling king in the start position, if it stands there."""
    rows = rules.start_fen.split()[0].split("[")[0].split("/")
    if rules.castling_rank >= len(rows):
        return None
    row = rows[len(rows) - 1 - rules.castling_rank]
    file = 0
    for number, letter in re.findall(r"(\d+)|(\+?[A-Za-z]~?)", row):
        if letter == rules.castling_king:
            return file
        file += int(number) if number else 1
    return None


def parent_of(rules: Any) -> str:
    """The XBoard variant whose general rules fit (drops, promotion style, palace, royalty)."""
    letters = {p.letter for p in rules.pieces}
    if rules.drops and any(p.letter.startswith("+") for p in rules.pieces):
        return "shogi"
    if rules.drops:
        if rules.files == rules.ranks == 8 and {x.rstrip("~") for x in letters} <= STANDARD:
            return "crazyhouse" if rules.captures_to_hand else "bughouse"
        return "fairy"
    if rules.flying_general:
        return "xiangqi"
    if rules.must_capture and not any(p.royal for p in rules.pieces):
        return "giveaway"
    return "fairy"


def on_board(rules: Any) -> list[Any]:
    """The unpromoted piece types that can stand on the board: in the start position or hand,
    or promotion choices (a type that only lends its moves to a promoted form is left out)."""
    board = rules.start_fen.split()[0]
    used = {c.upper() for c in board if c.isalpha()}
    used |= set(rules.promotion_letters) | set(rules.promotion_letters_black or "")
    return [
        p
        for p in rules.pieces
        if not p.letter.startswith("+") and not p.letter.endswith("~") and p.letter in used
    ]


def assign(rules: Any, parent: str, betzas: dict[str, str]) -> dict[str, int]:
    """XBoard slot of each piece letter that can appear; ValueError if they do not fit."""
    layout = LAYOUTS.get(parent, FAIRY)
    slots: dict[str, int] = {}
    taken: set[int] = set()
    pieces = on_board(rules)
    shogi = layout.promote is not None
    last = layout.promote if layout.promote is not None else layout.size - 1

    def king(piece: Any) -> bool:
        """Whether the piece belongs in the King slot (giveaway's king is not royal)."""
        return piece.royal or (parent == "giveaway" and piece.name == "commoner")

    def fits(piece: Any, slot: int | None) -> bool:
        """Whether the piece can take this slot (and its promoted form the one above)."""
        if slot is None or slot in taken or (slot == layout.royal) != king(piece):
            return False
        if piece.promoted and layout.promote is not None:
            above = slot + layout.promote
            return above < layout.size - 1 and above != layout.royal and above not in taken
        return True

    # royal pieces, pawns and promotable pieces first (they have the fewest choices)
    for piece in sorted(pieces, key=lambda p: (not king(p), not p.pawn, not p.promoted)):
        wanted = [
            layout.royal if king(piece) else None,
            0 if piece.pawn else None,
            layout.preferred.get(piece.name),
            layout.preferred.get(betzas.get(piece.letter, "")),
        ]
        if not shogi and piece.letter in FAIRY_LETTERS[:-1]:
            wanted.append(FAIRY_LETTERS.index(piece.letter))
        wanted += list(range(last))
        slot = next((s for s in wanted if fits(piece, s)), None)
        if slot is None:
            raise ValueError(f"{len(pieces)} piece types do not fit XBoard's piece table")
        slots[piece.letter] = slot
        taken.add(slot)
        if piece.promoted and layout.promote is not None:
            taken.add(slot + layout.promote)
    return slots


def build_setup(rules: Any, betzas: dict[str, str], fen: str) -> XboardSetup:
    """The setup for a variant XBoard does not know."""
    parent = parent_of(rules)
    layout = LAYOUTS.get(parent, FAIRY)
    slots = assign(rules, parent, betzas)
    white = ["."] * layout.size
    for letter, slot in slots.items():
        white[slot] = letter
        piece = rules.pieces[rules.piece_index(letter) - 1]
        if piece.promoted and layout.promote is not None:
            white[slot + layout.promote] = "+"
    if parent == "xiangqi":
        white[layout.size - 1] = "."
    black = [c.lower() for c in white]
    if rules.promotion_letters_black is not None:  # one side's promotion choices only
        for letter, slot in slots.items():
            piece = rules.pieces[rules.piece_index(letter) - 1]
            board = rules.start_fen.split()[0]
            if piece.pawn or piece.royal:
                continue
            if letter not in board and letter not in rules.promotion_letters:
                white[slot] = "."
            if letter.lower() not in board and letter not in rules.promotion_letters_black:
                black[slot] = "."
    table = "".join(white) + "".join(black)
    holdings = 0
    if rules.drops:
        count = sum(1 for c in white if c not in ".+") - (1 if parent != "xiangqi" else 0)
        holdings = max(count, int(rules.extra.get("pocketSize", "0") or 0))
    pieces: list[tuple[str, str]] = []
    for letter in sorted(slots, key=slots.get):  # type: ignore[arg-type]
        piece = rules.pieces[rules.piece_index(letter) - 1]
        pieces.append((letter, piece_betza(rules, piece, betzas.get(letter, ""))))
        if piece.promoted:
            promoted = rules.pieces[rules.piece_index(piece.promoted) - 1]
            source = next((p for p in rules.pieces if p.atoms == promoted.atoms), promoted)
            text = betzas.get(source.letter, "")
            pieces.append((piece.promoted, piece_betza(rules, promoted, text)))
    return XboardSetup(parent, table, holdings, gui_fen(fen), [p for p in pieces if p[1]])


def gui_fen(fen: str) -> str:
    """A ferz FEN as XBoard reads it: an empty pocket written `[-]`."""
    return fen.replace("[]", "[-]", 1)


def setup_lines(rules: Any, betzas: dict[str, str], name: str, builtin: bool) -> list[str]:
    """The lines to send after `variant NAME`: none for a variant XBoard knows."""
    if builtin and name in XBOARD_KNOWS:
        return []
    setup = build_setup(rules, betzas, rules.start_fen)
    return setup.lines(rules.files, rules.ranks)


SETUP = re.compile(
    r"(?:\((?P<table>[^)]*)\)\s*)?"  # (PIECETOCHAR)
    r"(?:(?P<w>\d+)x(?P<h>\d+)\+(?P<s>\d+)_(?P<p>\S+)(?:\s+|$))?"  # WxH+S_PARENT
)


def parse_setup(text: str) -> tuple[tuple[int, int] | None, str]:
    """`setup [(TABLE)] [WxH+S_PARENT] FEN` from a GUI: ((files, ranks) or None, FEN)."""
    match = SETUP.match(text.strip())
    assert match is not None  # every group is optional
    fen = text.strip()[match.end() :].strip()
    if not fen:
        raise ValueError("setup needs a FEN")
    size = None
    if match.group("w"):
        size = (int(match.group("w")), int(match.group("h")))
    return size, fen.replace("[-]", "[]", 1)
