"""A free redouble (M-2, T-8): the cube's owner, 3-away, holds the 2-cube against
an opponent 2-away, whose win at this cube already wins the match.

Redoubling to 4 then costs the owner nothing (the opponent's win wins the match whatever
the cube, and its cube would be dead), and turns the owner's single win into the match. So
the owner may redouble whenever it pays, up to the opponent's pass point: holding the cube
is worth the redoubled stake, and not redoubling yet is no error (GNU Backgammon's
``analyse match`` gives no double = double/take there). Janowski's model, with its 0.68
cube efficiency, valued the held cube lower and called every such turn a missed redouble
of 0.05 to 0.16. Only on the last roll is holding a real error: then the redouble must be
now, and its loss is worked out from the match equity table below.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.ai.cube import CubeState, match_equity
from core.analysis import evaluator_for
from core.analysis.cubeful import lookahead_equities
from core.analysis.scoring import Scoring, cube_equities, free_redouble
from core.position import Position
from core.variants import variant_by_name

TAVLA = variant_by_name("tavla")

#: A match to 3 at 0-1: I (the cube's owner) am 3-away, the opponent 2-away; the 2-cube mine.
OWNER = CubeState(value=2, owner=1, match_length=3, my_score=0, opp_score=1)
#: My match-winning chance when I win the 2-cube: 1-away against 2-away (Crawford game next).
WIN_TWO = match_equity(1, 2, False)


def outputs(p: float) -> np.ndarray:
    """Cubeless outputs without gammons: winning chance ``p``."""
    return np.array([p, 0.0, 0.0, 0.0, 0.0])


def emg(mwc: float) -> float:
    """My match-winning chance as EMG at the 2-cube: losing it (0 MWC) -1, winning it +1."""
    return 2.0 * mwc / WIN_TWO - 1.0


def test_which_cubes_are_free() -> None:
    """The owner's redouble is free only where the opponent's win at this cube wins the
    match and the owner's doesn't; seen from the opponent, the sign turns."""
    assert free_redouble(OWNER) == 1
    assert free_redouble(OWNER.swapped()) == -1
    assert free_redouble(CubeState(value=2, owner=1, match_length=5, my_score=0, opp_score=1)) == 0
    assert free_redouble(CubeState(value=1, owner=0, match_length=3, my_score=0, opp_score=1)) == 0
    assert free_redouble(CubeState(value=2, owner=1)) == 0  # money play


@pytest.mark.parametrize("p", [0.2, 0.3, 0.45])
def test_holding_a_free_redouble_is_no_error(p: float) -> None:
    """Away from the last roll, no double equals double/take: the redouble can wait. Both
    are the redoubled stake: I win the match with p, and the opponent wins it otherwise."""
    eq = cube_equities(outputs(p), OWNER)
    assert eq.double_take == pytest.approx(emg(p))
    assert eq.no_double == pytest.approx(eq.double_take)
    assert eq.best - eq.no_double == pytest.approx(0.0, abs=1e-12)
    # The opponent, facing my cube, values its position the same way (at most my cash).
    theirs = Scoring.for_cube(OWNER.swapped()).value(outputs(1.0 - p))
    assert float(theirs) == pytest.approx(-emg(p))


def test_a_free_redouble_is_capped_at_the_cash() -> None:
    """Where the opponent would pass the redouble, holding is worth the cash: one cube."""
    assert cube_equities(outputs(0.95), OWNER).no_double == pytest.approx(1.0)
    assert float(Scoring.for_cube(OWNER.swapped()).value(outputs(0.05))) == pytest.approx(-1.0)


def test_on_the_last_roll_the_free_redouble_must_be_made() -> None:
    """X, on its 6- and 1-points, bears off with 15 of 36 rolls, else the opponent (on its
    1-point) bears off: holding the 2-cube wins 2 points with p = 15/36 (X then 1-away),
    redoubling wins the match with p (the opponent takes: 1 - p > 1 - WIN_TWO). The missed
    redouble costs emg(p) - emg(p · WIN_TWO) = 2p (1 - WIN_TWO) / WIN_TWO, about 0.39."""
    p = 15 / 36
    position = Position.from_points({6: 1, 1: 1}, {1: 1})
    eq = lookahead_equities(evaluator_for(TAVLA, "network"), TAVLA, position, OWNER)
    assert eq.no_double == pytest.approx(emg(p * WIN_TWO), abs=1e-9)
    assert eq.double_take == pytest.approx(emg(p), abs=1e-9)
    assert eq.should_double
    assert eq.should_take
    assert eq.best - eq.no_double == pytest.approx(2 * p * (1 - WIN_TWO) / WIN_TWO, abs=1e-9)


#: The same match before the double: the cube centred at 1, I am 3-away, the opponent 2-away.
CENTRED = CubeState(value=1, owner=0, match_length=3, my_score=0, opp_score=1)


def centred_emg(mwc: float) -> float:
    """My match-winning chance as EMG at the 1-cube: losing it (3-away against 1-away)
    -1, winning it (2-away against 2-away) +1."""
    lose, win = match_equity(3, 1), match_equity(2, 2)
    return 2.0 * (mwc - lose) / (win - lose) - 1.0


@pytest.mark.parametrize("p", [0.4, 0.545, 0.7])
def test_the_centred_cube_takes_its_cash_points_from_the_match(p: float) -> None:
    """Janowski's live cube runs from -1 at the opponent's cash point to +1 at mine. In
    money play those points assume the taker's cube is live; here it is not: if I double,
    the opponent's 2-cube is dead (its win already wins the match), so it passes where my
    dead line at the 2-cube, p·W2 - (1-p)·L2, passes +1; if it doubles, my 2-cube is a free
    redouble, so I pass where the line at the 4-cube passes -1. Without gammons that is
    p = match_equity(3, 1), my pass's own value, as it should be. GNU Backgammon, on a
    position of match 5 of the bench (p 0.545 with gammons), gives no double 0.417 MWC and
    double/take 0.412; Janowski's money points gave 0.387 (a missed double of 0.2 EMG), these
    give 0.414."""
    w2, l2 = centred_emg(match_equity(1, 2)), -centred_emg(0.0)
    w4, l4 = centred_emg(1.0), -centred_emg(0.0)
    cash = (1.0 + l2) / (w2 + l2)
    low = (l4 - 1.0) / (w4 + l4)
    assert low == pytest.approx(match_equity(3, 1))
    live = -1.0 + 2.0 * (p - low) / (cash - low)
    dead = 2.0 * p - 1.0
    eq = cube_equities(outputs(p), CENTRED)
    assert eq.no_double == pytest.approx(0.68 * live + 0.32 * dead)
    assert eq.double_take == pytest.approx(p * w2 - (1.0 - p) * l2)
    assert eq.should_double == (p == 0.7)
