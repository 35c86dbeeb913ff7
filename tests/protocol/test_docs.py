"""docs/protocols.md documents every engine option as declared (the table must follow the code)."""

from __future__ import annotations

from pathlib import Path

from ferz.engine import Engine
from ferz.protocol.xboard import HIDDEN

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocols.md"


def shown(value: object) -> str:
    """How the table writes a default."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith("<"):
        return f"`{value}`"  # in code, or Markdown takes it for a tag
    return str(value) if value != "" else "empty"


def test_every_option_is_in_the_table_with_its_type_default_and_range() -> None:
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = cells
    for option in Engine().options:
        assert option.name in rows, f"docs/protocols.md lacks a row for {option.name}"
        cells = rows[option.name]
        assert cells[1] == option.kind, option.name
        assert cells[2] == shown(option.default), option.name
        if option.kind == "spin":
            assert cells[3] == f"{option.min}–{option.max}", option.name


def test_hidden_xboard_options_exist() -> None:
    names = {o.name.lower() for o in Engine().options}
    assert names >= HIDDEN


def test_play_help_gives_the_elo_range_of_the_engine() -> None:
    """`ferz play --elo` states the range UCI_Elo accepts (the help does not import the engine)."""
    from ferz.commands import build_parser
    from ferz.engine import ELO_MAX, ELO_MIN

    play = build_parser()._subparsers._group_actions[0].choices["play"]
    elo = next(a for a in play._actions if a.dest == "elo")
    assert f"({ELO_MIN}-{ELO_MAX})" in elo.help
