"""The python-chess calls of `Board` agree with python-chess on random positions of chess and
Chess960: gives_check, is_capture, is_castling, is_en_passant, board_fen, epd, set_epd,
variation_san, mirror, piece_map, attackers, is_attacked_by, pin, is_pinned, transform; and the
SVG picture draws every variant's board. (Variants: tests/variants/test_board_attacks.py.)"""

from __future__ import annotations

import os
import random
import xml.etree.ElementTree as ET

import pytest

from ferz import variants
from ferz.board import TRANSFORMS, Board, IllegalMoveError, InvalidFenError
from ferz.core import fen as fenlib

chess = pytest.importorskip("chess", reason="python-chess is the oracle (pip install chess)")
chess_variant = pytest.importorskip("chess.variant", reason="python-chess is the oracle")

# The default run checks a few hundred positions; the slow one 10 000 of chess and 10 000 of
# Chess960 (FERZ_API_POSITIONS sets the count of both).
POSITIONS = int(os.environ.get("FERZ_API_POSITIONS", "800"))
SLOW_POSITIONS = int(os.environ.get("FERZ_API_POSITIONS", "10000"))


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


def _check_moves_and_fields(ours: Board, theirs, chess960: bool) -> None:
    """Per legal move: gives_check, is_capture, is_castling, is_en_passant; per position:
    board_fen, epd, piece_map, mirror."""
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


def _names(squares) -> frozenset[str]:
    """Square names of a python-chess SquareSet or bitboard."""
    return frozenset(chess.square_name(sq) for sq in chess.SquareSet(squares))


def _check_attacks(ours: Board, theirs) -> None:
    """attackers, is_attacked_by, pin and is_pinned on every square for both colours."""
    for sq in chess.SQUARES:
        name = chess.square_name(sq)
        for color in chess.COLORS:
            where = (theirs.fen(), color, name)
            found = ours.attackers(color, name)
            assert found == _names(theirs.attackers(color, sq)), where
            assert ours.is_attacked_by(color, name) == theirs.is_attacked_by(color, sq), where
            assert ours.is_attacked_by(color, name) == bool(found), where
            assert ours.pin(color, name) == _names(theirs.pin_mask(color, sq)), where
            assert ours.is_pinned(color, name) == theirs.is_pinned(color, sq), where


def _rights(board: Board) -> frozenset[str]:
    """The castling rights of a ferz board as rook squares."""
    return frozenset(map(board.rules.square_name, fenlib.parse(board.rules, board.fen()).castling))


def _check_transforms(ours: Board, theirs) -> None:
    """Every transformation: ferz refuses only what python-chess calls invalid; otherwise the
    same pieces, side to move, castling rights (rook squares) and e.p. field."""
    for name in TRANSFORMS:
        other = theirs.transform(getattr(chess, name))
        try:
            mine = ours.transform(name)
        except InvalidFenError:
            assert not other.is_valid(), (theirs.fen(), name)
            continue
        assert mine.board_fen() == other.board_fen(), (theirs.fen(), name)
        assert mine.turn == other.turn
        if other.is_valid():
            where = (theirs.fen(), name, mine.fen(), other.fen())
            assert _rights(mine) == _names(other.clean_castling_rights()), where
            assert mine.fen().split()[3] == other.fen().split()[3], where
        assert not mine.move_stack and ours.fen() == theirs.fen()


@pytest.mark.parametrize("chess960", [False, True])
def test_move_predicates_and_fields_agree(chess960: bool) -> None:
    """Moves' predicates and the position's fields agree with python-chess."""
    for ours, theirs in _positions(chess960, POSITIONS // 2, 11 + chess960):
        _check_moves_and_fields(ours, theirs, chess960)


@pytest.mark.parametrize("chess960", [False, True])
def test_attacks_pins_and_transforms_agree(chess960: bool) -> None:
    """attackers, is_attacked_by, pin, is_pinned (every square, both colours) and the eight
    transformations agree with python-chess."""
    for ours, theirs in _positions(chess960, POSITIONS // 8, 21 + chess960):
        _check_attacks(ours, theirs)
        _check_transforms(ours, theirs)


@pytest.mark.slow
@pytest.mark.timeout(3600)  # about 10 minutes each on the loaded shared machine
@pytest.mark.parametrize("chess960", [False, True])
def test_every_call_agrees_on_many_positions(chess960: bool) -> None:
    """All of the above on 10 000 positions of chess and 10 000 of Chess960."""
    for ours, theirs in _positions(chess960, SLOW_POSITIONS, 31 + chess960):
        _check_moves_and_fields(ours, theirs, chess960)
        _check_attacks(ours, theirs)
        _check_transforms(ours, theirs)


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


@pytest.mark.parametrize(
    ("variant", "fen"),
    [
        ("chess", "8/8/4k3/8/8/8/8/R3K3 w - - 0 1"),  # a rook against a bare king
        ("chess", "8/8/4k3/8/2n5/8/8/4KB2 w - - 0 1"),  # a bishop against a knight: both can
        ("chess", "8/8/4k3/8/8/8/8/3NK3 w - - 0 1"),  # a knight alone cannot
        ("chess", "8/8/4k3/8/8/2b5/8/2B1K3 w - - 0 1"),  # bishops on squares of one colour
        ("3check", "8/8/4k3/8/8/8/8/3NK3 w - - 3+3 0 1"),  # any piece gives the checks
        ("kingofthehill", "8/8/4k3/8/8/8/8/4K3 w - - 0 1"),  # a king can still reach the hill
    ],
)
def test_insufficient_material_per_side_as_python_chess(variant: str, fen: str) -> None:
    """has_insufficient_material(color) agrees with python-chess's for each side."""
    theirs = chess_variant.find_variant(variant)(fen) if variant != "chess" else chess.Board(fen)
    ours = Board(fen, variant=variant)
    for color in (True, False):
        assert ours.has_insufficient_material(color) == theirs.has_insufficient_material(color)
    assert ours.is_insufficient_material() == theirs.is_insufficient_material()


@pytest.mark.parametrize(
    ("variant", "fen", "text", "expected"),
    [
        ("chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "e1g1"),  # castling
        ("chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1h1", "e1g1"),  # as king takes rook
        ("chess", "8/P6k/8/8/8/8/8/K7 w - - 0 1", "A7A8Q", "a7a8q"),  # any case
        ("xiangqi", None, "h3e3", "h3e3"),  # ranks past 9
        ("crazyhouse", "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1", "N@e4", "N@e4"),  # a drop
    ],
)
def test_parse_uci_finds_the_move_by_its_squares(
    variant: str, fen: str | None, text: str, expected: str
) -> None:
    """parse_uci looks only at the moves joining the squares the text names, castling and
    drops aside: each spelling still finds its move."""
    board = Board(fen, variant=variant)
    assert board.parse_uci(text).uci() == expected


@pytest.mark.parametrize("text", ["e2e5", "i1i2", "e9e10", "z1z2", "e2e4e", "0000"])
def test_parse_uci_refuses_what_no_legal_move_spells(text: str) -> None:
    with pytest.raises(IllegalMoveError):
        Board().parse_uci(text)
