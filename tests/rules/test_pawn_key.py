"""The incremental pawn key (the search's correction history reads it) equals a fresh one."""

from __future__ import annotations

import random

import pytest

from ferz.board import Board

# promotions, drops, captures into the hand, explosions, in-place promotion, a 10 x 10 board
# (variants whose pieces include no pawn, such as xiangqi and shogi, keep the key at 0)
VARIANTS = ["chess", "crazyhouse", "sittuyin", "atomic", "makruk", "horde", "grand"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_pawn_key_is_incremental(variant: str) -> None:
    checked = 0
    keys = set()
    for seed in range(3):
        rng = random.Random(seed)
        board = Board(variant=variant)
        pos = board.position
        for _ in range(80):
            moves = board.legal_moves
            if not moves:
                break
            before = pos.pkey
            for move in moves:
                board.push(move)
                keys.add(pos.pkey)
                board.pop()
                assert pos.pkey == before, (variant, move.text)
            board.push(rng.choice(moves))
            # from scratch (a copy hashes its pawns afresh) after the move played
            assert pos.pkey == pos.copy().pkey, (variant, board.fen())
            checked += 1
    assert checked > 100
    assert len(keys) > 50  # pawn moves and captures change it


def test_pawn_key_sees_pawns_only() -> None:
    a = Board("r3k3/pp6/8/8/8/8/PP6/R3K3 w - - 0 1").position
    b = Board("4k1n1/pp6/8/8/8/8/PP6/1Q2K3 b - - 0 1").position
    c = Board("r3k3/1p6/p7/8/8/8/PP6/R3K3 w - - 0 1").position
    assert a.pkey == b.pkey != 0
    assert a.pkey != c.pkey
    assert Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").position.pkey == 0
