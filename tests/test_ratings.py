"""Tests of core.ratings: rules.md Ratings (FIBS formula)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.ratings import Rating, k_factor, p_upset, rating_change, update_ratings

ratings = st.floats(500, 2500, allow_nan=False)
experiences = st.integers(0, 2000)
lengths = st.integers(1, 25)


def test_new_player_starts_at_1500_with_no_experience_rules_md_ratings() -> None:
    """rules.md Ratings: everyone starts at 1500 with experience 0."""
    assert Rating() == Rating(1500.0, 0)


def test_rating_is_frozen() -> None:
    with pytest.raises(AttributeError):
        Rating().rating = 1600.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("diff", "length", "expected"),
    [
        (0, 1, 0.5),
        # D·√n/2000 = 1 → 1/(10 + 1).
        (2000, 1, 1 / 11),
        (1000, 4, 1 / 11),
        # D·√n/2000 = 0.1 → 1/(10^0.1 + 1) = 1/2.258925… = 0.4426884…
        (200, 1, 0.44268837),
        # D·√n/2000 = 0.3 → 1/(1.995262… + 1) = 0.3338606…
        (200, 9, 0.33386058),
    ],
)
def test_p_upset_hand_computed_rules_md_ratings(diff: float, length: int, expected: float) -> None:
    """rules.md Ratings: P_upset = 1 / (10^(D·√n/2000) + 1)."""
    assert p_upset(diff, length) == pytest.approx(expected, abs=1e-8)


def test_p_upset_ignores_the_sign_of_the_difference() -> None:
    assert p_upset(-300, 5) == p_upset(300, 5)


@given(diff=st.floats(0, 3000), length=lengths)
def test_p_upset_is_at_most_one_half(diff: float, length: int) -> None:
    assert 0 < p_upset(diff, length) <= 0.5


def test_match_length_must_be_positive() -> None:
    with pytest.raises(ValueError, match="length"):
        p_upset(0, 0)
    with pytest.raises(ValueError, match="length"):
        update_ratings(Rating(), Rating(), 0)


@pytest.mark.parametrize(
    ("experience", "k"),
    [(0, 5.0), (50, 4.5), (100, 4.0), (250, 2.5), (399, 1.01), (400, 1.0), (10_000, 1.0)],
)
def test_k_falls_with_experience_and_floors_at_one_rules_md_ratings(
    experience: int, k: float
) -> None:
    """rules.md Ratings: K = max(1, 5 − experience/100)."""
    assert k_factor(experience) == pytest.approx(k)


@pytest.mark.parametrize("length", [1, 3, 5, 7, 11])
def test_equal_players_exchange_4_k_sqrt_n_half_rules_md_ratings(length: int) -> None:
    """rules.md Ratings: with D = 0, P_upset = 1/2, so 4·K·√n·0.5 moves from loser to winner."""
    winner, loser = update_ratings(Rating(), Rating(), length)
    exchanged = 4 * 5 * math.sqrt(length) * 0.5
    assert winner.rating == pytest.approx(1500 + exchanged)
    assert loser.rating == pytest.approx(1500 - exchanged)


def test_hand_computed_update_rules_md_ratings() -> None:
    """1700 (experience 0, K=5) beats 1500 (experience 300, K=2) in a 1-point match:
    P_upset = 0.4426884, gains 4·5·1·P = 8.853767, loses 4·2·1·P = 3.541507."""
    winner, loser = update_ratings(Rating(1700, 0), Rating(1500, 300), 1)
    assert winner == Rating(pytest.approx(1708.853767, abs=1e-6), 1)
    assert loser == Rating(pytest.approx(1496.458493, abs=1e-6), 301)


def test_underdog_wins_hand_computed_rules_md_ratings() -> None:
    """1500 beats 1700 in a 9-point match, both K=5: 4·5·3·(1 − 0.3338606) = 39.968365."""
    winner, loser = update_ratings(Rating(1500, 0), Rating(1700, 0), 9)
    assert winner.rating == pytest.approx(1539.968365, abs=1e-6)
    assert loser.rating == pytest.approx(1660.031635, abs=1e-6)
    assert winner.experience == loser.experience == 9


@given(a=ratings, b=ratings, experience=experiences, length=lengths)
def test_favourite_winning_gains_less_than_underdog_winning_rules_md_ratings(
    a: float, b: float, experience: int, length: int
) -> None:
    """rules.md Ratings: the favourite's win moves 4·K·√n·P_upset, the underdog's
    4·K·√n·(1 − P_upset), which is at least as much."""
    favourite, underdog = max(a, b), min(a, b)
    k = k_factor(experience)
    assert rating_change(favourite, underdog, length, k) <= rating_change(
        underdog, favourite, length, k
    )
    if favourite > underdog + 1:
        assert rating_change(favourite, underdog, length, k) < rating_change(
            underdog, favourite, length, k
        )


@given(a=ratings, b=ratings, experience=experiences, length=lengths)
def test_changes_sum_to_zero_with_the_same_k_rules_md_ratings(
    a: float, b: float, experience: int, length: int
) -> None:
    """rules.md Ratings: with equal K, what the winner gains the loser loses."""
    winner, loser = update_ratings(Rating(a, experience), Rating(b, experience), length)
    assert (winner.rating - a) + (loser.rating - b) == pytest.approx(0, abs=1e-9)
    assert winner.rating > a
    assert loser.rating < b


@given(a=ratings, b=ratings, wexp=experiences, lexp=experiences, length=lengths)
def test_each_player_uses_its_own_k_rules_md_ratings(
    a: float, b: float, wexp: int, lexp: int, length: int
) -> None:
    """rules.md Ratings: K for each player separately; experience grows by the match length."""
    winner, loser = update_ratings(Rating(a, wexp), Rating(b, lexp), length)
    gain, loss = winner.rating - a, b - loser.rating
    assert gain / loss == pytest.approx(k_factor(wexp) / k_factor(lexp))
    assert winner.experience == wexp + length
    assert loser.experience == lexp + length


@given(a=ratings, b=ratings, experience=experiences, length=lengths)
def test_longer_matches_move_ratings_more_rules_md_ratings(
    a: float, b: float, experience: int, length: int
) -> None:
    """rules.md Ratings: the √n factor. Between equal players, and whenever the underdog
    wins (1 − P_upset also grows with n), a longer match moves the ratings more. (A
    favourite's win against a much weaker player need not: P_upset shrinks faster than √n
    grows, since a long match is less likely to be won by luck.)"""
    k = k_factor(experience)
    assert rating_change(a, a, length + 1, k) > rating_change(a, a, length, k)
    underdog, favourite = min(a, b), max(a, b)
    assert rating_change(underdog, favourite, length + 1, k) > rating_change(
        underdog, favourite, length, k
    )
