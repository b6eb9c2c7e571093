"""Cubeless rollouts: what a position, or each play of a roll, is worth when played out.

A rollout plays many seeded games from a position with the computer players and averages
the result in points for the side on roll (1 a game, 2 a gammon or mars, 3 a backgammon in
Tavla; no cube). Three things make its estimate steadier than a plain average:

* **the first roll is stratified**: game ``g`` starts with the ``g % 36``-th of the 36
  ordered dice, so every 36 games see each first roll once;
* **luck is taken away**: before each roll the value of the best 0-ply play of each of the
  21 rolls is known to the shipped network (:func:`core.ai.lookahead.best_answers`); the
  roll's luck is its value less their average over the 36 dice, and the game's result less
  the luck of both sides' rolls (each counted for the side it helped) is the estimate. Its
  mean is the plain mean's (a roll's luck averages to zero whatever the position), its
  spread much smaller: the usual luck adjustment of rollouts;
* **the same dice for every play**: plays of one roll are rolled out on the same games'
  dice, so their differences do not depend on the dice.

Both the variance-reduced and the plain estimate are reported, each with its 95% interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.dice import RandomDice
from core.movegen import Play, legal_plays
from core.position import CHECKERS, OFF, Position
from core.variants import Variant

from .lookahead import ROLL_WEIGHTS, ROLLS, Evaluates, best_answers, first_turn
from .network import equity
from .sim import ChoosesPlays, result_points

#: The 36 ordered dice, the stratified first rolls.
ALL_DICE = tuple((a, b) for a in range(1, 7) for b in range(1, 7))
_ROLL_INDEX = {roll: k for k, roll in enumerate(ROLLS)} | {
    (b, a): k for k, (a, b) in enumerate(ROLLS)
}
MAX_PLIES = 2000


@dataclass(frozen=True)
class RolloutResult:
    """A rollout's figures, for the side on roll of the position rolled out.

    ``equity`` is the variance-reduced mean of points a game and ``ci95`` the half-width of
    its 95% interval; ``plain`` and ``plain_ci95`` the plain mean and its interval. The
    rates are of the games played: wins, and wins and losses of a gammon (or mars) or
    more and of a backgammon."""

    games: int
    equity: float
    ci95: float
    plain: float
    plain_ci95: float
    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    def flipped(self) -> RolloutResult:
        """The same figures from the other side."""
        return RolloutResult(
            self.games,
            -self.equity,
            self.ci95,
            -self.plain,
            self.plain_ci95,
            1.0 - self.win,
            self.lose_gammon,
            self.lose_backgammon,
            self.win_gammon,
            self.win_backgammon,
        )


def _mean_ci(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf
    var = sum((x - mean) ** 2 for x in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def roll_luck(
    evaluator: Evaluates, variant: Variant, position: Position, roll: tuple[int, int]
) -> float:
    """How much ``roll`` helps the side on roll of ``position`` by the evaluator's 0-ply:
    the equity of its best play with this roll less the average over all 36 dice."""
    best = best_answers(evaluator, variant, [position])[0]
    values = np.array([equity(out, True, variant.backgammons) for out, _row in best])
    return float(values[_ROLL_INDEX[roll]] - ROLL_WEIGHTS @ values)


def play_out(
    variant: Variant,
    position: Position,
    players: Sequence[ChoosesPlays],
    dice: RandomDice,
    first_roll: tuple[int, int],
    luck: Evaluates | None = None,
    lucky_first: bool = True,
) -> tuple[int, float]:
    """One game from ``position`` (``players[0]`` on roll with ``first_roll``, then the
    ``dice``): the points won by ``players[0]`` (negative when lost) and the luck of both
    sides' rolls for it (0 without a ``luck`` evaluator; the first roll's only when
    ``lucky_first``)."""
    side = position
    seat = 0
    roll = first_roll
    total = 0.0
    for ply in range(MAX_PLIES):
        first = first_turn(variant, side)
        if luck is not None and (ply or lucky_first):
            sign = 1.0 if seat == 0 else -1.0
            total += sign * roll_luck(luck, variant, side, roll)
        plays: list[Play] = legal_plays(variant, side, roll, first)
        if plays:
            play = plays[0] if len(plays) == 1 else players[seat].choose_play(variant, side, plays)
            after = play.after
            if after.mover[OFF] == CHECKERS:
                points = result_points(variant, after)
                return (points if seat == 0 else -points), total
            side = after.swapped()
        else:
            side = side.swapped()
        seat = 1 - seat
        roll = dice.roll()
    raise RuntimeError("game did not finish")


def rollout(
    variant: Variant,
    position: Position,
    players: Sequence[ChoosesPlays],
    *,
    games: int,
    seed: int = 1,
    luck: Evaluates | None = None,
    first_roll: tuple[int, int] | None = None,
) -> RolloutResult:
    """Rolls ``position`` out over ``games`` seeded games, ``players[0]`` on roll.

    Game ``g`` rolls ``RandomDice(seed * 1000003 + g)`` after its first roll, which is
    ``first_roll`` when given, else the ``g % 36``-th of the 36 dice. With a ``luck``
    evaluator (the game's network) the luck of every roll is taken away (see the module
    doc); without, ``equity`` is the plain mean.
    """
    if games < 1:
        raise ValueError("a rollout needs at least one game")
    plain: list[float] = []
    reduced: list[float] = []
    for g in range(games):
        dice = RandomDice(seed * 1_000_003 + g)
        roll = first_roll or ALL_DICE[g % 36]
        points, total = play_out(
            variant, position, players, dice, roll, luck, lucky_first=first_roll is None
        )
        plain.append(points)
        reduced.append(points - total)
    mean, ci = _mean_ci(plain)
    vr_mean, vr_ci = _mean_ci(reduced) if luck is not None else (mean, ci)
    n = float(games)
    return RolloutResult(
        games,
        vr_mean,
        vr_ci,
        mean,
        ci,
        sum(p > 0 for p in plain) / n,
        sum(p >= 2 for p in plain) / n,
        sum(p >= 3 for p in plain) / n,
        sum(p <= -2 for p in plain) / n,
        sum(p <= -3 for p in plain) / n,
    )


def rollout_plays(
    variant: Variant,
    plays: Sequence[Play],
    players: Sequence[ChoosesPlays],
    *,
    games: int,
    seed: int = 1,
    luck: Evaluates | None = None,
) -> list[RolloutResult]:
    """Rolls out the board after each of ``plays`` (of one roll) on the same dice, the
    other side to roll next; figures for the side that plays, for whom ``players[0]``
    plays on."""
    out = []
    for play in plays:
        after = play.after
        if after.mover[OFF] == CHECKERS:
            points = float(result_points(variant, after))
            win = RolloutResult(games, points, 0.0, points, 0.0, 1.0, *_sure(points))
            out.append(win)
            continue
        theirs = rollout(
            variant, after.swapped(), [players[1], players[0]], games=games, seed=seed, luck=luck
        )
        out.append(theirs.flipped())
    return out


def _sure(points: float) -> tuple[float, float, float, float]:
    return float(points >= 2), float(points >= 3), 0.0, 0.0
