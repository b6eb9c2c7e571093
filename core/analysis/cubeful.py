"""A cubeful look-ahead two rolls deep, for close cube decisions (Tavla).

Janowski's model (:mod:`core.analysis.scoring`) values a position as if the cube stayed
equally live for the rest of the game. Near the end of a game it is not: in a last-roll
position the cube is dead after this roll, and the model misprices doubling by a factor of
five. So a close cube decision is looked at two rolls deeper, with the structure of GNU
Backgammon's 2-ply cubeful search (its ``EvaluatePositionCubeful4``):

* for each of the 21 rolls the player on roll makes the play best for it, cubefully, under
  each cube it may hold (centred or its own for "no double", twice the value owned by the
  opponent for "double, take"), chosen on the quick (0-ply) values of the boards after;
* on each board so chosen the opponent, now on roll, makes its own cube decision (double
  or redouble, or cash, the other side taking or passing as is best) on its own look-ahead
  over its 21 rolls: its best play per roll under each cube it may hold, and at those
  leaves, the first player on roll again, that player's cube options valued by Janowski's
  model on the evaluator's chances (0-ply: gnubg's own 2-ply leaves are 0-ply too);
* a finished game is worth its points at the cube. Where both sides bear off (the
  one-sided database gives exact chances) and the game is sure to end within a leaf's roll
  and the next one, the cube can't be turned usefully after the leaf's own decision, so the
  dead-cube equities are exact, and such a leaf one roll down needs no second roll.

Only the best play per roll is looked at a second roll deep, as gnubg prunes; in a short
bear-off of both sides (at most :data:`DEEP_CHECKERS` checkers left) every play's board
with exact chances is, before the choice, so the look-ahead is exact where the game is sure
to end within four rolls.

Values are carried as utilities (points in money play, match-winning chances in a match,
from the Kazaross-XG2 table) and normalized to the cube only at the end, so a taken cube is
valued at its own stake and score.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from core.ai.bearoff import POINTS, bearoff_database
from core.ai.cube import CubeState, may_double
from core.ai.lookahead import ROLL_WEIGHTS, ROLLS, first_turn, roll_leaves, rows_array
from core.ai.network import positions_array
from core.ai.race import both_in_bearoff_array, race_outputs_array
from core.ai.sim import result_points
from core.movegen import legal_plays
from core.position import CHECKERS, OFF, SLOTS, Position
from core.variants import Variant

from .scoring import CubeEquities, Scoring, _mwc

#: Janowski's equities within this much of a cube threshold (double against no double, or
#: take against pass) send the decision to the look-ahead.
LOOKAHEAD_WINDOW = 0.16
#: A bear-off of both sides with at most this many checkers left between them has every
#: play's board looked at a second roll deep, not only the best (few plays per roll: cheap).
DEEP_CHECKERS = 6


class LeafOutputs(Protocol):
    """What the look-ahead needs of an evaluator: cubeless chances of boards."""

    def outputs_array(self, variant: Variant, arr: np.ndarray) -> np.ndarray:
        """Cubeless outputs ``(N, 5)`` of the side on roll of each board of ``arr``
        ``(N, 2, 26)`` (side on roll first), before it rolls, in one batch."""
        ...


@dataclass(frozen=True)
class _Units:
    """Converts a cube-normalized equity at ``state`` to a utility and back (both linear)."""

    state: CubeState

    def _ends(self) -> tuple[float, float]:
        v = self.state.value
        return _mwc(self.state, -v), _mwc(self.state, v)

    def utility(self, equity: np.ndarray | float) -> np.ndarray:
        if self.state.money:
            return np.asarray(equity) * self.state.value
        lose, win = self._ends()
        return lose + (np.asarray(equity) + 1.0) / 2.0 * (win - lose)

    def equity(self, utility: float) -> float:
        if self.state.money:
            return utility / self.state.value
        lose, win = self._ends()
        return 2.0 * (utility - lose) / (win - lose) - 1.0


def _other(state: CubeState, utility: np.ndarray | float) -> np.ndarray:
    """The same outcome's utility for the other player."""
    return np.asarray(-utility if state.money else 1.0 - utility)


def near_threshold(eq: CubeEquities) -> bool:
    """Whether Janowski's equities put a cube decision within :data:`LOOKAHEAD_WINDOW` of
    a threshold (double against no double, or take against pass)."""
    return (
        abs(eq.double - eq.no_double) <= LOOKAHEAD_WINDOW
        or abs(eq.double_take - eq.double_pass) <= LOOKAHEAD_WINDOW
    )


def taken(state: CubeState) -> CubeState:
    """The cube after ``state``'s side doubles and the opponent takes (T-8)."""
    return replace(state, value=2 * state.value, owner=-1)


def leaf_utilities(
    outs: np.ndarray, state: CubeState, dead: np.ndarray, backgammons: bool = True
) -> np.ndarray:
    """The utility, for the side on roll, of boards with cubeless outputs ``outs`` (N, 5)
    at ``state`` (that side's), the side using its cube options: max(no double,
    min(double/take, double/pass)). ``dead`` marks the boards whose game ends within two
    rolls, valued with a dead cube (exact given exact chances)."""
    scoring = Scoring.for_cube(state, backgammons=backgammons)
    nd = np.where(dead, _dead(scoring).value(outs), scoring.value(outs))
    units = _Units(state)
    best = units.utility(nd)
    if not may_double(state):
        return best
    after = taken(state)
    scoring2 = Scoring.for_cube(after, backgammons=backgammons)
    dt = np.where(dead, _dead(scoring2).value(outs), scoring2.value(outs))
    double = np.minimum(_Units(after).utility(dt), units.utility(1.0))
    return np.asarray(np.maximum(best, double))


def _dead(scoring: Scoring) -> Scoring:
    """``scoring`` with a dead cube: the outcomes at the stake. A free redouble too (see
    :func:`~core.analysis.scoring.free_redouble`) is worth nothing where the game ends
    within two rolls: its owner would redouble only before its last roll, sure to win, and
    the other side passes, so every outcome keeps its stake (valuing the whole position at
    the redoubled stake, capped at the cash, would cap the average, not each outcome)."""
    return replace(scoring, cubeful=False, free=0, redoubled=None)


def _exact_race(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For boards (N, 2, 26): which are bear-offs of both sides (exact chances), their
    outputs there, and which of those end within two rolls (a dead cube after this one)."""
    exact = both_in_bearoff_array(arr, False)
    outs = np.zeros((len(arr), 5))
    dead = np.zeros(len(arr), dtype=bool)
    if exact.any():
        db = bearoff_database()
        sub = arr[exact]
        outs[exact] = race_outputs_array(sub, db)
        # The side on roll finishes now for sure, or the other side with its next roll.
        now = db.off[db.indices(sub[:, 0, 1 : POINTS + 1])][:, :2].sum(axis=1)
        later = db.off[db.indices(sub[:, 1, 1 : POINTS + 1])][:, :2].sum(axis=1)
        dead[exact] = (now >= 1.0 - 1e-12) | (later >= 1.0 - 1e-12)
    return exact, outs, dead


def _leaf_values(
    evaluator: LeafOutputs, variant: Variant, arr: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Outputs of boards (N, 2, 26) for the side on roll, which are exact (bear-offs of
    both sides) and which of those end within two rolls (see :func:`_exact_race`)."""
    if not len(arr):
        return np.zeros((0, 5)), np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
    exact, outs, dead = _exact_race(arr)
    if not exact.all():
        outs[~exact] = evaluator.outputs_array(variant, arr[~exact])
    return outs, exact, dead


def lookahead_equities(
    evaluator: LeafOutputs,
    variant: Variant,
    position: Position,
    state: CubeState,
    backgammons: bool = True,
) -> CubeEquities:
    """No double, double/take and double/pass for the side on roll of ``position`` at
    ``state`` (its own), by the cubeful look-ahead two rolls deep (see the module doc),
    normalized to the cube."""
    deepen = _short_bearoff(position)
    no_double, double_take = _rollout(
        evaluator, variant, position, [state, taken(state)], backgammons, deepen
    )
    units = _Units(state)
    return CubeEquities(units.equity(no_double), units.equity(double_take), 1.0)


def _short_bearoff(position: Position) -> bool:
    """Both sides bear off (exact chances) with at most :data:`DEEP_CHECKERS` left between
    them: few plays per roll, so every play's board can be looked at a second roll deep."""
    arr = positions_array([position])
    left = 2 * CHECKERS - position.mover[OFF] - position.opponent[OFF]
    return bool(both_in_bearoff_array(arr, False)[0]) and left <= DEEP_CHECKERS


def _answering(branches: list[CubeState]) -> list[CubeState]:
    """The cube states the opponent may roll under after the roller's turn, for each of the
    roller's ``branches``: the cube as it stands (from the opponent's side) and, where the
    opponent may double, that cube doubled and taken."""
    states: list[CubeState] = []
    for branch in branches:
        theirs = branch.swapped()
        for state in (theirs, taken(theirs)) if may_double(theirs) else (theirs,):
            if state not in states:
                states.append(state)
    return states


def _their_decision(branch: CubeState, states: list[CubeState], rolling: np.ndarray) -> float:
    """The roller's utility, at ``branch``, of a board on which the opponent decides on
    the cube with its rolling utilities ``rolling`` at each of ``states`` (its own)."""
    theirs = branch.swapped()
    no_double = float(rolling[states.index(theirs)])
    if may_double(theirs):
        value = _with_cube(theirs, no_double, float(rolling[states.index(taken(theirs))]))
    else:
        value = no_double
    return float(_other(branch, value))


def _rollout(
    evaluator: LeafOutputs,
    variant: Variant,
    position: Position,
    branches: list[CubeState],
    backgammons: bool,
    deepen: bool,
) -> list[float]:
    """The utility, for the side on roll, of rolling now under each cube of ``branches``
    (its own states): each roll's best play, chosen on the opponent's cube options at the
    quick leaf values, then the opponent's cube decision on its own roll's look-ahead
    (:func:`_second_roll`). With ``deepen`` every play's board with exact chances gets the
    second roll before the choice."""
    first = first_turn(variant, position)
    # Per roll: the boards after each play (opponent on roll), or the game's result.
    rolls: list[list[tuple[Position | None, int]]] = []
    for roll in ROLLS:
        plays = legal_plays(variant, position, roll, first)
        if not plays:
            rolls.append([(position.swapped(), 0)])
            continue
        rolls.append(
            [
                (None, result_points(variant, p.after))
                if p.after.mover[OFF] == CHECKERS
                else (p.after.swapped(), 0)
                for p in plays
            ]
        )
    leaves = [board for options in rolls for board, _ in options if board is not None]
    index = {board: i for i, board in enumerate(dict.fromkeys(leaves))}
    boards = list(index)
    outs, exact, dead = _leaf_values(
        evaluator, variant, positions_array(boards) if boards else np.zeros((0, 2, SLOTS))
    )
    answering = _answering(branches)
    # The opponent's rolling utilities at each of its states, per board looked at deeper.
    rolling: dict[int, np.ndarray] = {}
    if deepen:
        _look_deeper(
            evaluator,
            variant,
            boards,
            np.flatnonzero(exact & ~dead),
            answering,
            backgammons,
            rolling,
        )
    values = []
    for branch in branches:
        mine = _other(branch, leaf_utilities(outs, branch.swapped(), dead, backgammons))
        for i, theirs in rolling.items():
            mine[i] = _their_decision(branch, answering, theirs)
        values.append(mine)
    chosen = [
        _choose(rolls, index, mine, b, backgammons)
        for b, mine in zip(branches, values, strict=True)
    ]
    # Only the best play per roll (for any branch) is looked at a second roll deep; a board
    # whose game ends within two rolls is exact already.
    deeper = [
        index[b]
        for b in dict.fromkeys(
            b for boards_chosen in chosen for b in boards_chosen if b is not None
        )
        if not dead[index[b]] and index[b] not in rolling
    ]
    _look_deeper(evaluator, variant, boards, deeper, answering, backgammons, rolling)
    totals = []
    for branch, mine, boards_chosen in zip(branches, values, chosen, strict=True):
        total = 0.0
        for weight, options, board in zip(ROLL_WEIGHTS, rolls, boards_chosen, strict=True):
            if board is None:
                total += weight * max(
                    _won(branch, pts, backgammons) for b, pts in options if b is None
                )
            elif index[board] in rolling:
                total += weight * _their_decision(branch, answering, rolling[index[board]])
            else:
                total += weight * float(mine[index[board]])
        totals.append(total)
    return totals


def _look_deeper(
    evaluator: LeafOutputs,
    variant: Variant,
    boards: list[Position],
    which: list[int] | np.ndarray,
    states: list[CubeState],
    backgammons: bool,
    rolling: dict[int, np.ndarray],
) -> None:
    """Adds to ``rolling`` the second roll's utilities of ``boards[i]`` for ``i`` in
    ``which`` (see :func:`_second_roll`)."""
    which = [int(i) for i in which]
    if which:
        found = _second_roll(evaluator, variant, [boards[i] for i in which], states, backgammons)
        rolling.update(zip(which, found, strict=True))


def _second_roll(
    evaluator: LeafOutputs,
    variant: Variant,
    boards: list[Position],
    states: list[CubeState],
    backgammons: bool,
) -> np.ndarray:
    """``(len(boards), len(states))``: the utility, for the side on roll of each board, of
    rolling under each of ``states`` (its own): for each roll its play best for it under
    that cube (on the leaf values), the leaves, the other side on roll, valued with that
    side's cube options (:func:`leaf_utilities`) on the evaluator's chances (exact ones in
    bear-offs), all leaves in one batch."""
    rows: dict[bytes, int] = {}
    leaf_ids: list[int] = []
    starts: list[int] = []
    counts: list[int] = []
    wins: list[int] = []  # per (board, roll): the most points a play wins outright, or 0
    for board in boards:
        first = first_turn(variant, board)
        for roll in ROLLS:
            start = len(leaf_ids)
            found: list[bytes] = []
            won = roll_leaves(variant, board, roll, first, found)
            leaf_ids.extend(rows.setdefault(bytes(row), len(rows)) for row in found)
            starts.append(start)
            counts.append(len(leaf_ids) - start)
            wins.append(max(won, default=0))
    arr = rows_array(list(rows)) if rows else np.zeros((0, 2, SLOTS))
    outs, _, dead = _leaf_values(evaluator, variant, arr)
    ids = np.asarray(leaf_ids, dtype=np.intp)
    some = np.asarray(counts) > 0
    firsts = np.asarray(starts, dtype=np.intp)[some]
    weights = np.tile(ROLL_WEIGHTS, len(boards))
    result = np.zeros((len(boards), len(states)))
    for k, state in enumerate(states):
        # The leaves' values for the roller, the other side using its cube options.
        leaf = _other(state, leaf_utilities(outs, state.swapped(), dead, backgammons))
        best = np.full(len(starts), -np.inf)
        if len(ids):
            best[some] = np.maximum.reduceat(leaf[ids], firsts)
        prizes = {pts: _won(state, pts, backgammons) for pts in set(wins) if pts}
        for j, pts in enumerate(wins):
            if pts:
                best[j] = max(best[j], prizes[pts])
        result[:, k] = (weights * best).reshape(len(boards), len(ROLLS)).sum(axis=1)
    return result


def _with_cube(state: CubeState, no_double: float, double_take: float) -> float:
    """The utility of the side on roll that chooses between not doubling and doubling
    (the opponent taking or passing as is best), where ``state`` lets it double."""
    if not may_double(state):
        return no_double
    return max(no_double, min(double_take, float(_Units(state).utility(1.0))))


def _won(state: CubeState, points: int, backgammons: bool) -> float:
    """The utility of winning ``points`` (times the cube) at ``state``."""
    scoring = Scoring.for_cube(state, backgammons=backgammons)
    return float(_Units(state).utility(scoring.points(points)))


def _choose(
    rolls: list[list[tuple[Position | None, int]]],
    index: dict[Position, int],
    mine: np.ndarray,
    state: CubeState,
    backgammons: bool,
) -> list[Position | None]:
    """For each roll the board after the play best for the mover (None: a win)."""
    chosen: list[Position | None] = []
    for options in rolls:
        best: Position | None = None
        best_value = -np.inf
        for board, points in options:
            value = _won(state, points, backgammons) if board is None else float(mine[index[board]])
            if value > best_value:
                best, best_value = board, value
        chosen.append(best)
    return chosen
