"""Hypothesis strategies for reachable positions of each game and for dice.

A position is reached by playing random legal plays (from :mod:`core.movegen`) from the start,
with dice from ``random.Random(seed)`` and the sides swapped after every ply, so every board
drawn here can occur in a real game. Two styles of play are mixed: uniformly random plays
(many hits and blocks) and "runner" plays that take the play leaving the fewest pips (which
reaches bearing off quickly).
"""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

from hypothesis import strategies as st

from core.movegen import legal_plays
from core.position import Position
from core.variants import Tavla, Uzun, Variant

#: The 21 different rolls, larger die first.
ALL_ROLLS: tuple[tuple[int, int], ...] = tuple(
    (b, a) for a, b in combinations_with_replacement(range(1, 7), 2)
)

STYLES = ("random", "runner")


def play_out(
    variant: Variant, seed: int, plies: int, style: str = "random"
) -> tuple[Position, bool]:
    """The board after ``plies`` random plies from the start, and whether the player on roll
    is still on their first turn (U-5). Stops early, before a game would end."""
    rng = random.Random(seed)
    position = variant.start_position()
    for ply in range(plies):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(variant, position, dice, first_turn=ply < 2)
        if plays:
            if style == "runner":
                best = min(p.after.pips()[0] for p in plays)
                play = rng.choice([p for p in plays if p.after.pips()[0] == best])
            else:
                play = rng.choice(plays)
            after = play.after
        else:
            after = position
        if after.finished:
            return position, ply < 2
        position = after.swapped()
    return position, plies < 2


def reachable(
    variant: Variant, max_plies: int = 160
) -> st.SearchStrategy[tuple[Variant, Position, bool]]:
    """(variant, position, first_turn) for random reachable positions of ``variant``."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[Variant, Position, bool]:
        seed = draw(st.integers(0, 2**32 - 1))
        plies = draw(
            st.one_of(
                st.integers(0, 3),  # first turns (U-5)
                st.integers(4, max_plies),
                st.integers(max_plies // 2, max_plies),  # bearing off is likelier late
            )
        )
        style = draw(st.sampled_from(STYLES))
        position, first_turn = play_out(variant, seed, plies, style)
        return variant, position, first_turn

    return build()


def tavla_positions(max_plies: int = 120) -> st.SearchStrategy[tuple[Variant, Position, bool]]:
    return reachable(Tavla(), max_plies)


def uzun_positions(
    max_plies: int = 160, block_needs_home: bool = False
) -> st.SearchStrategy[tuple[Variant, Position, bool]]:
    return reachable(Uzun(block_needs_home=block_needs_home), max_plies)


def any_positions() -> st.SearchStrategy[tuple[Variant, Position, bool]]:
    """Positions of Tavla, Uzun and Uzun with ``block_needs_home``."""
    return st.one_of(tavla_positions(), uzun_positions(), uzun_positions(block_needs_home=True))


def dice() -> st.SearchStrategy[tuple[int, int]]:
    """Any roll of two dice, in either order."""
    return st.tuples(st.integers(1, 6), st.integers(1, 6))
