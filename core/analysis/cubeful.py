"""A cubeful look-ahead over the next roll, for close cube decisions (Tavla).

Janowski's model (:mod:`core.analysis.scoring`) values a position as if the cube stayed
equally live for the rest of the game. Near the end of a game it is not: in a last-roll
position the cube is dead after this roll, and the model misprices doubling by a factor of
five. So a close cube decision is looked at one roll deeper, as GNU Backgammon's cubeful
search does:

* for each of the 21 rolls the player on roll makes the play best for it, cubefully, under
  each cube it may hold (centred or its own for "no double", twice the value owned by the
  opponent for "double, take");
* each board after that play is valued for the opponent, now on roll, *with its cube
  options*: it may double or redouble (or cash) and the other side answers as is best;
* at those leaves a finished game is worth its points at the cube. Where both sides bear off
  (the one-sided database gives exact chances) and the game is sure to end within the
  leaf's roll and the next one, the cube can't be turned usefully after the leaf's own
  decision, so the dead-cube equities are exact. Elsewhere Janowski's model values the leaf
  on the evaluator's chances.

In a short bear-off of both sides (at most :data:`DEEP_CHECKERS` checkers left) a leaf with
exact chances whose game goes on is itself valued by the same look-ahead, from the
opponent's side: two rolls deep, exact where the game is sure to end within four rolls.

Values are carried as utilities (points in money play, match-winning chances in a match,
from the Kazaross-XG2 table) and normalized to the cube only at the end, so a taken cube is
valued at its own stake and score.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from core.ai.bearoff import bearoff_database
from core.ai.cube import CubeState, may_double
from core.ai.lookahead import ROLL_WEIGHTS, ROLLS, first_turn
from core.ai.network import positions_array
from core.ai.race import POINTS, both_in_bearoff_array, race_outputs_array
from core.ai.sim import result_points
from core.movegen import legal_plays
from core.position import CHECKERS, OFF, Position
from core.variants import Variant

from .scoring import CubeEquities, Scoring, _mwc

#: Janowski's equities within this much of a cube threshold (double against no double, or
#: take against pass) send the decision to the look-ahead.
LOOKAHEAD_WINDOW = 0.16
#: A bear-off of both sides with at most this many checkers left between them is looked at
#: two rolls deep (few plays per roll: cheap).
DEEP_CHECKERS = 6


class LeafOutputs(Protocol):
    """What the look-ahead needs of an evaluator: cubeless chances of boards."""

    def outputs(self, variant: Variant, positions: list[Position], deep: bool) -> np.ndarray:
        """Cubeless outputs ``(N, 5)`` of the side on roll of each board, before it rolls:
        quickly (``deep=False``, to choose the plays) or as well as it can afford."""
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
    nd = np.where(dead, replace(scoring, cubeful=False).value(outs), scoring.value(outs))
    units = _Units(state)
    best = units.utility(nd)
    if not may_double(state):
        return best
    after = taken(state)
    scoring2 = Scoring.for_cube(after, backgammons=backgammons)
    dt = np.where(dead, replace(scoring2, cubeful=False).value(outs), scoring2.value(outs))
    double = np.minimum(_Units(after).utility(dt), units.utility(1.0))
    return np.asarray(np.maximum(best, double))


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


def lookahead_equities(
    evaluator: LeafOutputs,
    variant: Variant,
    position: Position,
    state: CubeState,
    backgammons: bool = True,
) -> CubeEquities:
    """No double, double/take and double/pass for the side on roll of ``position`` at
    ``state`` (its own), by the cubeful look-ahead (see the module doc), normalized to the
    cube. A short bear-off of both sides is looked at two rolls deep."""
    deepen = _short_bearoff(position)
    no_double, double_take = _rollout(
        evaluator, variant, position, [state, taken(state)], backgammons, deepen
    )
    units = _Units(state)
    return CubeEquities(units.equity(no_double), units.equity(double_take), 1.0)


def _short_bearoff(position: Position) -> bool:
    """Both sides bear off (exact chances) with at most :data:`DEEP_CHECKERS` left between
    them: few plays per roll, so a second roll of look-ahead is cheap."""
    arr = positions_array([position])
    left = 2 * CHECKERS - position.mover[OFF] - position.opponent[OFF]
    return bool(both_in_bearoff_array(arr, False)[0]) and left <= DEEP_CHECKERS


def _rollout(
    evaluator: LeafOutputs,
    variant: Variant,
    position: Position,
    branches: list[CubeState],
    backgammons: bool,
    deepen: bool,
) -> list[float]:
    """The utility, for the side on roll, of rolling now under each cube of ``branches``
    (its own states): each roll's best play, the opponent's cube options at the leaf.
    With ``deepen`` a leaf whose chances are exact but whose game goes on is valued by the
    same look-ahead from the opponent's side instead of Janowski's model."""
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
    outs = np.zeros((len(boards), 5))
    dead = np.zeros(len(boards), dtype=bool)
    exact = np.zeros(len(boards), dtype=bool)
    if boards:
        arr = positions_array(boards)
        exact, exact_outs, dead = _exact_race(arr)
        outs[exact] = exact_outs[exact]
        rest = [b for b, e in zip(boards, exact, strict=True) if not e]
        if rest:
            outs[~exact] = evaluator.outputs(variant, rest, False)
    # The opponent's states at the leaves: per branch, its cube and the cube it would take.
    opponent = [s for branch in branches for s in (branch.swapped(), taken(branch.swapped()))]
    nested = {
        i: _rollout(evaluator, variant, boards[i], opponent, backgammons, False)
        for i in np.flatnonzero(exact & ~dead)
        if deepen
    }
    totals = []
    for k, branch in enumerate(branches):
        theirs = branch.swapped()
        mine = _other(branch, leaf_utilities(outs, theirs, dead, backgammons))
        for i, values in nested.items():
            mine[i] = _other(branch, _with_cube(theirs, values[2 * k], values[2 * k + 1]))
        chosen = _choose(rolls, index, mine, branch, backgammons)
        # The chosen boards get the evaluator's best chances (exact ones stay).
        deeper = [
            b for b in dict.fromkeys(b for b in chosen if b is not None) if not exact[index[b]]
        ]
        if deeper:
            refined = outs.copy()
            refined[[index[b] for b in deeper]] = evaluator.outputs(variant, deeper, True)
            better = _other(branch, leaf_utilities(refined, theirs, dead, backgammons))
            mine[~exact] = better[~exact]
        total = 0.0
        for weight, options, board in zip(ROLL_WEIGHTS, rolls, chosen, strict=True):
            if board is None:
                total += weight * max(
                    _won(branch, pts, backgammons) for b, pts in options if b is None
                )
            else:
                total += weight * float(mine[index[board]])
        totals.append(total)
    return totals


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
