"""Every move a board writes in SAN reads back as the same move, in every variant family where
SAN has pitfalls: crazyhouse's promoted pieces (B~ is written B), shogi's `+` that promotes or
checks (Pxb5+ promotes, Pxb5= declines, Pxb5++ promotes with check), drops; and PGN written
either in SAN or in the variant's own notation reads back into the same game."""

from __future__ import annotations

import random

import pytest

from ferz import pgn
from ferz.board import Board

VARIANTS = ["chess", "crazyhouse", "shogi", "minishogi", "xiangqi", "makruk", "capablanca"]


def random_game(variant: str, seed: int) -> Board:
    """A board after up to 120 random legal moves."""
    rng = random.Random(seed)
    board = Board(variant=variant)
    for _ in range(rng.randrange(20, 120)):
        moves = list(board.legal_moves)
        if not moves or board.outcome() is not None:
            break
        board.push(rng.choice(moves))
    return board


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_san_reads_back(variant: str) -> None:
    for seed in range(6):
        board = random_game(variant, seed)
        replay = Board(variant=variant)
        for move in board.move_stack:
            for legal in replay.legal_moves:
                assert replay.parse_san(replay.san(legal)) == legal, replay.fen()
            replay.push(move)


@pytest.mark.parametrize("variant", VARIANTS)
def test_pgn_in_san_and_native_notation_reads_back(variant: str) -> None:
    for seed in range(10):
        game = pgn.Game.from_board(random_game(variant, 100 + seed))
        moves = [node.move for node in game.mainline()]
        for native in (True, False):
            back = pgn.read_game(pgn.write(game, native=native))
            assert [node.move for node in back.mainline()] == moves


def test_shogi_marks_a_declined_promotion() -> None:
    """A bishop that may promote as it captures: each choice has its own SAN."""
    board = Board("r1sgk/b3p/P3R/5/KGSB1[] b - - 3 2", variant="minishogi")
    sans = {board.san(move): move for move in board.legal_moves}
    assert {"Bxd1+", "Bxd1="} <= set(sans)
    assert sans["Bxd1+"] != sans["Bxd1="]
    for text, move in sans.items():
        assert board.parse_san(text) == move
