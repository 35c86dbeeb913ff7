"""Betza's funny notation for piece moves, compiled to `core.rules.Atom` tuples.

The supported subset is the one Fairy-Stockfish reads, with its reading of the directional
modifiers, so that a definition means the same piece in ferz and in the oracle:

* atoms: W F D N A H C (=L) Z (=J) G, and K = WF; riders R = WW, B = FF, Q = RB;
* a doubled atom (`NN`) is an unlimited rider, an atom followed by one digit (`R4`, `N2`) a rider
  of at most that many steps (W, F, N and K only, as in FSF); one direction may not be given
  two different ranges (FSF would silently keep the last);
* modalities: `m` move only, `c` capture only (neither: both); `i` initial moves (only from the
  double-step region); `p` hopper over exactly one screen (W/F directions, riders); `n` lame
  leaper (N, A, D: the square next to the origin on the way must be empty); `e` (en passant)
  is accepted and has no effect of its own (pawn types take e.p.);
* directions: `f b l r v s h` and their two-letter combinations (`fl`, `rv`, `fs`, ...), on
  everything but hoppers.

Everything else (grasshoppers `g`, multi-leg `a`, lame Z/H/C/G leaps, ...) is refused with a
`BetzaError` that says which part of the text it could not read.
"""

from __future__ import annotations

from ferz.core.rules import Atom

# Each atom as (forward, sideways) distances, the larger first, as Fairy-Stockfish lists them.
LEAPERS: dict[str, tuple[tuple[int, int], ...]] = {
    "W": ((1, 0),),
    "F": ((1, 1),),
    "D": ((2, 0),),
    "N": ((2, 1),),
    "A": ((2, 2),),
    "H": ((3, 0),),
    "L": ((3, 1),),
    "C": ((3, 1),),
    "J": ((3, 2),),
    "Z": ((3, 2),),
    "G": ((3, 3),),
    "K": ((1, 0), (1, 1)),
}
RIDERS: dict[str, tuple[tuple[int, int], ...]] = {
    "R": ((1, 0),),
    "B": ((1, 1),),
    "Q": ((1, 0), (1, 1)),
}
VERTICAL = "fbvh"
HORIZONTAL = "rlsh"
MODIFIERS = "mcepnig" + "fbvlrsh"


class BetzaError(ValueError):
    """A Betza string outside the supported subset."""


def _images(a: int, b: int) -> list[tuple[tuple[int, int], tuple[str, ...]]]:
    """The eight images (dx, dy) of an atom, each with the direction words that select it."""
    return [
        ((b, a), ("ff", "vv", "rf", "rv", "fh", "rh", "hr")),
        ((-b, -a), ("bb", "vv", "lb", "lv", "bh", "lh", "hr")),
        ((a, -b), ("rr", "ss", "br", "bs", "bh", "rh", "hr")),
        ((-a, b), ("ll", "ss", "fl", "fs", "fh", "lh", "hr")),
        ((a, b), ("rr", "ss", "fr", "fs", "fh", "rh", "hl")),
        ((-a, -b), ("ll", "ss", "bl", "bs", "bh", "lh", "hl")),
        ((b, -a), ("bb", "vv", "rb", "rv", "bh", "rh", "hl")),
        ((-b, a), ("ff", "vv", "lf", "lv", "fh", "lh", "hl")),
    ]


def _sign(v: int) -> int:
    """-1, 0 or 1."""
    return (v > 0) - (v < 0)


def _leg(dx: int, dy: int) -> tuple[int, int] | None:
    """The one square a lame leap passes (None for one-step atoms)."""
    if max(abs(dx), abs(dy)) < 2:
        return None
    if abs(dx) > abs(dy):
        return (_sign(dx), 0)
    if abs(dy) > abs(dx):
        return (0, _sign(dy))
    return (_sign(dx), _sign(dy))


def _directions(words: list[str], orthogonal_single: bool) -> list[str]:
    """Fairy-Stockfish's expansion: a mixed pair on a lone orthogonal atom means both words."""
    out: list[str] = []
    for word in words:
        if orthogonal_single and word[0] != word[1]:
            out += [word[0] * 2, word[1] * 2]
        else:
            out.append(word)
    return out


def parse(text: str) -> tuple[Atom, ...]:
    """Compile a Betza move string into atoms; BetzaError for anything unsupported."""
    if not isinstance(text, str):
        raise BetzaError("Betza notation must be text")
    atoms: list[Atom] = []
    seen: dict[tuple, tuple] = {}  # one range per kind of move and direction, as in FSF
    i = 0
    n = len(text)
    while i < n:
        start = i
        modes: set[str] = set()
        words: list[str] = []
        hop = lame = initial = False
        while i < n and text[i] in MODIFIERS:
            c = text[i]
            if c in "mc":
                modes.add(c)
            elif c == "e":
                pass  # en passant: who may take e.p. follows the pawn types, as in FSF
            elif c == "p":
                hop = True
            elif c == "n":
                lame = True
            elif c == "i":
                initial = True
            elif c == "g":
                raise BetzaError(f"grasshoppers ('g' at {i + 1} in {text!r}) are not supported")
            else:
                nxt = text[i + 1] if i + 1 < n else ""
                if nxt and (
                    nxt == c
                    or (c in VERTICAL and nxt in HORIZONTAL)
                    or (c in HORIZONTAL and nxt in VERTICAL)
                ):
                    words.append(c + nxt)
                    i += 1
                else:
                    words.append(c + c)
            i += 1
        if i >= n:
            raise BetzaError(f"modifiers {text[start:]!r} at the end of {text!r} have no atom")
        letter = text[i]
        if letter not in LEAPERS and letter not in RIDERS:
            raise BetzaError(f"unsupported Betza letter {letter!r} at {i + 1} in {text!r}")
        i += 1
        rider = letter in RIDERS
        steps = 0 if rider else 1  # 0: unlimited
        if i < n and (text[i] == letter or text[i].isdigit()):
            if text[i].isdigit():
                if text[i] == "0" or (i + 1 < n and text[i + 1].isdigit()):
                    raise BetzaError(f"range in {text!r} must be a single digit 1-9")
                steps = int(text[i])
            else:
                steps = 0
            rider = True
            i += 1
        if rider and letter not in RIDERS and letter not in "WFNK":
            raise BetzaError(f"only W, F, N and K atoms can ride ({text[start:i]!r})")
        base = RIDERS[letter] if letter in RIDERS else LEAPERS[letter]
        reach = steps if rider else 1
        if hop and (not rider or any(b not in (0, a) for a, b in base) or steps != 0):
            raise BetzaError(f"hoppers need an unlimited W or F rider ({text[start:i]!r})")
        if hop and words:
            raise BetzaError(
                f"hoppers take no direction modifiers ({text[start:i]!r}): Fairy-Stockfish "
                "applies them to whole lines, so the two engines would disagree"
            )
        if lame and (rider or letter not in "NADWFK"):
            raise BetzaError(f"lame leapers must be N, A or D ({text[start:i]!r})")
        move = not modes or "m" in modes
        capture = not modes or "c" in modes
        for a, b in base:
            chosen = _directions(words, len(base) == 1 and b == 0)
            for (dx, dy), labels in _images(a, b):
                if chosen and not any(w in labels for w in chosen):
                    continue
                leg = _leg(dx, dy) if lame else None
                kind = "hop" if hop else "ride" if rider else "leap"
                for mode in ("m" if move else "") + ("c" if capture else ""):
                    key = (kind, initial, mode, dx, dy)
                    if seen.setdefault(key, (reach, leg)) != (reach, leg):
                        raise BetzaError(
                            f"direction ({dx},{dy}) is given two different ranges in {text!r}"
                        )
                atoms.append(Atom(dx, dy, reach, move, capture, hop, leg, initial))
    merged = _merge(atoms)
    _check_overlaps(merged, text)
    return merged


def _targets(atom: Atom) -> set[tuple[int, int]]:
    """Squares (relative) an atom can reach on an open board: a hopper lands past a screen."""
    steps = range(2, 17) if atom.hop else range(1, (atom.range or 16) + 1)
    return {(k * atom.dx, k * atom.dy) for k in steps}


def _check_overlaps(atoms: tuple[Atom, ...], text: str) -> None:
    """Refuse two atoms that can make the same move (FSF would count it once, ferz twice).

    A slide and a hop along the same line never reach the same square in one position."""
    for i, a in enumerate(atoms):
        for b in atoms[i + 1 :]:
            if not ((a.move and b.move) or (a.capture and b.capture)):
                continue
            same_line = a.dx * b.dy == a.dy * b.dx and (_sign(a.dx), _sign(a.dy)) == (
                _sign(b.dx),
                _sign(b.dy),
            )
            if a.hop != b.hop and same_line:
                continue
            common = _targets(a) & _targets(b)
            if common:
                x, y = min(common)
                raise BetzaError(f"the move to ({x},{y}) is given twice in {text!r}")


def _merge(atoms: list[Atom]) -> tuple[Atom, ...]:
    """Drop duplicate atoms and join move-only and capture-only twins into one atom."""
    merged: dict[tuple, Atom] = {}
    for atom in atoms:
        key = (atom.dx, atom.dy, atom.range, atom.hop, atom.leg, atom.initial)
        old = merged.get(key)
        if old is None:
            merged[key] = atom
        else:
            merged[key] = Atom(
                atom.dx,
                atom.dy,
                atom.range,
                old.move or atom.move,
                old.capture or atom.capture,
                atom.hop,
                atom.leg,
                atom.initial,
            )
    return tuple(merged.values())
