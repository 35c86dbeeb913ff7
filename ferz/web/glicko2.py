"""The Glicko-2 rating system, as Mark Glickman's "Example of the Glicko-2 system" (2022 revision
of the 2001 paper) describes it, step by step: ratings on the Glicko scale (1500 / RD 350 for a
newcomer), the volatility found by the Illinois variant of regula falsi (step 5.4), and the
deviation growing over rating periods without games (`idle`, capped at a newcomer's 350).

With the paper's example (1500 / RD 200 / volatility 0.06 against 1400/30, 1550/100 and 1700/300,
results 1, 0, 0, tau 0.5), `update` gives 1464.06 / RD 151.52 / volatility 0.05999.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178  # Glicko points per Glicko-2 unit (400 / ln 10)
BASE = 1500.0  # the rating the Glicko-2 scale centres on
NEW_RD = 350.0  # a newcomer's rating deviation
NEW_VOL = 0.06  # a newcomer's volatility
TAU = 0.5  # how much the volatility may change (the paper advises 0.3 to 1.2)
EPSILON = 0.000001  # when the volatility's search stops (step 5.4)


@dataclass(frozen=True)
class Rating:
    """A player's rating, rating deviation (RD) and volatility."""

    rating: float = BASE
    rd: float = NEW_RD
    vol: float = NEW_VOL


def _g(phi: float) -> float:
    """Step 3's g(phi): how much an opponent's uncertainty damps what a game says."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    """Step 3's E: the expected score against an opponent."""
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, games: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period in which they played `games` (each the
    opponent's rating before the period and the score: 1 win, 0.5 draw, 0 loss)."""
    # Step 2: to the Glicko-2 scale.
    mu = (player.rating - BASE) / SCALE
    phi = player.rd / SCALE
    sigma = player.vol
    if not games:  # step 6 alone: only the deviation grows
        return Rating(player.rating, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    # Steps 3 and 4: the estimated variance v and the estimated improvement delta.
    inverse_v = 0.0
    total = 0.0
    for opponent, score in games:
        mu_j = (opponent.rating - BASE) / SCALE
        phi_j = opponent.rd / SCALE
        g = _g(phi_j)
        e = _expected(mu, mu_j, phi_j)
        inverse_v += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / inverse_v
    delta = v * total
    # Step 5: the new volatility.
    sigma = _volatility(delta, phi, v, sigma, tau)
    # Step 6: the pre-period deviation; step 7: the new deviation and rating.
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu = mu + phi * phi * total
    # Step 8: back to the Glicko scale.
    return Rating(SCALE * mu + BASE, SCALE * phi, sigma)


def idle(player: Rating, periods: float) -> Rating:
    """The player's rating after `periods` rating periods without games (a fraction counts
    as a fraction, as on lichess): the deviation grows as RD' = sqrt(RD^2 + sigma^2 * t) on
    the Glicko-2 scale (step 6 repeated t times), never beyond a newcomer's NEW_RD."""
    if periods <= 0:
        return player
    phi, sigma = player.rd / SCALE, player.vol
    rd = SCALE * math.sqrt(phi * phi + sigma * sigma * periods)
    return Rating(player.rating, min(rd, max(NEW_RD, player.rd)), sigma)


def _volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5: the volatility sigma' that zeroes f, by the Illinois algorithm."""
    a = math.log(sigma * sigma)
    d2, p2 = delta * delta, phi * phi

    def f(x: float) -> float:
        """Step 5.1's f."""
        ex = math.exp(x)
        return ex * (d2 - p2 - v - ex) / (2.0 * (p2 + v + ex) ** 2) - (x - a) / (tau * tau)

    # Step 5.2: the initial bracket [A, B].
    big_a = a
    if d2 > p2 + v:
        big_b = math.log(d2 - p2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    # Steps 5.3 and 5.4: narrow it.
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    # Step 5.5.
    return math.exp(big_a / 2.0)
