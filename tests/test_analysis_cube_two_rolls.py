"""The cube look-ahead two rolls deep, against an exhaustive search (issue 15, T-6, T-8,
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

from functools import cache

import pytest

from core.ai.cube import CubeState, match_equity, may_double
from core.ai.gnubg_player import load_gnubg
from core.ai.lookahead import ROLL_WEIGHTS, ROLLS
from core.analysis import evaluator_for
from core.analysis.cubeful import DEEP_CHECKERS, lookahead_equities, taken
from core.movegen import legal_plays
from core.position import CHECKERS, OFF, Position
from core.variants import variant_by_name

TAVLA = variant_by_name("tavla")

EVALUATORS = [
    "network",
    pytest.param(
        "gnubg", marks=pytest.mark.skipif(load_gnubg() is None, reason="needs the gnubg extra")
    ),
]

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


def _mwc(state: CubeState, points: int) -> float:
    """The match-winning chance of ``state``'s side after it wins (> 0) or loses points."""
    a, b = state.away
    post = state.crawford or state.post_crawford
    return match_equity(a - points, b, post) if points > 0 else match_equity(a, b + points, post)


def _win(state: CubeState) -> float:
    """The utility of winning the cube's value (no gammons: both sides have borne off):
    points in money play, the match-winning chance in a match."""
    return float(state.value) if state.money else _mwc(state, state.value)


def _other(state: CubeState, utility: float) -> float:
    return -utility if state.money else 1.0 - utility


@cache
def rolling(position: Position, state: CubeState) -> float:
    """The utility of rolling now under ``state`` (the side on roll's), searching every
    roll and play to the end, both sides using the cube at each turn (T-8)."""
    total = 0.0
    for weight, roll in zip(ROLL_WEIGHTS, ROLLS, strict=True):
        plays = legal_plays(TAVLA, position, roll, False)
        options = [
            _win(state)
            if p.after.mover[OFF] == CHECKERS
            else _other(state, deciding(p.after.swapped(), state.swapped()))
            for p in plays
        ] or [_other(state, deciding(position.swapped(), state.swapped()))]
        total += weight * max(options)
    return total


def deciding(position: Position, state: CubeState) -> float:
    """The utility of the side on roll before its cube decision: max(no double,
    min(double/take, double/pass)) where it may double."""
    no_double = rolling(position, state)
    if not may_double(state):
        return no_double
    return max(no_double, min(rolling(position, taken(state)), _win(state)))


def emg(state: CubeState, utility: float) -> float:
    """A utility normalized to the cube: points per cube, or EMG in a match (losing the
    cube's value -1, winning it +1)."""
    if state.money:
        return utility / state.value
    lose, win = _mwc(state, -state.value), _mwc(state, state.value)
    return 2.0 * (utility - lose) / (win - lose) - 1.0


def searched(position: Position, state: CubeState) -> tuple[float, float]:
    """(no double, double/take) by the exhaustive search, normalized to the cube."""
    return emg(state, rolling(position, state)), emg(state, rolling(position, taken(state)))


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
