"""The 1-ply look-ahead shared by the expert player and the analysis.

Both value a board after a play by letting the opponent answer every one of the 21 rolls
with the reply that is worst for the mover at 0-ply; they differ only in how a leaf is
scored (cubeless equity for the player, a game's or match's scoring for the analysis), so
that scoring is passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from core.boards_after import boards_after
from core.position import CHECKERS, HEAD, OFF, Position
from core.variants import Variant

from .sim import result_points

# The 21 distinct rolls and their weights out of 36.
ROLLS = tuple((a, b) for a in range(1, 7) for b in range(a, 7))
ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0


class Evaluates(Protocol):
    """Anything with the network's batch interface (a network, a bear-off evaluator)."""

    def evaluate_array(self, arr: np.ndarray) -> np.ndarray: ...


def first_turn(variant: Variant, side: Position) -> bool:
    """Whether the side on roll of ``side`` has not moved yet (Uzun Tavla: all on the head)."""
    return variant.head_rule and side.mover[HEAD] == CHECKERS


def one_ply(
    net: Evaluates,
    variant: Variant,
    after: Position,
    value: Callable[[np.ndarray], np.ndarray],
    points: Callable[[int], float],
) -> float:
    """The mover's value of ``after`` (the mover's play made, the opponent to roll), the
    opponent answering each roll with its reply worst for the mover.

    ``value`` turns the network's outputs for boards with the mover on roll into the
    mover's values; ``points`` turns a game ended by the opponent's reply (the mover's
    signed result in points, negative) into a value. ``after`` must not be a won board.
    """
    theirs = after.swapped()
    first = first_turn(variant, theirs)
    unplayed = bytes(after.mover + after.opponent)  # the board as it stands, the mover to roll
    rows: list[bytes] = []
    groups: list[tuple[int, list[float]]] = []  # (leaves to evaluate, fixed values)
    for roll in ROLLS:
        # Only the boards matter here, seen from the mover again (boards_after's rows).
        boards = boards_after(variant, theirs, roll, first)
        if not boards:
            rows.append(unplayed)
            groups.append((1, []))
            continue
        fixed: list[float] = []
        count = 0
        for row in boards:
            if row[26 + OFF] == CHECKERS:  # the opponent bore off its last checker
                reply = Position(tuple(row[26:]), tuple(row[:26]))
                fixed.append(points(-result_points(variant, reply)))
            else:
                rows.append(row)
                count += 1
        groups.append((count, fixed))
    mine: Sequence[float] | np.ndarray = value(net.evaluate_array(rows_array(rows))) if rows else []
    total = 0.0
    at = 0
    for weight, (count, fixed) in zip(ROLL_WEIGHTS, groups, strict=True):
        worst = min(fixed) if fixed else np.inf
        if count:
            worst = min(worst, float(np.min(mine[at : at + count])))
            at += count
        total += weight * worst
    return total


def rows_array(rows: Sequence[bytes]) -> np.ndarray:
    """(N, 2, 26) array of boards given as 52 bytes each (side on roll first)."""
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(-1, 2, 26).astype(np.float64)
