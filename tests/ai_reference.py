"""Look-ahead values built play by play on ``core.movegen.legal_plays``: the references
the fast look-ahead (``core.ai.lookahead``, built on ``core.boards_after``) is checked
against. They were the players' own code until the players moved to the fast one."""

from __future__ import annotations

import numpy as np

from core.ai.lookahead import ROLL_WEIGHTS, ROLLS, first_turn, one_ply
from core.ai.network import Network, equity, positions_array
from core.ai.players import NeuralPlayer
from core.ai.race import BearoffEvaluator
from core.ai.sim import result_points
from core.movegen import Play, legal_plays
from core.position import CHECKERS, OFF, Position
from core.variants import Variant

Net = Network | BearoffEvaluator


def _play_equities(net: Net, variant: Variant, plays: list[Play]) -> np.ndarray:
    return NeuralPlayer(net).play_equities(variant, plays)


def _on_roll(net: Net, variant: Variant, position: Position) -> float:
    """0-ply equity of the side on roll of ``position``, before it rolls."""
    out = net.evaluate_array(positions_array([position]))
    return float(equity(out, True, variant.backgammons)[0])


def best_replies(
    net: Net, variant: Variant, theirs: Position
) -> list[tuple[float, Position | None]]:
    """For each of the 21 rolls of the side on roll in ``theirs``: its best play by 0-ply,
    as (weight, board after it seen from the other side), or (weight, None) with the
    game's points folded into the weight's sign when that play wins at once."""
    first = first_turn(variant, theirs)
    out: list[tuple[float, Position | None]] = []
    for weight, roll in zip(ROLL_WEIGHTS, ROLLS, strict=True):
        replies = legal_plays(variant, theirs, roll, first)
        if not replies:
            out.append((float(weight), theirs.swapped()))
            continue
        eqs = _play_equities(net, variant, replies)
        best = int(np.argmax(eqs))
        if replies[best].after.mover[OFF] == CHECKERS:
            out.append((-float(weight) * float(eqs[best]), None))
        else:
            out.append((float(weight), replies[best].after.swapped()))
    return out


def one_ply_equity(net: Net, variant: Variant, after: Position) -> float:
    """Equity of a board after my move, averaging the opponent's best 0-ply reply (the
    players' former wrapper of :func:`core.ai.lookahead.one_ply`, a won board included)."""
    if after.mover[OFF] == CHECKERS:
        return float(result_points(variant, after))
    bgs = variant.backgammons
    return one_ply(net, variant, after, lambda outs: equity(outs, True, bgs), float)


def roll_equity(net: Net, variant: Variant, position: Position, part: int = -1) -> float:
    """Equity of the side on roll before rolling: its best 0-ply play, averaged over rolls;
    with ``part`` 0, 1 or 2 only every third of the 21 rolls from that one, their weights
    scaled to 1 (GNU Backgammon's reduced search)."""
    first = first_turn(variant, position)
    picked = range(21) if part < 0 else range(part, 21, 3)
    weights = ROLL_WEIGHTS[list(picked)]
    weights = weights / weights.sum()
    total = 0.0
    for weight, i in zip(weights, picked, strict=True):
        plays = legal_plays(variant, position, ROLLS[i], first)
        if plays:
            total += weight * float(np.max(_play_equities(net, variant, plays)))
        else:  # the turn passes
            total -= weight * _on_roll(net, variant, position.swapped())
    return total


def two_ply_equity(net: Net, variant: Variant, after: Position) -> float:
    """Equity of a board after my move, two rolls deep: each opponent roll answered by its
    best 0-ply reply, then my best 0-ply play over a third of my rolls (the third changes
    with the opponent's roll)."""
    if after.mover[OFF] == CHECKERS:
        return float(result_points(variant, after))
    total = 0.0
    for k, (weight, mine) in enumerate(best_replies(net, variant, after.swapped())):
        if mine is None:
            total += weight  # the opponent won: weight already holds -points * weight
        else:
            total += weight * roll_equity(net, variant, mine, part=k % 3)
    return total
