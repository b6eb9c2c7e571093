"""Tavla rules, one test (or more) per rule id of rules.md: T-1, T-3..T-6 and the common
ground (maximum dice, larger die, doubles, no split dice); the gnubg-checked positions of
/work/shared/positions/tavla-gnubg.json; and perft-style counts from the start."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest

from core.errors import IllegalPlayError
from core.gnubg import position_from_id
from core.movegen import Step, legal_plays
from core.notation import format_play
from core.position import BAR, OFF, Position
from core.turn import Turn
from core.variants import Tavla, Turkish
from tests.reference import reference_results
from tests.strategies import ALL_ROLLS

TAVLA = Tavla()
START = TAVLA.start_position()
GNUBG_CASES = json.loads(Path("/work/shared/positions/tavla-gnubg.json").read_text())["cases"]


def board(
    mover: dict[int, int], opponent: dict[int, int], *, bar: int = 0, opp_bar: int = 0
) -> Position:
    """A Tavla position; the opponent's checkers are given at the *mover's* point numbers."""
    position = Position.from_points(
        mover, {25 - p: n for p, n in opponent.items()}, mover_bar=bar, opponent_bar=opp_bar
    )
    TAVLA.validate(position)
    return position


def plays_text(position: Position, dice: tuple[int, int]) -> set[str]:
    return {format_play(p) for p in legal_plays(TAVLA, position, dice)}


def results(position: Position, dice: tuple[int, int]) -> set[Position]:
    return {p.after for p in legal_plays(TAVLA, position, dice)}


# -- T-1 setup --------------------------------------------------------------------------


@pytest.mark.parametrize("variant", [Tavla(), Turkish()], ids=str)
def test_T1_setup_and_pip_count(variant: Tavla) -> None:
    start = variant.start_position()
    for side in start:
        assert {p: n for p, n in enumerate(side) if n} == {24: 2, 13: 5, 8: 3, 6: 5}
        assert side[OFF] == side[BAR] == 0
    assert start.pips() == (167, 167)
    assert start.mover == start.opponent
    variant.validate(start)
    # White's point n is Black's 25 - n: the two sides fill 8 different points.
    occupied = {p for p in range(1, 25) if start.mover[p]}
    theirs = {25 - q for q in range(1, 25) if start.opponent[q]}
    assert occupied.isdisjoint(theirs)
    assert len(occupied | theirs) == 8


# -- T-3 landing ------------------------------------------------------------------------


def test_T3_closed_point_cannot_be_landed_on_but_jumped_over() -> None:
    """T-3: two or more opposing checkers close a point; jumping over it is fine."""
    # At the start the opponent holds our 1, 12, 17 and 19.
    for closed in (1, 12, 17, 19):
        assert START.opponent[25 - closed] >= 2
    for roll in ALL_ROLLS:
        for play in legal_plays(TAVLA, START, roll):
            assert all(step.dest not in (1, 12, 17, 19) for step in play.steps)
    # 24/18 jumps over the closed 19; 13/8 lands on an own point; 24/18 on an empty one.
    steps_65 = {s for p in legal_plays(TAVLA, START, (6, 5)) for s in p.steps}
    assert Step(24, 18) in steps_65
    assert Step(13, 8) in steps_65
    assert Step(24, 19) not in steps_65


def test_T3_blot_can_be_landed_on() -> None:
    position = board({24: 2, 13: 5, 8: 3, 6: 5}, {18: 1, 1: 2, 12: 5, 17: 3, 19: 4})
    assert "24/18*" in {t for text in plays_text(position, (6, 4)) for t in text.split()}


def test_T3_every_stop_of_a_checker_must_be_open() -> None:
    """Common ground / T-3: 24/13 with 6-5 needs 18 or 19 open as a stop."""
    both_closed = board({24: 1, 1: 14}, {18: 2, 19: 2, 20: 11})
    assert all(Step(24, 13) not in p.steps for p in legal_plays(TAVLA, both_closed, (6, 5)))
    for play in legal_plays(TAVLA, both_closed, (6, 5)):
        assert all(s.source not in (18, 19) for s in play.steps)
    one_open = board({24: 1, 1: 14}, {19: 2, 20: 13})
    assert plays_text(one_open, (6, 5)) == {"24/13"}
    with pytest.raises(IllegalPlayError) as error:
        Turn(TAVLA, both_closed, (6, 5)).apply_text("24/13")
    assert error.value.code == "illegal_play"  # neither stop can be landed on
    with pytest.raises(IllegalPlayError) as error:
        Turn(TAVLA, both_closed, (6, 5)).apply_text("24/18")
    assert error.value.code == "blocked"


# -- T-4 hitting ------------------------------------------------------------------------


def test_T4_hitting_sends_the_blot_to_the_bar_and_is_marked() -> None:
    position = board({24: 2, 13: 5, 8: 3, 6: 5}, {5: 1, 1: 1, 12: 5, 17: 3, 19: 5})
    plays = {format_play(p): p for p in legal_plays(TAVLA, position, (5, 1))}
    play = plays["13/8 6/5*"]
    assert play.after.opponent[BAR] == 1
    assert play.after.opponent[25 - 5] == 0
    assert play.after.mover[5] == 1
    assert [s.hit for s in sorted(play.steps, reverse=True)] == [False, True]
    # Every play that lands on 5 (or on the blot on 1) hits there, and only there.
    for text, p in plays.items():
        if any(s.dest == 5 for s in p.steps):
            assert "5*" in text
        assert p.after.opponent[BAR] == sum(s.hit for s in p.steps) == text.count("*")


def test_T4_hit_on_the_way_and_two_hits() -> None:
    position = board({24: 2, 13: 5, 8: 3, 6: 5}, {18: 1, 9: 1, 12: 5, 17: 3, 19: 5})
    texts = plays_text(position, (6, 3))
    assert "24/18*/15" in texts  # a hit at a stop is written out
    assert "24/18* 13/10" in texts
    two = [p for p in legal_plays(TAVLA, position, (6, 4)) if p.after.opponent[BAR] == 2]
    assert {format_play(p) for p in two} == {"24/18* 13/9*"}


# -- T-5 the bar ------------------------------------------------------------------------


@pytest.mark.parametrize(("k", "expected"), list(enumerate([36, 35, 32, 27, 20, 11, 0])))
def test_T5_entering_table(k: int, expected: int) -> None:
    """T-5: with k closed home points, this many of the 36 rolls let a bar checker in."""
    for closed in combinations(range(19, 25), k):
        opponent = dict.fromkeys(closed, 2)
        opponent[12] = 15 - 2 * k
        position = board({6: 14}, opponent, bar=1)
        entering = sum(
            bool(legal_plays(TAVLA, position, (a, b))) for a in range(1, 7) for b in range(1, 7)
        )
        assert entering == expected, closed


@pytest.mark.parametrize("die", range(1, 7))
def test_T5_die_n_enters_on_point_25_minus_n(die: int) -> None:
    position = board({6: 14}, {12: 15}, bar=1)
    other = 6 if die != 6 else 5
    turn = Turn(TAVLA, position, (die, other))
    assert {s for s, d in turn.legal_steps() if d == die} == {Step(BAR, 25 - die)}


def test_T5_bar_checkers_enter_before_anything_else() -> None:
    position = board({13: 5, 8: 3, 6: 5}, {12: 5, 17: 3, 19: 5, 1: 2}, bar=2)
    for roll in ALL_ROLLS:
        for play in legal_plays(TAVLA, position, roll):
            sources = [s.source for s in play.steps]
            entered = sources.count(BAR)
            assert sources[:entered] == [BAR] * entered
            if len(play.steps) > entered:
                assert entered == 2
    with pytest.raises(IllegalPlayError) as error:
        Turn(TAVLA, position, (4, 3)).apply_text("13/9 13/10")
    assert error.value.code == "must_enter_first"


def test_T5_partial_entry_loses_the_rest_of_the_roll() -> None:
    """T-5: two on the bar and only one die enters: enter one, the rest is lost."""
    position = board({13: 5, 8: 3, 6: 5}, {19: 2, 12: 5, 17: 3, 1: 5}, bar=2)
    assert plays_text(position, (6, 5)) == {"bar/20"}
    assert plays_text(position, (6, 6)) == set()  # the whole roll is lost
    # 5-5: both enter, then the other two fives are played.
    assert all(len(p.steps) == 4 for p in legal_plays(TAVLA, position, (5, 5)))
    assert all(
        [s.source for s in p.steps][:2] == [BAR, BAR] for p in legal_plays(TAVLA, position, (5, 5))
    )


def test_T5_all_home_points_closed_loses_the_roll() -> None:
    position = board({6: 14}, dict.fromkeys(range(19, 25), 2) | {12: 3}, bar=1)
    for roll in ALL_ROLLS:
        assert legal_plays(TAVLA, position, roll) == []
        assert not Turn(TAVLA, position, roll).can_move


# -- T-6 bearing off --------------------------------------------------------------------


def test_T6_no_bear_off_with_a_checker_outside() -> None:
    position = board({8: 1, 6: 4, 5: 5, 4: 5}, {12: 15})
    for roll in ALL_ROLLS:
        for play in legal_plays(TAVLA, position, roll):
            # A checker may bear off only after the one on 8 has come home in the same turn.
            offs = [i for i, s in enumerate(play.steps) if s.dest == OFF]
            home_at = next((i for i, s in enumerate(play.steps) if s.source == 8), None)
            for i in offs:
                assert home_at is not None
                assert home_at < i
    with pytest.raises(IllegalPlayError) as error:
        Turn(TAVLA, position, (6, 5)).apply_text("6/off 5/off")
    assert error.value.code == "bear_off_not_home"


def test_T6_hit_checker_must_come_home_first() -> None:
    """T-6: a checker on the bar keeps the side from bearing off."""
    position = board({6: 4, 5: 5, 4: 5}, {12: 15}, bar=1)
    for roll in ALL_ROLLS:
        for play in legal_plays(TAVLA, position, roll):
            assert all(s.dest != OFF for s in play.steps)


def test_T6_die_bears_off_from_its_own_point() -> None:
    position = board({6: 2, 5: 2, 4: 3, 1: 1}, {12: 15})
    assert "6/off 4/off" in plays_text(position, (6, 4))


def test_T6_empty_point_with_higher_checkers_moves_inside() -> None:
    """T-6: die 5 with 5 empty and checkers on 6: the 5 must be played inside."""
    position = board({6: 3, 4: 3, 3: 3}, {12: 15})
    assert plays_text(position, (5, 2)) == {"6/4 6/1", "6/1 4/2", "6/1 3/1"}
    with pytest.raises(IllegalPlayError) as error:
        Turn(TAVLA, position, (5, 2)).apply_text("4/off")
    assert error.value.code == "bear_off_higher_first"
    # Once the 6 point is cleared, the fourth 5 bears off from 4, the highest point.
    assert plays_text(position, (5, 5)) == {"6/1(3) 4/off"}


def test_T6_larger_die_bears_off_from_the_highest_point() -> None:
    position = board({4: 2, 2: 1}, {12: 15})
    assert plays_text(position, (6, 5)) == {"4/off(2)"}
    position = board({3: 1, 1: 1}, {12: 15})
    assert plays_text(position, (6, 5)) == {"3/off 1/off"}


def test_T6_a_move_inside_home_is_allowed_instead() -> None:
    position = board({6: 2, 5: 2, 4: 3, 1: 1}, {12: 15})
    texts = plays_text(position, (6, 4))
    assert "6/2 6/off" in texts  # the 4 is played inside although 4/off was possible
    assert "6/off 5/1" in texts


def test_T6_bearing_off_becomes_possible_during_the_turn() -> None:
    """T-6: the last checker comes home with one die, then the others may bear off."""
    position = board({7: 1, 6: 4, 5: 5, 4: 5}, {12: 15})
    assert plays_text(position, (6, 6)) == {"7/1 6/off(3)"}
    assert plays_text(position, (6, 1)) == {"7/off", "7/1 6/5", "7/1 5/4", "7/1 4/3"}


# -- Common ground ----------------------------------------------------------------------


def test_common_maximum_dice_rule() -> None:
    """Both dice must be used when possible, even if one-die plays exist."""
    position = position_from_id("fn8YAAD/PwAAIA")
    assert plays_text(position, (6, 5)) == {"24/13"}
    turn = Turn(TAVLA, position, (6, 5))
    turn.apply_text("24/19")
    assert not turn.complete  # 24/19 alone is not a whole play
    turn.apply_text("19/13")
    assert turn.complete


def test_common_maximum_dice_rule_when_playing_fewer_would_be_better() -> None:
    """Playing both dice is forced even when it leaves a worse position."""
    position = board({24: 1, 8: 1, 1: 13}, {19: 2, 3: 2, 20: 11})
    assert plays_text(position, (6, 5)) == {"24/13"}
    with pytest.raises(IllegalPlayError) as error:
        Turn(TAVLA, position, (6, 5)).apply_text("8/2")
    assert error.value.code == "must_use_dice"


def test_common_larger_die_rule() -> None:
    """Only one die can be used: the larger one."""
    position = position_from_id("fn8AAwD/PwAAIA")
    assert plays_text(position, (6, 5)) == {"24/18"}
    with pytest.raises(IllegalPlayError) as error:
        Turn(TAVLA, position, (6, 5)).apply_text("24/19")
    assert error.value.code == "must_play_larger"


def test_common_smaller_die_when_the_larger_cannot_move() -> None:
    position = board({24: 1, 1: 14}, {18: 2, 13: 2, 20: 11})
    assert plays_text(position, (6, 5)) == {"24/19"}


def test_common_doubles_are_played_four_times() -> None:
    for d in range(1, 7):
        plays = legal_plays(TAVLA, START, (d, d))
        assert plays
        assert all(len(p.steps) == 4 and p.dice == (d,) * 4 for p in plays)
    assert plays_text(START, (6, 6)) >= {"24/18(2) 13/7(2)"}


def test_common_doubles_as_many_as_possible() -> None:
    position = position_from_id("fn9gAAD/PwAAIA")
    assert plays_text(position, (4, 4)) == {"24/20"}


def test_common_die_is_never_split() -> None:
    """5-4 cannot be played as 2+3 and 4: every step covers one whole die."""
    for roll in ALL_ROLLS:
        for play in legal_plays(TAVLA, START, roll):
            for step, die in zip(play.steps, play.dice, strict=True):
                assert step.distance == die
    with pytest.raises(IllegalPlayError) as error:
        Turn(TAVLA, START, (5, 4)).apply_text("13/11 13/10 8/4")
    assert error.value.code in ("too_many_moves", "no_die")
    with pytest.raises(IllegalPlayError) as error:
        Turn(TAVLA, START, (5, 4)).apply_text("13/11")
    assert error.value.code == "no_die"


def test_common_no_playable_die_passes_the_turn() -> None:
    position = position_from_id("27Y5AADg8+ADQA")
    assert legal_plays(TAVLA, position, (6, 6)) == []
    assert not Turn(TAVLA, position, (6, 6)).can_move


# -- positions checked with GNU Backgammon ----------------------------------------------


@pytest.mark.parametrize("case", GNUBG_CASES, ids=[c["name"] for c in GNUBG_CASES])
def test_gnubg_positions(case: dict) -> None:
    """Common ground, T-5, T-6: gnubg's counts and plays for each listed position."""
    position = position_from_id(case["position"])
    TAVLA.validate(position)
    dice = tuple(case["dice"])
    plays = legal_plays(TAVLA, position, dice)
    assert len({p.after for p in plays}) == case["results"]
    assert len(reference_results(TAVLA, position, dice)) == case["results"]
    if "plays" in case:
        assert {format_play(p) for p in plays} == set(case["plays"])
        finals = {p.after for p in plays}
        for text in case["plays"]:
            turn = Turn(TAVLA, position, dice)
            turn.apply_text(text)
            assert turn.complete, text
            assert turn.position in finals
            assert turn.play().after == turn.position


# -- perft-style counts -----------------------------------------------------------------

#: Distinct boards after each roll from the start, computed with tests/reference.py.
#: 6-5 (7), 6-1 (10) and 5-5 (4) were also counted by hand.
START_RESULTS = {
    (1, 1): 42, (2, 1): 15, (3, 1): 16, (4, 1): 14, (5, 1): 8, (6, 1): 10,
    (2, 2): 75, (3, 2): 17, (4, 2): 18, (5, 2): 8, (6, 2): 14,
    (3, 3): 73, (4, 3): 17, (5, 3): 9, (6, 3): 14,
    (4, 4): 52, (5, 4): 9, (6, 4): 14,
    (5, 5): 4, (6, 5): 7,
    (6, 6): 11,
}  # fmt: skip
#: Sum over the 21 rolls of the number of plays from the start (1 ply), and the number of
#: different boards among them; then the same two plies deep (both from the reference).
PERFT_1 = (447, 406)
PERFT_2 = (202782, 163706)


@pytest.mark.parametrize("roll", ALL_ROLLS, ids=lambda r: f"{r[0]}-{r[1]}")
def test_perft_start_position_per_roll(roll: tuple[int, int]) -> None:
    """T-1, T-3, common ground: the distinct results of each roll from the start."""
    fast = results(START, roll)
    assert fast == reference_results(TAVLA, START, roll)
    assert len(fast) == START_RESULTS[roll]


def test_perft_hand_counted_openings() -> None:
    """By hand: 6-5 is 24/13, 24/18 13/8, 24/18 8/3, 13/7 13/8, 13/7 8/3, 13/2, 8/2 8/3."""
    assert plays_text(START, (6, 5)) == {
        "24/13", "24/18 13/8", "24/18 8/3", "13/8 13/7", "13/7 8/3", "13/2", "8/3 8/2",
    }  # fmt: skip
    # 5-5: only 13/8 and 8/3 move; k of the four fives go on from 8 (k = 0..3).
    assert plays_text(START, (5, 5)) == {"13/8(4)", "13/3 13/8(2)", "13/3(2)", "13/3 8/3(2)"}
    # 6-1: the six (24/18, 13/7, 8/2) with the one (24/23, 8/7, 6/5, or 7/6 after 13/7).
    assert plays_text(START, (6, 1)) == {
        "24/23 24/18", "24/18 8/7", "24/18 6/5",
        "24/23 13/7", "13/7 8/7", "13/7 6/5", "13/6",
        "24/23 8/2", "8/7 8/2", "8/2 6/5",
    }  # fmt: skip


def test_perft_one_ply() -> None:
    """Common ground: all 21 rolls from the start, fast generator and reference alike."""
    total = sum(len(legal_plays(TAVLA, START, r)) for r in ALL_ROLLS)
    boards = set().union(*(results(START, r) for r in ALL_ROLLS))
    assert (total, len(boards)) == PERFT_1
    ref_total = sum(len(reference_results(TAVLA, START, r)) for r in ALL_ROLLS)
    ref_boards = set().union(*(reference_results(TAVLA, START, r) for r in ALL_ROLLS))
    assert (ref_total, len(ref_boards)) == PERFT_1


def test_perft_two_plies() -> None:
    """Common ground, T-3..T-5: two plies deep from the start (numbers from the reference)."""
    total = 0
    boards: set[Position] = set()
    for roll in ALL_ROLLS:
        for after in results(START, roll):
            reply = after.swapped()
            for roll2 in ALL_ROLLS:
                plays = legal_plays(TAVLA, reply, roll2)
                total += len(plays)
                boards.update(p.after for p in plays)
    assert (total, len(boards)) == PERFT_2
