"""The VariantPath option loads user variants into a running engine; bad files change nothing."""

from __future__ import annotations

import pytest

from ferz.engine import Engine

DEFINITION = """[pathchess:chess]
customPiece1 = a:NB
startFen = rnbakbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBAKBNR w KQkq - 0 1
"""


def test_variant_path_adds_playable_variants(tmp_path) -> None:
    path = tmp_path / "mine.ini"
    path.write_text(DEFINITION)
    engine = Engine()
    assert "pathchess" not in engine.options["UCI_Variant"].choices
    engine.set_option("VariantPath", str(path))
    assert "pathchess" in engine.options["UCI_Variant"].choices
    engine.set_option("UCI_Variant", "pathchess")
    assert engine.board.fen().startswith("rnbakbnr/")


def test_bad_variant_path_is_refused_with_its_line(tmp_path) -> None:
    bad = tmp_path / "bad.ini"
    bad.write_text("[broken:chess]\nmaxFile = 99\n")
    engine = Engine()
    choices = engine.options["UCI_Variant"].choices
    with pytest.raises(ValueError, match="bad.ini:2"):
        engine.set_option("VariantPath", str(bad))
    assert engine.options["UCI_Variant"].choices == choices
    assert engine.options.get("VariantPath") == ""
