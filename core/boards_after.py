"""The distinct boards after every legal play of a roll, without the plays themselves.

A look-ahead needs, for each of the opponent's 21 rolls, only the boards its legal plays
lead to. :func:`core.movegen.legal_plays` also builds each play's steps, its path and a
:class:`~core.position.Position`, and that bookkeeping was most of a 1-ply look-ahead's
time; here the same depth-first search (same rules, same order) keeps only the boards.
Where Numba is installed the search runs compiled (:mod:`core.boards_compiled`), several
times faster; the Python search here is the same search and stands in without it. Tests
check that all of them give the same boards in the same order, for every game.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .movegen import forms_block
from .position import BAR, HEAD, OFF, Position
from .variants import Variant

try:
    from .boards_compiled import ZOBRIST, search_rolls

    COMPILED = True
except ImportError:  # Numba missing: the same search in Python
    COMPILED = False

# Weight of slot i of the mover (i) and of the opponent (26 + i) in a board's key: each
# slot is a byte, so equal keys mean equal boards and the first key is read from bytes.
_WEIGHT = tuple(256**i for i in range(52))
_OPP_BAR = _WEIGHT[26 + BAR]

#: A board as 52 bytes (one a slot): cheap to build, hashable, and read by NumPy as is.
Row = bytes


def rows_of(array: np.ndarray) -> list[Row]:
    """The boards of an (M, 52) uint8 array as :data:`Row` values, in order."""
    data = array.tobytes()
    return [data[i : i + 52] for i in range(0, len(data), 52)]


def boards_after(
    variant: Variant, position: Position, dice: tuple[int, int], first_turn: bool = False
) -> list[Row]:
    """Each distinct board after a legal play of ``dice`` by the side on roll, in the order
    :func:`~core.movegen.legal_plays` finds them, seen from the side to roll next: 52 slots
    as bytes, the other side's 26 then the mover's 26 (so ``Position(tuple(row[:26]),
    tuple(row[26:]))`` is ``play.after.swapped()``). Empty when the roll cannot be played.

    ``first_turn`` marks the mover's first turn (Uzun Tavla's head exception, U-5).
    """
    a, b = dice
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise ValueError(f"dice must be 1..6, got {dice}")
    if USE_COMPILED:
        return rows_of(compiled_rolls(variant, position, ((a, b),), first_turn)[0])
    search = _Search(variant, position)
    if not variant.head_rule:
        return search.run(a, b, head_limit=15)
    boards = search.run(a, b, head_limit=1)
    if first_turn:
        # U-5: a second checker may leave the head only if that plays more of the roll.
        played = search.best
        wider = search.run(a, b, head_limit=2)
        if wider and (not boards or search.best > played):
            return wider
    return boards


def boards_after_rolls(
    variant: Variant,
    position: Position,
    rolls: Sequence[tuple[int, int]],
    first_turn: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`boards_after` of each roll of ``rolls``, stacked: the rows as an (M, 52) uint8
    array and an (R + 1,) array of where each roll's rows begin (the last: M). One call for
    a look-ahead's 21 rolls, so that no Python object is made a board."""
    if not USE_COMPILED:
        found = [boards_after(variant, position, roll, first_turn) for roll in rolls]
        offsets = np.zeros(len(rolls) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(rows) for rows in found])
        data = b"".join(row for rows in found for row in rows)
        return np.frombuffer(data, dtype=np.uint8).reshape(-1, 52), offsets
    for a, b in rolls:
        if not (1 <= a <= 6 and 1 <= b <= 6):
            raise ValueError(f"dice must be 1..6, got {(a, b)}")
    return compiled_rolls(variant, position, tuple(rolls), first_turn)


def compiled_rolls(
    variant: Variant,
    position: Position,
    rolls: tuple[tuple[int, int], ...],
    first_turn: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`boards_after_rolls` by the compiled search, whatever :data:`USE_COMPILED` says
    (the dice unchecked)."""
    found: tuple[np.ndarray, np.ndarray] = search_rolls(
        np.array(position.mover, dtype=np.int64),
        np.array(position.opponent, dtype=np.int64),
        _opposite_array(variant.opposite),
        variant.hitting,
        variant.block_rule,
        getattr(variant, "block_needs_home", False),
        lowest_opposing(position),
        ZOBRIST,
        _rolls_array(rolls),
        variant.head_rule,
        bool(first_turn),
    )
    return found


@lru_cache(maxsize=64)
def _rolls_array(rolls: tuple[tuple[int, int], ...]) -> np.ndarray:
    return np.array(rolls, dtype=np.int64).reshape(-1, 2)


def lowest_opposing(position: Position) -> int:
    """U-6: the lowest point (in the opponent's numbering) where an opposing checker stands;
    0 once one has been borne off. The opponent does not move during the mover's turn."""
    opponent = position.opponent
    return 0 if opponent[OFF] else next((q for q in range(1, 25) if opponent[q]), 25)


class _Search:
    """The depth-first search of :class:`core.movegen.MoveGenerator`, keeping boards only.

    Steps are made and undone in place on two lists; a board is told apart by an integer
    key updated with each step. The rules are those of ``MoveGenerator.steps`` and
    :func:`~core.movegen.forms_block`; tests compare the two on random reachable positions.
    """

    def __init__(self, variant: Variant, position: Position) -> None:
        self.variant = variant
        self.own = list(position.mover)
        self.opp = list(position.opponent)
        self.base = int.from_bytes(bytes(self.own + self.opp), "little")
        self.best = 0
        self.opp_lowest = lowest_opposing(position)

    def run(self, a: int, b: int, head_limit: int) -> list[Row]:
        """The boards of roll ``a``-``b`` with at most ``head_limit`` checkers off the head."""
        own = self.own
        opp = self.opp
        variant = self.variant
        opposite = variant.opposite
        hitting = variant.hitting
        block_rule = variant.block_rule
        needs_home = getattr(variant, "block_needs_home", False)
        opp_lowest = self.opp_lowest
        weight = _WEIGHT
        outside = sum(own[7:26])
        head_left = 0
        refused = False  # the six-block rule refused a step
        found: dict[int, Row] = {}
        larger_alone: set[int] = set()  # boards first reached by the larger die alone
        best = 0
        hi = max(a, b)
        order: tuple[int, ...] = ()
        ordered = a == b

        def leaf(key: int, used: int) -> None:
            nonlocal best
            if used < best:
                return
            if used > best:
                # Shorter plays are illegal now (the maximum-dice rule).
                best = used
                found.clear()
            if key not in found:
                found[key] = bytes(opp + own)
                if used == 1 and order[0] == hi:
                    larger_alone.add(key)

        def search(depth: int, key: int, max_source: int) -> None:
            # One die's steps from the current board, made and undone in place; with
            # doubles searched in order, from points no higher than the last step's.
            nonlocal outside, head_left, refused
            die = order[depth]
            last = depth + 1 == len(order)
            moved = False
            if own[BAR]:
                # T-5: a checker on the bar enters first, and nothing else moves.
                dest = BAR - die
                q = opposite[dest]
                n = opp[q]
                if n == 0 or (n == 1 and hitting):
                    moved = True
                    own[BAR] -= 1
                    own[dest] += 1
                    key2 = key + weight[dest] - weight[BAR]
                    if n:
                        opp[q] = 0
                        opp[BAR] += 1
                        key2 += _OPP_BAR - weight[26 + q]
                    if not last:
                        search(depth + 1, key2, BAR)
                    elif best != depth + 1 or key2 not in found:
                        leaf(key2, depth + 1)
                    if n:
                        opp[q] = 1
                        opp[BAR] -= 1
                    own[dest] -= 1
                    own[BAR] += 1
            else:
                for source in range(max_source if max_source < BAR else 24, 0, -1):
                    if not own[source]:
                        continue
                    dest = source - die
                    if dest > 0:
                        from_head = source == HEAD
                        if from_head and head_left >= head_limit:
                            continue  # U-4: one checker a turn leaves the head
                        q = opposite[dest]
                        n = opp[q]
                        if n > 1 or (n and not hitting):
                            continue  # T-3, U-3: a point held by the opponent is closed
                        if block_rule and not own[dest]:
                            # Judge the board after the step: its source may leave the run.
                            own[source] -= 1
                            blocked = forms_block(own, dest, opp_lowest, opposite, needs_home)
                            own[source] += 1
                            if blocked:
                                refused = True
                                continue
                        moved = True
                        gone_home = source > 6 >= dest
                        own[source] -= 1
                        own[dest] += 1
                        outside -= gone_home
                        head_left += from_head
                        key2 = key + weight[dest] - weight[source]
                        if n:
                            opp[q] = 0
                            opp[BAR] += 1
                            key2 += _OPP_BAR - weight[26 + q]
                        if not last:
                            search(depth + 1, key2, source if ordered else BAR)
                        elif best != depth + 1 or key2 not in found:
                            leaf(key2, depth + 1)
                        if n:
                            opp[q] = 1
                            opp[BAR] -= 1
                        head_left -= from_head
                        outside += gone_home
                        own[dest] -= 1
                        own[source] += 1
                    else:
                        # T-6, U-8: all checkers home; a larger die only from the highest.
                        if outside or (dest and any(own[p] for p in range(source + 1, 7))):
                            continue
                        moved = True
                        own[source] -= 1
                        own[OFF] += 1
                        key2 = key + weight[OFF] - weight[source]
                        if not last:
                            search(depth + 1, key2, source if ordered else BAR)
                        elif best != depth + 1 or key2 not in found:
                            leaf(key2, depth + 1)
                        own[OFF] -= 1
                        own[source] += 1
            if not moved and depth:
                leaf(key, depth)

        if ordered:
            order = (a, a, a, a)
            search(0, self.base, BAR)
            if refused:
                # Steps in falling order reach every board unless the six-block rule
                # refused one: then another order may avoid the block, so search all.
                found.clear()
                best = 0
                ordered = False
                search(0, self.base, BAR)
        else:
            # The larger die first, so that a board either die reaches alone counts as
            # made with the larger one (the larger-die rule).
            order = (hi, min(a, b))
            search(0, self.base, BAR)
            order = (min(a, b), hi)
            search(0, self.base, BAR)
        self.best = best
        if best == 1 and a != b and larger_alone:
            return [row for key, row in found.items() if key in larger_alone]
        return list(found.values())


@lru_cache(maxsize=8)
def _opposite_array(opposite: tuple[int, ...]) -> np.ndarray:
    return np.array(opposite, dtype=np.int64)


#: Whether :func:`boards_after` and :func:`boards_after_rolls` run the compiled search (where
#: Numba is installed; core.ai.warm turns it off while compiling) or the Python one.
USE_COMPILED = COMPILED
