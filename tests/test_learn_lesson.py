"""The guided first game's moments (core.learn.lesson): what a new player meets for the first
time, read from a game's history and position, each named once."""

from __future__ import annotations

from core.dice import FixedDice
from core.game import Game, Phase
from core.learn import lesson as L
from core.position import side_from_points
from core.variants import variant_by_name

TAVLA = variant_by_name("tavla")
UZUN = variant_by_name("uzun")
START = {24: 2, 13: 5, 8: 3, 6: 5}


def on_roll(variant, mine: dict[int, int], theirs: dict[int, int], starter: int = 0) -> Game:
    """A game with seat ``starter`` to roll, seat 0 holding ``mine`` and seat 1 ``theirs``."""
    game = Game.new(variant, FixedDice([]), opening="winner_rolls", starter=starter)
    game.sides[0] = side_from_points(mine)
    game.sides[1] = side_from_points(theirs)
    return game


def topics(found: list[L.Moment]) -> list[str]:
    return [m.topic for m in found]


def test_a_hit_and_a_dance_either_way_T4_T5() -> None:
    """T-4: the learner's hit names the point it was on; the same hit is the other side's
    checker sent to the bar. T-5: a roll that cannot enter from the bar is a dance."""
    # Seat 1's blot on its 20 is seat 0's 5: 3-1 hits it.
    game = on_roll(TAVLA, START, {24: 1, 20: 1, 13: 5, 8: 3, 6: 5})
    game.roll(0, FixedDice([(3, 1)]))
    assert topics(L.moments(game, 0)) == [L.MOVE]
    game.move_text(0, "8/5* 6/5")
    found = L.moments(game, 0, {L.MOVE})
    assert topics(found) == [L.HIT]  # the computer is on roll: nothing for the learner to do
    assert (found[0].point, found[0].dice) == (5, (3, 1))
    their_side = L.moments(game, 1)
    assert their_side[0] == L.Moment(L.HIT_YOU, 0, (3, 1), 20)  # in seat 1's numbering
    # 6-6 from the bar enters on seat 1's 19, seat 0's 6: four checkers hold it.
    game.roll(1, FixedDice([(6, 6)]))
    assert game.history[-1]["type"] == "pass"
    found = L.moments(game, 0, {L.MOVE, L.HIT})
    assert topics(found) == [L.DANCE_THEM, L.ROLL]  # and now: roll, or double (T-8)
    assert found[0].dice == (6, 6)
    assert L.Moment(L.DANCE, 1, (6, 6)) in L.moments(game, 1)


def test_a_closed_roll_without_the_bar_is_stuck() -> None:
    """The common ground: a roll that cannot be played at all passes, bar or no bar."""
    # Seat 0's last checker on 24 faces a closed 18 and 19 (seat 1's 7 and 6).
    game = on_roll(TAVLA, {24: 1, 1: 14}, {7: 2, 6: 2, 1: 11})
    game.roll(0, FixedDice([(6, 5)]))
    assert game.history[-1]["type"] == "pass"
    assert L.Moment(L.STUCK, 0, (6, 5)) in L.moments(game, 0)


def test_home_and_the_first_checkers_off_T6_T7() -> None:
    """T-6: every checker home starts the bear-off; T-7: the first checker off (one's own,
    or the opponent's while one has none: a gammon is near)."""
    home = {6: 2, 5: 3, 4: 3, 3: 3, 2: 2, 1: 2}
    game = on_roll(TAVLA, home, {18: 2, 13: 5, 8: 3, 7: 5})
    assert topics(L.moments(game, 0)) == [L.HOME, L.ROLL]
    game.roll(0, FixedDice([(6, 5)]))
    game.move_text(0, "6/off 5/off")
    assert topics(L.moments(game, 0, {L.HOME, L.ROLL})) == [L.OFF_YOU]
    assert L.OFF_THEM in topics(L.moments(game, 1))  # seat 1 has none off yet


def test_home_is_told_before_the_first_checker_off_of_the_same_turn_T6() -> None:
    """T-6: a turn that brings the last checker home and bears one off tells "all home: now
    bear off" first and then "your first checker is off" (it told them the other way
    round, the bear-off explained after it was done)."""
    game = on_roll(TAVLA, {8: 1, 6: 2, 5: 3, 4: 3, 3: 3, 2: 2, 1: 1}, {18: 2, 13: 5, 8: 3, 7: 5})
    game.roll(0, FixedDice([(3, 1)]))
    game.move_text(0, "8/5 1/off")
    assert topics(L.moments(game, 0, {L.MOVE, L.ROLL})) == [L.HOME, L.OFF_YOU]


def test_five_points_in_a_row_in_uzun_U6() -> None:
    """U-6: five points in a row are one short of a block; four are not yet."""
    theirs = {24: 15}
    four = on_roll(UZUN, {24: 11, 22: 1, 21: 1, 20: 1, 19: 1}, theirs)
    assert L.BLOCK not in topics(L.moments(four, 0))
    five = on_roll(UZUN, {24: 10, 22: 1, 21: 1, 20: 1, 19: 1, 18: 1}, theirs)
    assert L.BLOCK in topics(L.moments(five, 0))
    # 12 and 13 do not join (they are the opponent's 24 and 1).
    split = on_roll(UZUN, {24: 9, 15: 1, 14: 1, 13: 1, 12: 1, 11: 1, 10: 1}, theirs)
    assert L.BLOCK not in topics(L.moments(split, 0))


def test_each_topic_once_in_order_and_the_end() -> None:
    game = on_roll(TAVLA, START, START)
    game.roll(0, FixedDice([(3, 1)]))
    assert topics(L.moments(game, 0)) == [L.MOVE]
    assert L.moments(game, 0, {L.MOVE}) == []
    game.forfeit(0)
    assert game.phase is Phase.OVER
    assert topics(L.moments(game, 0, {L.MOVE})) == [L.END]
