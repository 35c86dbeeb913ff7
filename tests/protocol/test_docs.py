"""docs/protocols.md documents every engine option (the table must not fall behind the code)."""

from __future__ import annotations

from pathlib import Path

from ferz.engine import Engine
from ferz.protocol.xboard import HIDDEN

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocols.md"


def test_every_option_is_in_the_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    for option in Engine().options:
        row = f"| `{option.name}` | {option.kind} |"
        assert row in text, f"docs/protocols.md lacks a row for {option.name}"


def test_hidden_xboard_options_exist() -> None:
    names = {o.name.lower() for o in Engine().options}
    assert names >= HIDDEN
