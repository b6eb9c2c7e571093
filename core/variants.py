"""The games the bot plays, as objects that carry their differences.

In the spirit of python-chess's variants: the fixed differences are class attributes
(landing and hitting, the head and block rules, the cube, scoring) and a variant's options
(``block_needs_home``, ``draw``) are instance attributes. Contest settings such as
the Jacoby rule belong to the match, not the game's rules. Everything else reads
these attributes instead of testing the variant's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .errors import InvalidPositionError
from .position import BAR, CHECKERS, OFF, Position, side_from_points


def _opposite_table(mapping: dict[int, int]) -> tuple[int, ...]:
    return tuple(mapping.get(point, 0) for point in range(26))


@dataclass(frozen=True)
class Variant:
    """Base of the three games. Use :func:`variant_by_name` to get one by its name."""

    name: ClassVar[str]
    title: ClassVar[str]
    #: Every name a player or a file may call the variant by (lower case), its ``name`` first;
    #: :func:`find_variant` resolves them.
    aliases: ClassVar[tuple[str, ...]]
    #: Whether landing on a lone opposing checker hits it (Tavla) or the point is closed (Uzun).
    hitting: ClassVar[bool]
    #: Whether the doubling cube is used (T-8).
    cube: ClassVar[bool]
    #: Whether a backgammon (triple game, T-7) exists.
    backgammons: ClassVar[bool]
    #: Head rule U-4/U-5 and six-block rule U-6.
    head_rule: ClassVar[bool] = False
    block_rule: ClassVar[bool] = False
    #: ``opposite[p]`` is the opponent's number for the mover's point ``p`` (1..24).
    opposite: ClassVar[tuple[int, ...]]
    #: Who opens the next game of a match: "roll" (both roll one die), "winner_rolls"
    #: (the previous winner rolls both dice, Turkish), "winner" (previous winner moves first).
    next_game_opening: ClassVar[str] = "roll"
    start_points: ClassVar[dict[int, int]]

    def start_position(self) -> Position:
        """The starting board (T-1 / U-1); it is the same from either side."""
        side = side_from_points(self.start_points)
        return Position(side, side)

    def validate(self, position: Position) -> None:
        """Raise :class:`InvalidPositionError` unless ``position`` can occur in this game."""
        for side in position:
            if len(side) != 26 or any(n < 0 for n in side):
                raise InvalidPositionError("a side must have 26 non-negative slots")
            if sum(side) != CHECKERS:
                raise InvalidPositionError("each side must have exactly 15 checkers")
            if not self.hitting and side[BAR]:
                raise InvalidPositionError(f"{self.title} has no bar")
        mover, opponent = position
        if mover[OFF] == CHECKERS and opponent[OFF] == CHECKERS:
            raise InvalidPositionError("both sides can't have borne off everything")
        for point in range(1, 25):
            if mover[point] and opponent[self.opposite[point]]:
                raise InvalidPositionError(f"point {point} holds checkers of both colours")

    @property
    def options(self) -> dict[str, bool]:
        """The variant's options, as stored with a game."""
        return {}


@dataclass(frozen=True)
class Tavla(Variant):
    """International backgammon with the doubling cube (rules.md, T-1..T-9)."""

    name: ClassVar[str] = "tavla"
    title: ClassVar[str] = "Tavla"
    aliases: ClassVar[tuple[str, ...]] = ("tavla", "backgammon")
    hitting: ClassVar[bool] = True
    cube: ClassVar[bool] = True
    backgammons: ClassVar[bool] = True
    opposite: ClassVar[tuple[int, ...]] = _opposite_table({p: 25 - p for p in range(1, 25)})
    start_points: ClassVar[dict[int, int]] = {24: 2, 13: 5, 8: 3, 6: 5}


@dataclass(frozen=True)
class Turkish(Tavla):
    """Traditional Turkish tavla: no cube, no backgammon; the winner opens the next game."""

    name: ClassVar[str] = "turkish"
    title: ClassVar[str] = "Turkish tavla"
    aliases: ClassVar[tuple[str, ...]] = (
        "turkish",
        "tavla-turkish",
        "türk",
        "turk",
        "türkçe",
        "turkce",
        "geleneksel",
    )
    cube: ClassVar[bool] = False
    backgammons: ClassVar[bool] = False
    next_game_opening: ClassVar[str] = "winner_rolls"


@dataclass(frozen=True)
class Uzun(Variant):
    """Uzun Tavla (long nardy): no hitting, the head rule and the six-block rule (U-1..U-9)."""

    name: ClassVar[str] = "uzun"
    title: ClassVar[str] = "Uzun Tavla"
    aliases: ClassVar[tuple[str, ...]] = (
        "uzun",
        "uzun_tavla",
        "uzun-tavla",
        "nardy",
        "long_nardy",
        "long-nardy",
        "нарды",
    )
    hitting: ClassVar[bool] = False
    cube: ClassVar[bool] = False
    backgammons: ClassVar[bool] = False
    head_rule: ClassVar[bool] = True
    block_rule: ClassVar[bool] = True
    # Both sides travel the same way round, so White's n is Black's ((n + 11) mod 24) + 1.
    opposite: ClassVar[tuple[int, ...]] = _opposite_table(
        {p: (p + 11) % 24 + 1 for p in range(1, 25)}
    )
    next_game_opening: ClassVar[str] = "winner"
    start_points: ClassVar[dict[int, int]] = {24: CHECKERS}

    #: U-6 option: a block is allowed only once an opposing checker has reached its home.
    block_needs_home: bool = False
    #: U-draw option: the second player gets one last roll to draw.
    draw: bool = False

    @property
    def options(self) -> dict[str, bool]:
        return {"block_needs_home": self.block_needs_home, "draw": self.draw}


VARIANTS: dict[str, type[Variant]] = {"tavla": Tavla, "turkish": Turkish, "uzun": Uzun}

_BY_ALIAS: dict[str, type[Variant]] = {
    alias: cls for cls in VARIANTS.values() for alias in cls.aliases
}


def find_variant(name: str) -> type[Variant]:
    """The variant class that ``name`` (any of its ``aliases``, case ignored) stands for.

    Raises ``ValueError`` for a name that no variant answers to.
    """
    try:
        return _BY_ALIAS[name.strip().casefold()]
    except KeyError:
        raise ValueError(f"unknown variant {name!r}") from None


def variant_by_name(name: str, **options: bool) -> Variant:
    """The variant called ``name`` (its name or an alias, e.g. ``nardy`` for ``uzun``)."""
    return find_variant(name)(**options)


__all__ = [
    "OFF",
    "VARIANTS",
    "Tavla",
    "Turkish",
    "Uzun",
    "Variant",
    "find_variant",
    "variant_by_name",
]
