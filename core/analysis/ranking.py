"""Rank the legal plays of one roll: the analysis, the hint, the tutor and the puzzles share it.

The evaluator's own ranking where it has one (gnubg's, cubeful at the cube and score, for
Tavla); elsewhere gnubg's move filters in short: every play at 0-ply, the best few within a
window looked at with the evaluator's look-ahead.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.ai.cube import CubeState
from core.movegen import Play
from core.position import Position
from core.variants import Variant

from .evaluators import Evaluator
from .scoring import Scoring

#: How many plays (best first at 0-ply, within :data:`FILTER_WINDOW`) get the look-ahead.
FILTER_KEEP = 8
FILTER_WINDOW = 0.16


def scoring_for(variant: Variant, state: CubeState | None) -> Scoring:
    """What the outcomes are worth to the side on roll: money-play points without a cube,
    else at the cube and score of ``state`` (a centred money cube when None)."""
    if not variant.cube:
        return Scoring.money(backgammons=variant.backgammons)
    return Scoring.for_cube(state or CubeState(), backgammons=variant.backgammons)


def rank_plays(
    evaluator: Evaluator,
    variant: Variant,
    position: Position,
    dice: tuple[int, int],
    plays: Sequence[Play],
    state: CubeState | None = None,
    *,
    include: int | None = None,
    keep: int = FILTER_KEEP,
    window: float = FILTER_WINDOW,
    least: int = 1,
    own_ranking: bool = True,
) -> np.ndarray:
    """The equity (normalized to the cube, for the side on roll) of each of ``plays``, NaN
    for a play the search did not look at as deep as the best.

    ``include`` (an index into ``plays``) is always looked at deep (the play made, or the
    one the tutor is asked about). Without the evaluator's own ranking, the ``keep`` best
    plays at 0-ply within ``window`` of the best go deep, and at least the ``least`` best.
    ``own_ranking`` False: never the evaluator's own ranking (whose filters may rank fewer).
    """
    rank = getattr(evaluator, "rank_plays", None) if own_ranking else None
    if rank is not None and variant.cube:
        key = 0 if include is None else include
        values = rank(variant, position, dice, plays, state or CubeState(), key)
        if values is not None:
            return np.asarray(values, dtype=np.float64)
    scoring = scoring_for(variant, state)
    afters = [p.after for p in plays]
    quick = evaluator.play_values(variant, afters, scoring, False)
    order = [int(i) for i in np.argsort(-quick, kind="stable")]
    top = quick[order[0]]
    chosen = [i for n, i in enumerate(order[:keep]) if n < least or quick[i] >= top - window]
    if include is not None and include not in chosen:
        chosen.append(include)
    values = np.full(len(plays), np.nan)
    values[chosen] = evaluator.play_values(variant, [afters[i] for i in chosen], scoring, True)
    return values


def order_by_value(values: np.ndarray) -> list[int]:
    """The indices of the plays looked at (not NaN), best first (ties in the given order)."""
    looked = [i for i in range(len(values)) if not np.isnan(values[i])]
    return sorted(looked, key=lambda i: -float(values[i]))
