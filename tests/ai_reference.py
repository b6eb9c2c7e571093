"""Look-ahead values built play by play on ``core.movegen.legal_plays``: the references
the fast look-ahead (``core.ai.lookahead``, built on ``core.boards_after``) is checked
against. They were the players' own code until the players moved to the fast one."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.ai.lookahead import ROLL_WEIGHTS, ROLLS, Evaluates, first_turn, one_ply
from core.ai.network import N_OUT, Network, equity, flip, positions_array
from core.ai.players import NeuralPlayer
from core.ai.race import BearoffEvaluator
from core.ai.sim import outcome_vector, result_points
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


def encode_uzun_reference(arr: np.ndarray) -> np.ndarray:
    """The ``uzun`` inputs as first written (float64 comparisons), which the table-driven
    :func:`core.ai.network.encode_uzun` must match."""
    from core.ai.network import _PIP_WEIGHTS, _UZUN_OPP, _UZUN_OPP_INV, _longest_run

    me, opp = arr[:, 0, :], arr[:, 1, :]
    parts: list[np.ndarray] = []
    for side in (me, opp):
        pts = side[:, 1:25]
        parts += [
            (pts >= 1).astype(np.float64),
            (pts >= 2).astype(np.float64),
            (pts >= 3).astype(np.float64),
            np.maximum(pts - 3.0, 0.0) / 4.0,
        ]
        parts.append(side[:, 0:1] / 15.0)
        parts.append(side[:, 24:25] / 15.0)
        parts.append(pts[:, 0:6].sum(axis=1, keepdims=True) / 15.0)
        parts.append(pts[:, 0:12].sum(axis=1, keepdims=True) / 15.0)
    my_barrier = _longest_run(me[:, 1:25][:, _UZUN_OPP_INV - 1] > 0)
    their_barrier = _longest_run(opp[:, 1:25][:, _UZUN_OPP - 1] > 0)
    pip_me = me @ _PIP_WEIGHTS
    pip_opp = opp @ _PIP_WEIGHTS
    race = ((me[:, 13:25].sum(axis=1) == 0) & (opp[:, 13:25].sum(axis=1) == 0)).astype(float)
    extra = np.stack(
        [
            np.minimum(my_barrier, 6.0) / 6.0,
            np.minimum(their_barrier, 6.0) / 6.0,
            pip_me / 200.0,
            pip_opp / 200.0,
            np.clip((pip_opp - pip_me) / 40.0, -3.0, 3.0),
            race,
            race * np.clip((pip_opp - pip_me) / 20.0, -3.0, 3.0),
            (me[:, 1:25] > 0).sum(axis=1) / 12.0,
            (opp[:, 1:25] > 0).sum(axis=1) / 12.0,
            (me[:, 0] == 0).astype(np.float64),
        ],
        axis=1,
    )
    return np.concatenate([*parts, extra], axis=1)


def one_ply_targets_reference(
    evaluator: Evaluates, variant: Variant, positions: Sequence[Position]
) -> np.ndarray:
    """The 1-ply targets as first built on ``legal_plays`` (the reference of
    :func:`core.ai.distill.one_ply_targets`): (N, 5) chances of the side on roll.

    For each of the 21 rolls the side on roll makes its best play by the teacher's 0-ply
    cubeless equity (a play that bears off the last checker scores the game's result; no
    legal play passes the turn); the five chances after that play, turned to the side on
    roll, are averaged with the rolls' weights. This is the value the ``expert`` player's
    look-ahead gives a board, as five chances instead of an equity: the targets of expert
    iteration when a network is fitted to them.
    """
    bgs = variant.backgammons
    # Per position and roll: (first leaf, end of its leaves, chances of plays that win at
    # once), or (leaf, leaf + 1, None) when the roll has no play and the turn passes.
    plan: list[list[tuple[int, int, np.ndarray | None]]] = []
    leaves: list[Position] = []
    for position in positions:
        first = first_turn(variant, position)
        rolls: list[tuple[int, int, np.ndarray | None]] = []
        for roll in ROLLS:
            plays = legal_plays(variant, position, roll, first)
            start = len(leaves)
            if not plays:
                leaves.append(position.swapped())
                rolls.append((start, start + 1, None))
                continue
            done = [
                outcome_vector(result_points(variant, play.after))
                for play in plays
                if play.after.mover[OFF] == CHECKERS
            ]
            leaves.extend(p.after.swapped() for p in plays if p.after.mover[OFF] < CHECKERS)
            rolls.append((start, len(leaves), np.array(done).reshape(-1, N_OUT)))
        plan.append(rolls)
    # Every leaf is seen from the opponent on roll; flip to the side that made the play.
    outs = flip(evaluator.evaluate_array(positions_array(leaves))) if leaves else np.empty((0, 5))
    eqs = equity(outs, True, bgs)
    targets = np.zeros((len(plan), N_OUT))
    for i, rolls in enumerate(plan):
        for weight, (start, end, done) in zip(ROLL_WEIGHTS, rolls, strict=True):
            if done is None:
                targets[i] += weight * outs[start]
                continue
            cands = np.concatenate([outs[start:end], done])
            cand_eqs = np.concatenate([eqs[start:end], equity(done, True, bgs)])
            targets[i] += weight * cands[int(np.argmax(cand_eqs))]
    return targets
