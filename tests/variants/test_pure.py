"""The uncompiled core (FERZ_PURE=1) plays every built-in variant exactly like the compiled one."""

from __future__ import annotations

import random

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core import compiled, endrules
from ferz.core.perft import perft
from tests.pure_core import run_pure

pytestmark = pytest.mark.variant

SCRIPT = """
import json, sys
from ferz import variants
from ferz.core import compiled, endrules
from ferz.board import Board
from ferz.core.perft import perft
out = []
for name, fen, depth in json.loads(sys.stdin.read()):
    board = Board(fen, variant=name)
    pos = board.position
    out.append([perft(pos, depth), pos.key, endrules.end_value(pos)])
print(json.dumps({"compiled": compiled(), "results": out}))
"""


def _cases() -> list[tuple[str, str, int]]:
    """Per variant: a position after 30 seeded random plies, perft depth 2 (1 if wide)."""
    cases = []
    rng = random.Random(7)
    for name in variants.builtins():
        board = Board(variant=name)
        for _ in range(30):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
        depth = 2 if len(board.legal_moves) < 60 else 1
        cases.append((name, board.fen(), depth))
    return cases


@pytest.mark.skipif(not compiled(), reason="compares the compiled core with the pure one")
def test_pure_core_matches_compiled_in_every_variant() -> None:
    cases = _cases()
    results = run_pure(SCRIPT, cases)
    expected = []
    for name, fen, depth in cases:
        board = Board(fen, variant=name)
        pos = board.position
        expected.append([perft(pos, depth), pos.key, endrules.end_value(pos)])
    for case, mine, theirs in zip(cases, expected, results, strict=True):
        assert theirs == mine, case


DROPS = """
import json, random, sys
from ferz import variants
from ferz.board import Board
from ferz.core import compiled, movegen
from ferz.core.defs import DROP, encode
out = []
for name in json.loads(sys.stdin.read()):
    board, rng = Board(variant=name), random.Random(name)
    checked = listed = wrong = 0
    for ply in range(60):
        moves = board.legal_moves
        if not moves:
            break
        takes = [m for m in moves if board.position.board[(m.code >> 9) & 511] > 1]
        board.push(rng.choice(takes if takes and rng.random() < 0.6 else moves))  # fill hands
        if ply % 10 < 8:  # both sides to move
            continue
        pos = board.position
        made = set(pos.scratch[i] for i in range(movegen.gen(pos, pos.scratch, 0, False)))
        for t in range(pos.npc // 2 + 1):
            turned = pos.promoted[t] if t < len(pos.promoted) else 0
            for sq in range(pos.nsq + 1):
                for promo in {0, 1, turned}:
                    m = encode(t, sq, promo, DROP)
                    checked += 1
                    listed += m in made
                    wrong += movegen.is_pseudo_legal(pos, m) != (m in made)
    out.append([name, checked, listed, wrong])
print(json.dumps({"compiled": compiled(), "results": out}))
"""


def test_a_drop_is_validated_as_generation_lists_it() -> None:
    """TT moves and killers that drop are checked without generating (movegen.is_drop):
    every drop code, listed or not, gets the answer that the generated list gives."""
    names = [name for name in variants.builtins() if variants.get(name).drops]
    results = run_pure(DROPS, names)
    assert len(results) == len(names) >= 15
    for name, checked, listed, wrong in results:
        assert wrong == 0 and checked > 1000, (name, checked, listed, wrong)
    listed = {name: count for name, _, count, _ in results}
    # (bughouse, koedem and supply give captures to the partner: no drops of their own here)
    for name in ("shogi", "minishogi", "kyotoshogi", "crazyhouse", "sittuyin", "placement"):
        assert listed[name] > 0, name
