"""Staged move generation: captures first, then the quiet moves, make up the whole list."""

from __future__ import annotations

import random

import pytest

from ferz import variants
from ferz.board import Board


def _positions(variant: str, games: int, seed: int):
    """Positions of random games (every ply) in a variant."""
    rng = random.Random(seed)
    for _ in range(games):
        board = Board(variant=variant)
        for _ in range(rng.randint(10, 120)):
            moves = board.legal_moves
            if not moves or board.outcome() is not None:
                break
            yield board.position
            board.push(rng.choice(moves))


@pytest.mark.parametrize("variant", variants.builtins())
def test_captures_and_quiets_make_the_whole_list(variant: str) -> None:
    checked = 0
    for pos in _positions(variant, 6, 11):
        if pos.move_rules["full_gen"]:
            pytest.skip(f"{variant}'s rules need the whole move list: the search does not stage it")
        whole = sorted(pos.pseudo_moves())
        parts = sorted(pos.pseudo_moves(True) + pos.quiet_moves())
        assert parts == whole, pos.fen()
        checked += 1
    assert checked > 20
