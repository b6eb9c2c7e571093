"""The doubling cube (T-8) as a value object."""

from __future__ import annotations

from typing import NamedTuple

MAX_CUBE = 64


class Cube(NamedTuple):
    """The cube's value and owner (a seat, or None while it is in the middle)."""

    value: int = 1
    owner: int | None = None

    def may_double(self, seat: int) -> bool:
        """T-8: ``seat`` may offer the cube if it is centred or its own, and below 64."""
        return self.owner in (None, seat) and self.value < MAX_CUBE

    def taken(self, taker: int) -> Cube:
        """The cube after ``taker`` accepts a double: twice the value, on the taker's side."""
        return Cube(self.value * 2, taker)

    @property
    def turned(self) -> bool:
        """Whether the cube has been doubled this game (M-3, Jacoby)."""
        return self.value > 1
