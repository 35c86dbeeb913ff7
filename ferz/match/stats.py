"""Match statistics: W/D/L, Elo with its 95 % interval, LOS, pentanomial pairs and the SPRT.

Definitions (docs/match.md gives them with examples); scores are engine A's:

- score s = (W + D/2) / N; logistic Elo = -400 log10(1/s - 1).
- Elo interval (games): s +- 1.96 sqrt(v/N), v the variance of one game's points, each end
  turned into Elo; the `+-` figure is half the interval's width.
- pentanomial: the pairs of games played from one opening with colours reversed, counted by
  A's points in the pair: 0, 0.5, 1, 1.5, 2 (`Ptnml(0-2)`). Pentanomial Elo is the same
  interval computed over pairs, each pair's mean score one sample.
- normalized Elo (nElo, fishtest): (s - 1/2) / sigma * 800 / ln(10), sigma the standard
  deviation of one game's score estimated from the pairs (sqrt(2) times a pair's).
- LOS = Phi((W - L) / sqrt(W + L)), the likelihood that A is the stronger (draws carry no
  information on who is stronger).
- SPRT: fishtest's generalized sequential probability ratio test on the pentanomial counts.
  The log-likelihood ratio is N times the mean, over the observed pair distribution, of
  log(p1/p0), where p0 and p1 are the maximum-likelihood distributions whose expected score
  (logistic model: s = 1 / (1 + 10^(-elo/400))) or whose t-value (normalized model:
  (s - 1/2) / sigma = nElo * sqrt(2) * ln(10) / 800) equals that of elo0 and elo1. Counts of
  zero are replaced by 0.001 first (fishtest's regularisation). The test stops with H1 when
  the LLR reaches ln((1 - beta) / alpha) and with H0 when it falls to ln(beta / (1 - alpha)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z975 = 1.959963984540054  # the 97.5 % quantile of the normal distribution
NELO_PER_T = 800 / math.log(10)  # normalized Elo per unit of t-value (fishtest)
REGULARIZE = 1e-3  # what a count of zero becomes before the SPRT's likelihoods


def elo(score: float) -> float:
    """Logistic Elo difference of an expected score (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: no -0.0


def expected_score(elo_difference: float) -> float:
    """Expected score of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


def phi(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority from wins and losses (0.5 without decisive games)."""
    if wins + losses == 0:
        return 0.5
    return phi((wins - losses) / math.sqrt(wins + losses))


def _mean_var(pdf: list[tuple[float, float]]) -> tuple[float, float]:
    """Mean and variance of a discrete distribution [(value, probability)]."""
    mean = sum(p * a for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def _interval(pdf: list[tuple[float, float]], samples: int) -> tuple[float, float, float]:
    """Elo, and the Elo of the 95 % interval's ends, of a score distribution."""
    mean, var = _mean_var(pdf)
    half = Z975 * math.sqrt(var / samples)
    return elo(mean), elo(mean - half), elo(mean + half)


@dataclass(frozen=True)
class Estimate:
    """An Elo estimate: the value and its 95 % interval."""

    elo: float
    low: float
    high: float

    def error(self) -> float:
        """Half the interval's width (infinite when an end is)."""
        if math.isinf(self.high) or math.isinf(self.low):
            return math.inf
        return (self.high - self.low) / 2


def trinomial(wins: int, draws: int, losses: int) -> Estimate:
    """Elo and interval from games (each game one sample)."""
    n = wins + draws + losses
    if n == 0:
        return Estimate(0.0, -math.inf, math.inf)
    pdf = [(1.0, wins / n), (0.5, draws / n), (0.0, losses / n)]
    return Estimate(*_interval(pdf, n))


def pentanomial(pairs: list[int]) -> Estimate:
    """Elo and interval from the five pair counts (each pair one sample)."""
    n = sum(pairs)
    if n == 0:
        return Estimate(0.0, -math.inf, math.inf)
    pdf = [(i / 4, count / n) for i, count in enumerate(pairs)]
    return Estimate(*_interval(pdf, n))


def normalized(pairs: list[int]) -> Estimate:
    """Normalized Elo (fishtest's nElo) and interval from the pair counts."""
    n = sum(pairs)
    if n == 0:
        return Estimate(0.0, -math.inf, math.inf)
    pdf = [(i / 4, count / n) for i, count in enumerate(pairs)]
    mean, var = _mean_var(pdf)
    if var == 0:
        infinite = math.copysign(math.inf, mean - 0.5) if mean != 0.5 else 0.0
        return Estimate(infinite, infinite, infinite)
    sigma = math.sqrt(2 * var)  # one game's deviation from a pair's
    half = Z975 * math.sqrt(var / n)
    return Estimate(*(NELO_PER_T * (m - 0.5) / sigma for m in (mean, mean - half, mean + half)))


# ---------------------------------------------------------------------------- SPRT

# The normalized model's fixed point (_mle_t_value) finds no distribution for a t beyond about
# 231 nElo, whatever the results: bounds past this are refused before a match starts.
NELO_LIMIT = 200


def _secular(pdf: list[tuple[float, float]]) -> float:
    """The root x of sum p*a / (1 + x*a) = 0 (the values a must have both signs)."""
    low_a = min(a for a, _ in pdf)
    high_a = max(a for a, _ in pdf)
    if not low_a < 0 < high_a:
        raise ValueError("the score lies outside the observed results")
    lo, hi = -1 / high_a, -1 / low_a
    epsilon = 1e-12 * (hi - lo)
    lo, hi = lo + epsilon, hi - epsilon

    def f(x: float) -> float:
        """The secular function (decreasing in x)."""
        return sum(p * a / (1 + x * a) for a, p in pdf)

    for _ in range(200):
        middle = (lo + hi) / 2
        if f(middle) > 0:
            lo = middle
        else:
            hi = middle
        if hi - lo < 1e-15:
            break
    return (lo + hi) / 2


def _mle_expectation(pdf: list[tuple[float, float]], s: float) -> list[float]:
    """Probabilities of the most likely distribution with expected score s."""
    x = _secular([(a - s, p) for a, p in pdf])
    return [p / (1 + x * (a - s)) for a, p in pdf]


def _mle_t_value(pdf: list[tuple[float, float]], t: float) -> list[float]:
    """Probabilities of the most likely distribution with (mean - 1/2) / sigma = t
    (a fixed-point iteration, ten rounds at most, as fishtest does)."""
    probs = [1 / len(pdf)] * len(pdf)
    for _ in range(10):
        previous = probs
        mean, var = _mean_var([(a, q) for (a, _), q in zip(pdf, probs, strict=True)])
        sigma = math.sqrt(var)
        shifted = [(a - 0.5 - t * sigma * (1 + ((mean - a) / sigma) ** 2) / 2, p) for a, p in pdf]
        x = _secular(shifted)
        probs = [p / (1 + x * a) for a, p in shifted]
        if max(abs(u - v) for u, v in zip(previous, probs, strict=True)) < 1e-9:
            break
    return probs


def _pdf(counts: list[int]) -> tuple[float, list[tuple[float, float]]]:
    """The number of samples and the regularised empirical distribution of the counts."""
    values = [c if c else REGULARIZE for c in counts]
    n = sum(values)
    last = len(values) - 1
    return n, [(i / last, v / n) for i, v in enumerate(values)]


def llr(counts: list[int], elo0: float, elo1: float, model: str = "normalized") -> float:
    """fishtest's generalized log-likelihood ratio of elo1 against elo0 for pentanomial (five)
    or trinomial (three: L, D, W) counts, in logistic or normalized Elo."""
    if sum(counts) == 0:
        return 0.0
    n, pdf = _pdf(counts)
    if model == "logistic":
        p0 = _mle_expectation(pdf, expected_score(elo0))
        p1 = _mle_expectation(pdf, expected_score(elo1))
    elif model == "normalized":
        scale = math.sqrt(2) if len(counts) == 5 else 1.0
        p0 = _mle_t_value(pdf, elo0 / NELO_PER_T * scale)
        p1 = _mle_t_value(pdf, elo1 / NELO_PER_T * scale)
    else:
        raise ValueError(f"unknown Elo model {model!r} (logistic or normalized)")
    return n * sum(
        p * (math.log(b) - math.log(a)) for (_, p), a, b in zip(pdf, p0, p1, strict=True)
    )


@dataclass(frozen=True)
class Sprt:
    """An SPRT's hypotheses (Elo of H0 and H1), error rates and Elo model."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def check(self) -> None:
        """ValueError for bounds or error rates that make no test."""
        if not self.elo0 < self.elo1:
            raise ValueError("--sprt: elo0 must be below elo1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError("--sprt: alpha and beta must lie between 0 and 1")
        if self.model not in ("logistic", "normalized"):
            raise ValueError("--sprt-model: logistic or normalized")
        if self.model == "normalized" and max(abs(self.elo0), abs(self.elo1)) > NELO_LIMIT:
            raise ValueError(
                f"--sprt: the normalized model cannot test bounds beyond +-{NELO_LIMIT} nElo (its "
                "likelihood has no maximum there; fishtest's use a few): use --sprt-model logistic"
            )

    def bounds(self) -> tuple[float, float]:
        """The LLR at which H0 and H1 are accepted."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, pairs: list[int]) -> float:
        """The LLR of the pentanomial counts."""
        return llr(pairs, self.elo0, self.elo1, self.model)

    def decision(self, pairs: list[int]) -> str:
        """'H0', 'H1' or '' (go on) for the pentanomial counts."""
        lower, upper = self.bounds()
        value = self.llr(pairs)
        if value >= upper:
            return "H1"
        if value <= lower:
            return "H0"
        return ""


@dataclass
class Tally:
    """The running counts of a match from engine A's point of view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    pairs: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @property
    def games(self) -> int:
        """Finished games."""
        return self.wins + self.draws + self.losses

    def points(self) -> float:
        """A's points."""
        return self.wins + 0.5 * self.draws

    def score(self) -> float:
        """A's mean score (0.5 with no games)."""
        return self.points() / self.games if self.games else 0.5


def tally(scores: dict[int, float]) -> Tally:
    """Counts of A's scores by game index; games 2k and 2k+1 form pair k (one opening)."""
    result = Tally()
    pairs = [0, 0, 0, 0, 0]
    for index, score in scores.items():
        if score == 1.0:
            result.wins += 1
        elif score == 0.5:
            result.draws += 1
        else:
            result.losses += 1
        if index % 2 == 0 and index + 1 in scores:
            pairs[round(2 * (score + scores[index + 1]))] += 1
    result.pairs = (pairs[0], pairs[1], pairs[2], pairs[3], pairs[4])
    return result
