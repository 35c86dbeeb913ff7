"""Fairy-Max's game file (`fmax.ini`): its games translated into ferz's variant definitions.

Fairy-Max describes a game by its board size (with an optional promotion-zone depth `=N`), two
rows of piece numbers (White's and Black's back rank; pawns fill the rank in front) and up to
15 piece lines `c:value ray ray ...`. A ray is `step,mode[,step2]`: the step on a 16-wide
board (-16 is one rank towards Black), the move mode in hexadecimal (1 capture, 2 non-capture,
4 leaper, 8 hopper in the last digit; the digits above it toggle those after some steps) and an
optional second step for bent paths. Piece 1 is White's pawn, piece 2 Black's; pawns promote
on the zone's rank; a negative value makes a piece royal.

This module reads that format (`parse`) and writes each game as the `key = value` entries of
ferz's own format (`translate`), so that the same builder compiles it. A game with a move ferz
cannot express (a wrap-around board, bent sliders, hoppers, initial jumps...) is skipped with
the reason; a file that does not follow the format at all is refused with its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .ini import DefinitionError, IniEntry, Section

BOARD = re.compile(r"(\d+)x(\d+)(?:=(-?\d+))?\s*\Z")
PIECE = re.compile(r"([A-Za-z]):(-?\d+)((?:\s+\S+)*)\s*\Z")
RAY = re.compile(r"(-?\d+),([0-9A-Fa-f]{1,8})(?:,(-?\d+))?\Z")
ATOMS = {(1, 0): "W", (1, 1): "F", (2, 0): "D", (2, 1): "N", (2, 2): "A", (3, 0): "H"}
ATOMS.update({(3, 1): "C", (3, 2): "Z", (3, 3): "G"})
RIDERS = {"W", "F", "N"}
MAX_TYPES = 15
NAME_BAD = re.compile(r"[^A-Za-z0-9_+-]")


class Skip(Exception):
    """A game that ferz cannot express; the message says why."""


@dataclass(frozen=True)
class Ray:
    """One direction of a piece: first step, mode bits, and the optional second step."""

    step: int
    mode: int
    step2: int | None


@dataclass
class Piece:
    """One piece line: its letter (lower case), value and rays."""

    letter: str
    value: int
    rays: list[Ray]
    line: int


@dataclass
class FmaxGame:
    """One `Game:` section as written."""

    name: str
    line: int
    files: int
    ranks: int
    depth: int  # the `=N` suffix (1 when absent)
    white: list[int]
    black: list[int]
    pieces: list[Piece] = field(default_factory=list)


def detect(text: str) -> bool:
    """Whether a definition text is in Fairy-Max's format (by content, not by file name)."""
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if re.match(r"version \d", line) or line.startswith("Game:"):
            return True
        break
    return any(raw.startswith("Game:") for raw in text.splitlines()) and not any(
        raw.lstrip().startswith("[") for raw in text.splitlines()
    )


def _error(source: str, line: int, message: str) -> DefinitionError:
    """A malformed-file error at a line."""
    return DefinitionError(source, line, message)


def _mode(text: str) -> int:
    """A mode word as Fairy-Max's C code sees it: hexadecimal, as a signed 32-bit int."""
    value = int(text, 16)
    return value - (1 << 32) if value >= 1 << 31 else value


def parse(text: str, source: str = "<string>") -> list[FmaxGame]:
    """Every `Game:` section of a Fairy-Max file; DefinitionError on a malformed one."""
    lines = text.splitlines()
    games: list[FmaxGame] = []
    i = 0
    while i < len(lines):
        raw = lines[i]
        i += 1
        if not raw.startswith("Game:"):
            continue  # anything outside a game is a comment to Fairy-Max
        start = i
        words = raw[5:].split()
        if not words:
            raise _error(source, start, "'Game:' without a name")
        name = words[0]
        i = _skip_blank(lines, i)
        if i >= len(lines) or not BOARD.match(lines[i].strip()):
            got = lines[i].strip() if i < len(lines) else "end of file"
            raise _error(source, i + 1, f"game {name}: expected the board size WxH, got {got!r}")
        match = BOARD.match(lines[i].strip())
        assert match is not None
        files, ranks = int(match.group(1)), int(match.group(2))
        depth = int(match.group(3)) if match.group(3) else 1
        if not (1 <= files <= 16 and 1 <= ranks <= 16):
            raise _error(source, i + 1, f"game {name}: board {files}x{ranks} out of range")
        i += 1
        setup_line = _skip_blank(lines, i) + 1
        numbers: list[int] = []
        while len(numbers) < 2 * files:
            i = _skip_blank(lines, i)
            if i >= len(lines):
                raise _error(source, i, f"game {name}: the setup rows end early")
            for word in lines[i].split():
                if not re.fullmatch(r"\d+", word):
                    raise _error(source, i + 1, f"game {name}: bad piece number {word!r}")
                numbers.append(int(word))
            i += 1
        if len(numbers) != 2 * files:
            raise _error(source, i, f"game {name}: the setup rows need {files} numbers each")
        game = FmaxGame(name, start, files, ranks, depth, numbers[:files], numbers[files:])
        while i < len(lines):
            line = lines[i].strip()
            piece = PIECE.match(line)
            if not piece:
                break
            rays = []
            for word in piece.group(3).split():
                ray = RAY.match(word)
                if not ray:
                    raise _error(source, i + 1, f"game {name}: bad ray {word!r}")
                step2 = int(ray.group(3)) if ray.group(3) is not None else None
                rays.append(Ray(int(ray.group(1)), _mode(ray.group(2)), step2))
            game.pieces.append(Piece(piece.group(1).lower(), int(piece.group(2)), rays, i + 1))
            i += 1
        if not game.pieces:
            raise _error(source, start, f"game {name}: no piece lines")
        if len(game.pieces) > MAX_TYPES:
            raise _error(source, start, f"game {name}: more than {MAX_TYPES} piece types")
        for number in game.white + game.black:
            if number > len(game.pieces):
                raise _error(source, setup_line, f"game {name}: piece number {number} undefined")
        games.append(game)
    return games


def _skip_blank(lines: list[str], i: int) -> int:
    """The index of the next non-blank line."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def _vector(step: int) -> tuple[int, int]:
    """A 16-wide board step as (dx, dy), dy counted towards Black (Fairy-Max's -16 is up)."""
    dx = (step + 8) % 16 - 8
    return dx, -((step - dx) // 16)


# A decoded move of one piece, in absolute board directions (dy > 0 towards Black):
# ("leap"|"ride"|"lame", dx, dy, range, move, capture), ("double", dx, dy, 0, True, False),
# ("castle", first dx, 0, then dx, False, False).
Move = tuple[str, int, int, int, bool, bool]


def _decode(ray: Ray, pawn: bool) -> Move:
    """One ray as a move ferz knows; Skip with the reason if it has none."""
    mode = ray.mode
    if ray.step2 is not None:
        mode += (ray.step2 ^ ray.step) << 12
    low, toggle, special, second = mode & 15, mode >> 4 & 15, mode >> 8 & 15, mode >> 12
    dx, dy = _vector(ray.step)
    text = f"{ray.step},{ray.mode & 0xFFFFFFFF:X}"
    if special & 1:
        raise Skip(f"wrap-around board (cylinder move {text})")
    if special & 2:
        raise Skip(f"multi-path move {text}")
    if low in (5, 6, 7) and toggle == special == second == 0:
        return ("leap", dx, dy, 1, bool(low & 2), bool(low & 1))
    if low in (1, 2, 3) and toggle == special == second == 0:
        return ("ride", dx, dy, 0, bool(low & 2), bool(low & 1))
    if low == 3 and toggle == 4 and second == 0 and not special & 3:
        return ("ride", dx, dy, 2 + (special >> 2), True, True)
    if low == 0 and toggle == 7 and special == 0:
        ex, ey = _vector(ray.step ^ second)
        return ("lame", dx + ex, dy + ey, 1, True, True) if (ex, ey) == (dx, dy) else _bent(ray)
    if low == 4 and toggle == 2 and special == second == 0 and pawn and dx == 0:
        return ("double", 0, 2 * dy, 0, True, False)
    if low == 4 and toggle == 3 and special == 0 and dy == 0:
        ex, ey = _vector(ray.step ^ second)
        if ey == 0 and abs(dx) == 1 and ex * dx > 0:
            return ("castle", dx, 0, ex, False, False)
    if low == 4 and toggle in (14, 15):
        raise Skip(f"initial jump {text}")
    if low == 4:
        raise Skip(f"initial move {text} other than a pawn's straight double step or castling")
    if low in (8, 10, 12) or toggle & 8:
        raise Skip(f"hopper move {text}")
    raise Skip(f"move {text} has no ferz equivalent")


def _sign(v: int) -> int:
    """-1, 0 or 1."""
    return (v > 0) - (v < 0)


def _bent(ray: Ray) -> Move:
    """A lame leap whose second step turns: ferz's lame knight if it first steps straight."""
    fx, fy = _vector(ray.step)
    sx, sy = _vector(ray.step ^ (ray.mode >> 12))
    tx, ty = fx + sx, fy + sy
    leg = (_sign(tx), 0) if abs(tx) > abs(ty) else (0, _sign(ty))
    if sorted((abs(tx), abs(ty))) == [1, 2] and (fx, fy) == leg:
        return ("lame", tx, ty, 1, True, True)
    raise Skip(f"bent move {ray.step},{ray.mode & 0xFFFFFFFF:X}")


def _moves(piece: Piece, pawn: bool, virgin: bool) -> frozenset[Move]:
    """All of a piece's moves, decoded; without its first-move rays if it never stands unmoved
    (a piece that only a promotion brings: Fairy-Max marks it as moved)."""
    return frozenset(_decode(ray, pawn) for ray in piece.rays if virgin or ray.mode & 15 != 4)


def _mirror(moves: frozenset[Move]) -> frozenset[Move]:
    """The same moves seen from the other side (ranks reversed)."""
    return frozenset((k, dx, -dy, r, m, c) for k, dx, dy, r, m, c in moves)


def _word(dx: int, dy: int) -> str:
    """The Betza direction word that selects exactly the image (dx, dy) of its atom."""
    a, b = max(abs(dx), abs(dy)), min(abs(dx), abs(dy))
    if b == 0:
        return "ff" if dy > 0 else "bb" if dy < 0 else "rr" if dx > 0 else "ll"
    if a == b:
        return ("f" if dy > 0 else "b") + ("r" if dx > 0 else "l")
    if abs(dy) > abs(dx):  # steep: the vertical letter second
        return ("r" if dx > 0 else "l") + ("f" if dy > 0 else "b")
    return ("f" if dy > 0 else "b") + ("r" if dx > 0 else "l")


def _images(a: int, b: int) -> set[tuple[int, int]]:
    """The distinct images of an atom (a, b)."""
    out = set()
    for x, y in ((a, b), (b, a)):
        for sx in (1, -1):
            for sy in (1, -1):
                out.add((sx * x, sy * y))
    return out


def betza(moves: frozenset[Move]) -> str:
    """White's moves (dy > 0 forward) in the Betza subset ferz reads; Skip if not expressible."""
    groups: dict[tuple[str, str, int, bool, bool], set[tuple[int, int]]] = {}
    rides = {(dx, dy, m, c) for k, dx, dy, r, m, c in moves if k == "ride"}
    for kind, dx, dy, reach, move, capture in sorted(moves):
        if kind == "castle":
            continue
        if kind == "leap" and (dx, dy, move, capture) in rides:
            continue  # the slide covers it
        a, b = max(abs(dx), abs(dy)), min(abs(dx), abs(dy))
        atom = ATOMS.get((a, b))
        if kind == "double":
            atom, move, capture = "D", True, False
        if atom is None:
            raise Skip(f"leap ({dx},{dy}) is not a Betza atom ferz knows")
        if kind == "ride" and atom not in RIDERS:
            raise Skip(f"a rider of ({dx},{dy}): ferz's riders are W, F and N")
        if kind == "ride" and reach > 9:
            raise Skip(f"range {reach} over 9")
        groups.setdefault((kind, atom, reach, move, capture), set()).add((dx, dy))
    parts = []
    for (kind, atom, reach, move, capture), targets in sorted(groups.items()):
        a, b = next(((max(abs(x), abs(y)), min(abs(x), abs(y))) for x, y in targets))
        words = "" if targets == _images(a, b) else "".join(_word(x, y) for x, y in sorted(targets))
        modes = "" if move and capture else "m" if move else "c"
        prefix = {"double": "in", "lame": "n"}.get(kind, "")
        suffix = atom if kind != "ride" else atom * 2 if reach == 0 else f"{atom}{reach}"
        parts.append(prefix + modes + words + suffix)
    return "".join(parts)


def ferz_name(name: str, taken: set[str]) -> str:
    """A ferz variant name for a Fairy-Max game: its own when free, else with `-fmax`."""
    clean = NAME_BAD.sub("-", name).strip("-") or "game"
    if not clean[0].isalnum():
        clean = "g" + clean
    return clean + "-fmax" if clean.lower() in taken else clean


def translate(game: FmaxGame, source: str, name: str) -> Section:
    """A Fairy-Max game as a ferz section (entries pointing at its lines); Skip if impossible."""
    pieces = game.pieces
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for number, piece in enumerate(pieces, start=1):
        first.setdefault(piece.letter, number)
        last[piece.letter] = number
    hill = len(pieces) >= 3 and pieces[2].value == -2  # Fairy-Max's king of the hill
    if any(p.value < -1 for n, p in enumerate(pieces) if not (hill and n == 2)):
        raise Skip("royal values below -1 (expendable royalty) are not supported")
    if game.name == "seirawan":
        raise Skip("gating (Fairy-Max gates pieces in when the game is named seirawan)")
    if game.files > 14:
        raise Skip("boards wider than 14 files (Fairy-Max's own limit)")
    # `=N`: the promotion rank N-1 from the far edge, pawns as far from their own; a negative
    # N keeps the zone on the last rank and puts the pawns on rank 1-N (Fairy-Max's reading)
    zone = game.depth - 1
    rank = zone if zone else 1
    if zone < 0:
        rank, zone = -1 - zone, 0
    if rank == 3:
        raise Skip("promotion to the piece that started on the file (pawns on the 4th rank)")
    pawn_type = {1, 2}

    in_setup = {pieces[n - 1].letter for n in game.white + game.black + [1, 2] if n}

    def moves(number: int, black: bool) -> frozenset[Move]:
        """A piece number's moves in White's frame."""
        piece = pieces[number - 1]
        try:
            found = _moves(piece, number in pawn_type, piece.letter in in_setup)
        except Skip as skip:
            piece = pieces[number - 1]
            raise Skip(f"piece {piece.letter} (line {piece.line}): {skip}") from None
        return _mirror(found) if black else found

    letters: dict[str, frozenset[Move]] = {}
    used: set[str] = set()

    def letter_of(number: int, black: bool) -> str:
        """The letter that names a piece number for its side; Skip if none names it."""
        piece = pieces[number - 1]
        canonical = (last if black else first)[piece.letter]
        if moves(canonical, black) != moves(number, black) or (pieces[canonical - 1].value < 0) != (
            piece.value < 0
        ):
            raise Skip(f"piece number {number} cannot be named by its letter {piece.letter!r}")
        used.add(piece.letter)
        return piece.letter

    if len(pieces) < 2 or pieces[0].letter != pieces[1].letter:
        raise Skip("pieces 1 and 2 (the pawns) need one letter")
    pawn = letter_of(1, False)
    letter_of(2, True)
    white_row = [letter_of(n, False) if n else "" for n in game.white]
    black_row = [letter_of(n, True) if n else "" for n in game.black]
    promo = sorted(
        letter
        for letter in first
        if letter != pawn
        and pieces[first[letter] - 1].value >= 0
        and pieces[first[letter] - 1].value % 10 != 3
        and pieces[last[letter] - 1].value >= 0
        and pieces[last[letter] - 1].value % 10 != 3
    )
    used.update(promo)
    promo_white, promo_black = list(promo), list(promo)
    notes = []
    for letter in sorted(used):
        white, black = moves(first[letter], False), moves(last[letter], True)
        if white != black:
            # One army's piece: it keeps its own side's orientation, and the other side
            # cannot promote to it (Fairy-Max would give it the mirrored moves).
            if letter in white_row and letter in black_row or letter not in in_setup:
                raise Skip(f"piece {letter} moves differently for White and Black")
            black_owned = letter in black_row
            (promo_white if black_owned else promo_black).remove(letter)
            notes.append(f"{'White' if black_owned else 'Black'} cannot promote to {letter}")
            white = black if black_owned else white
        letters[letter] = white
    royals = sorted({p.letter for p in pieces if p.value < 0} & used)
    if len(royals) != 1:
        raise Skip(f"{len(royals)} royal piece types (ferz needs one)")
    royal = royals[0]
    if white_row.count(royal) != 1 or black_row.count(royal) != 1:
        raise Skip("each side needs exactly one royal piece")
    for letter, found in letters.items():
        if letter != royal and any(m[0] == "castle" for m in found):
            raise Skip(f"castling by the non-royal piece {letter}")
        if letter != pawn and any(m[0] == "double" for m in found):
            raise Skip(f"a double step by the non-pawn {letter}")
    line = game.line
    entries: list[tuple[str, str]] = [("maxFile", str(game.files)), ("maxRank", str(game.ranks))]
    custom = 0
    for letter in sorted(letters):
        text = betza(letters[letter])
        if letter == royal:
            entries.append(("king", f"{letter}:{text}"))
        else:
            custom += 1
            entries.append((f"customPiece{custom}", f"{letter}:{text}"))
    entries.append(("pawnTypes", pawn))
    entries.append(("promotionPieceTypesWhite", "".join(promo_white) or "-"))
    entries.append(("promotionPieceTypesBlack", "".join(promo_black) or "-"))
    entries.append(("promotionRegionWhite", f"*{game.ranks - zone}"))
    entries.append(("promotionRegionBlack", f"*{zone + 1}"))
    if any(m[0] == "double" for m in letters[pawn]):
        entries.append(("doubleStepRegionWhite", f"*{rank + 1}"))
        entries.append(("doubleStepRegionBlack", f"*{game.ranks - rank}"))
    else:
        entries.append(("doubleStep", "false"))
    if hill:
        if pieces[2].letter != royal:
            raise Skip("a hill piece that is not the royal piece")
        # the royal piece wins on the four central squares (rows 3 and 4 from the top)
        files = (game.files // 2 - 1, game.files // 2)
        ranks = (game.ranks - 5, game.ranks - 4)  # from 0
        centre = " ".join(f"{chr(97 + f)}{r + 1}" for r in ranks for f in files)
        entries += [("flagPiece", royal), ("flagRegion", centre)]
    rights = _castling(letters[royal], white_row, black_row, royal, entries)
    entries.append(("startFen", _fen(game, white_row, black_row, pawn, rank, rights)))
    note = "".join(f"; {text}" for text in notes)
    entries.append(("description", f"Fairy-Max game {game.name} ({source}:{line}{note})"))
    section = Section(name, None, source, line)
    section.entries = [IniEntry(key, value, source, line) for key, value in entries]
    return section


def _castling(
    moves: frozenset[Move],
    white_row: list[str],
    black_row: list[str],
    royal: str,
    entries: list[tuple[str, str]],
) -> str:
    """Castling entries from the royal piece's castling rays; the FEN's castling rights."""
    castles = [(dx, ex) for kind, dx, _dy, ex, _m, _c in moves if kind == "castle"]
    if not castles:
        entries.append(("castling", "false"))
        return "-"
    sides = {dx: ex for dx, ex in castles}
    if len(sides) != len(castles):
        raise Skip("more than one castling move to one side")
    king = white_row.index(royal)
    if black_row.index(royal) != king:
        raise Skip("the kings start on different files")
    corners = {white_row[-1] if dx > 0 else white_row[0] for dx in sides}
    corners |= {black_row[-1] if dx > 0 else black_row[0] for dx in sides}
    if len(corners) != 1 or "" in corners or royal in corners:
        raise Skip("castling partners of different kinds")
    land = {dx: king + dx + ex for dx, ex in sides.items()}
    files = len(white_row)
    kingside = land.get(1, min(king + 2, files - 2))
    queenside = land.get(-1, max(king - 2, 1))
    entries.append(("castlingKingFile", str(king + 1)))
    entries.append(("castlingKingsideFile", str(kingside + 1)))
    entries.append(("castlingQueensideFile", str(queenside + 1)))
    entries.append(("castlingRookPieces", corners.pop()))
    rights = ("K" if 1 in sides else "") + ("Q" if -1 in sides else "")
    return rights + rights.lower()


def _fen(
    game: FmaxGame, white_row: list[str], black_row: list[str], pawn: str, rank: int, rights: str
) -> str:
    """The start position as a FEN: back ranks, pawns `rank` ranks in front of them."""
    rows: list[str] = []
    files, ranks = game.files, game.ranks
    for y in range(ranks - 1, -1, -1):
        if y == 0:
            cells = [c.upper() for c in white_row]
        elif y == ranks - 1:
            cells = list(black_row)
        elif y == rank:
            cells = [pawn.upper()] * files
        elif y == ranks - 1 - rank:
            cells = [pawn] * files
        else:
            cells = [""] * files
        text, empty = "", 0
        for cell in cells:
            if cell:
                text += (str(empty) if empty else "") + cell
                empty = 0
            else:
                empty += 1
        rows.append(text + (str(empty) if empty else ""))
    return "/".join(rows) + f" w {rights or '-'} - 0 1"


def sections(
    text: str, source: str, taken: set[str]
) -> tuple[list[Section], list[tuple[str, int, str]]]:
    """The games ferz can express as sections, and (name, line, reason) for those skipped.

    `taken` holds the names in use (lower case): a game named like one gets `-fmax` appended.
    A game defined twice is read the first time, as Fairy-Max does."""
    done: list[Section] = []
    skipped: list[tuple[str, int, str]] = []
    seen: dict[str, int] = {}
    names = set(taken)
    for game in parse(text, source):
        if game.name in seen:
            skipped.append((game.name, game.line, f"defined before on line {seen[game.name]}"))
            continue
        seen[game.name] = game.line
        name = ferz_name(game.name, names)
        try:
            done.append(translate(game, source, name))
        except Skip as skip:
            skipped.append((game.name, game.line, str(skip)))
            continue
        names.add(name.lower())
    return done, skipped
