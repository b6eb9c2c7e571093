"""Board positions as immutable value objects.

A :class:`Position` is seen from the player on roll (the *mover*). Each side's checkers are
kept in that side's own numbering (rules.md): index 1..24 are the points, index 25 (``BAR``)
is the bar and index 0 (``OFF``) counts the checkers already borne off. How one side's point
maps to the other's depends on the game, so that mapping lives in the variant.
"""

from __future__ import annotations

from typing import NamedTuple

CHECKERS = 15
OFF = 0
BAR = 25
HEAD = 24
SLOTS = 26

Side = tuple[int, ...]


def side_from_points(points: dict[int, int], *, bar: int = 0) -> Side:
    """Build one side's 26 slots from ``{point: count}``; the rest are borne off."""
    slots = [0] * SLOTS
    for point, count in points.items():
        if not 1 <= point <= 24:
            raise ValueError(f"point {point} is outside 1..24")
        slots[point] += count
    slots[BAR] = bar
    slots[OFF] = CHECKERS - sum(slots[1:])
    if slots[OFF] < 0:
        raise ValueError("more than 15 checkers on one side")
    return tuple(slots)


class Position(NamedTuple):
    """A board seen from the player on roll; both sides in their own numbering.

    ``mover[p]`` is how many checkers the player on roll has on their point ``p``;
    ``opponent[q]`` the same for the other player on *their* point ``q``.
    """

    mover: Side
    opponent: Side

    def swapped(self) -> Position:
        """The same board with the other player on roll."""
        return Position(self.opponent, self.mover)

    def pips(self) -> tuple[int, int]:
        """Pip counts (mover, opponent): the distance each side still has to travel."""
        return pip_count(self.mover), pip_count(self.opponent)

    @property
    def finished(self) -> bool:
        """True when either side has borne off all its checkers."""
        return self.mover[OFF] == CHECKERS or self.opponent[OFF] == CHECKERS

    @classmethod
    def from_points(
        cls,
        mover: dict[int, int],
        opponent: dict[int, int],
        *,
        mover_bar: int = 0,
        opponent_bar: int = 0,
    ) -> Position:
        """Build a position from ``{point: count}`` maps; missing checkers are borne off."""
        return cls(
            side_from_points(mover, bar=mover_bar), side_from_points(opponent, bar=opponent_bar)
        )


def pip_count(side: Side) -> int:
    """The pips one side needs to bear everything off (the bar counts as 25)."""
    return sum(point * side[point] for point in range(1, SLOTS))
