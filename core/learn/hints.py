"""A hint for the decision in front of a player: the best plays of a roll with what each
costs against the best, or the cube decision with its equities.

The same evaluators and ranking as the analysis (:mod:`core.analysis`): GNU Backgammon 2-ply
for Tavla where the extra is installed, else the networks with their look-ahead. Pure and
synchronous; a hint takes from a few hundredths of a second to about a second of CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from core.ai.cube import CubeState
from core.analysis.cubeful import lookahead_equities
from core.analysis.evaluators import Evaluator, evaluator_for
from core.analysis.ranking import order_by_value, rank_plays
from core.analysis.scoring import CubeEquities
from core.game import Game, Phase
from core.match import Match
from core.movegen import Play, legal_plays
from core.notation import format_play
from core.position import Position
from core.variants import Variant

#: How many plays a hint shows.
HINT_PLAYS = 3


@dataclass(frozen=True)
class PlayOption:
    """One candidate play: its notation (points from the mover's side, rules.md), its
    equity for the mover (normalized to the cube) and what it costs against the best."""

    play: Play
    text: str
    equity: float
    cost: float


@dataclass(frozen=True)
class PlayHint:
    """The best plays of a roll, best first."""

    dice: tuple[int, int]
    options: tuple[PlayOption, ...]
    evaluator: str
    kind: Literal["play"] = "play"

    @property
    def best(self) -> PlayOption:
        return self.options[0]


@dataclass(frozen=True)
class CubeOption:
    """A cube action (``double``, ``no double``, ``take``, ``pass``), its equity for the
    player deciding (normalized to the cube before the double) and its cost."""

    action: str
    equity: float
    cost: float


@dataclass(frozen=True)
class CubeHint:
    """A cube decision: to double or not (``kind`` ``double``), to take or pass (``take``);
    ``options`` best first, ``equities`` the doubler's three."""

    kind: Literal["double", "take"]
    options: tuple[CubeOption, ...]
    equities: CubeEquities
    evaluator: str

    @property
    def best(self) -> CubeOption:
        return self.options[0]


Hint = PlayHint | CubeHint


def ranked_options(
    values: np.ndarray, plays: list[Play], count: int | None = None
) -> tuple[PlayOption, ...]:
    """The plays looked at, best first (``count`` of them), with each one's cost."""
    order = order_by_value(values)
    if count is not None:
        order = order[:count]
    top = float(values[order[0]])
    return tuple(
        PlayOption(plays[i], format_play(plays[i]), float(values[i]), top - float(values[i]))
        for i in order
    )


def play_hint(
    variant: Variant,
    position: Position,
    dice: tuple[int, int],
    *,
    first_turn: bool = False,
    state: CubeState | None = None,
    evaluator: Evaluator | None = None,
    count: int = HINT_PLAYS,
) -> PlayHint | None:
    """The ``count`` best plays of ``dice`` for the side on roll of ``position`` (None when
    the roll has no choice: no play, or one). ``state`` is the cube and score (Tavla)."""
    plays = legal_plays(variant, position, dice, first_turn)
    if len(plays) < 2:
        return None
    evaluator = evaluator or evaluator_for(variant)
    values = rank_plays(evaluator, variant, position, dice, plays, state, least=count)
    return PlayHint((dice[0], dice[1]), ranked_options(values, plays, count), evaluator.name)


def cube_hint(
    variant: Variant,
    position: Position,
    state: CubeState,
    *,
    answering: bool = False,
    evaluator: Evaluator | None = None,
) -> CubeHint:
    """The cube decision of Tavla: ``position`` and ``state`` from the doubler's side, on
    roll before rolling. With ``answering`` the hint is the taker's (take or pass), its
    equities from the taker's side."""
    evaluator = evaluator or evaluator_for(variant)
    eq = lookahead_equities(evaluator, variant, position, state, variant.backgammons)
    if answering:
        pairs = [("take", -eq.double_take), ("pass", -eq.double_pass)]
        kind: Literal["double", "take"] = "take"
    else:
        pairs = [("double", eq.double), ("no double", eq.no_double)]
        kind = "double"
    pairs.sort(key=lambda p: -p[1])
    top = pairs[0][1]
    options = tuple(CubeOption(a, float(v), float(top - v)) for a, v in pairs)
    return CubeHint(kind, options, eq, evaluator.name)


def hint_for(
    game: Game, match: Match | None = None, *, evaluator: Evaluator | None = None
) -> Hint | None:
    """The hint for the decision ``game`` waits for: the take or pass of a double, the
    double before a roll where the cube may be turned, the play of the roll (from the
    start of the turn, whatever steps were made). None where there is nothing to decide."""
    if game.over:
        return None
    variant = game.variant
    if game.phase is Phase.DOUBLED:
        state = CubeState.from_game(game, game.turn, match)
        return cube_hint(
            variant, game.position(game.turn), state, answering=True, evaluator=evaluator
        )
    if game.phase is Phase.ROLL:
        if not game.may_double(game.turn):
            return None
        state = CubeState.from_game(game, game.turn, match)
        return cube_hint(variant, game.position(game.turn), state, evaluator=evaluator)
    turn = game.current_turn
    if turn is None:
        return None
    cube = CubeState.from_game(game, game.turn, match) if variant.cube else None
    return play_hint(
        variant,
        turn.start,
        turn.dice,
        first_turn=bool(turn.first_turn),
        state=cube,
        evaluator=evaluator,
    )
