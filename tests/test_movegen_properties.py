"""Properties of core.movegen over random reachable positions (design.md "Testing").

The fast generator is compared with the brute-force reference of tests/reference.py (the
maximum-dice rule and everything else, rules.md common ground, T-3..T-6, U-3..U-8), and its
plays are checked for the invariants: 15 checkers a side, one colour a point, pips falling by
exactly the dice played, every play using the same number of dice, distinct plays, and the
larger-die rule.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.movegen import legal_plays
from core.position import BAR, CHECKERS, OFF, Position
from core.variants import Tavla, Uzun, Variant
from tests.reference import reference_outcomes, reference_results, single_steps
from tests.strategies import ALL_ROLLS, dice, tavla_positions, uzun_positions

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Drawn = tuple[Variant, Position, bool]


def fast_results(variant: Variant, position: Position, roll, first_turn: bool) -> set[Position]:
    return {play.after for play in legal_plays(variant, position, roll, first_turn)}


def assert_same_as_reference(variant: Variant, position: Position, first_turn: bool) -> None:
    for roll in ALL_ROLLS:
        fast = fast_results(variant, position, roll, first_turn)
        slow = reference_results(variant, position, roll, first_turn)
        assert fast == slow, (variant, position, roll, first_turn)


# -- the fast generator against the reference --------------------------------------------


@SETTINGS
@given(tavla_positions())
def test_tavla_matches_reference_max_dice_rule(drawn: Drawn) -> None:
    """Common ground (maximum dice, larger die), T-3..T-6: same boards as the reference."""
    assert_same_as_reference(*drawn)


@SETTINGS
@given(uzun_positions())
def test_uzun_matches_reference_U3_U8(drawn: Drawn) -> None:
    """U-3..U-8: same boards as the reference in Uzun Tavla."""
    assert_same_as_reference(*drawn)


@SETTINGS
@given(uzun_positions(block_needs_home=True))
def test_uzun_block_needs_home_matches_reference_U6(drawn: Drawn) -> None:
    """U-6 with the option ``block_needs_home``: same boards as the reference."""
    assert_same_as_reference(*drawn)


@SETTINGS
@given(uzun_positions(), st.booleans())
def test_uzun_first_turn_flag_matches_reference_U5(drawn: Drawn, first_turn: bool) -> None:
    """U-4/U-5 with the first-turn flag forced either way, on any position."""
    variant, position, _ = drawn
    assert_same_as_reference(variant, position, first_turn)


@pytest.mark.parametrize("variant", [Uzun(), Uzun(block_needs_home=True)], ids=str)
def test_uzun_every_first_turn_matches_reference_U5(variant: Variant) -> None:
    """U-5: the starter's 21 rolls, and the second player's 21 after every opening play."""
    start = variant.start_position()
    assert_same_as_reference(variant, start, True)
    for roll in ALL_ROLLS:
        for play in legal_plays(variant, start, roll, first_turn=True):
            assert_same_as_reference(variant, play.after.swapped(), True)


# -- invariants of every play -------------------------------------------------------------


def replay(variant: Variant, position: Position, play) -> Position:
    """Make the play's steps one by one on plain lists, checking each hit mark."""
    own, opp = list(position.mover), list(position.opponent)
    for step in play.steps:
        assert own[step.source] > 0
        own[step.source] -= 1
        own[step.dest] += 1
        if step.dest != OFF:
            q = variant.opposite[step.dest]
            assert step.hit == (opp[q] == 1 and variant.hitting)
            if step.hit:
                opp[q] -= 1
                opp[BAR] += 1
        else:
            assert not step.hit
    return Position(tuple(own), tuple(opp))


def check_invariants(variant: Variant, position: Position, roll, first_turn: bool) -> None:
    plays = legal_plays(variant, position, roll, first_turn)
    a, b = roll
    all_dice = [a] * 4 if a == b else [a, b]
    # Plays are distinct boards and all use the same number of dice (maximum-dice rule).
    assert len({p.after for p in plays}) == len(plays)
    assert len({len(p.steps) for p in plays}) <= 1
    outcomes = reference_outcomes(variant, position, roll, first_turn)
    if plays:
        assert len(plays[0].steps) == len(outcomes[0][2])
    else:
        assert outcomes == []
    pips_before = position.pips()
    for play in plays:
        after = play.after
        variant.validate(after)  # 15 checkers a side, never two colours on one point
        assert sum(after.mover) == sum(after.opponent) == CHECKERS
        assert replay(variant, position, play) == after
        # Each step uses its own die: the exact distance, or less only when bearing off.
        assert len(play.dice) == len(play.steps)
        remaining = list(all_dice)
        for step, die in zip(play.steps, play.dice, strict=True):
            remaining.remove(die)
            if step.dest == OFF:
                assert 1 <= step.distance <= die
            else:
                assert step.distance == die
        # Pips of the mover fall by the distance covered; the opponent's rise by hits only.
        moved = sum(step.distance for step in play.steps)
        assert after.pips()[0] == pips_before[0] - moved
        raised = sum(25 - variant.opposite[s.dest] for s in play.steps if s.hit)
        assert after.pips()[1] == pips_before[1] + raised
    # Larger-die rule: when only one die of a mixed roll can be played and the larger can
    # move at all, every play uses the larger one.
    if plays and a != b and len(plays[0].steps) == 1:
        larger = max(a, b)
        if single_steps(variant, position.mover, position.opponent, larger):
            assert all(p.dice == (larger,) for p in plays)


@SETTINGS
@given(st.one_of(tavla_positions(), uzun_positions()), dice())
def test_invariants_of_every_play(drawn: Drawn, roll) -> None:
    """Common ground: 15 checkers, one colour a point, pips, same dice count, larger die."""
    variant, position, first_turn = drawn
    check_invariants(variant, position, roll, first_turn)


@SETTINGS
@given(st.one_of(tavla_positions(), uzun_positions()), dice())
def test_dice_order_does_not_matter(drawn: Drawn, roll) -> None:
    """Common ground: a roll is the same roll whichever die is named first."""
    variant, position, first_turn = drawn
    a, b = roll
    assert fast_results(variant, position, (a, b), first_turn) == fast_results(
        variant, position, (b, a), first_turn
    )


@pytest.mark.parametrize("variant", [Tavla(), Uzun()], ids=str)
def test_invariants_from_the_start(variant: Variant) -> None:
    """T-1/U-1 start position: every roll keeps the invariants."""
    for roll in ALL_ROLLS:
        check_invariants(variant, variant.start_position(), roll, True)


def test_bad_dice_are_refused() -> None:
    with pytest.raises(ValueError, match="dice"):
        legal_plays(Tavla(), Tavla().start_position(), (0, 7))
