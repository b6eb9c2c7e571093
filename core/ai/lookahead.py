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

from core.boards_after import boards_after_rolls, rows_of
from core.position import CHECKERS, HEAD, OFF, Position
from core.variants import Variant

from .network import N_OUT, equity, flip
from .sim import outcome_vector, result_points

# The 21 distinct rolls and their weights out of 36.
ROLLS = tuple((a, b) for a in range(1, 7) for b in range(a, 7))
ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0
# Each roll's weight within its third (rolls k, k + 3, ...: see two_ply_values).
_THIRD_WEIGHTS = ROLL_WEIGHTS / np.array([ROLL_WEIGHTS[i % 3 :: 3].sum() for i in range(21)])
_THIRDS = tuple(ROLLS[t::3] for t in range(3))


class Evaluates(Protocol):
    """Anything with the network's batch interface (a network, a bear-off evaluator)."""

    def evaluate_array(self, arr: np.ndarray) -> np.ndarray: ...


def first_turn(variant: Variant, side: Position) -> bool:
    """Whether the side on roll of ``side`` has not moved yet (Uzun Tavla: all on the head)."""
    return variant.head_rule and side.mover[HEAD] == CHECKERS


def roll_leaves(
    variant: Variant, side: Position, roll: tuple[int, int], first: bool, rows: list[bytes]
) -> list[int]:
    """Adds to ``rows`` the boards the side on roll of ``side`` may reach with ``roll``
    (:func:`~core.boards_after.boards_after`'s rows, the other side on roll), or ``side``
    unchanged, the other side to roll, where the roll can't be played; returns the points
    of each play that bears off the roller's last checker (those boards are not added)."""
    leaves = rolls_leaves(variant, side, (roll,), first)
    rows.extend(rows_of(leaves.rows))
    return leaves.won[0]


class Leaves:
    """What :func:`rolls_leaves` finds: the boards of all the rolls, stacked."""

    __slots__ = ("offsets", "rows", "won")

    def __init__(self, rows: np.ndarray, offsets: np.ndarray, won: list[list[int]]) -> None:
        #: (M, 52) uint8: the boards to evaluate, the other side on roll.
        self.rows = rows
        #: (R + 1,): roll r's boards are rows[offsets[r]:offsets[r + 1]].
        self.offsets = offsets
        #: Per roll: the points of each play that bears off the roller's last checker.
        self.won = won


def rolls_leaves(
    variant: Variant, side: Position, rolls: Sequence[tuple[int, int]], first: bool
) -> Leaves:
    """:func:`roll_leaves` of each roll of ``rolls``, in one search: per roll the boards
    the side on roll of ``side`` may reach (the other side on roll), or ``side`` unchanged
    where the roll can't be played, and the points of the plays that end the game."""
    found, offsets = boards_after_rolls(variant, side, rolls, first)
    counts = np.diff(offsets)
    ended = found[:, 26 + OFF] == CHECKERS  # the roller bore off its last checker
    if counts.all() and not ended.any():
        return Leaves(found, offsets, [[] for _ in rolls])
    unchanged = np.array(side.opponent + side.mover, dtype=np.uint8).reshape(1, 52)
    pieces: list[np.ndarray] = []
    won: list[list[int]] = []
    ends = [0]
    for r in range(len(rolls)):
        part = found[offsets[r] : offsets[r + 1]]
        points: list[int] = []
        if not len(part):
            part = unchanged
        else:
            over = ended[offsets[r] : offsets[r + 1]]
            if over.any():
                points = [
                    result_points(variant, Position(tuple(row[26:]), tuple(row[:26])))
                    for row in part[over].tolist()
                ]
                part = part[~over]
        pieces.append(part)
        won.append(points)
        ends.append(ends[-1] + len(part))
    return Leaves(np.concatenate(pieces), np.array(ends, dtype=np.int64), won)


def stacked(pieces: list[np.ndarray]) -> np.ndarray:
    """The (M, 52) uint8 boards of ``pieces`` one after another (none: an empty array)."""
    return np.concatenate(pieces) if pieces else np.empty((0, 52), np.uint8)


def boards_array(rows: np.ndarray) -> np.ndarray:
    """(N, 2, 26) float64 array of (N, 52) uint8 boards (side on roll first)."""
    return rows.reshape(-1, 2, 26).astype(np.float64)


class Replies:
    """The opponent's answers to one board after the mover's play: the 1-ply value and,
    for each of the 21 rolls, the answer worst for the mover by 0-ply.

    ``worst[k]`` is the board after roll ``k``'s worst answer as 52 bytes, the mover on
    roll again (the board as it stands when the roll cannot be played), or a ``float``: the
    value of an answer that ends the game. ``boards`` counts the boards evaluated.
    """

    __slots__ = ("boards", "value", "worst")

    def __init__(self, value: float, worst: list[bytes | float], boards: int) -> None:
        self.value = value
        self.worst = worst
        self.boards = boards


def replies(
    net: Evaluates,
    variant: Variant,
    afters: Sequence[Position],
    value: Callable[[np.ndarray], np.ndarray],
    points: Callable[[int], float],
) -> list[Replies]:
    """:func:`one_ply` of each board of ``afters`` (in one network call), keeping the
    worst answer to each roll for a look two rolls deep (:func:`two_ply_values`)."""
    pieces: list[np.ndarray] = []
    total = 0
    # Per board, per roll: (first row, rows to evaluate, fixed values).
    plans: list[list[tuple[int, int, list[float]]]] = []
    for after in afters:
        theirs = after.swapped()
        # Only the boards matter here, seen from the mover again (boards_after's rows).
        leaves = rolls_leaves(variant, theirs, ROLLS, first_turn(variant, theirs))
        plan: list[tuple[int, int, list[float]]] = []
        for i, won in enumerate(leaves.won):
            at = int(leaves.offsets[i])
            n = int(leaves.offsets[i + 1]) - at
            plan.append((total + at, n, [points(-w) for w in won] if won else []))
        pieces.append(leaves.rows)
        total += len(leaves.rows)
        plans.append(plan)
    rows = stacked(pieces)
    mine = value(net.evaluate_array(boards_array(rows))) if total else np.empty(0)
    lows, where = _first_minima(mine, [at for plan in plans for at, n, _f in plan if n])
    found = iter(zip(lows, where, strict=True))
    out: list[Replies] = []
    for plan in plans:
        value_sum = 0.0
        worst: list[bytes | float] = []
        count = 0
        for weight, (_at, n, fixed) in zip(ROLL_WEIGHTS, plan, strict=True):
            low = min(fixed) if fixed else np.inf
            pick: bytes | float = low
            if n:
                least, j = next(found)
                if least < low:  # a tie goes to the game-ending answer
                    low = least
                    pick = rows[j].tobytes()
                count += n
            value_sum += weight * low
            worst.append(pick)
        out.append(Replies(value_sum, worst, count))
    return out


def _first_minima(values: np.ndarray, starts: list[int]) -> tuple[list[float], list[int]]:
    """For the runs of ``values`` beginning at ``starts`` (each run up to the next start,
    the last to the end): each run's least value and where it first occurs (as argmin)."""
    if not starts:
        return [], []
    lows = np.minimum.reduceat(values, starts)
    run = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(values))))
    hits = np.flatnonzero(values == lows[run])
    _runs, first = np.unique(run[hits], return_index=True)
    return lows.tolist(), hits[first].tolist()


def one_ply(
    net: Evaluates,
    variant: Variant,
    after: Position,
    value: Callable[[np.ndarray], np.ndarray],
    points: Callable[[int], float],
) -> float:
    """The mover's value of ``after`` (the mover's play made, the opponent to roll), the
    opponent answering each roll with its reply worst for the mover at 0-ply.

    ``value`` turns the network's outputs for boards with the mover on roll into the
    mover's values; ``points`` turns a game ended by the opponent's reply (the mover's
    signed result in points, negative) into a value. ``after`` must not be a won board.
    """
    return replies(net, variant, [after], value, points)[0].value


def best_answers(
    evaluator: Evaluates,
    variant: Variant,
    positions: Sequence[Position],
    rolls: Sequence[Sequence[int]] | None = None,
) -> list[list[tuple[np.ndarray, bytes | None]]]:
    """For each position and each of its rolls (indices into :data:`ROLLS`; all 21 when
    ``rolls`` is None): the side on roll's best play by the evaluator's 0-ply cubeless
    equity, as its five chances for that side and the board after it (52 bytes, the other
    side on roll; None when the play bears off the last checker). A roll with no play
    leaves the board as it is, the other side to roll. All the boards go to the
    evaluator in one call."""
    bgs = variant.backgammons
    pieces: list[np.ndarray] = []
    total = 0
    # Per position and roll: (first row, end of its rows, chances of the plays that win).
    plan: list[list[tuple[int, int, np.ndarray]]] = []
    for i, position in enumerate(positions):
        chosen = ROLLS if rolls is None else tuple(ROLLS[k] for k in rolls[i])
        leaves = rolls_leaves(variant, position, chosen, first_turn(variant, position))
        entries: list[tuple[int, int, np.ndarray]] = []
        for r, won in enumerate(leaves.won):
            done = np.array([outcome_vector(points) for points in won]).reshape(-1, N_OUT)
            entries.append(
                (total + int(leaves.offsets[r]), total + int(leaves.offsets[r + 1]), done)
            )
        pieces.append(leaves.rows)
        total += len(leaves.rows)
        plan.append(entries)
    rows = stacked(pieces)
    # Every row has the other side on roll: flip to the side that played.
    outs = flip(evaluator.evaluate_array(boards_array(rows))) if total else np.empty((0, N_OUT))
    eqs = equity(outs, True, bgs)
    answers: list[list[tuple[np.ndarray, bytes | None]]] = []
    for entries in plan:
        best: list[tuple[np.ndarray, bytes | None]] = []
        for start, end, done in entries:
            j = int(np.argmax(eqs[start:end])) if end > start else -1
            if len(done):
                w = int(np.argmax(equity(done, True, bgs)))
                if j < 0 or equity(done[w], True, bgs) >= eqs[start + j]:
                    best.append((done[w], None))
                    continue
            best.append((outs[start + j], rows[start + j].tobytes()))
        answers.append(best)
    return answers


def two_ply_values(
    net: Evaluates,
    variant: Variant,
    answers: Sequence[Replies],
    value: Callable[[np.ndarray], np.ndarray],
    points: Callable[[int], float],
    limit: int | None = None,
    *,
    full: bool = False,
    sizes: list[int] | None = None,
) -> list[float]:
    """The mover's values two rolls deep of the boards whose :func:`replies` are
    ``answers`` (in one network call): each opponent roll answered as in the 1-ply
    look-ahead, then the mover's best 0-ply play averaged over a third of its rolls.

    With ``limit``, only the first answers whose boards together number at most ``limit``
    are valued (the list returned is shorter): a board's cost is known only once its
    plays are found, and it varies a hundredfold with how freely each side moves.

    The reduced search of GNU Backgammon: after the opponent's roll ``k`` only the mover's
    rolls ``k % 3, k % 3 + 3, ...`` of the 21 are looked at, their weights scaled to 1, so
    the thirds' sampling errors largely cancel over the opponent's 21 rolls. The same
    values as the play-by-play 2-ply (``tests/ai_reference.py``, the players' code before)
    with the network's equity, built on :func:`boards_after`: only the boards each roll
    leads to are needed, never the plays.

    ``full`` looks at all 21 of the mover's rolls instead (the full 2-ply, for tuning the
    reduced one); ``sizes``, if given, gets the number of boards evaluated for each answer
    valued.
    """
    pieces: list[np.ndarray] = []
    total = 0
    # Per board, per opponent roll: a fixed value, or per mover's roll (first row, rows
    # to evaluate, fixed values) with the roll's scaled weight.
    plans: list[list[float | list[tuple[float, int, int, list[float]]]]] = []
    for answer in answers:
        start = total
        kept = len(pieces)
        plan: list[float | list[tuple[float, int, int, list[float]]]] = []
        for k, worst in enumerate(answer.worst):
            if limit is not None and total > limit:
                break
            if isinstance(worst, float):
                plan.append(worst)
                continue
            mine = Position(tuple(worst[:26]), tuple(worst[26:]))
            picked = range(21) if full else range(k % 3, 21, 3)
            leaves = rolls_leaves(
                variant, mine, ROLLS if full else _THIRDS[k % 3], first_turn(variant, mine)
            )
            part: list[tuple[float, int, int, list[float]]] = []
            for r, i in enumerate(picked):
                weight = float(ROLL_WEIGHTS[i] if full else _THIRD_WEIGHTS[i])
                at = int(leaves.offsets[r])
                n = int(leaves.offsets[r + 1]) - at
                part.append((weight, total + at, n, [points(p) for p in leaves.won[r]]))
            pieces.append(leaves.rows)
            total += len(leaves.rows)
            plan.append(part)
        if limit is not None and total > limit:
            del pieces[kept:]  # this board does not fit: it and those after are not valued
            total = start
            break
        plans.append(plan)
        if sizes is not None:
            sizes.append(total - start)
    rows = stacked(pieces)
    # The rows have the opponent on roll: the mover's values from the flipped outputs.
    theirs = value(flip(net.evaluate_array(boards_array(rows)))) if total else np.empty(0)
    # Each roll's rows follow the last roll's: one reduction finds every roll's best.
    starts = [
        at
        for plan in plans
        for entry in plan
        if not isinstance(entry, float)
        for _w, at, n, _fixed in entry
        if n
    ]
    maxima = iter(np.maximum.reduceat(theirs, starts).tolist() if starts else [])
    out: list[float] = []
    for plan in plans:
        value_sum = 0.0
        for weight, entry in zip(ROLL_WEIGHTS, plan, strict=True):
            if isinstance(entry, float):
                value_sum += weight * entry
                continue
            inner = 0.0
            for w, _at, n, fixed in entry:
                best = max(fixed) if fixed else -np.inf
                if n:
                    best = max(best, next(maxima))
                inner += w * best
            value_sum += weight * inner
        out.append(value_sum)
    return out


def two_ply(
    net: Evaluates,
    variant: Variant,
    after: Position,
    value: Callable[[np.ndarray], np.ndarray],
    points: Callable[[int], float],
) -> float:
    """The mover's value of ``after`` two rolls deep (see :func:`two_ply_values`)."""
    answers = replies(net, variant, [after], value, points)
    return two_ply_values(net, variant, answers, value, points)[0]


def rows_array(rows: Sequence[bytes]) -> np.ndarray:
    """(N, 2, 26) array of boards given as 52 bytes each (side on roll first)."""
    return boards_array(np.frombuffer(b"".join(rows), dtype=np.uint8))
