"""Player ratings by the FIBS formula (rules.md Ratings).

Everyone starts at 1500 with experience 0. After a match of length ``n`` between ratings
``R_a`` and ``R_b``, with ``D = |R_a - R_b|``::

    P_upset = 1 / (10 ** (D * sqrt(n) / 2000) + 1)      # chance the lower-rated player wins
    change  = 4 * K * sqrt(n) * P_upset                 # if the favourite won
    change  = 4 * K * sqrt(n) * (1 - P_upset)           # if the underdog won
    K       = max(1, 5 - experience / 100)              # for each player separately

The winner gains ``change`` computed with its own K, the loser loses it computed with its
own K; then each player's experience grows by ``n``. Which ratings a match counts for
(game kind, scope, humans only) is the service's business, not this module's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "INITIAL_EXPERIENCE",
    "INITIAL_RATING",
    "Rating",
    "k_factor",
    "p_upset",
    "rating_change",
    "update_ratings",
]

INITIAL_RATING = 1500.0
INITIAL_EXPERIENCE = 0


@dataclass(frozen=True)
class Rating:
    """A player's rating and experience (the sum of the lengths of finished matches)."""

    rating: float = INITIAL_RATING
    experience: int = INITIAL_EXPERIENCE


def _check_length(length: int) -> None:
    if length < 1:
        raise ValueError(f"a match length is at least 1, not {length}")


def p_upset(diff: float, length: int) -> float:
    """Chance that the lower-rated player wins a match of ``length`` points.

    ``diff`` is the rating difference; its sign is ignored (the formula uses ``|D|``).
    """
    _check_length(length)
    return 1.0 / (math.pow(10.0, abs(diff) * math.sqrt(length) / 2000.0) + 1.0)


def k_factor(experience: int) -> float:
    """K = max(1, 5 - experience/100): new players' ratings move faster."""
    return max(1.0, 5.0 - experience / 100.0)


def rating_change(winner: float, loser: float, length: int, k: float) -> float:
    """Points moved by a match ``winner`` won against ``loser``, for a player with factor ``k``.

    The winner adds this (with its own K) and the loser subtracts it (with its own K). With
    equal ratings the favourite and underdog cases agree, since P_upset is then 1/2.
    """
    upset = p_upset(winner - loser, length)
    # The favourite winning is the expected result, so it moves the ratings by the small
    # probability of the upset; an underdog's win moves them by the large remainder.
    probability = upset if winner >= loser else 1.0 - upset
    return 4.0 * k * math.sqrt(length) * probability


def update_ratings(winner: Rating, loser: Rating, length: int) -> tuple[Rating, Rating]:
    """Return the new ``(winner, loser)`` ratings after a finished match of ``length`` points."""
    gain = rating_change(winner.rating, loser.rating, length, k_factor(winner.experience))
    loss = rating_change(winner.rating, loser.rating, length, k_factor(loser.experience))
    return (
        Rating(winner.rating + gain, winner.experience + length),
        Rating(loser.rating - loss, loser.experience + length),
    )
