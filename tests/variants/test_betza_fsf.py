"""Betza pieces against Fairy-Stockfish: random move strings, each placed among blockers.

Every string ferz accepts must give exactly pyffish's moves; strings where the two engines
would read the notation differently must be refused (tested in test_definitions).
"""

from __future__ import annotations

import random

import pytest

from ferz import variants
from ferz.board import Board
from ferz.variants import betza
from ferz.variants.ini import DefinitionError
from tests.variants.oracle import pyffish
from tests.variants.placement import placement

pytestmark = pytest.mark.variant

ATOMS = "WFDNAHCZGK"
DIRECTIONS = ["f", "b", "l", "r", "v", "s", "h", "fl", "fr", "bl", "br", "lf", "rf", "lb"]
DIRECTIONS += ["rb", "fs", "bs", "lv", "rv", "fh", "bh", "lh", "rh", "hl", "hr", "ff", "bb"]


def random_betza(rng: random.Random) -> str:
    """One to three atoms with random modalities, directions, ranges and lameness."""
    parts = []
    for _ in range(rng.randint(1, 3)):
        mod = rng.choice(["", "m", "c", "p", "cp", "mp"]) + rng.choice([""] * 4 + DIRECTIONS)
        atom = rng.choice(ATOMS + "RBQ")
        if atom in "WFNK" and rng.random() < 0.3:
            atom += rng.choice([atom, "2", "3"])
        if atom in "NAD" and rng.random() < 0.3:
            mod = "n" + mod
        parts.append(mod + atom)
    return "".join(parts)


def position(rng: random.Random) -> str:
    """A 9x9 board: the piece on e5, kings in corners, a dozen knights of both colours."""
    grid = [[""] * 9 for _ in range(9)]
    grid[7][0], grid[1][8], grid[4][4] = "k", "K", "Q"
    free = [(f, r) for f in range(9) for r in range(9) if not grid[r][f]]
    for f, r in rng.sample(free, 12):
        grid[r][f] = rng.choice("nN")
    return placement(grid) + " w - - 0 1"


def test_random_betza_pieces_move_as_in_fsf() -> None:
    sf = pyffish()
    rng = random.Random(11)
    compared = 0
    for i in range(400):
        text = random_betza(rng)
        try:
            betza.parse(text)
        except betza.BetzaError:
            continue
        name = f"betza{i}"
        ini = (
            f"[{name}:chess]\nmaxFile = 9\nmaxRank = 9\nqueen = -\ncustomPiece1 = q:{text}\n"
            f"startFen = {position(rng)}\ncastling = false\npromotionPieceTypes = rbn\n"
        )
        try:
            rules = variants.parse_text(ini)[name]
        except DefinitionError:
            continue  # e.g. the piece checks the black king from the start
        sf.load_variant_config(ini)
        ours = sorted(m.text for m in Board(rules=rules).legal_moves if m.text[:2] == "e5")
        theirs = sorted(m for m in sf.legal_moves(name, rules.start_fen, []) if m[:2] == "e5")
        assert ours == theirs, f"{text} in {rules.start_fen}"
        compared += 1
    assert compared >= 60
