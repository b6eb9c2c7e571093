"""An exhaustive cubeful search of short Tavla bear-offs, the oracle of the cube look-ahead's
tests (T-6, T-7, T-8, M-1, M-2, M-3).

Every roll and every play is searched to the end of the game, both sides using the cube
before each roll (double or redouble; the other side taking or passing as is best). Values
are utilities (points in money play, match-winning chances by the Kazaross-XG2 table in a
match) and normalized to the cube only at the end. Only for positions whose game ends
within a few rolls: the search has no depth limit.
"""

from __future__ import annotations

from functools import cache

import pytest

from core.ai.cube import CubeState, match_equity, may_double
from core.ai.gnubg_player import load_gnubg
from core.ai.lookahead import ROLL_WEIGHTS, ROLLS
from core.ai.sim import result_points
from core.analysis.cubeful import taken
from core.movegen import legal_plays
from core.position import CHECKERS, OFF, Position
from core.variants import variant_by_name

TAVLA = variant_by_name("tavla")

#: Either evaluator Tavla may use: values that are exact must not depend on it.
EVALUATORS = [
    "network",
    pytest.param(
        "gnubg", marks=pytest.mark.skipif(load_gnubg() is None, reason="needs the gnubg extra")
    ),
]


def _mwc(state: CubeState, points: int) -> float:
    """The match-winning chance of ``state``'s side after it wins (> 0) or loses points."""
    a, b = state.away
    post = state.crawford or state.post_crawford
    return match_equity(a - points, b, post) if points > 0 else match_equity(a, b + points, post)


def _win(state: CubeState, points: int = 1) -> float:
    """The utility of winning ``points`` times the cube (2 a gammon, T-7; with the Jacoby
    rule, M-3, a single game while the cube stands at 1)."""
    if state.jacoby and state.money and state.value == 1:
        points = 1
    return float(points * state.value) if state.money else _mwc(state, points * state.value)


def _other(state: CubeState, utility: float) -> float:
    return -utility if state.money else 1.0 - utility


@cache
def rolling(position: Position, state: CubeState) -> float:
    """The utility of rolling now under ``state`` (the side on roll's)."""
    total = 0.0
    for weight, roll in zip(ROLL_WEIGHTS, ROLLS, strict=True):
        plays = legal_plays(TAVLA, position, roll, False)
        options = [
            _win(state, result_points(TAVLA, p.after))
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
    """(no double, double/take) of the side on roll at ``state``, normalized to the cube."""
    return emg(state, rolling(position, state)), emg(state, rolling(position, taken(state)))
