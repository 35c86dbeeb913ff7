"""The rule tables are compiled once per Rules and shared by every position of the variant."""

import pytest

from ferz import variants
from ferz.core import tables
from ferz.core.position import Position
from ferz.core.rules import MAX_TYPES, Atom, PieceType, Rules


def test_positions_share_one_compilation():
    """Two positions of one Rules read the same tables; other Rules get their own."""
    rules = variants.get("xiangqi")
    first = tables.of(rules)
    Position(rules)
    Position(rules)
    assert tables.of(rules) is first
    assert tables.of(variants.get("shogi")) is not first


def test_piece_roles_come_as_letters():
    """The rules name the pieces they give a part by letter (build.py decides, not the core)."""
    makruk = variants.get("makruk")
    assert makruk.counting_letters == ("R", "S", "N")
    assert variants.get("shogi").drop_mate_letter == "P"
    assert variants.get("sittuyin").rook_drop_letter == "R"
    assert variants.get("cambodian").cambodian_letters == ("M", "R")
    assert variants.get("chess").counting_letters == ("", "", "")


def test_too_many_piece_types():
    """More types than a move can carry are refused when the tables are built."""
    pieces = [PieceType(chr(65 + i % 26) + str(i), f"p{i}", (Atom(1, 0),)) for i in range(63)]
    pieces.append(PieceType("K", "king", (Atom(1, 0),), royal=True))
    rules = Rules("many", 8, 8, pieces, "8/8/8/8/8/8/8/8 w - - 0 1")
    with pytest.raises(ValueError, match=f"at most {MAX_TYPES} piece types"):
        tables.of(rules)
