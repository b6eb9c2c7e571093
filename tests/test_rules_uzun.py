"""Uzun Tavla rules, by rule id of rules.md: U-1, U-3..U-8 (setup, no hitting, the head rule
and its first-turn exception, the six-block rule with its option, maximum dice, bearing off).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from core.errors import IllegalPlayError, InvalidPositionError
from core.movegen import Step, legal_plays
from core.notation import format_play
from core.position import BAR, HEAD, OFF, Position
from core.turn import Turn
from core.variants import Uzun
from tests.reference import breaks_block_rule, reference_results
from tests.strategies import ALL_ROLLS, uzun_positions

UZUN = Uzun()
START = UZUN.start_position()


def board(mover: dict[int, int], opponent: dict[int, int], variant: Uzun = UZUN) -> Position:
    """An Uzun position; the opponent's checkers are given at the *mover's* point numbers.

    Checkers not placed are borne off (which counts as having passed every block, U-6).
    """
    position = Position.from_points(mover, {variant.opposite[p]: n for p, n in opponent.items()})
    variant.validate(position)
    return position


def plays_text(
    position: Position, dice: tuple[int, int], first_turn: bool = False, variant: Uzun = UZUN
) -> set[str]:
    return {format_play(p) for p in legal_plays(variant, position, dice, first_turn)}


def heads(play) -> int:
    return sum(step.source == HEAD for step in play.steps)


def error_code(position: Position, dice, text: str, first_turn=False, variant=UZUN) -> str:
    with pytest.raises(IllegalPlayError) as error:
        Turn(variant, position, dice, first_turn).apply_text(text)
    return error.value.code


def same_as_reference(position: Position, dice, first_turn=False, variant=UZUN) -> None:
    fast = {p.after for p in legal_plays(variant, position, dice, first_turn)}
    assert fast == reference_results(variant, position, dice, first_turn)


# The position after White opened 5-5 with one checker (24/4): Black on roll, White's
# checker on Black's 16.
AFTER_WHITE_55 = legal_plays(UZUN, START, (5, 5), first_turn=True)[0].after.swapped()


# -- U-1 setup --------------------------------------------------------------------------


def test_U1_setup_and_pip_count() -> None:
    for side in START:
        assert {p: n for p, n in enumerate(side) if n} == {24: 15}
    assert START.pips() == (360, 360)
    UZUN.validate(START)
    # Each head is the other's 12: White's n is Black's ((n + 11) mod 24) + 1.
    assert UZUN.opposite[24] == 12
    assert UZUN.opposite[12] == 24
    assert UZUN.opposite[13] == 1
    assert all(UZUN.opposite[p] == (p + 11) % 24 + 1 for p in range(1, 25))


def test_U1_the_opponents_head_is_closed_from_the_start() -> None:
    for roll in ALL_ROLLS:
        for play in legal_plays(UZUN, START, roll, first_turn=True):
            assert all(step.dest != 12 for step in play.steps)


# -- U-3 no hitting ---------------------------------------------------------------------


def test_U3_a_single_opposing_checker_closes_the_point() -> None:
    position = board({24: 15}, {12: 14, 18: 1})
    assert plays_text(position, (6, 5)) == {"24/13"}  # 24/19/13: 18 is closed
    assert error_code(position, (6, 5), "24/18") == "blocked"
    for roll in ALL_ROLLS:
        for play in legal_plays(UZUN, position, roll):
            assert not any(step.hit for step in play.steps)
            assert play.after.opponent == position.opponent
            assert all(step.dest != 18 for step in play.steps)


def test_U3_no_bar_in_uzun() -> None:
    assert not UZUN.hitting
    with pytest.raises(InvalidPositionError):
        UZUN.validate(Position.from_points({24: 14}, {24: 15}, mover_bar=1))


def test_U3_a_move_from_the_bar_is_told_there_is_no_bar() -> None:
    """U-3: nothing is ever hit, so Uzun Tavla has no bar; ``bar/20`` was answered "You have
    no checker on the bar", as if one could be there."""
    assert error_code(START, (6, 5), "bar/20") == "no_bar"
    assert error_code(START, (6, 5), "24/18 bar/20") == "no_bar"


# -- U-4 head rule ----------------------------------------------------------------------


def test_U4_one_checker_leaves_the_head_per_turn() -> None:
    for roll in ALL_ROLLS:
        plays = legal_plays(UZUN, START, roll, first_turn=False)
        assert plays
        assert all(heads(p) == 1 for p in plays)
    assert plays_text(START, (6, 5)) == {"24/13"}
    assert plays_text(START, (3, 3)) == {"24/15"}  # 24/12 would land on the closed head
    assert error_code(START, (6, 5), "24/18 24/19") == "head_rule"
    turn = Turn(UZUN, START, (6, 5))
    turn.apply_text("24/18")
    with pytest.raises(IllegalPlayError) as error:
        turn.apply_text("24/19")
    assert error.value.code == "head_rule"
    assert (Step(24, 19), 5) not in turn.legal_steps()
    assert turn.legal_steps() == [(Step(18, 13), 5)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(uzun_positions())
def test_U4_U5_head_checkers_per_turn(drawn) -> None:
    """U-4: one head checker a turn; U-5: two on a first turn, never more."""
    variant, position, _ = drawn
    for roll in ALL_ROLLS:
        plays = legal_plays(variant, position, roll, first_turn=False)
        assert all(heads(p) <= 1 for p in plays)
        plays = legal_plays(variant, position, roll, first_turn=True)
        assert all(heads(p) <= 2 for p in plays)


# -- U-5 first-turn exception -----------------------------------------------------------


def test_U5_starter_66_and_44() -> None:
    assert plays_text(START, (6, 6), first_turn=True) == {"24/18(2)"}
    assert plays_text(START, (4, 4), first_turn=True) == {"24/16(2)"}


def test_U5_starter_33_uses_two_head_checkers() -> None:
    plays = legal_plays(UZUN, START, (3, 3), first_turn=True)
    assert {format_play(p) for p in plays} == {"24/18(2)", "24/15 24/21"}
    assert all(heads(p) == 2 and len(p.steps) == 4 for p in plays)


def test_U5_only_66_44_33_give_the_starter_a_second_head_checker() -> None:
    doubled = {
        roll
        for roll in ALL_ROLLS
        if any(heads(p) == 2 for p in legal_plays(UZUN, START, roll, first_turn=True))
    }
    assert doubled == {(6, 6), (4, 4), (3, 3)}
    for roll in ALL_ROLLS:
        same_as_reference(START, roll, first_turn=True)


def test_U5_never_more_than_two_head_checkers() -> None:
    """6-6 could be played in full with four head checkers; only two may leave."""
    plays = legal_plays(UZUN, START, (6, 6), first_turn=True)
    assert [len(p.steps) for p in plays] == [2]
    assert error_code(START, (3, 3), "24/21(3)", first_turn=True) == "head_rule"


def test_U5_second_player_after_white_opens_55() -> None:
    position = AFTER_WHITE_55
    assert position.opponent[4] == 1  # White's 4 ...
    assert UZUN.opposite[16] == 4  # ... is Black's 16
    # 6-2: 24/18/16 and 24/22/16 both stop on 16, so two head checkers are needed.
    plays = legal_plays(UZUN, position, (6, 2), first_turn=True)
    assert len(plays) == 1
    turn = Turn(UZUN, position, (6, 2), first_turn=True)
    turn.apply_text("24/18 24/22")
    assert turn.complete
    assert turn.position == plays[0].after
    # 4-4: one checker gets only to 20 (20/16 is closed): two head checkers play 24/20(2).
    assert plays_text(position, (4, 4), first_turn=True) == {"24/20(2)"}
    assert plays_text(position, (6, 6), first_turn=True) == {"24/18(2)"}
    for roll in ALL_ROLLS:
        same_as_reference(position, roll, first_turn=True)


def test_U5_not_on_later_turns() -> None:
    assert plays_text(START, (6, 6)) == {"24/18"}
    assert plays_text(START, (4, 4)) == {"24/16"}
    assert plays_text(START, (3, 3)) == {"24/15"}
    assert plays_text(AFTER_WHITE_55, (6, 2)) == {"24/18"}
    assert plays_text(AFTER_WHITE_55, (4, 4)) == {"24/20"}


def test_U5_the_flag_matters_only_when_it_plays_more_dice() -> None:
    """A roll fully playable with one head checker stays with one on the first turn."""
    for roll in ((6, 5), (5, 5), (2, 2), (1, 1), (2, 1)):
        assert plays_text(START, roll, first_turn=True) == plays_text(START, roll)


# -- U-6 six-block rule -----------------------------------------------------------------

# The mover holds 22..18 and many checkers on the head; the opponent sits on its head
# (the mover's 12), so no opposing checker has passed anything.
FIVE_IN_A_ROW = {24: 5, 22: 2, 21: 2, 20: 2, 19: 2, 18: 2}


def test_U6_block_forbidden_when_no_opposing_checker_has_passed() -> None:
    position = board(FIVE_IN_A_ROW, {12: 15})
    for roll in ALL_ROLLS:
        for play in legal_plays(UZUN, position, roll):
            assert not breaks_block_rule(UZUN, play.after.mover, play.after.opponent)
        same_as_reference(position, roll)
    steps = {s for p in legal_plays(UZUN, position, (2, 1)) for s in p.steps}
    assert Step(24, 23) not in steps  # would hold 23..18
    assert error_code(position, (2, 1), "24/23") == "six_block"
    assert error_code(position, (2, 1), "18/17") == "six_block"


def test_U6_block_allowed_once_an_opposing_checker_has_passed() -> None:
    # One opposing checker on the mover's 15 (its own 3): lower than the block's 6..11.
    position = board(FIVE_IN_A_ROW, {12: 14, 15: 1})
    steps = {s for p in legal_plays(UZUN, position, (2, 1)) for s in p.steps}
    assert Step(24, 23) in steps
    turn = Turn(UZUN, position, (2, 1))
    turn.apply_text("24/23 22/20")
    assert turn.complete
    for roll in ALL_ROLLS:
        same_as_reference(position, roll)


def test_U6_borne_off_opposing_checkers_have_passed() -> None:
    position = board(FIVE_IN_A_ROW, {12: 14})  # one opposing checker is off
    assert Step(24, 23) in {s for p in legal_plays(UZUN, position, (2, 1)) for s in p.steps}


def test_U6_a_checker_ahead_of_the_block_has_not_passed_it() -> None:
    # The opposing checker on the mover's 23 (its own 11) is behind the block 22..17.
    position = board({24: 5, 21: 2, 20: 2, 19: 2, 18: 2, 17: 2}, {12: 14, 23: 1})
    assert error_code(position, (2, 1), "24/22") == "six_block"


def test_U6_a_run_joining_12_and_13_is_not_a_block() -> None:
    """The mover's 12 and 13 are the opponent's 24 and 1: not consecutive on its path."""
    position = board({24: 3, 16: 2, 14: 2, 13: 2, 12: 2, 11: 2, 10: 2}, {8: 15})
    assert Step(16, 15) in {s for p in legal_plays(UZUN, position, (2, 1)) for s in p.steps}
    turn = Turn(UZUN, position, (2, 1))
    turn.apply_text("16/15")
    assert all(turn.position.mover[p] for p in range(10, 17))  # seven in a row
    # The same run elsewhere (22..16) is a block, with the opponent in the same place.
    control = board({24: 3, 22: 2, 20: 2, 19: 2, 18: 2, 17: 2, 16: 2}, {8: 15})
    assert error_code(control, (2, 1), "22/21") == "six_block"
    for roll in ALL_ROLLS:
        same_as_reference(position, roll)
        same_as_reference(control, roll)


def test_U6_checked_after_every_step_no_way_round() -> None:
    """24/21 with 2-1 must stop on 22 (a block) or 23 (closed): it is not allowed."""
    position = board({24: 5, 21: 2, 20: 2, 19: 2, 18: 2, 17: 2}, {23: 1, 12: 14})
    plays = legal_plays(UZUN, position, (2, 1))
    assert plays
    assert all(Step(24, 22) not in p.steps for p in plays)
    assert all(not (p.after.mover[24] == 4 and p.after.mover[21] == 3) for p in plays)
    assert "24/21" not in {format_play(p) for p in plays}
    assert error_code(position, (2, 1), "24/21") == "six_block"
    for roll in ALL_ROLLS:
        same_as_reference(position, roll)


def test_U6_checked_after_every_step_other_order_allowed() -> None:
    """24/21 with 2-1 is fine through 23, though not through 22 (a block for a moment)."""
    position = board({24: 5, 21: 2, 20: 2, 19: 2, 18: 2, 17: 2}, {12: 15})
    texts = {format_play(p) for p in legal_plays(UZUN, position, (2, 1))}
    assert "24/21" in texts
    turn = Turn(UZUN, position, (2, 1))
    turn.apply_text("24/21")
    assert turn.complete
    assert [s for s, _ in turn.done] == [Step(24, 23), Step(23, 21)]
    turn = Turn(UZUN, position, (2, 1))
    with pytest.raises(IllegalPlayError) as error:
        turn.step((24, 22))
    assert error.value.code == "six_block"
    turn.step((24, 23))
    turn.step((23, 21))
    assert turn.complete


def test_U6_checked_after_every_step_with_doubles() -> None:
    """1-1: 24/23 first would hold 23..18; clearing 18 first makes 24/23 legal."""
    position = board({24: 1, 22: 3, 21: 3, 20: 3, 19: 3, 18: 1, 10: 1}, {12: 15})
    texts = {format_play(p) for p in legal_plays(UZUN, position, (1, 1))}
    assert "24/23 18/17 10/8" in texts
    turn = Turn(UZUN, position, (1, 1))
    with pytest.raises(IllegalPlayError) as error:
        turn.step((24, 23))
    assert error.value.code == "six_block"
    turn.apply_text("18/17")
    turn.apply_text("24/23")  # now legal: 18 is empty
    turn.apply_text("10/8")
    assert turn.complete
    same_as_reference(position, (1, 1))


@pytest.mark.parametrize(
    ("needs_home", "opponent", "allowed"),
    [
        # passed (a checker on its own 10) but not home
        (False, {22: 1, 8: 14}, True),
        (True, {22: 1, 8: 14}, False),
        # one opposing checker home (its own 3)
        (True, {22: 1, 15: 1, 8: 13}, True),
        # one opposing checker borne off
        (True, {22: 1, 8: 13}, True),
        # nobody passed
        (False, {8: 15}, False),
        (True, {8: 15}, False),
    ],
)
def test_U6_option_block_needs_home(needs_home: bool, opponent: dict, allowed: bool) -> None:
    """U-6 option: a block needs an opposing checker home (or off) as well as passed."""
    variant = Uzun(block_needs_home=needs_home)
    # 11/7 would make the block 7..2 (the opponent's 19..14).
    position = board({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 11: 5}, opponent, variant)
    texts = plays_text(position, (4, 3), variant=variant)
    if allowed:
        assert "11/7 6/3" in texts
        Turn(variant, position, (4, 3)).apply_text("11/7")
    else:
        assert texts == {"6/3 6/2", "6/2 5/2", "5/2 5/1"}
        assert error_code(position, (4, 3), "11/7", variant=variant) == "six_block"
    for roll in ALL_ROLLS:
        same_as_reference(position, roll, variant=variant)


@pytest.mark.parametrize("variant", [Uzun(), Uzun(block_needs_home=True)], ids=str)
def test_U6_block_on_the_opponents_home_is_passed_only_by_borne_off(variant: Uzun) -> None:
    """A block on the opponent's 1..6 (our 13..18) is passed only by checkers borne off."""
    mover = {24: 3, 19: 2, 17: 2, 16: 2, 15: 2, 14: 2, 13: 2}
    # 19/18 would hold 18..13; the opposing checker on our 21 (its own 9) has not passed.
    position = board(mover, {9: 14, 21: 1}, variant)
    assert error_code(position, (1, 1), "19/18", variant=variant) == "six_block"
    position = board(mover, {9: 14}, variant)  # one borne off
    Turn(variant, position, (1, 1)).apply_text("19/18")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(uzun_positions())
def test_U6_no_step_of_any_play_leaves_a_forbidden_block(drawn) -> None:
    variant, position, first_turn = drawn
    for roll in ALL_ROLLS:
        for play in legal_plays(variant, position, roll, first_turn):
            own = list(position.mover)
            for step in play.steps:
                own[step.source] -= 1
                own[step.dest] += 1
                assert not breaks_block_rule(variant, tuple(own), position.opponent)


# -- U-7 maximum dice, larger die -------------------------------------------------------


def test_U7_full_move_must_be_made() -> None:
    assert plays_text(START, (6, 5)) == {"24/13"}
    turn = Turn(UZUN, START, (6, 5))
    turn.apply_text("24/18")
    assert not turn.complete
    assert turn.remaining_dice == [5]


def test_U7_only_one_die_playable_must_be_the_larger() -> None:
    assert plays_text(AFTER_WHITE_55, (6, 2)) == {"24/18"}
    assert error_code(AFTER_WHITE_55, (6, 2), "24/22") == "must_play_larger"


def test_U7_doubles_as_many_as_possible() -> None:
    plays = legal_plays(UZUN, START, (6, 6))
    assert [len(p.steps) for p in plays] == [1]


# -- U-8 bearing off --------------------------------------------------------------------

OPPONENT_AWAY = {13: 5, 14: 5, 15: 5}  # the opponent's own 1..3: out of our way


def test_U8_bear_off_from_the_dice_points() -> None:
    position = board({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}, OPPONENT_AWAY)
    assert "6/off 4/off" in plays_text(position, (6, 4))
    same_as_reference(position, (6, 4))


def test_U8_only_with_all_fifteen_home() -> None:
    position = board({7: 1, 6: 3, 5: 3, 4: 3, 3: 3, 2: 2}, OPPONENT_AWAY)
    for roll in ALL_ROLLS:
        for play in legal_plays(UZUN, position, roll):
            offs = [i for i, s in enumerate(play.steps) if s.dest == OFF]
            came_home = [i for i, s in enumerate(play.steps) if s.source == 7]
            assert not offs or (came_home and came_home[0] < offs[0])
        same_as_reference(position, roll)
    assert error_code(position, (6, 5), "6/off") == "bear_off_not_home"


def test_U8_larger_die_from_the_highest_point_and_moves_inside() -> None:
    position = board({4: 2, 2: 1}, OPPONENT_AWAY)
    assert plays_text(position, (6, 5)) == {"4/off(2)"}
    position = board({6: 3, 4: 3, 3: 3}, OPPONENT_AWAY)
    assert plays_text(position, (5, 2)) == {"6/4 6/1", "6/1 4/2", "6/1 3/1"}
    assert error_code(position, (5, 2), "4/off") == "bear_off_higher_first"


def test_U8_bar_slot_stays_empty() -> None:
    position = board({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}, OPPONENT_AWAY)
    for roll in ALL_ROLLS:
        for play in legal_plays(UZUN, position, roll):
            assert play.after.mover[BAR] == play.after.opponent[BAR] == 0


# -- perft-style counts (U-1, U-4, U-5) ---------------------------------------------------

#: From the start, both players on their first turn for plies 1 and 2 and not on ply 3:
#: (sum over all rolls of the number of plays, number of different boards), per depth.
#: Computed with tests/reference.py (ply 3 compared play count by play count).
UZUN_PERFT = {1: (22, 13), 2: (489, 172), 3: (35722, 4509)}


def test_perft_uzun_from_the_start() -> None:
    """U-1, U-4, U-5: play counts three plies deep from the start."""
    level = [START]
    for depth in (1, 2, 3):
        total = 0
        boards: set[Position] = set()
        following: list[Position] = []
        for position in level:
            for roll in ALL_ROLLS:
                plays = legal_plays(UZUN, position, roll, first_turn=depth < 3)
                assert plays  # nothing blocks a whole roll this early
                total += len(plays)
                afters = {p.after for p in plays}
                boards |= afters
                following.extend(a.swapped() for a in afters)
                if depth < 3:
                    assert afters == reference_results(UZUN, position, roll, first_turn=True)
        assert (total, len(boards)) == UZUN_PERFT[depth]
        # The next ply starts from every different board reached by a roll of this one.
        level = following
