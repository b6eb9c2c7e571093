"""Computer players: one interface for every kind of player.

Only the random player exists so far; the neural players of the computer-opponent issue
will implement the same :class:`Player` protocol.
"""

from __future__ import annotations

import random
from typing import Protocol

from core.movegen import Play
from core.position import Position
from core.variants import Variant


class Player(Protocol):
    """Chooses plays and cube actions for the side on roll."""

    name: str

    def choose_play(self, variant: Variant, position: Position, plays: list[Play]) -> Play:
        """One of ``plays`` (all legal plays of the roll, never empty)."""
        ...

    def should_double(self, variant: Variant, position: Position) -> bool:
        """Whether to offer the cube before rolling (only asked when doubling is allowed)."""
        ...

    def should_take(self, variant: Variant, position: Position) -> bool:
        """Whether to take a double; ``position`` is seen from the player asked."""
        ...


class RandomPlayer:
    """Picks a legal play at random; never doubles, always takes. A baseline, not a foe."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose_play(self, variant: Variant, position: Position, plays: list[Play]) -> Play:
        return self._rng.choice(plays)

    def should_double(self, variant: Variant, position: Position) -> bool:
        return False

    def should_take(self, variant: Variant, position: Position) -> bool:
        return True
