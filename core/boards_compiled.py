"""The search of :mod:`core.boards_after` compiled to machine code with Numba.

The look-ahead of ``expert``, ``master``, the analysis and the training tools spends most of
its time finding the boards after each of the opponent's 21 rolls; in Python that search
costs about 10 µs a step. Here the same depth-first search (same rules, same order, same
boards) runs as one compiled function: no Python object a step, boards kept in a
preallocated array and told apart by an additive hash checked against the whole board.
Tests compare it with the Python search and with :func:`core.movegen.legal_plays`.

Numba compiles on first use and caches the machine code beside this file (``cache=True``),
so a process pays the compilation once per installation, not once per start.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .jit import njit
from .movegen import forms_block
from .position import BAR, HEAD, OFF

_OPP_BAR = 26 + BAR
# A step as kept for its undoing: source, destination, the opponent's point hit (or -1),
# whether it brought the checker home, whether it left the head.
_SRC, _DST, _HIT, _HOME, _HEAD = range(5)
# Random weights of a checker on each of the 52 slots: a board's key is the sum over its
# checkers, so a step updates it with two additions. 40 bits each keep any sum of 30
# checkers' weights far from int64's limit; equal keys are confirmed slot by slot.
ZOBRIST = np.random.default_rng(20261206).integers(1, 1 << 40, size=52, dtype=np.int64)


# U-6: the rule's one definition, compiled as it stands.
# Called with arrays where the Python search passes lists (the types a Sequence names).
_forms_block: Callable[..., bool] = njit(cache=True, nogil=True)(forms_block)


@njit(cache=True, nogil=True)
def _grow(
    rows: np.ndarray, keys: np.ndarray, alone: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    # Twice the room, and the hash table rebuilt for it.
    cap = rows.shape[0] * 2
    rows2 = np.empty((cap, 52), np.uint8)
    keys2 = np.empty(cap, np.int64)
    alone2 = np.empty(cap, np.bool_)
    rows2[:n] = rows[:n]
    keys2[:n] = keys[:n]
    alone2[:n] = alone[:n]
    table = np.full(cap * 2, -1, np.int32)
    mask = cap * 2 - 1
    for i in range(n):
        slot = (keys2[i] ^ (keys2[i] >> 21)) & mask
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = i
    return rows2, keys2, alone2, table


@njit(cache=True, nogil=True)
def search_roll(
    own: np.ndarray,
    opp: np.ndarray,
    opposite: np.ndarray,
    hitting: bool,
    block_rule: bool,
    needs_home: bool,
    opp_lowest: int,
    zobrist: np.ndarray,
    a: int,
    b: int,
    head_limit: int,
) -> tuple[np.ndarray, int]:
    """The boards of roll ``a``-``b`` (as ``_Search.run``: 52 bytes a row, the other side's
    26 slots then the mover's) and the number of dice the longest play uses. ``own`` and
    ``opp`` are the 26 slots of each side (int64), changed during the search and restored.
    """
    cap = 64
    rows = np.empty((cap, 52), np.uint8)
    keys = np.empty(cap, np.int64)
    alone = np.empty(cap, np.bool_)  # first reached by the larger die alone
    table = np.full(cap * 2, -1, np.int32)
    n = 0
    best = 0
    hi_die = max(a, b)
    lo_die = min(a, b)
    doubles = a == b
    n_dice = 4 if doubles else 2
    order = np.empty(4, np.int64)
    # Per depth: the next source to try, the highest source allowed, whether a step was
    # made, whether the side entered from the bar, the key on arrival, and the step made
    # (_SRC, _DST, _HIT, _HOME, _HEAD).
    nxt = np.zeros(5, np.int64)
    top = np.zeros(5, np.int64)
    moved = np.zeros(5, np.bool_)
    from_bar = np.zeros(5, np.bool_)
    key_at = np.zeros(5, np.int64)
    steps = np.zeros((5, 5), np.int64)

    base = 0
    for i in range(26):
        base += own[i] * zobrist[i] + opp[i] * zobrist[26 + i]
    outside = 0
    for i in range(7, 26):
        outside += own[i]
    head_left = 0
    refused = False
    ordered = doubles
    passes = 1 if doubles else 2
    p = 0
    while p < passes:
        if doubles:
            for i in range(4):
                order[i] = a
        elif p == 0:
            order[0] = hi_die
            order[1] = lo_die
        else:
            order[0] = lo_die
            order[1] = hi_die
        # Enter depth 0.
        d = 0
        key_at[0] = base
        top[0] = BAR
        moved[0] = False
        from_bar[0] = own[BAR] > 0
        nxt[0] = BAR if from_bar[0] else 24
        while True:
            die = order[d]
            last = d + 1 == n_dice
            stepped = False
            key2 = 0
            if from_bar[d]:
                # T-5: a checker on the bar enters first, and nothing else moves.
                if nxt[d] == BAR:
                    nxt[d] = 0
                    dest = BAR - die
                    q = opposite[dest]
                    m = opp[q]
                    if m == 0 or (m == 1 and hitting):
                        stepped = True
                        key2 = _make(own, opp, zobrist, key_at[d], steps[d], BAR, dest, q, m, 0)
            else:
                first = nxt[d]
                if top[d] < BAR and top[d] < first:
                    first = top[d]
                source = first
                while source > 0 and not stepped:
                    if not own[source]:
                        source -= 1
                        continue
                    dest = source - die
                    if dest > 0:
                        head = 1 if source == HEAD else 0
                        if head and head_left >= head_limit:
                            source -= 1
                            continue  # U-4: one checker a turn leaves the head
                        q = opposite[dest]
                        m = opp[q]
                        if m > 1 or (m and not hitting):
                            source -= 1
                            continue  # T-3, U-3: a point held by the opponent is closed
                        if block_rule and not own[dest]:
                            own[source] -= 1
                            blocked = _forms_block(own, dest, opp_lowest, opposite, needs_home)
                            own[source] += 1
                            if blocked:
                                refused = True
                                source -= 1
                                continue
                        stepped = True
                        key2 = _make(
                            own, opp, zobrist, key_at[d], steps[d], source, dest, q, m, head
                        )
                        outside -= steps[d, _HOME]
                        head_left += head
                    else:
                        # T-6, U-8: all checkers home; a larger die only from the highest.
                        if outside:
                            source -= 1
                            continue
                        if dest:
                            higher = False
                            for pt in range(source + 1, 7):
                                if own[pt]:
                                    higher = True
                                    break
                            if higher:
                                source -= 1
                                continue
                        stepped = True
                        key2 = _make(own, opp, zobrist, key_at[d], steps[d], source, OFF, 0, 0, 0)
                nxt[d] = source - 1  # the next source to try at this depth
            if stepped:
                moved[d] = True
                if not last:
                    # Descend: the next die from this board.
                    d += 1
                    key_at[d] = key2
                    top[d] = steps[d - 1, _SRC] if ordered else BAR
                    moved[d] = False
                    from_bar[d] = own[BAR] > 0
                    nxt[d] = BAR if from_bar[d] else 24
                    continue
                leaf_key = key2
                used = d + 1
            elif not moved[d] and d:
                leaf_key = key_at[d]
                used = d
            else:
                used = -1
                leaf_key = 0
            if used >= best and used > 0:
                if used > best:
                    # Shorter plays are illegal now (the maximum-dice rule).
                    best = used
                    n = 0
                    table[:] = -1
                mask = table.shape[0] - 1
                slot = (leaf_key ^ (leaf_key >> 21)) & mask
                seen = False
                while table[slot] >= 0:
                    j = table[slot]
                    if keys[j] == leaf_key:
                        same = True
                        for i in range(26):
                            if rows[j, i] != opp[i] or rows[j, 26 + i] != own[i]:
                                same = False
                                break
                        if same:
                            seen = True
                            break
                    slot = (slot + 1) & mask
                if not seen:
                    if n == rows.shape[0]:
                        rows, keys, alone, table = _grow(rows, keys, alone, n)
                        mask = table.shape[0] - 1
                        slot = (leaf_key ^ (leaf_key >> 21)) & mask
                        while table[slot] >= 0:
                            slot = (slot + 1) & mask
                    for i in range(26):
                        rows[n, i] = opp[i]
                        rows[n, 26 + i] = own[i]
                    keys[n] = leaf_key
                    alone[n] = used == 1 and order[0] == hi_die
                    table[slot] = n
                    n += 1
            if stepped:
                _undo(own, opp, steps[d])
                outside += steps[d, _HOME]
                head_left -= steps[d, _HEAD]
                continue
            # This depth is done: back to the step that led here.
            if d == 0:
                break
            d -= 1
            _undo(own, opp, steps[d])
            outside += steps[d, _HOME]
            head_left -= steps[d, _HEAD]
        p += 1
        if doubles and p == 1 and refused and ordered:
            # Steps in falling order reach every board unless the six-block rule refused
            # one: then another order may avoid the block, so search all orders.
            n = 0
            best = 0
            table[:] = -1
            ordered = False
            passes = 2
    if best == 1 and not doubles:
        k = 0
        for i in range(n):
            if alone[i]:
                k += 1
        if k:
            out = np.empty((k, 52), np.uint8)
            k = 0
            for i in range(n):
                if alone[i]:
                    out[k] = rows[i]
                    k += 1
            return out, best
    return rows[:n].copy(), best


@njit(cache=True, nogil=True, inline="always")
def _make(
    own: np.ndarray,
    opp: np.ndarray,
    zobrist: np.ndarray,
    key: int,
    step: np.ndarray,
    source: int,
    dest: int,
    q: int,
    hit: int,
    head: int,
) -> int:
    # Moves a checker from source to dest (hitting the blot on the opponent's point q if
    # hit), writes the step in step for _undo, and returns the board's new key.
    own[source] -= 1
    own[dest] += 1
    key += zobrist[dest] - zobrist[source]
    step[_SRC] = source
    step[_DST] = dest
    step[_HOME] = 1 if source > 6 >= dest else 0
    step[_HEAD] = head
    step[_HIT] = -1
    if hit:
        opp[q] = 0
        opp[BAR] += 1
        key += zobrist[_OPP_BAR] - zobrist[26 + q]
        step[_HIT] = q
    return key


@njit(cache=True, nogil=True, inline="always")
def _undo(own: np.ndarray, opp: np.ndarray, step: np.ndarray) -> None:
    if step[_HIT] >= 0:
        opp[step[_HIT]] = 1
        opp[BAR] -= 1
    own[step[_DST]] -= 1
    own[step[_SRC]] += 1


@njit(cache=True, nogil=True)
def search_rolls(
    own: np.ndarray,
    opp: np.ndarray,
    opposite: np.ndarray,
    hitting: bool,
    block_rule: bool,
    needs_home: bool,
    opp_lowest: int,
    zobrist: np.ndarray,
    rolls: np.ndarray,
    head_rule: bool,
    first_turn: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The boards of each roll of ``rolls`` (R, 2), as :func:`core.boards_after.boards_after`
    finds them, one after another: the rows (M, 52) and where each roll's begin (R + 1)."""
    parts = []
    offsets = np.zeros(rolls.shape[0] + 1, np.int64)
    for r in range(rolls.shape[0]):
        a = rolls[r, 0]
        b = rolls[r, 1]
        args = (own, opp, opposite, hitting, block_rule, needs_home, opp_lowest, zobrist, a, b)
        if not head_rule:
            found, _ = search_roll(*args, 15)
        else:
            found, played = search_roll(*args, 1)
            if first_turn:
                # U-5: a second checker may leave the head only if that plays more of the roll.
                wider, more = search_roll(*args, 2)
                if wider.shape[0] and (found.shape[0] == 0 or more > played):
                    found = wider
        parts.append(found)
        offsets[r + 1] = offsets[r] + found.shape[0]
    out = np.empty((offsets[-1], 52), np.uint8)
    for r in range(rolls.shape[0]):
        out[offsets[r] : offsets[r + 1]] = parts[r]
    return out, offsets
