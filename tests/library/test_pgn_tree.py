"""ferz.pgn's tree: edits (promote, remove, find) and round trips of variations, comments and
NAGs, checked against python-chess; xiangqi and shogi written in their own notation."""

from __future__ import annotations

import io

import chess.pgn
import pytest

from ferz import pgn
from ferz.board import Board

NESTED = """[Event "nested"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "A"]
[Black "B"]
[Result "*"]

{ a game } 1. e4 e5 ( 1... c5 { Sicilian } 2. Nf3 ( 2. c3 d5 ( 2... Nf6 $6 ) ) 2... d6 $1 )
2. Nf3 $5 Nc6 3. Bb5 ( 3. Bc4 { Italian } Bc5 ( 3... Nf6 4. Ng5 $2 ) ) 3... a6 $14 *
"""


def shape(game: chess.pgn.Game) -> list:
    """A python-chess game as nested (move, comment, nags, children) lists."""

    def walk(node) -> list:
        return [(c.move.uci(), c.comment, sorted(c.nags), walk(c)) for c in node.variations]

    return [game.comment, walk(game)]


def test_nested_variations_comments_and_nags_round_trip_as_python_chess_reads_them():
    ours = pgn.read_game(NESTED)
    text = pgn.write(ours)
    assert pgn.write(pgn.read_game(text)) == text
    theirs = chess.pgn.read_game(io.StringIO(NESTED))
    assert shape(chess.pgn.read_game(io.StringIO(text))) == shape(theirs)


def test_promote_makes_the_line_the_main_line_and_remove_cuts_it():
    game = pgn.read_game(NESTED)
    node = game.root.find(["e2e4", "c7c5", "c2c3", "g8f6"])
    assert not node.is_mainline()
    node.promote()
    assert node.is_mainline()
    assert game.mainline_moves() == ["e2e4", "c7c5", "c2c3", "g8f6"]
    # the old main line is still there, now a variation
    assert game.root.find(["e2e4", "e7e5", "g1f3", "b8c6"]).parent is not None
    total = game.root.count()
    parent = game.root.find(["e2e4", "e7e5"]).remove()
    assert parent is game.root.find(["e2e4"])
    assert game.root.count() == total - 9  # 1... e5 and the 8 moves after it
    with pytest.raises(KeyError):
        game.root.find(["e2e4", "e7e5"])
    with pytest.raises(ValueError):
        game.root.remove()


@pytest.mark.parametrize(
    ("variant", "moves", "movetext", "tag"),
    [
        ("xiangqi", ["h3e3", "h10g8", "h1g3"], "1. C2=5 H8+7 2. H2+3", "WXF"),
        ("shogi", ["c3c4", "g7g6", "b2h8", "g9h8", "B@e5"], "1. P-7f P-3d", "Hodges"),
    ],
)
def test_xiangqi_and_shogi_are_written_in_their_notation_and_read_back(
    variant, moves, movetext, tag
):
    board = Board(variant=variant)
    for move in moves:
        board.push_uci(move)
    game = pgn.Game.from_board(board)
    alternative = "b2h8+" if variant == "shogi" else "b1c3"  # a variation: 2. Bx2b+ / 2. H8+7
    game.root.find(moves[:2]).add_variation(board_at(game, moves[:2]), alternative)
    text = pgn.write(game)
    assert f'[Notation "{tag}"]' in text and text.split("\n\n")[1].startswith(movetext)
    assert ("(2. Bx2b+)" if variant == "shogi" else "(2. H8+7)") in text
    again = pgn.read_game(text)
    assert again.mainline_moves() == moves and pgn.write(again) == text
    assert again.root.find([*moves[:2], alternative]) is not None
    # SAN is still read, and written on request
    san = pgn.write(game, native=False)
    assert "Notation" not in san and pgn.read_game(san).mainline_moves() == moves


def board_at(game: pgn.Game, moves: list[str]) -> Board:
    """The board after some moves from the game's start."""
    board = game.board()
    for move in moves:
        board.push_uci(move)
    return board


def test_a_native_move_that_is_not_legal_names_the_move():
    text = '[Variant "xiangqi"]\n[Notation "WXF"]\n\n1. C2=5 C2+9 *'
    with pytest.raises(pgn.PgnError, match="C2\\+9"):
        pgn.read_game(text)
