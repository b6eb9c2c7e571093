"""T-9 against the computer: it accepts a resignation only when the offer is worth at
least what playing on is worth to it."""

from __future__ import annotations

import pytest

from core.ai.network import shipped_network
from core.ai.resign import accepts_resignation
from core.ai.sim import result_points
from core.position import Position, side_from_points
from core.variants import variant_by_name

TAVLA = variant_by_name("tavla")
TURKISH = variant_by_name("turkish")
UZUN = variant_by_name("uzun")

# The computer (mover) has one checker left; the player has all 15 in its home board:
# a backgammon whoever rolls (T-7).
CRUSHED = Position(side_from_points({1: 1}), side_from_points({19: 15}))
# The player has borne off 14 and has one checker on their 1-point: the computer loses.
LOST = Position(side_from_points({24: 15}), side_from_points({1: 1}))


def test_the_most_a_game_can_still_bring_follows_t7() -> None:
    assert result_points(TAVLA, CRUSHED) == 3  # all of them in the mover's home board
    assert result_points(TURKISH, CRUSHED) == 2  # no backgammons in Turkish tavla
    assert result_points(TAVLA, LOST) == 1  # the opponent has borne off
    outside = Position(side_from_points({1: 1}), side_from_points({6: 15}))
    assert result_points(TAVLA, outside) == 2  # all home: a gammon at most
    on_bar = Position(side_from_points({1: 1}), side_from_points({6: 14}, bar=1))
    assert result_points(TAVLA, on_bar) == 3


@pytest.mark.parametrize("on_roll", [True, False])
def test_a_single_offered_against_a_certain_backgammon_is_declined(on_roll) -> None:
    if shipped_network("tavla") is None:
        pytest.skip("no shipped weights")
    assert not accepts_resignation(TAVLA, CRUSHED, 1, on_roll=on_roll)
    assert not accepts_resignation(TAVLA, CRUSHED, 2, on_roll=on_roll)
    assert accepts_resignation(TAVLA, CRUSHED, 3, on_roll=on_roll)


def test_a_losing_computer_accepts_any_resignation() -> None:
    if shipped_network("tavla") is None:
        pytest.skip("no shipped weights")
    assert accepts_resignation(TAVLA, LOST, 1, on_roll=True)
    start = TAVLA.start_position()
    assert accepts_resignation(TAVLA, start, 1, on_roll=False)  # about even: a gift


def test_enough_to_win_the_match_is_accepted() -> None:
    """M-1: a single at a 2-cube wins a match the computer needs 2 points of; even a
    certain backgammon brings no more."""
    assert accepts_resignation(TAVLA, CRUSHED, 1, on_roll=True, needed=2, cube=2)
    if shipped_network("tavla") is not None:
        assert not accepts_resignation(TAVLA, CRUSHED, 1, on_roll=True, needed=3, cube=2)


def test_uzun_a_mars_in_sight_is_not_given_away() -> None:
    """U-9: in long nardy a mars counts 2; with the player's checkers all
    far from home and the computer nearly off, a single is declined, a mars taken."""
    if shipped_network("uzun") is None:
        pytest.skip("no shipped weights")
    computer = side_from_points({1: 1})
    player = side_from_points({24: 15})
    position = Position(computer, player)
    assert result_points(UZUN, position) == 2
    assert not accepts_resignation(UZUN, position, 1, on_roll=True)
    assert accepts_resignation(UZUN, position, 2, on_roll=True)
