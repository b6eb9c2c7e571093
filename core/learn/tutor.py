"""The tutor: before a play or cube action is confirmed, does it lose at least gnubg's
"bad" (0.08), and what is better?

:func:`judge` and :func:`judge_cube` are the pure verdicts on ranked values;
:func:`tutor_play` and :func:`tutor_cube` rank first (the analysis's evaluators, as a hint).
The same threshold serves all three games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.ai.cube import CubeState
from core.analysis.evaluators import Evaluator, evaluator_for
from core.analysis.ranking import rank_plays
from core.analysis.scoring import BAD
from core.game import Game, Phase
from core.match import Match
from core.movegen import Play
from core.notation import format_play
from core.position import Position

from .hints import CubeHint, cube_hint

#: The tutor speaks up from this loss on (gnubg's "bad").
TUTOR_THRESHOLD = BAD


def percent(loss: float) -> int:
    """A loss of equity as winning chances, in whole percent (at least 1): one point of
    equity is 50% of winning chances (exact without gammons: equity = 2p - 1)."""
    return max(1, round(loss * 50))


@dataclass(frozen=True)
class Advice:
    """What the tutor says: the choice ``loses`` so much equity (about ``percent``% of
    winning chances) against ``better`` (a play's notation, or a cube action)."""

    loss: float
    better: str
    better_play: Play | None = None

    @property
    def percent(self) -> int:
        return percent(self.loss)


def judge(
    values: np.ndarray, plays: list[Play], chosen: int, threshold: float = TUTOR_THRESHOLD
) -> Advice | None:
    """The verdict on play ``chosen`` of ``plays`` ranked at ``values`` (NaN: not looked at
    deep; the chosen play must have been): None unless it loses at least ``threshold``."""
    best = int(np.nanargmax(values))
    loss = float(values[best]) - float(values[chosen])
    if best == chosen or loss < threshold:
        return None
    return Advice(loss, format_play(plays[best]), plays[best])


def judge_cube(hint: CubeHint, action: str, threshold: float = TUTOR_THRESHOLD) -> Advice | None:
    """The verdict on cube ``action`` (``double``, ``no double``, ``take``, ``pass``)."""
    chosen = next(o for o in hint.options if o.action == action)
    if chosen.cost < threshold:
        return None
    return Advice(chosen.cost, hint.best.action)


def tutor_play(
    game: Game,
    after: Position,
    match: Match | None = None,
    *,
    evaluator: Evaluator | None = None,
    threshold: float = TUTOR_THRESHOLD,
) -> Advice | None:
    """The verdict on the play of the roll ``game`` waits for that leads to ``after`` (the
    board seen from the mover), before it is confirmed."""
    turn = game.current_turn
    if turn is None or len(turn.plays) < 2:
        return None
    plays = turn.plays
    chosen = next((i for i, p in enumerate(plays) if p.after == after), None)
    if chosen is None:
        return None
    variant = game.variant
    state = CubeState.from_game(game, game.turn, match) if variant.cube else None
    evaluator = evaluator or evaluator_for(variant)
    values = rank_plays(evaluator, variant, turn.start, turn.dice, plays, state, include=chosen)
    return judge(values, plays, chosen, threshold)


def tutor_cube(
    game: Game,
    action: str,
    match: Match | None = None,
    *,
    evaluator: Evaluator | None = None,
    threshold: float = TUTOR_THRESHOLD,
) -> Advice | None:
    """The verdict on a cube action before it is made: ``double`` or ``no double`` (a roll)
    where ``game`` lets its player on turn double, ``take`` or ``pass`` of a double."""
    variant = game.variant
    if game.phase is Phase.DOUBLED:
        answering = True
    elif game.phase is Phase.ROLL and game.may_double(game.turn):
        answering = False
    else:
        return None
    state = CubeState.from_game(game, game.turn, match)
    hint = cube_hint(
        variant, game.position(game.turn), state, answering=answering, evaluator=evaluator
    )
    return judge_cube(hint, action, threshold)
