"""Cube decisions scored exactly where the cube's value is known (T-8).

In a *last-roll* position the player on roll (X) bears off its last checkers with
probability p this roll, and otherwise the opponent (Y), one checker on its 1-point, bears
off on any roll (T-6). With a centred cube at 1 and no gammons possible, for X in points:

* no double: p - (1 - p) = 2p - 1 (the cube is dead after the roll: Y wins for sure);
* double, take: the same at twice the stake, 2(2p - 1);
* double, pass: 1.

So X should double when p > 1/2 and Y should pass when p > 3/4; a missed double costs
min(2(2p - 1), 1) - (2p - 1), a wrong take 2(2p - 1) - 1, a wrong pass 1 - 2(2p - 1) and a
wrong double (p < 1/2) (2p - 1) - 2(2p - 1). The chances p come from counting the rolls that
bear off X's checkers (the one-sided bear-off database counts the same). Janowski's
live-cube model, which the analysis used alone before, scored the missed double at p = 3/4
at about 0.1 instead of 1/2; the cubeful look-ahead over the next roll finds these values
exactly, with either evaluator.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from core.ai.bearoff import bearoff_database
from core.ai.cube import CubeState, match_equity
from core.analysis import Action, analyse_actions, evaluator_for
from core.analysis.cubeful import lookahead_equities, may_double, near_threshold
from core.analysis.scoring import cube_equities
from core.dice import FixedDice
from core.game import Game
from core.position import Position
from core.variants import Variant
from tests.cube_search import EVALUATORS, TAVLA, searched

#: Y's last checker on its 1-point: it bears off with any roll.
LAST_CHECKER = {1: 1}


def game_at(position: Position, *, owner: int | None = None, value: int = 1) -> Game:
    """A Tavla game waiting for player 0 to roll (or double) in ``position``."""
    game = Game.new(TAVLA, FixedDice([]), opening="winner", starter=0)
    game.sides[0], game.sides[1] = position.mover, position.opponent
    game.played_first_turn = [True, True]
    game.cube_value, game.cube_owner = value, owner
    return game


def bear_off_chance(points: dict[int, int]) -> Fraction:
    """The share of the 36 rolls that bear off all of ``points`` (by counting, via the
    one-sided database: its chance of needing exactly one roll)."""
    home = [points.get(p, 0) for p in range(1, 7)]
    db = bearoff_database()
    return Fraction(round(float(db.off[db.index(home)][1]) * 36), 36)


def cube_decisions(level: str, mover: dict[int, int], actions: list[Action], **kw):
    start = game_at(Position.from_points(mover, LAST_CHECKER))
    analysis = analyse_actions(
        TAVLA, [actions], evaluator=evaluator_for(TAVLA, level), start=start, **kw
    )
    return [(d.player, d.played, d.best, d.loss) for d in analysis.decisions if d.kind == "cube"]


def test_the_counted_chances() -> None:
    """The chances the cases below rest on: one checker on the 6-point fails only with
    1-2, 1-3, 1-4, 2-3 and 1-1 (9 rolls); on the 5-point with 1-2, 1-3 and 1-1 (5 rolls);
    two on the 2-point fail with the ten rolls holding a 1 other than 1-1; on the 3- and
    2-points with 1-1 and the rolls holding a 1 (11)."""
    assert bear_off_chance({6: 1}) == Fraction(27, 36)
    assert bear_off_chance({5: 1}) == Fraction(31, 36)
    assert bear_off_chance({2: 2}) == Fraction(26, 36)
    assert bear_off_chance({3: 1, 2: 1}) == Fraction(25, 36)
    assert bear_off_chance({6: 1, 1: 1}) == Fraction(15, 36)
    assert bear_off_chance(LAST_CHECKER) == 1


# (X's checkers, the actions, the cube decisions expected: (player, played, best, loss)).
LAST_ROLL_CASES = {
    # p = 3/4: no double 1/2, double/take 1 = double/pass: a missed double of exactly 1/2.
    "missed double at p = 27/36": (
        {6: 1},
        [Action("roll", 0, (2, 1)), Action("play", 0, play="6/3")],
        [(0, "no double", "double", 0.5)],
    ),
    # p = 26/36: no double 16/36, double/take 32/36: missed double 16/36 = 4/9.
    "missed double at p = 26/36": (
        {2: 2},
        [Action("roll", 0, (2, 1)), Action("play", 0, play="2/off 2/1")],
        [(0, "no double", "double", 4 / 9)],
    ),
    # p = 25/36 = 1 - 11/36: double/take 28/36 < 1: the double is right, the pass wrong by
    # 1 - 28/36 = 2/9.
    "wrong pass at p = 25/36": (
        {3: 1, 2: 1},
        [Action("double", 0), Action("drop", 1), Action("end", 0, points=1)],
        [(0, "double", "double", 0.0), (1, "pass", "take", 2 / 9)],
    ),
    # p = 31/36: double/take 52/36 > 1: the take is wrong by 16/36 = 4/9.
    "wrong take at p = 31/36": (
        {5: 1},
        [
            Action("double", 0),
            Action("take", 1),
            Action("roll", 0, (6, 5)),
            Action("play", 0, play="5/off"),
            Action("end", 0, points=2),
        ],
        [(0, "double", "double", 0.0), (1, "take", "pass", 4 / 9)],
    ),
    # p = 15/36: no double -6/36, double/take -12/36: a wrong double of 6/36 = 1/6 (Janowski
    # put it at about 0.46); the take is right.
    "wrong double at p = 15/36": (
        {6: 1, 1: 1},
        [
            Action("double", 0),
            Action("take", 1),
            Action("roll", 0, (6, 1)),
            Action("play", 0, play="6/off 1/off"),
            Action("end", 0, points=2),
        ],
        [(0, "double", "no double", 1 / 6), (1, "take", "take", 0.0)],
    ),
}


@pytest.mark.parametrize("level", EVALUATORS)
@pytest.mark.parametrize("case", list(LAST_ROLL_CASES))
def test_last_roll_cube_errors_are_scored_exactly(level: str, case: str) -> None:
    """T-8 in a last-roll position, money play (see the module doc for the values)."""
    mover, actions, expected = LAST_ROLL_CASES[case]
    found = cube_decisions(level, mover, actions)
    assert [d[:3] for d in found] == [e[:3] for e in expected]
    for (_, _, _, loss), (_, _, _, exact) in zip(found, expected, strict=True):
        assert loss == pytest.approx(exact, abs=1e-9)


@pytest.mark.parametrize("level", EVALUATORS)
def test_a_two_roll_position_with_a_redouble_is_scored_exactly(level: str) -> None:
    """X: one checker on the 6-point (p = 27/36); if it fails (9 rolls) its checker stands
    on the 3-point or lower and comes off with any roll next time. Y: checkers on its 5- and
    1-points, off this roll with q = 23/36, and on roll after X's miss it holds a cube
    decision of its own, a last-roll one: q - (1 - q) = 10/36 without doubling, 20/36
    doubled and taken (q <= 3/4), so it doubles (or redoubles) and X takes: 20/36 for Y.

    * X no double: 27/36 - 9/36 * 20/36 = 11/18;
    * X double, take (Y owns the 2-cube and redoubles to 4): 2 (27/36 - 9/36 * 20/36) = 11/9;
    * X double, pass: 1.

    So doubling is right and Y should pass: not doubling costs 1 - 11/18 = 7/18, and taking
    11/9 - 1 = 2/9. (Without Y's redouble the take would cost 2 (27/36 - 9/36 * 10/36) - 1
    = 13/36: the look-ahead counts the opponent's cube at the next turn.)
    """
    evaluator = evaluator_for(TAVLA, level)
    position = Position.from_points({6: 1}, {5: 1, 1: 1})
    eq = lookahead_equities(evaluator, TAVLA, position, CubeState())
    assert (eq.no_double, eq.double_take, eq.double_pass) == pytest.approx(
        (11 / 18, 11 / 9, 1.0), abs=1e-9
    )
    start = game_at(position)
    roll = [Action("roll", 0, (2, 1)), Action("play", 0, play="6/3")]
    analysis = analyse_actions(TAVLA, [roll], evaluator=evaluator, start=start)
    (missed,) = [d for d in analysis.decisions if d.kind == "cube"]
    assert (missed.played, missed.best, missed.loss) == (
        "no double",
        "double",
        pytest.approx(7 / 18),
    )


@pytest.mark.parametrize("level", EVALUATORS)
def test_no_cube_decision_where_the_cube_cannot_be_turned(level: str) -> None:
    """The same last roll at p = 27/36 is no cube decision for X when Y owns the cube (T-8:
    no doubling while the opponent owns it), nor in a match to 1 point (M-1: winning one
    point wins the match, the cube changes nothing)."""
    evaluator = evaluator_for(TAVLA, level)
    roll = [Action("roll", 0, (2, 1)), Action("play", 0, play="6/3")]
    position = Position.from_points({6: 1}, LAST_CHECKER)
    owned = analyse_actions(
        TAVLA, [roll], evaluator=evaluator, start=game_at(position, owner=1, value=2)
    )
    single = analyse_actions(TAVLA, [roll], evaluator=evaluator, start=game_at(position), length=1)
    for analysis in (owned, single):
        assert analysis.players[0].cube_decisions == 0
        assert analysis.players[0].decisions == 0


def _met_equities(p: float, away: tuple[int, int]) -> tuple[float, float]:
    """No double and double/take at a 1-cube in a last-roll position (no gammons), from the
    match equity table, as EMG: match-winning chances mapped so that losing 1 point is -1
    and winning it +1."""
    a, b = away
    win, lose = match_equity(a - 1, b), match_equity(a, b - 1)
    no_double = p * win + (1 - p) * lose
    double_take = p * match_equity(a - 2, b) + (1 - p) * match_equity(a, b - 2)

    def emg(mwc: float) -> float:
        return 2 * (mwc - lose) / (win - lose) - 1

    return emg(no_double), emg(double_take)


@pytest.mark.parametrize("level", EVALUATORS)
def test_a_take_that_money_allows_is_wrong_at_3_away_3_away(level: str) -> None:
    """At 0-0 in a match to 3 (3-away each), the last roll at p = 3/4: in money play take
    and pass are worth the same (1 point), but by the match equity table (Kazaross-XG2)
    winning the 2-cube (1-away against 3-away) gains more than losing it (3-away against
    1-away, the Crawford game next) costs, so the take is wrong (M-1, M-2, T-8)."""
    no_double, double_take = _met_equities(0.75, (3, 3))
    assert no_double == pytest.approx(0.5)
    assert double_take > 1.2  # the table's figures: about 1.26 EMG
    actions = [
        Action("double", 0),
        Action("take", 1),
        Action("roll", 0, (6, 5)),
        Action("play", 0, play="6/off"),
        Action("end", 0, points=2),
    ]
    match = cube_decisions(level, {6: 1}, actions, length=3)
    assert match == [
        (0, "double", "double", 0.0),
        (1, "take", "pass", pytest.approx(double_take - 1.0, abs=1e-9)),
    ]
    money = cube_decisions(level, {6: 1}, actions)
    assert [loss for *_, loss in money] == [0.0, 0.0]


@pytest.mark.parametrize("away", [(3, 2), (2, 3), (4, 2), (5, 3)])
def test_last_roll_equities_in_a_match_follow_the_table(away: tuple[int, int]) -> None:
    """The look-ahead's no double and double/take at several scores (a match to 5) equal the
    values from the match equity table."""
    state = CubeState(match_length=5, my_score=5 - away[0], opp_score=5 - away[1])
    position = Position.from_points({6: 1}, LAST_CHECKER)
    eq = lookahead_equities(evaluator_for(TAVLA, "network"), TAVLA, position, state)
    assert (eq.no_double, eq.double_take) == pytest.approx(_met_equities(0.75, away), abs=1e-9)
    assert eq.double_pass == 1.0


def test_after_the_crawford_game_the_trailer_doubles_a_last_roll() -> None:
    """M-2: after the Crawford game (a match to 3, the trailer 3-away, the leader 1-away) the
    trailer's double costs it nothing: winning 2 points gives 1-away 1-away, an even match.
    At p = 27/36 the table gives no double 27/36 * ME(2-away, 1-away post-Crawford), double/
    take 27/36 * 1/2, double/pass ME(2-away, 1-away post-Crawford); the leader, whose single
    win takes the match, has no cube decision at all."""
    trailer = CubeState(match_length=3, my_score=0, opp_score=2)
    assert trailer.post_crawford
    position = Position.from_points({6: 1}, LAST_CHECKER)
    eq = lookahead_equities(evaluator_for(TAVLA, "network"), TAVLA, position, trailer)
    win, lose = match_equity(2, 1, True), 0.0

    def emg(mwc: float) -> float:
        return 2 * (mwc - lose) / (win - lose) - 1

    assert (eq.no_double, eq.double_take) == pytest.approx(
        (emg(0.75 * win), emg(0.75 * 0.5)), abs=1e-9
    )
    assert eq.should_double
    assert eq.should_take
    assert not may_double(trailer.swapped())


# -- short bear-offs, against an exhaustive search ------------------------------------------


@pytest.mark.parametrize("level", EVALUATORS)
@pytest.mark.parametrize(
    ("mover", "opponent"),
    [({6: 2}, {6: 1}), ({6: 1, 5: 1}, {6: 1}), ({5: 1, 4: 1}, {6: 1})],
)
def test_a_short_bear_off_is_searched_two_rolls_deep_exactly(
    level: str, mover: dict[int, int], opponent: dict[int, int]
) -> None:
    """A bear-off that ends by the roller's second roll at the latest (the opponent's one
    checker on its 6-point, 27/36 to come off; if it misses it stands on its 3-point or
    lower, off with any roll): the look-ahead goes a second roll deep in short bear-offs,
    and its equities equal those of the exhaustive search, the opponent's cube options at
    its turn included."""
    position = Position.from_points(mover, opponent)
    eq = lookahead_equities(evaluator_for(TAVLA, level), TAVLA, position, CubeState())
    assert (eq.no_double, eq.double_take) == pytest.approx(
        searched(position, CubeState()), abs=1e-9
    )


def test_a_longer_bear_off_comes_close_to_the_exhaustive_search() -> None:
    """Two checkers each on the 6-point (a few rolls each, the cube changing hands): not
    exact at two rolls deep, but within 0.02 of the exhaustive search."""
    position = Position.from_points({6: 2}, {6: 2})
    eq = lookahead_equities(evaluator_for(TAVLA, "network"), TAVLA, position, CubeState())
    assert (eq.no_double, eq.double_take) == pytest.approx(
        searched(position, CubeState()), abs=0.02
    )


class _HopefulChances:
    """The network's evaluator, except that before its roll the side on roll is given
    ``chances`` (69% wins, no gammons of its own): Janowski's model on them calls a no double
    at 0-0 of a match to 3 a missed double of about 0.18, far from any threshold, while the
    look-ahead, on the network's own leaves, finds the opening position no double at all."""

    chances_given = np.array([0.69, 0.0, 0.0, 0.02, 0.0])

    def __init__(self) -> None:
        self.inner = evaluator_for(TAVLA, "network")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def chances(self, variant: Variant, position: Position) -> np.ndarray:
        return self.chances_given.copy()


def test_a_missed_double_is_charged_only_when_the_look_ahead_confirms_it() -> None:
    """T-8, M-1: a contact position, no double at 0-0 of a match to 3. The model's missed
    double (not near any threshold, so it would be charged as is) goes to the look-ahead,
    which finds no double at the opening position: nothing is charged."""
    evaluator = _HopefulChances()
    state = CubeState(match_length=3)
    model = cube_equities(evaluator.chances_given, state)
    assert model.should_double
    assert not near_threshold(model)
    assert model.double - model.no_double > 0.16
    start = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    searched = lookahead_equities(evaluator, TAVLA, start, state)
    assert not searched.should_double
    roll = [Action("roll", 0, (3, 1)), Action("play", 0, play="8/5 6/5")]
    analysis = analyse_actions(TAVLA, [roll], evaluator=evaluator, start=game_at(start), length=3)
    cube = [(d.played, d.best, d.loss) for d in analysis.decisions if d.kind == "cube"]
    assert cube in ([], [("no double", "no double", 0.0)])
