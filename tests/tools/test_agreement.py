"""tools/agreement.py: recall of the reference's blunders, precision of the other's marks, the
mark counts and summary means, and a clear error for files that do not hold the same games."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import agreement  # noqa: E402

# The reference marks 2. Qh5?? and 3. Qxe5+?? (and 1...e5?!); the other marks 2. Qh5? (found),
# 3. Qxe5+?! (missed) and 2...Nc6?? (not a mistake for the reference).
REFERENCE = """[Event "a"]
[WhiteACPL "100"]
[WhiteAccuracy "60.0"]
[BlackACPL "10"]
[BlackAccuracy "90.0"]

1. e4 {[%eval 0.30,12]} e5 $6 {[%eval 0.40,12]} 2. Qh5 $4 {[%eval -1.20,11]} Nc6 {[%eval -1.10,12]}
3. Qxe5+ $4 {[%eval -9.00,13]} (3. Bc4 {[%eval -1.10,9]}) Nxe5 {[%eval -9.10,14]} *
"""
OTHER = """[Event "a"]
[WhiteACPL "80"]
[WhiteAccuracy "70.0"]
[BlackACPL "30"]
[BlackAccuracy "80.0"]

1. e4 {[%eval 0.20,8]} e5 {[%eval 0.30,8]} 2. Qh5 $2 {[%eval -0.80,8]} Nc6 $4 {[%eval 2.00,7]}
3. Qxe5+ $6 {[%eval -1.50,9]} Nxe5 {[%eval -1.60,8]} *
"""


def test_recall_precision_and_counts(tmp_path, capsys) -> None:
    ref, oth = tmp_path / "ref.pgn", tmp_path / "other.pgn"
    ref.write_text(REFERENCE)
    oth.write_text(OTHER)
    assert agreement.main([str(ref), str(oth), "--misses"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Moves: 6"
    assert out[1] == "Recall: 1 of 2 (50.0 %) of the reference's ?? marked ? or ?? (0 ??)"
    assert out[2].startswith("Precision: 1 of 2 (50.0 %) of the other's ? and ??")
    assert out[3] == "Marks: ?! 1 / 1, ? 0 / 1, ?? 2 / 1 (reference / other)"
    assert out[4] == "ACPL: 55.0 / 55.0 (reference / other, mean of sides)"
    assert out[5] == "Accuracy: 75.0 % / 75.0 % (reference / other, mean of sides)"
    # the missed blunder, with both evaluations before and after it
    assert out[6:] == ["  game 1 ply 4 Qxe5+: reference -1.10 -> -9.00, other 2.00 -> -1.50 ?!"]


def test_files_of_other_games_are_an_error(tmp_path, capsys) -> None:
    ref, oth = tmp_path / "ref.pgn", tmp_path / "other.pgn"
    ref.write_text(REFERENCE)
    oth.write_text(OTHER.replace("Nxe5", "Be7"))
    assert agreement.main([str(ref), str(oth)]) == 2
    assert "game 1: the main lines differ" in capsys.readouterr().err
    oth.write_text(OTHER + "\n" + OTHER)
    assert agreement.main([str(ref), str(oth)]) == 2
    assert "the files hold 1 and 2 games" in capsys.readouterr().err
    assert agreement.main([str(ref), str(tmp_path / "none.pgn")]) == 2
    assert "cannot read" in capsys.readouterr().err
