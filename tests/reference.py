"""A slow, plain reference generator of legal plays, written from rules.md alone.

It shares nothing with :mod:`core.movegen` but the data types: boards are plain 26-tuples
(index 0 = borne off, 1..24 = points in the side's own numbering, 25 = bar), every step makes
new tuples, and every order of the dice is tried step by step. The only help for speed is a
memo of ``(board, dice still to play, head checkers moved)`` -> outcomes, which gives the
same answer as exploring the same subtree again.

The rules, in the order they are applied:

* bar entry first (T-5): while the mover has a checker on the bar, the only steps are entries;
  die N enters on the mover's point 25 - N;
* landing and hitting (T-3, T-4): an empty or own point, or a single opposing checker (hit,
  to the opponent's bar); in Uzun any opposing checker closes the point (U-3);
* bearing off (T-6, U-8): only while all 15 checkers are on 1..6 or off; die N bears off
  from point N, or from a lower point if no checker stands higher in the home board;
* the head rule (U-4, U-5): one checker leaves point 24 per turn; on a player's first turn
  two may, when that lets more dice be played;
* the six-block rule (U-6) after every step;
* the maximum-dice rule, then the larger-die rule (common ground, U-7).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

from core.position import Position
from core.variants import Variant

BAR = 25
OFF = 0
HEAD = 24

# (own, opp, dice played in order, head checkers moved)
Outcome = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]


def opponent_point(variant: Variant, point: int) -> int:
    """The opponent's number for the mover's point ``point`` (1..24), from rules.md."""
    if variant.hitting:
        # Tavla: White's point n is Black's 25 - n.
        return 25 - point
    # Uzun: White's point n is Black's ((n + 11) mod 24) + 1.
    return (point + 11) % 24 + 1


def _with(side: tuple[int, ...], changes: dict[int, int]) -> tuple[int, ...]:
    return tuple(n + changes.get(i, 0) for i, n in enumerate(side))


def is_block(points: Iterable[int]) -> bool:
    """Six consecutive mover points that are consecutive on the opponent's path too."""
    points = sorted(points)
    return (
        len(points) == 6
        and all(b == a + 1 for a, b in pairwise(points))
        and not (12 in points and 13 in points)
    )


def block_allowed(variant: Variant, opp: tuple[int, ...], block: list[int]) -> bool:
    """U-6: an opposing checker has passed the block (and option ``block_needs_home``)."""
    lowest_of_block = min(opponent_point(variant, p) for p in block)
    passed = opp[OFF] > 0 or any(opp[q] for q in range(1, lowest_of_block))
    if getattr(variant, "block_needs_home", False):
        home = opp[OFF] > 0 or any(opp[q] for q in range(1, 7))
        passed = passed and home
    return passed


def breaks_block_rule(variant: Variant, own: tuple[int, ...], opp: tuple[int, ...]) -> bool:
    """Whether the mover holds a block that no opposing checker has passed (U-6)."""
    if variant.hitting:
        return False
    for low in range(1, 20):
        block = list(range(low, low + 6))
        held = is_block(block) and all(own[p] for p in block)
        if held and not block_allowed(variant, opp, block):
            return True
    return False


def single_steps(
    variant: Variant, own: tuple[int, ...], opp: tuple[int, ...], die: int
) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """Every single step of die ``die``: (source, own after, opp after)."""
    out = []
    # T-5: while a checker is on the bar, entering is the only move.
    sources = [BAR] if own[BAR] else [p for p in range(1, 25) if own[p]]
    for source in sources:
        dest = source - die
        if dest >= 1:
            there = opp[opponent_point(variant, dest)]
            if there == 0:
                new_own = _with(own, {source: -1, dest: +1})
                new_opp = opp
            elif there == 1 and variant.hitting:
                q = opponent_point(variant, dest)
                new_own = _with(own, {source: -1, dest: +1})
                new_opp = _with(opp, {q: -1, BAR: +1})
            else:
                continue  # closed point
        else:
            if source == BAR:
                continue
            all_home = sum(own[7:26]) == 0
            if not all_home:
                continue
            if dest < 0 and any(own[p] for p in range(source + 1, 7)):
                continue  # a larger die bears off only from the highest point
            new_own = _with(own, {source: -1, OFF: +1})
            new_opp = opp
        if breaks_block_rule(variant, new_own, new_opp):
            continue
        out.append((source, new_own, new_opp))
    return out


def _play_order(
    variant: Variant,
    own: tuple[int, ...],
    opp: tuple[int, ...],
    dice: tuple[int, ...],
    heads: int,
    head_limit: int,
    memo: dict,
) -> frozenset[tuple[tuple[int, ...], tuple[int, ...], int, int]]:
    """Every way to play ``dice`` in this order: (own, opp, dice played, head checkers).

    At most ``head_limit`` checkers may leave the head (U-4). A sequence stops at the first
    die that cannot be played.
    """
    key = (own, opp, dice, heads, head_limit)
    if key in memo:
        return memo[key]
    results = set()
    steps = single_steps(variant, own, opp, dice[0]) if dice else []
    if variant.head_rule and heads >= head_limit:
        steps = [s for s in steps if s[0] != HEAD]
    if not steps:
        results.add((own, opp, 0, heads))
    for source, new_own, new_opp in steps:
        new_heads = heads + (1 if variant.head_rule and source == HEAD else 0)
        for end_own, end_opp, played, end_heads in _play_order(
            variant, new_own, new_opp, dice[1:], new_heads, head_limit, memo
        ):
            results.add((end_own, end_opp, played + 1, end_heads))
    memo[key] = frozenset(results)
    return memo[key]


def reference_outcomes(
    variant: Variant, position: Position, dice: tuple[int, int], first_turn: bool = False
) -> list[Outcome]:
    """Every legal way to end the turn: (own, opp, dice used in order, head checkers)."""
    a, b = dice
    orders = [(a, a, a, a)] if a == b else [(a, b), (b, a)]
    memo: dict = {}

    def every_play(head_limit: int) -> list[Outcome]:
        out = []
        for order in orders:
            for own, opp, played, heads in _play_order(
                variant, position.mover, position.opponent, order, 0, head_limit, memo
            ):
                out.append((own, opp, order[:played], heads))
        return out

    every = every_play(1)  # U-4: one checker from the head (no limit is reached in Tavla)
    if variant.head_rule and first_turn:
        # U-5: a second head checker on a first turn, if that lets more dice be played.
        wider = every_play(2)
        if max((len(o[2]) for o in wider), default=0) > max((len(o[2]) for o in every), default=0):
            every = wider
    most = max((len(o[2]) for o in every), default=0)
    if most == 0:
        return []  # nothing can be played: the turn passes
    every = [o for o in every if len(o[2]) == most]
    if most == 1 and a != b:
        larger = [o for o in every if o[2][0] == max(a, b)]
        if larger:
            every = larger
    return every


def reference_results(
    variant: Variant, position: Position, dice: tuple[int, int], first_turn: bool = False
) -> set[Position]:
    """The set of boards (still seen from the mover) after every legal play of ``dice``."""
    return {
        Position(own, opp)
        for own, opp, _, _ in reference_outcomes(variant, position, dice, first_turn)
    }


def reference_dice_used(
    variant: Variant, position: Position, dice: tuple[int, int], first_turn: bool = False
) -> int:
    """How many dice every legal play uses (0 when the turn passes)."""
    outcomes = reference_outcomes(variant, position, dice, first_turn)
    return len(outcomes[0][2]) if outcomes else 0
