"""Glicko-2 puzzle ratings: Glickman's worked example and what a puzzle attempt does."""

from __future__ import annotations

import pytest

from core.glicko2 import START, Rating, expected, play, update


def test_glickmans_worked_example() -> None:
    # "Example of the Glicko-2 system" (2013): 1500/200/0.06 against 1400/30 (won),
    # 1550/100 (lost) and 1700/300 (lost), tau 0.5: r' 1464.06, RD' 151.52, sigma' 0.05999.
    player = Rating(1500, 200, 0.06)
    games = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    new = update(player, games)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def test_volatility_uses_the_deviation_not_the_rating() -> None:
    # Step 5's f(x) has phi^2 (the deviation); a rating away from 1500 must not change
    # the volatility of the same results (the PyPI glicko2 package puts mu^2 there).
    games = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    here = update(Rating(1500, 200, 0.06), games)
    shifted = update(
        Rating(1700, 200, 0.06), [(Rating(o.rating + 200, o.deviation), s) for o, s in games]
    )
    assert shifted.volatility == pytest.approx(here.volatility, abs=1e-9)
    assert shifted.rating - 200 == pytest.approx(here.rating, abs=1e-6)


def test_a_period_without_games_widens_the_deviation_only() -> None:
    new = update(Rating(1600, 100, 0.06), [])
    assert new.rating == 1600
    assert new.deviation > 100
    assert update(Rating(*START), []).deviation == START[1]  # capped at a new player's


def test_a_solved_puzzle_raises_the_player_and_lowers_the_puzzle() -> None:
    player, puzzle = Rating(), Rating(1700, 80)
    assert expected(player, puzzle) < 0.5
    won, beaten = play(player, puzzle, solved=True)
    assert won.rating > player.rating
    assert beaten.rating < puzzle.rating
    lost, kept = play(player, puzzle, solved=False)
    assert lost.rating < player.rating
    assert kept.rating > puzzle.rating
    # An unexpected win moves the rating more than the loss one expected.
    assert won.rating - player.rating > player.rating - lost.rating
