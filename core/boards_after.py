"""The distinct boards after every legal play of a roll, without the plays themselves.

A look-ahead needs, for each of the opponent's 21 rolls, only the boards its legal plays
lead to. :func:`core.movegen.legal_plays` also builds each play's steps, its path and a
:class:`~core.position.Position`, and that bookkeeping was most of a 1-ply look-ahead's
time; here the same depth-first search (same rules, same order) keeps only the boards.
Variants with the head or the six-block rule (Uzun Tavla) go through
:func:`~core.movegen.legal_plays` unchanged. Tests check that both give the same boards in
the same order.
"""

from __future__ import annotations

from .movegen import legal_plays
from .position import BAR, OFF, Position
from .variants import Variant

# Weight of slot i of the mover (i) and of the opponent (26 + i) in a board's key: each
# slot is a byte, so equal keys mean equal boards and the first key is read from bytes.
_WEIGHT = tuple(256**i for i in range(52))
_OPP_BAR = _WEIGHT[26 + BAR]

#: A board as 52 bytes (one a slot): cheap to build, hashable, and read by NumPy as is.
Row = bytes


def boards_after(
    variant: Variant, position: Position, dice: tuple[int, int], first_turn: bool = False
) -> list[Row]:
    """Each distinct board after a legal play of ``dice`` by the side on roll, in the order
    :func:`~core.movegen.legal_plays` finds them, seen from the side to roll next: 52 slots
    as bytes, the other side's 26 then the mover's 26 (so ``Position(tuple(row[:26]),
    tuple(row[26:]))`` is ``play.after.swapped()``). Empty when the roll cannot be played.
    """
    if variant.head_rule or variant.block_rule:
        return [
            bytes(p.after.opponent + p.after.mover)
            for p in legal_plays(variant, position, dice, first_turn)
        ]
    a, b = dice
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise ValueError(f"dice must be 1..6, got {dice}")
    own = list(position.mover)
    opp = list(position.opponent)
    opposite = variant.opposite
    hitting = variant.hitting
    weight = _WEIGHT
    outside = sum(own[7:26])
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
        # One die's steps from the current board, made and undone in place; with doubles
        # (``ordered``) from points no higher than the last step's, which still reaches
        # every board (core.movegen: no six-block rule here to break the ordering).
        nonlocal outside
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
                    q = opposite[dest]
                    n = opp[q]
                    if n > 1 or (n and not hitting):
                        continue  # T-3: a point held by two or more is closed
                    moved = True
                    gone_home = source > 6 >= dest
                    own[source] -= 1
                    own[dest] += 1
                    outside -= gone_home
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
                    outside += gone_home
                    own[dest] -= 1
                    own[source] += 1
                else:
                    # T-6: all checkers home; a larger die only from the highest point.
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

    base = int.from_bytes(bytes(own + opp), "little")
    if ordered:
        order = (a, a, a, a)
        search(0, base, BAR)
    else:
        # The larger die first, so that a board either die reaches alone counts as made
        # with the larger one (the larger-die rule).
        order = (hi, min(a, b))
        search(0, base, BAR)
        order = (min(a, b), hi)
        search(0, base, BAR)
    if best == 1 and not ordered and larger_alone:
        return [row for key, row in found.items() if key in larger_alone]
    return list(found.values())
