"""Glicko-2 ratings (M. Glickman, "Example of the Glicko-2 system", 2013), as lichess rates
players against puzzles: a puzzle is an opponent with a rating of its own, a solved puzzle
a win for the player and a loss for the puzzle.

The formulas are those of the paper, step by step, with its Illinois algorithm for the new
volatility; ``tests/test_glicko2.py`` checks the paper's worked example.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The paper's scale: 173.7178 rating points to one Glicko-2 unit, around 1500.
SCALE = 173.7178
#: The system constant: how much the volatility may change (the paper suggests 0.3 to 1.2).
TAU = 0.5
#: A new player's or puzzle's rating, deviation and volatility (the paper's defaults).
START = (1500.0, 350.0, 0.06)
#: The deviation never grows past a new player's.
MAX_DEVIATION = 350.0
_EPSILON = 1e-6


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating: ``rating`` and its deviation ``deviation`` in Glicko points,
    and the volatility."""

    rating: float = START[0]
    deviation: float = START[1]
    volatility: float = START[2]


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected(player: Rating, opponent: Rating) -> float:
    """The chance the player wins against ``opponent`` (solves the puzzle)."""
    return _e(
        (player.rating - 1500.0) / SCALE,
        (opponent.rating - 1500.0) / SCALE,
        opponent.deviation / SCALE,
    )


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility, the root of f by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > _EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Rating, games: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period of ``games``: (opponent, score) pairs,
    score 1 a win, 0 a loss, 0.5 a draw. No games: only the deviation grows (step 6)."""
    mu = (player.rating - 1500.0) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not games:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, min(MAX_DEVIATION, phi_star * SCALE), sigma)
    # Steps 3 and 4: the estimated variance and the improvement.
    v_inv = 0.0
    total = 0.0
    for opponent, score in games:
        mu_j = (opponent.rating - 1500.0) / SCALE
        phi_j = opponent.deviation / SCALE
        e = _e(mu, mu_j, phi_j)
        g = _g(phi_j)
        v_inv += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / v_inv
    delta = v * total
    # Steps 5 to 8.
    sigma_new = _volatility(phi, sigma, delta, v, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * total
    return Rating(mu_new * SCALE + 1500.0, min(MAX_DEVIATION, phi_new * SCALE), sigma_new)


def play(player: Rating, puzzle: Rating, solved: bool) -> tuple[Rating, Rating]:
    """One attempt at a puzzle as a rating period of one game for each side: the player's
    and the puzzle's new ratings."""
    score = 1.0 if solved else 0.0
    return update(player, [(puzzle, score)]), update(puzzle, [(player, 1.0 - score)])
