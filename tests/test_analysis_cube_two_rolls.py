"""The cube look-ahead two rolls deep, against an exhaustive search (T-6, T-8,
M-1, M-2).

The analysis values a close cube decision as GNU Backgammon's 2-ply cubeful search does:
for each roll the roller's best play, then on that board the opponent's own cube decision
(double, redouble, cash; the roller taking or passing), made on the opponent's own look-ahead
over its 21 rolls, the roller's cube options at the leaves. Where the game is sure to end
within four rolls (the roller, the opponent, the roller's last roll, the opponent's sure
finish) every leaf's value is exact, so the look-ahead must equal a search of every roll
and every play to the end of the game with the cube used at every turn.

The positions below are bear-offs of both sides with more than ``DEEP_CHECKERS`` checkers
left, so only each roll's best play (chosen on the leaves' quick values) is looked at a
second roll deep, the path every position of a real match takes. The one-roll look-ahead
with Janowski's model at the opponent's turn, which the analysis used before, was off by up
to 0.09 on them (``{6: 1, 2: 2}`` against four on the 1-point: double/take 0.626, exactly
0.712).
"""

from __future__ import annotations

import pytest

from core.ai.cube import CubeState
from core.analysis import evaluator_for
from core.analysis.cubeful import DEEP_CHECKERS, lookahead_equities
from core.position import Position
from tests.cube_search import EVALUATORS, TAVLA, searched

#: The opponent: four checkers on its 1-point, off now with a double (6 of 36), else two
#: left, off for sure with its next roll.
FOUR_ON_THE_ACE = {1: 4}

#: (the roller's checkers, the opponent's): each game ends within four rolls.
POSITIONS = [
    ({6: 1, 5: 1, 1: 1}, FOUR_ON_THE_ACE),
    ({6: 1, 4: 1, 2: 1}, FOUR_ON_THE_ACE),
    ({5: 1, 3: 1, 2: 1}, FOUR_ON_THE_ACE),
    ({6: 1, 2: 2}, FOUR_ON_THE_ACE),
    ({6: 2, 1: 1}, FOUR_ON_THE_ACE),
    ({4: 1, 3: 1, 2: 1}, {2: 2, 1: 2}),
]


def test_the_positions_take_the_general_path() -> None:
    """More than DEEP_CHECKERS checkers left: only the best play per roll goes deeper."""
    for mover, opponent in POSITIONS:
        left = sum(mover.values()) + sum(opponent.values())
        assert left > DEEP_CHECKERS


@pytest.mark.parametrize("level", EVALUATORS)
@pytest.mark.parametrize(("mover", "opponent"), POSITIONS)
def test_money_equities_equal_the_exhaustive_search(
    level: str, mover: dict[int, int], opponent: dict[int, int]
) -> None:
    """T-6, T-8, money play with a centred cube: no double and double/take equal the
    search's, with either evaluator (every leaf is exact)."""
    position = Position.from_points(mover, opponent)
    state = CubeState()
    eq = lookahead_equities(evaluator_for(TAVLA, level), TAVLA, position, state)
    assert (eq.no_double, eq.double_take) == pytest.approx(searched(position, state), abs=1e-9)


#: Cubes and scores of a match to 3 or 5 (M-1): centred at 0-0 and at 3-away 2-away, the
#: roller owning the 2-cube at 3-away 2-away (a free redouble), the opponent's 2-cube, and
#: the trailer after the Crawford game (M-2).
MATCH_STATES = {
    "centred 0-0, to 3": CubeState(match_length=3),
    "centred 3-away 2-away": CubeState(match_length=3, my_score=0, opp_score=1),
    "own 2-cube, 3-away 2-away": CubeState(value=2, owner=1, match_length=3, opp_score=1),
    "centred 2-away 4-away, to 5": CubeState(match_length=5, my_score=3, opp_score=1),
    "post-Crawford trailer": CubeState(match_length=3, my_score=0, opp_score=2),
}


@pytest.mark.parametrize("name", list(MATCH_STATES))
@pytest.mark.parametrize(("mover", "opponent"), POSITIONS[:4])
def test_match_equities_equal_the_exhaustive_search(
    name: str, mover: dict[int, int], opponent: dict[int, int]
) -> None:
    """M-1, M-2, T-8 in a match: the same search in match-winning chances (Kazaross-XG2
    table), the cube's value and owner changing the stakes and who may double; the
    look-ahead's EMG equal the search's."""
    state = MATCH_STATES[name]
    position = Position.from_points(mover, opponent)
    eq = lookahead_equities(evaluator_for(TAVLA, "network"), TAVLA, position, state)
    assert (eq.no_double, eq.double_take) == pytest.approx(searched(position, state), abs=1e-9)


#: The roller off within two rolls for sure, the opponent with none off (a gammon unless a
#: 6 comes, or a 5 or 6 with a checker on its 5-point): the leaves carry gammon chances.
GAMMON_POSITIONS = [
    ({1: 3}, {6: 15}),
    ({2: 2, 1: 1}, {6: 14, 5: 1}),
    ({3: 1, 1: 2}, {6: 15}),
]

#: Money with and without the Jacoby rule (M-3: gammons count once the cube is turned),
#: and matches to 5 (M-1) where a gammon wins the match or a doubled gammon overshoots it.
GAMMON_STATES = {
    "money": CubeState(),
    "Jacoby, centred": CubeState(jacoby=True),
    "Jacoby, own 2-cube": CubeState(value=2, owner=1, jacoby=True),
    "0-0, to 5": CubeState(match_length=5),
    "3-away 2-away": CubeState(match_length=5, my_score=2, opp_score=3),
    "2-away 3-away": CubeState(match_length=5, my_score=3, opp_score=2),
}


@pytest.mark.parametrize("name", list(GAMMON_STATES))
@pytest.mark.parametrize(("mover", "opponent"), GAMMON_POSITIONS)
def test_gammons_and_the_jacoby_rule_equal_the_exhaustive_search(
    name: str, mover: dict[int, int], opponent: dict[int, int]
) -> None:
    """T-7, T-8, M-1, M-3: where a gammon is at stake (and, with the Jacoby rule, counts
    only on a turned cube) the look-ahead's equities equal the search's."""
    state = GAMMON_STATES[name]
    position = Position.from_points(mover, opponent)
    eq = lookahead_equities(evaluator_for(TAVLA, "network"), TAVLA, position, state)
    assert (eq.no_double, eq.double_take) == pytest.approx(searched(position, state), abs=1e-9)
