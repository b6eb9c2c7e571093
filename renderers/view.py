"""What a board picture shows, decided by the caller: the :class:`BoardView` value object.

Renderers only read a view; they never decide a rule. Everything that depends on the game's
state (whose turn it is, which dice are used up, which points a selected checker may reach)
is put into the view by whoever builds it, normally from what :mod:`core` answers.

Numbering. The two sides are stored by colour, ``white`` and ``black``, each as a 26-tuple in
that side's own numbering (as :class:`core.position.Position`: ``[1..24]`` points, ``[25]``
the bar, ``[0]`` the count borne off). The picture is drawn from the side of ``viewer``: its
points are labelled with the viewer's numbers and placed as on a backgammon board (1..6
bottom right, 7..12 bottom left, 13..18 top left, 19..24 top right), so that what the viewer
types (``13/8``) matches what they see. With ``home="left"`` the picture is the mirror image
of that (1..6 bottom left, 7..12 bottom right, 13..18 top right, 19..24 top left, the trays on
the left), as many players in Turkey and the Caucasus set up their board; the numbering
does not change, only where the points are drawn. The other side's checkers stand on the viewer's
point ``p`` for which ``variant.opposite[p]`` is their own number; :meth:`BoardView.to_viewer`
does that conversion, in this one place.
"""

from __future__ import annotations

import copyreg
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from core.movegen import Step
from core.notation import format_steps
from core.position import BAR, CHECKERS, OFF, SLOTS, Position, Side, pip_count
from core.variants import Variant

WHITE = "white"
BLACK = "black"
COLORS = (WHITE, BLACK)

#: Where the viewer's home board (points 1..6) is drawn: bottom right (the usual layout) or,
#: mirrored, bottom left.
HOME_RIGHT = "right"
HOME_LEFT = "left"
HOMES = (HOME_RIGHT, HOME_LEFT)


#: The words a board picture writes, in English; pass ``labels`` to a view to translate them.
#: ``{n}`` is replaced by a number.
LABELS: dict[str, str] = {
    "pips": "pips",
    "to_move": "to move",
    "winner": "winner",
    "match_to": "Match to {n}",
    "crawford": "Crawford",
    "off": "off",
    # The text board's words.
    "white": "white",
    "black": "black",
    "score": "score",
    "bar": "bar",
    "cube": "Cube",
    "centred": "centred",
    "dice": "Dice",
    "used": "used",
    "played": "played",
    "heads": "Heads",
    "can_reach": "Can reach",
}


def other(color: str) -> str:
    """The other colour."""
    return BLACK if color == WHITE else WHITE


def _frozen(mapping: Mapping[str, object] | None) -> Mapping[str, object]:
    return MappingProxyType(dict(mapping or {}))


def _proxy(items: dict[str, object]) -> MappingProxyType[str, object]:
    return MappingProxyType(items)


# Views travel to drawing processes, so their read-only mappings must pickle.
copyreg.pickle(MappingProxyType, lambda proxy: (_proxy, (dict(proxy),)))


def _check_color(value: str | None, what: str, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if value not in COLORS:
        raise ValueError(f"{what} must be 'white' or 'black', not {value!r}")


@dataclass(frozen=True)
class BoardView:
    """Everything a board picture needs. Build it with :meth:`from_position` or directly.

    ``dice`` is the roll as thrown (``(a, b)``; a double may also be given as four dice),
    empty before the roll; ``dice_used[i]`` dims die ``i`` (for a double given as two dice,
    flags for all four may be given). ``cube_value`` is ``None`` when the game has no cube;
    ``cube_owner`` ``None`` means centred. ``last_play`` holds the steps of the last play in
    the numbering of ``last_play_color``. ``highlights`` and ``selected`` are points in the
    viewer's numbering (0 = bearing off, 25 = the bar). ``home`` is the side of the picture
    the viewer's home board is drawn on: ``"right"`` (the default) or ``"left"``.
    """

    variant: Variant
    white: Side
    black: Side
    viewer: str = WHITE
    dice: tuple[int, ...] = ()
    dice_used: tuple[bool, ...] = ()
    #: Whose dice they are (drawn in their colour, on their half): ``to_move`` by default.
    dice_color: str | None = None
    cube_value: int | None = None
    cube_owner: str | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    score: Mapping[str, int] = field(default_factory=dict)
    match_length: int = 0
    crawford: bool = False
    to_move: str | None = None
    #: The colour that won the game, once it is over (its strip says so).
    winner: str | None = None
    last_play: tuple[Step, ...] = ()
    last_play_color: str | None = None
    highlights: tuple[int, ...] = ()
    selected: int | None = None
    theme: str = "classic"
    #: The side the viewer's home board is drawn on (:data:`HOMES`); a player's setting.
    home: str = HOME_RIGHT
    caption: str | None = None
    #: Words written on the picture, by key (see :data:`LABELS`), for other languages.
    labels: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in (WHITE, BLACK):
            side = tuple(getattr(self, name))
            if len(side) != SLOTS or any(n < 0 for n in side) or sum(side) != CHECKERS:
                raise ValueError(f"the {name} side must be 26 counts of 15 checkers in all")
            object.__setattr__(self, name, side)
        _check_color(self.viewer, "viewer")
        if self.home not in HOMES:
            raise ValueError(f"home must be 'right' or 'left', not {self.home!r}")
        _check_color(self.cube_owner, "cube_owner", optional=True)
        _check_color(self.to_move, "to_move", optional=True)
        _check_color(self.winner, "winner", optional=True)
        _check_color(self.dice_color, "dice_color", optional=True)
        _check_color(self.last_play_color, "last_play_color", optional=not self.last_play)
        if any(not 1 <= d <= 6 for d in self.dice) or len(self.dice) not in (0, 1, 2, 4):
            raise ValueError(f"dice must be 0, 1, 2 or 4 numbers 1..6, not {self.dice!r}")
        object.__setattr__(self, "dice", tuple(self.dice))
        object.__setattr__(self, "dice_used", tuple(bool(u) for u in self.dice_used))
        steps = tuple(Step(*s) for s in self.last_play)
        if any(not (1 <= s.source <= BAR and OFF <= s.dest < BAR) for s in steps):
            raise ValueError(f"a step goes from 1..25 to 0..24, not {steps!r}")
        if any(not OFF <= p < BAR for p in self.highlights):
            raise ValueError(f"highlights are points 0..24, not {self.highlights!r}")
        if self.selected is not None and not 1 <= self.selected <= BAR:
            raise ValueError(f"selected is a point 1..25, not {self.selected!r}")
        object.__setattr__(self, "last_play", steps)
        object.__setattr__(self, "highlights", tuple(self.highlights))
        object.__setattr__(self, "names", _frozen(self.names))
        object.__setattr__(self, "score", _frozen(self.score))
        object.__setattr__(self, "labels", _frozen({**LABELS, **self.labels}))

    # -- construction ------------------------------------------------------------------

    @classmethod
    def from_position(
        cls,
        variant: Variant,
        position: Position,
        mover_color: str = WHITE,
        viewer: str | None = None,
        **fields: object,
    ) -> BoardView:
        """A view of ``position`` whose mover plays ``mover_color``.

        ``viewer`` defaults to the mover, who is also ``to_move`` unless given. The cube
        starts centred at 1 in a game with a cube. Any other field can be passed by name.
        """
        _check_color(mover_color, "mover_color")
        sides = {mover_color: position.mover, other(mover_color): position.opponent}
        fields.setdefault("to_move", mover_color)
        if variant.cube:
            fields.setdefault("cube_value", 1)
        return cls(
            variant=variant,
            white=sides[WHITE],
            black=sides[BLACK],
            viewer=viewer or mover_color,
            **fields,  # type: ignore[arg-type]
        )

    # -- reading -----------------------------------------------------------------------

    @property
    def opponent(self) -> str:
        """The colour facing the viewer (drawn at the top)."""
        return other(self.viewer)

    @property
    def shows_score(self) -> bool:
        """Whether the score is worth showing: in a match of several points, or once money
        play has points on the board (a single game's score is always 0-0 while it lasts)."""
        return self.match_length > 1 or any(self.score.values())

    def side(self, color: str) -> Side:
        """The 26 slots of ``color`` in its own numbering."""
        return self.white if color == WHITE else self.black

    def name(self, color: str) -> str:
        """The player's name on ``color``'s side; a board without names (a puzzle's) calls
        the side by its colour in the board's language: White, Beyaz, Белые."""
        name = self.names.get(color)
        if name:
            return str(name)
        word = self.label(color)
        return word[:1].upper() + word[1:]

    def label(self, key: str, **params: object) -> str:
        """The word ``key`` in the view's language, with ``{n}``-style parameters filled."""
        return str(self.labels.get(key, key)).format(**params)

    def pips(self) -> dict[str, int]:
        """Pip counts by colour (each point's number times its checkers, the bar as 25)."""
        return {color: pip_count(self.side(color)) for color in COLORS}

    def to_viewer(self, color: str, point: int) -> int:
        """The viewer's number of ``color``'s point ``point`` (bar 25 and off 0 unchanged)."""
        if color == self.viewer or point in (BAR, OFF):
            return point
        return _inverse(self.variant.opposite)[point]

    def points(self) -> tuple[tuple[str | None, int], ...]:
        """``(colour, count)`` on each of the viewer's points 0..24 (entry 0 is unused)."""
        board: list[tuple[str | None, int]] = [(None, 0)] * 25
        for color in (self.opponent, self.viewer):
            side = self.side(color)
            for p in range(1, 25):
                if side[p]:
                    board[self.to_viewer(color, p)] = (color, side[p])
        return tuple(board)

    @property
    def all_dice(self) -> tuple[int, ...]:
        """The dice to draw: a double given as two dice is shown as four."""
        if len(self.dice) == 2 and self.dice[0] == self.dice[1]:
            return self.dice * 2
        return self.dice

    @property
    def roller(self) -> str:
        """The colour whose dice are shown."""
        return self.dice_color or self.to_move or self.viewer

    def last_play_text(self) -> str:
        """The last play in notation (``13/8 6/5*``), in its player's numbering."""
        dice = self.dice if self.roller == self.last_play_color else ()
        return format_steps(self.last_play, dice)

    def die_used(self, index: int) -> bool:
        return index < len(self.dice_used) and self.dice_used[index]


_INVERSES: dict[tuple[int, ...], tuple[int, ...]] = {}


def _inverse(opposite: tuple[int, ...]) -> tuple[int, ...]:
    inv = _INVERSES.get(opposite)
    if inv is None:
        table = [0] * len(opposite)
        for p in range(1, 25):
            table[opposite[p]] = p
        inv = _INVERSES[opposite] = tuple(table)
    return inv


__all__ = [
    "BLACK",
    "COLORS",
    "HOMES",
    "HOME_LEFT",
    "HOME_RIGHT",
    "LABELS",
    "WHITE",
    "BoardView",
    "other",
]
