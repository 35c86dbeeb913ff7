"""ferz.match.stats against worked values: Elo and its interval, LOS, pentanomial and normalized
Elo worked by hand, and SPRT log-likelihood ratios computed with fishtest's own LLRcalc."""

from __future__ import annotations

import math

import pytest

from ferz.match import stats


def test_elo_of_a_score() -> None:
    assert stats.elo(0.5) == 0.0
    assert stats.elo(0.75) == pytest.approx(190.8485, abs=1e-4)  # -400 log10(1/3)
    assert stats.elo(0.0) == -math.inf and stats.elo(1.0) == math.inf
    assert stats.expected_score(stats.elo(0.64)) == pytest.approx(0.64)


def test_trinomial_interval_worked_by_hand() -> None:
    # W 60 D 30 L 10: s = 0.75, one game's variance 0.1125, s +- 1.96 * sqrt(0.1125 / 100)
    estimate = stats.trinomial(60, 30, 10)
    assert estimate.elo == pytest.approx(190.85, abs=0.01)
    assert estimate.low == pytest.approx(134.36, abs=0.01)  # Elo of 0.684261
    assert estimate.high == pytest.approx(258.45, abs=0.01)  # Elo of 0.815739
    assert estimate.error() == pytest.approx(62.05, abs=0.01)
    assert stats.trinomial(3, 0, 0).error() == math.inf


def test_los() -> None:
    assert stats.los(30, 20) == pytest.approx(0.92135, abs=1e-5)  # Phi(10 / sqrt(50))
    assert stats.los(5, 5) == 0.5 and stats.los(0, 0) == 0.5


def test_pentanomial_and_normalized_elo_worked_by_hand() -> None:
    pairs = [5, 20, 40, 25, 10]  # mean pair score 0.5375, pair variance 0.064219
    assert stats.pentanomial(pairs).elo == pytest.approx(26.107, abs=1e-3)
    # nElo = (0.5375 - 0.5) / sqrt(2 * 0.064219) * 800 / ln 10
    assert stats.normalized(pairs).elo == pytest.approx(36.355, abs=1e-3)


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "logistic", "normalized"),
    [
        # values of fishtest's server/fishtest/stats/LLRcalc.py (LLR_logistic, LLR_normalized)
        ([0, 0, 2, 0, 37], 0, 20, 2.18048520591322, 2.962016470525599),
        ([10, 200, 500, 210, 12], 0, 2, 0.1861197582563237, 0.1250581061048516),
        ([30, 250, 480, 230, 20], -1, 1, -0.6854668087852883, -0.39728884601312797),
        ([5, 40, 100, 60, 10], 0, 5, 1.0409641393245914, 0.6621059954507612),
        ([100, 200, 300], 0, 5, 4.2316944689714475, 3.464179665494771),  # trinomial L, D, W
    ],
)
def test_llr_equals_fishtest(counts, elo0, elo1, logistic, normalized) -> None:
    assert stats.llr(counts, elo0, elo1, "logistic") == pytest.approx(logistic, abs=1e-9)
    assert stats.llr(counts, elo0, elo1, "normalized") == pytest.approx(normalized, abs=1e-9)


def test_sprt_bounds_and_decisions() -> None:
    test = stats.Sprt(0, 20)
    lower, upper = test.bounds()
    assert lower == pytest.approx(-2.944439, abs=1e-6) and upper == pytest.approx(
        2.944439, abs=1e-6
    )
    # fastchess printed "LLR: 2.96 (-2.94, 2.94) [0.00, 20.00]" and accepted H1 for these pairs
    assert test.decision([0, 0, 2, 0, 37]) == "H1"
    assert test.decision([37, 0, 2, 0, 0]) == "H0"
    assert test.decision([1, 2, 3, 2, 1]) == ""
    with pytest.raises(ValueError, match="elo0 must be below elo1"):
        stats.Sprt(5, 0).check()
    # normalized bounds as wide as this have no maximum likelihood: refused before any game
    # (a match with --sprt 0 300 stopped with an error once every game was lost)
    with pytest.raises(ValueError, match="use --sprt-model logistic"):
        stats.Sprt(0, 300).check()
    stats.Sprt(0, 300, model="logistic").check()
    assert stats.Sprt(0, 300, model="logistic").decision([40, 0, 0, 0, 0]) == "H0"
    widest = stats.Sprt(-stats.NELO_LIMIT, stats.NELO_LIMIT)
    widest.check()
    for pairs in ([40, 0, 0, 0, 0], [0, 0, 0, 0, 40], [0, 0, 40, 0, 0], [1, 0, 0, 0, 1]):
        widest.llr(pairs)  # every result has an LLR within the limit


def test_tally_pairs_games_by_opening() -> None:
    # games 0/1 one opening (A wins both), 2/3 (a win and a draw), 4 unpaired yet
    result = stats.tally({0: 1.0, 1: 1.0, 2: 0.0, 3: 0.5, 4: 0.5})
    assert (result.wins, result.draws, result.losses) == (2, 2, 1)
    assert result.pairs == (0, 1, 0, 0, 1)
    assert result.score() == pytest.approx(0.6)
