"""The one-sided bear-off database and race chances (rules T-6, U-8), against slow references.

The references play each roll with core's own move generator on a full board and search
every legal play, so they share nothing with the database's vectorised build.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.ai.bearoff import MAX_ROLLS, BearoffDatabase, bearoff_database
from core.ai.race import (
    BearoffEvaluator,
    both_in_bearoff_array,
    in_bearoff,
    is_race,
    race_chances,
    race_outputs_array,
)
from core.movegen import legal_plays
from core.position import CHECKERS, Position, side_from_points
from core.variants import variant_by_name

TAVLA = variant_by_name("tavla")
# The 36 ordered rolls, each 1/36: the references do not use the 21-roll weighting.
ROLLS36 = [(a, b) for a in range(1, 7) for b in range(1, 7)]


@pytest.fixture(scope="module")
def db() -> BearoffDatabase:
    return bearoff_database()


def _board(home: tuple[int, ...]) -> Position:
    """My spread on points 1..6 (the rest off); the opponent far away on its 1-point."""
    mover = side_from_points({p + 1: n for p, n in enumerate(home) if n})
    return Position(mover, side_from_points({1: CHECKERS}))


def _after_home(play) -> tuple[int, ...]:
    return tuple(play.after.mover[1:7])


@cache
def _ref(home: tuple[int, ...], goal_left: int) -> tuple[float, tuple[float, ...]]:
    """(mean, distribution) of rolls until at most ``goal_left`` checkers remain, each roll
    played to minimise the mean, searching every legal play (T-6)."""
    if sum(home) <= goal_left:
        return 0.0, (1.0,)
    mean = 1.0
    dist = [0.0] * MAX_ROLLS
    for roll in ROLLS36:
        plays = legal_plays(TAVLA, _board(home), roll, False)
        best = min((_ref(_after_home(p), goal_left) for p in plays), key=lambda r: r[0])
        mean += best[0] / 36
        for k, prob in enumerate(best[1][: MAX_ROLLS - 1]):
            dist[k + 1] += prob / 36
    return mean, tuple(dist)


def _spreads(up_to: int) -> list[tuple[int, ...]]:
    out = []
    for n in range(up_to + 1):
        out.extend(_compositions(n, 6))
    return out


def _compositions(n: int, parts: int) -> list[tuple[int, ...]]:
    if parts == 1:
        return [(n,)]
    return [(k, *rest) for k in range(n + 1) for rest in _compositions(n - k, parts - 1)]


def test_known_values(db: BearoffDatabase) -> None:
    # T-6: one checker on the 1-point, or two, come off in one roll.
    assert db.expected_rolls((1, 0, 0, 0, 0, 0)) == pytest.approx(1.0)
    assert db.expected_rolls((2, 0, 0, 0, 0, 0)) == pytest.approx(1.0)
    # One checker on the 6-point fails in one roll only when no die is a 6 and the dice
    # cannot carry it 6 pips (inside the home board every landing point is open).
    fails = sum(
        1
        for a, b in ROLLS36
        if 6 not in (a, b) and ((a != b and a + b < 6) or (a == b and 4 * a < 6))
    )
    assert fails == 9
    assert db.expected_rolls((0, 0, 0, 0, 0, 1)) == pytest.approx(1 + fails / 36)
    assert db.distribution((0, 0, 0, 0, 0, 1))[:3] == pytest.approx([0, 1 - fails / 36, fails / 36])
    # Fifteen on the 1-point: two a roll, four with a double; at least 4 rolls, at most 8.
    dist = db.distribution((15, 0, 0, 0, 0, 0))
    assert dist[:4].sum() == 0
    assert dist[9:].sum() == 0
    assert dist[4] == pytest.approx((6 / 36) ** 4)  # four doubles in a row: 16 off


def test_size_and_distributions(db: BearoffDatabase) -> None:
    assert db.size == 54_264  # C(21, 6): up to 15 checkers over 6 points
    assert np.allclose(db.off.sum(axis=1), 1.0)
    assert np.allclose(db.first.sum(axis=1), 1.0)
    ks = np.arange(MAX_ROLLS)
    assert np.allclose(db.off @ ks, db.mean)
    assert np.allclose(db.first @ ks, db.first_mean)
    # Bearing off one checker never takes longer than bearing off all.
    assert np.all(db.first_mean <= db.mean + 1e-12)
    # The empty board needs no roll; any checker on the board needs at least one.
    assert db.expected_rolls((0,) * 6) == 0.0
    assert db.mean[db.counts.sum(axis=1) > 0].min() == pytest.approx(1.0)


def test_matches_a_search_over_core_legal_plays(db: BearoffDatabase) -> None:
    for home in _spreads(3):
        mean, dist = _ref(home, 0)
        assert db.expected_rolls(home) == pytest.approx(mean, abs=1e-12), home
        want = np.zeros(MAX_ROLLS)
        want[: len(dist)] = dist
        assert db.distribution(home) == pytest.approx(want, abs=1e-12), home


def test_first_off_matches_a_search_on_a_small_database() -> None:
    small = BearoffDatabase(max_checkers=3)
    assert small.size == 84  # C(9, 6)
    full = bearoff_database()
    for home in _spreads(3):
        i = small.index(home)
        assert small.mean[i] == pytest.approx(full.expected_rolls(home))
        want = _ref(home, 2)[0] if sum(home) == 3 else 0.0
        assert small.first_mean[i] == pytest.approx(want, abs=1e-12), home


homes = st.lists(st.integers(0, 3), min_size=6, max_size=6).filter(lambda h: sum(h) <= 14)


@settings(max_examples=200, deadline=None)
@given(homes, st.integers(0, 5))
def test_an_extra_checker_never_bears_off_sooner(home: list[int], point: int) -> None:
    # (Moving a checker to a higher point can help: 0-2-0-0-0-1 is slower than 0-1-1-0-0-1.)
    db = bearoff_database()
    more = list(home)
    more[point] += 1
    assert db.expected_rolls(more) >= db.expected_rolls(home) - 1e-12


@settings(max_examples=200, deadline=None)
@given(homes)
def test_fastest_bearoff_is_double_sixes(home: list[int]) -> None:
    # 6-6 bears off any four checkers; nothing bears off more in one roll.
    dist = bearoff_database().distribution(home)
    fastest = -(-sum(home) // 4)
    assert dist[:fastest].sum() == 0
    assert dist[fastest] >= (1 / 36) ** fastest - 1e-15


# -- races ------------------------------------------------------------------------------


@cache
def _race(a: tuple[int, ...], b: tuple[int, ...], goal_a: int, goal_b: int) -> float:
    """P(side A, on roll, gets down to ``goal_a`` checkers before B gets down to ``goal_b``),
    each playing every roll by the reference for its own goal (0: all off; 1: the first of
    a 2-checker board off)."""
    total = 0.0
    for roll in ROLLS36:
        plays = legal_plays(TAVLA, _board(a), roll, False)
        after = min((_after_home(p) for p in plays), key=lambda h: _ref(h, goal_a)[0])
        if sum(after) <= goal_a:
            total += 1
        else:
            total += 1 - _race(b, after, goal_b, goal_a)
    return total / 36


def test_race_chances_match_a_two_sided_search() -> None:
    small = BearoffDatabase(max_checkers=2)
    homes2 = [h for h in _spreads(2) if sum(h)][::3]  # a sample keeps the search short
    for me in homes2:
        for opp in homes2:
            i, j = small.index(me), small.index(opp)
            win, win_g, lose_g = race_chances(
                small.off[[i]], small.first[[i]], small.off[[j]], small.first[[j]]
            )
            assert win[0] == pytest.approx(_race(me, opp, 0, 0), abs=1e-9), (me, opp)
            if sum(opp) == 2:
                assert win_g[0] == pytest.approx(_race(me, opp, 0, 1), abs=1e-9), (me, opp)
            if sum(me) == 2:
                assert lose_g[0] == pytest.approx(1 - _race(me, opp, 1, 0), abs=1e-9), (me, opp)


def test_race_detection_per_game() -> None:
    uzun = variant_by_name("uzun")
    assert not is_race(TAVLA.start_position(), uzun=False)
    assert not is_race(uzun.start_position(), uzun=True)
    # Tavla: my rearmost on 12, theirs on their 12 (my 13): passed each other.
    passed = Position.from_points({12: 5, 3: 10}, {12: 5, 4: 10})
    assert is_race(passed, uzun=False)
    assert in_bearoff(passed, uzun=False) == (False, False)
    touching = Position.from_points({13: 1, 3: 14}, {13: 1, 4: 14})
    assert not is_race(touching, uzun=False)
    # Uzun: a race needs every checker of both sides on its own points 1..12 (U-3, U-6).
    home_both = Position.from_points({2: 15}, {5: 7, 11: 8})
    assert is_race(home_both, uzun=True)
    assert in_bearoff(home_both, uzun=True) == (True, False)
    assert not is_race(Position.from_points({2: 14, 13: 1}, {5: 15}), uzun=True)


def test_race_outputs_are_the_database_chances() -> None:
    db = bearoff_database()
    # I need one roll for sure; the opponent needs at least one: I always win.
    pos = Position.from_points({1: 2}, {6: 3})
    out = race_outputs_array(np.array([pos], dtype=np.float64), db)[0]
    assert out[0] == pytest.approx(1.0)
    assert out[1] == 0.0  # they have borne off 12: no gammon
    # Fifteen each, both on the 6-point: symmetric but I roll first.
    pos = Position.from_points({6: 15}, {6: 15})
    out = race_outputs_array(np.array([pos], dtype=np.float64), db)[0]
    assert 0.5 < out[0] < 0.75
    # A gammon needs the opponent to miss with three rolls while I roll four doubles.
    assert 0 < out[1] < 1e-6
    assert 0 < out[3] < 1e-6
    # Nothing off yet: I finish in one roll with a double, else in two, and they are
    # gammoned unless their one roll in between bears off a first checker.
    pos = Position.from_points({1: 3}, {6: 15})
    out = race_outputs_array(np.array([pos], dtype=np.float64), db)[0]
    miss = db.first[db.index((0, 0, 0, 0, 0, 15))][2:].sum()
    assert out[0] == pytest.approx(1.0)
    assert out[1] == pytest.approx(1 / 6 + 5 / 6 * miss)


def test_evaluator_replaces_only_bearoff_races() -> None:
    class Flat:
        kind = "tavla"

        def evaluate_array(self, arr: np.ndarray) -> np.ndarray:
            return np.full((len(arr), 5), 0.25)

    ev = BearoffEvaluator(Flat())
    race = Position.from_points({1: 2}, {6: 3})
    contact = TAVLA.start_position()
    out = ev.evaluate([race, contact])
    assert out[0, 0] == pytest.approx(1.0)
    assert np.all(out[1] == 0.25)
    arr = np.array([race, contact], dtype=np.float64)
    assert both_in_bearoff_array(arr, uzun=False).tolist() == [True, False]


def test_race_chances_agree_with_gnubg() -> None:
    """GNU Backgammon's bear-off databases (its two-sided one where it has it) give the
    same race chances to within the one-sided approximation."""
    gnubg = pytest.importorskip("gnubg")
    from core.ai.gnubg_player import gnubg_board

    context = gnubg.evalcontext(0, 0, 0, 0, 0)
    rng = np.random.default_rng(3)
    win_errors = []
    for _ in range(100):
        sides = []
        for _side in range(2):
            counts = np.bincount(rng.integers(0, 6, rng.integers(1, 16)), minlength=6)
            sides.append({p + 1: int(n) for p, n in enumerate(counts) if n})
        pos = Position.from_points(*sides)
        theirs = gnubg.evaluate(gnubg_board(pos), gnubg.cubeinfo(), context)
        ours = race_outputs_array(np.array([pos], dtype=np.float64))[0]
        win_errors.append(abs(theirs[0] - ours[0]))
        assert ours[1] == pytest.approx(theirs[1], abs=1e-3)
        assert ours[3] == pytest.approx(theirs[3], abs=1e-3)
    # Where gnubg has its exact two-sided table, playing for the fewest rolls can cost up
    # to about 1% against a given opponent; on average it is far less.
    assert max(win_errors) < 0.02
    assert np.mean(win_errors) < 1e-3
