"""tools/score_gaps.py: the moments an engine called itself winning and its opponent did not."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import score_gaps as tool  # noqa: E402

GAMES = """[White "ferz"]
[Black "other"]
[Result "1/2-1/2"]

1. e4 { +0.30/12 0.2s } 1... e5 { -0.20/12 0.2s } 2. Qh5 { +1.80/12 0.2s }
2... Nc6 { -0.10/12 0.2s } 3. Qf3 { +0.20/11 0.1s } 1/2-1/2

[White "other"]
[Black "ferz"]
[Result "1-0"]

1. d4 { +0.10/10 0.1s } 1... d5 { -0.10/10 0.1s } 2. c4 { +1.60/10 0.1s }
2... e6 { -1.70/10 0.1s } 3. Nc3 { +M3/10 0.1s } 1-0

[White "ferz"]
[Black "other"]
[Result "1-0"]

1. e4 { +0.40/12 0.2s } 1... e5 { -1.60/12 0.2s } 2. Nf3 { +2.00/12 0.2s } 1-0

[White "ferz"]
[Black "other"]
[Result "*"]

1. e4 { +0.40/12 0.2s } 1... e5 { -0.20/12 0.2s } 2. Nf3 { +2.00/12 0.2s } *
"""


def test_gaps_counted_by_result(tmp_path):
    """A draw where ferz said +1.80 against the opponent's level score is a gap; a loss where
    both said ferz was lost is none; a win where both agreed counts as agreed; an unfinished
    game is left out."""
    pgn = tmp_path / "m.pgn"
    pgn.write_text(GAMES)
    games, agreed, gapped, first = tool.scan(pgn, "ferz", 150, 50)
    assert games == {1: 1, 0: 1, -1: 1}
    assert agreed == {1: 1, 0: 0, -1: 0}
    assert gapped == {1: 0, 0: 1, -1: 0}
    assert [(g.result, g.own, g.other) for g in first] == [(0, 180, 20)]
    assert first[0].fen.startswith("rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b")


def test_checked_by_a_reference_engine(tmp_path, capsys):
    """--check searches the gap again with the reference engine (ferz itself here) and prints
    it with the means; a missing file is an error with exit code 2."""
    pgn = tmp_path / "m.pgn"
    pgn.write_text(GAMES)
    reference = f"{sys.executable} -m ferz uci"
    assert (
        tool.main(
            [
                str(pgn),
                "--engine",
                "ferz",
                "--check",
                "5",
                "--reference",
                reference,
                "--nodes",
                "2000",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "draws: 1, both at +150 or more in 0, a gap in 1" in out
    assert "game ?: result +0, ferz +180, opponent +20, reference " in out
    assert "mean of 1: ferz +180" in out
    assert tool.main([str(tmp_path / "none.pgn"), "--engine", "ferz"]) == 2
