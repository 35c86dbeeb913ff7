"""Scores (ferz/score.py): centipawns or mates, one number for each, and back."""

from __future__ import annotations

import pytest

from ferz.engine import Info
from ferz.score import MATE_CP, Score


@pytest.mark.parametrize(
    ("score", "cp", "uci", "text"),
    [
        (Score(cp=25), 25, "cp 25", "+0.25"),
        (Score(cp=-100), -100, "cp -100", "-1.00"),
        (Score(mate=3), MATE_CP - 3, "mate 3", "#3"),
        (Score(mate=-2), -(MATE_CP - 2), "mate -2", "#-2"),
        (Score(mate=0), -MATE_CP, "mate 0", "#0"),
    ],
)
def test_a_score_as_one_number_and_as_words(score: Score, cp: int, uci: str, text: str) -> None:
    assert score.to_cp() == cp
    assert Score.from_cp(cp) == score
    assert (score.uci(), str(score)) == (uci, text)


def test_the_other_sides_score() -> None:
    assert -Score(cp=40) == Score(cp=-40)
    assert -Score(mate=4) == Score(mate=-4)
    assert -Score(mate=-1) == Score(mate=1)


def test_a_large_evaluation_is_no_mate() -> None:
    """Only scores within MATE_RANGE of MATE_CP read back as mates."""
    assert not Score.from_cp(20000).is_mate()
    assert Score.from_cp(MATE_CP - 150).mate == 150


def test_a_score_is_centipawns_or_a_mate() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Score()
    with pytest.raises(ValueError, match="exactly one"):
        Score(cp=1, mate=1)


def test_an_info_reports_its_score_as_one_value() -> None:
    """Info keeps its two UCI fields; `score` reads them as one Score (a mate wins)."""
    assert Info().score is None
    assert Info(score_cp=12).score == Score(cp=12)
    assert Info(score_mate=-3).score == Score(mate=-3)
