"""The rule tables are compiled once per Rules and shared by every position of the variant."""

from pathlib import Path

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


GROUPS = {
    "end_rules": "EndRules",
    "promo_rules": "PromoRules",
    "drop_rules": "DropRules",
    "move_rules": "MoveRules",
    "gate_rules": "GateRules",
}


def _struct_fields(name: str) -> list[str]:
    """The int fields of a struct of position.pxd, in order."""
    text = (Path(tables.__file__).parent / "position.pxd").read_text()
    body = text.split(f"cdef struct {name}:\n")[1].split("\n\n")[0]
    fields = []
    for line in body.splitlines():
        code = line.split("#")[0].strip()
        if not code:
            continue
        assert code.startswith("int "), line
        fields += [field.strip() for field in code[4:].split(",")]
    return fields


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_rule_groups_fill_their_structs(group: str):
    """Each rule group of the tables has the fields of its struct in position.pxd, no more,
    no fewer, and a position reads the table's values (a dict compiled, a RuleGroup not)."""
    fields = _struct_fields(GROUPS[group])
    for variant in ("chess", "makruk", "janggi", "shatar", "seirawan", "sittuyin", "atomic"):
        rules = variants.get(variant)
        table = getattr(tables.of(rules), group)
        assert sorted(vars(table)) == sorted(fields), variant
        held = getattr(Position(rules), group)
        assert {field: held[field] for field in fields} == vars(table), variant
