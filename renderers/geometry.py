"""Where everything goes on the picture: pure layout, no drawing and no rules.

The board is laid out as backgammon players expect it, from the viewer's side: the viewer's
points 1..6 bottom right, 7..12 bottom left (12 at the far left), 13..18 top left, 19..24
top right (24 at the far right); the bar in the middle; a rail for the cube on the left and
the two bear-off trays on the right (the viewer's at the bottom). The opponent's name strip
runs along the top, the viewer's along the bottom, and an optional caption band below it.

With the home on the left (``home="left"``) the board between the name strips is the exact
mirror image of that, about the picture's vertical centre line: every rectangle and centre
``x`` becomes ``width - x``. The strips (text) are not mirrored.

All lengths are in pixels of the final picture, as floats, for a picture ``width`` pixels
wide; they scale with it from a design drawn at 1000 px.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from .view import HOME_LEFT, HOME_RIGHT, HOMES

# The design, in pixels at a width of 1000.
_STRIP = 66.0  # a name strip (top and bottom)
_CAPTION = 38.0  # the optional caption band
_FRAME = 14.0  # the frame left and right
_FRAME_TB = 32.0  # the frame top and bottom, which carries the point numbers
_RAIL = 66.0  # the cube's rail on the left
_INNER = 8.0  # the frame between the rail or the tray and the field
_BAR = 60.0
_TRAY = 82.0
_POINT = (1000.0 - 2 * _FRAME - _RAIL - 2 * _INNER - _BAR - _TRAY) / 12
_CHECKER = _POINT * 0.93
_GAP = 66.0  # the free band across the middle of the field, between the two rows
_HALF = 5 * _CHECKER + _GAP / 2
_CUBE = 50.0
_DIE = 50.0

#: Checkers drawn on one point before the stack shows a count instead.
MAX_STACK = 5
#: Checkers drawn on the bar, per side, before a count is shown.
MAX_BAR = 3


class Rect(NamedTuple):
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2

    def contains(self, x: float, y: float, margin: float = 0.0) -> bool:
        """Whether ``(x, y)`` lies inside, at least ``margin`` from every edge."""
        return (
            self.x0 + margin <= x <= self.x1 - margin and self.y0 + margin <= y <= self.y1 - margin
        )

    def contains_rect(self, other: Rect, tolerance: float = 0.5) -> bool:
        return (
            other.x0 >= self.x0 - tolerance
            and other.y0 >= self.y0 - tolerance
            and other.x1 <= self.x1 + tolerance
            and other.y1 <= self.y1 + tolerance
        )

    def intersects(self, other: Rect) -> bool:
        """Whether the two rectangles share some area (touching edges do not count)."""
        return (
            self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1
        )

    def mirrored(self, width: float) -> Rect:
        """The rectangle reflected about the vertical line ``x = width / 2``."""
        return Rect(width - self.x1, self.y0, width - self.x0, self.y1)

    def scaled(self, factor: float) -> Rect:
        return Rect(self.x0 * factor, self.y0 * factor, self.x1 * factor, self.y1 * factor)

    def inset(self, d: float) -> Rect:
        return Rect(self.x0 + d, self.y0 + d, self.x1 - d, self.y1 - d)

    def box(self) -> tuple[int, int, int, int]:
        """The rectangle rounded to whole pixels, for Pillow."""
        return round(self.x0), round(self.y0), round(self.x1), round(self.y1)


Point2 = tuple[float, float]


class Geometry:
    """The layout of a picture ``width`` pixels wide (with a caption band or not), with the
    viewer's home board on the ``home`` side (``"right"`` or ``"left"``). ``stack``: the
    checkers a point shows before a count (the pictures' five; the web board upright on a
    phone takes more, and its points are that much longer)."""

    def __init__(
        self,
        width: int = 1000,
        caption: bool = False,
        home: str = HOME_RIGHT,
        stack: int = MAX_STACK,
    ) -> None:
        if width < 200:
            raise ValueError("a board picture must be at least 200 pixels wide")
        if home not in HOMES:
            raise ValueError(f"home must be 'right' or 'left', not {home!r}")
        if stack < MAX_STACK:
            raise ValueError(f"a point shows at least {MAX_STACK} checkers")
        self.width = width
        self.caption = caption
        self.home = home
        self.stack = stack
        #: Whether the board is drawn mirrored (the home on the left).
        self.mirrored = home == HOME_LEFT
        #: +1, or -1 when mirrored: multiplies a sideways offset (a badge beside a checker).
        self.flip = -1 if self.mirrored else 1
        u = self.unit = width / 1000.0
        self.strip = _STRIP * u
        self.point_width = _POINT * u
        self.checker = _CHECKER * u
        self.cube_size = _CUBE * u
        self.die_size = _DIE * u
        self.gap = _GAP * u
        self.half = (_HALF + (stack - MAX_STACK) * _CHECKER) * u
        board_h = 2 * _FRAME_TB * u + 2 * self.half
        self.height = round(2 * self.strip + board_h + (_CAPTION * u if caption else 0))

        self.header = Rect(0, 0, width, self.strip)
        self.board = Rect(0, self.strip, width, self.strip + board_h)
        self.footer = Rect(0, self.board.y1, width, self.board.y1 + self.strip)
        self.caption_band = Rect(0, self.footer.y1, width, self.height) if caption else None

        fy0 = self.board.y0 + _FRAME_TB * u
        fy1 = self.board.y1 - _FRAME_TB * u
        self.mid_y = (fy0 + fy1) / 2
        x = _FRAME * u
        self.rail = Rect(x, fy0, x + _RAIL * u, fy1)
        x = self.rail.x1 + _INNER * u
        self.left_field = Rect(x, fy0, x + 6 * self.point_width, fy1)
        self.bar = Rect(self.left_field.x1, fy0, self.left_field.x1 + _BAR * u, fy1)
        self.right_field = Rect(self.bar.x1, fy0, self.bar.x1 + 6 * self.point_width, fy1)
        x = self.right_field.x1 + _INNER * u
        self.tray_column = Rect(x, fy0, x + _TRAY * u, fy1)
        # The trays leave a band across the middle for the borne-off counts.
        tray_h = self.half - 6 * u
        self.trays = {
            "top": Rect(x, fy0, x + _TRAY * u, fy0 + tray_h),
            "bottom": Rect(x, fy1 - tray_h, x + _TRAY * u, fy1),
        }
        self.field = Rect(self.left_field.x0, fy0, self.right_field.x1, fy1)
        self.numbers = {
            "top": Rect(self.field.x0, self.board.y0, self.field.x1, fy0),
            "bottom": Rect(self.field.x0, fy1, self.field.x1, self.board.y1),
        }
        # Laid out with the home on the right; the mirror reflects every part of the board.
        self._home_x0 = self.right_field.x0
        self._outer_x0 = self.left_field.x0
        if self.mirrored:
            m = self._mirror
            self.left_field, self.right_field = m(self.right_field), m(self.left_field)
            self.rail, self.bar, self.field = m(self.rail), m(self.bar), m(self.field)
            self.tray_column = m(self.tray_column)
            self.trays = {k: m(v) for k, v in self.trays.items()}
            self.numbers = {k: m(v) for k, v in self.numbers.items()}

    def _mirror(self, rect: Rect) -> Rect:
        return rect.mirrored(self.width)

    @property
    def home_field(self) -> Rect:
        """The half of the field holding the viewer's home board (points 1..6 and 19..24)."""
        return self.left_field if self.mirrored else self.right_field

    @property
    def outer_field(self) -> Rect:
        """The other half (points 7..18)."""
        return self.right_field if self.mirrored else self.left_field

    # -- points ------------------------------------------------------------------------

    @staticmethod
    def is_top(point: int) -> bool:
        """Whether the viewer's point ``point`` (1..24) is in the top row."""
        return point >= 13

    def column(self, point: int) -> Rect:
        """The strip of the field that belongs to the viewer's point ``point`` (1..24)."""
        if not 1 <= point <= 24:
            raise ValueError(f"point {point} is outside 1..24")
        if point <= 6:
            x0 = self._home_x0 + (6 - point) * self.point_width
        elif point <= 12:
            x0 = self._outer_x0 + (12 - point) * self.point_width
        elif point <= 18:
            x0 = self._outer_x0 + (point - 13) * self.point_width
        else:
            x0 = self._home_x0 + (point - 19) * self.point_width
        if self.is_top(point):
            y0, y1 = self.field.y0, self.field.y0 + self.half
        else:
            y0, y1 = self.field.y1 - self.half, self.field.y1
        col = Rect(x0, y0, x0 + self.point_width, y1)
        # Reflected as the other parts are, so that touching edges stay touching exactly.
        return self._mirror(col) if self.mirrored else col

    def triangle(self, point: int) -> tuple[Point2, Point2, Point2]:
        """The point's triangle: two base corners on the frame and the tip."""
        col = self.column(point)
        pad = 0.04 * self.point_width
        length = self.half * 0.88
        cx = (col.x0 + col.x1) / 2
        if self.is_top(point):
            return (col.x0 + pad, col.y0), (col.x1 - pad, col.y0), (cx, col.y0 + length)
        return (col.x0 + pad, col.y1), (col.x1 - pad, col.y1), (cx, col.y1 - length)

    def checker_centre(self, point: int, index: int) -> Point2:
        """Centre of the ``index``-th checker (0 at the frame) on the viewer's ``point``.

        Indexes at or beyond ``stack`` (:data:`MAX_STACK`) give the last drawn place: a taller
        stack is drawn as five checkers, the last carrying the count.
        """
        col = self.column(point)
        r = self.checker / 2
        i = min(index, self.stack - 1)
        cx = (col.x0 + col.x1) / 2
        if self.is_top(point):
            return cx, col.y0 + r + i * self.checker
        return cx, col.y1 - r - i * self.checker

    def label_centre(self, point: int) -> Point2:
        """Where the point's number is written, on the frame beside its base."""
        col = self.column(point)
        band = self.numbers["top" if self.is_top(point) else "bottom"]
        return (col.x0 + col.x1) / 2, (band.y0 + band.y1) / 2

    # -- bar, trays, cube, dice ---------------------------------------------------------

    def bar_checker_centre(self, upper: bool, index: int) -> Point2:
        """The ``index``-th bar checker of the side kept in the upper (or lower) half.

        The viewer's checkers wait in the upper half, next to where they enter; the
        opponent's in the lower half. They stack from the middle band outwards.
        """
        r = self.checker / 2
        i = min(index, MAX_BAR - 1)
        cx = (self.bar.x0 + self.bar.x1) / 2
        offset = self.gap / 2 + r + i * self.checker
        return cx, self.mid_y - offset if upper else self.mid_y + offset

    def tray_slot(self, top: bool, index: int) -> Rect:
        """The ``index``-th (0..14) borne-off checker, seen edge on, in a tray."""
        tray = self.trays["top" if top else "bottom"].inset(7 * self.unit)
        pitch = (tray.height - 30 * self.unit) / 15
        thickness = pitch * 0.82
        y0 = tray.y0 + index * pitch if top else tray.y1 - (index + 1) * pitch + (pitch - thickness)
        return Rect(tray.x0 + 4 * self.unit, y0, tray.x1 - 4 * self.unit, y0 + thickness)

    def tray_label_centre(self, top: bool) -> Point2:
        """Where a tray's borne-off count is written: at its end toward the middle."""
        tray = self.trays["top" if top else "bottom"]
        cx = (tray.x0 + tray.x1) / 2
        return (cx, tray.y1 - 17 * self.unit) if top else (cx, tray.y0 + 17 * self.unit)

    def cube_centre(self, owner: str | None) -> Point2:
        """The cube on the rail: ``"top"``/``"bottom"`` by its owner's side, else the middle."""
        cx = (self.rail.x0 + self.rail.x1) / 2
        s = self.cube_size
        if owner == "top":
            return cx, self.rail.y0 + s / 2 + 10 * self.unit
        if owner == "bottom":
            return cx, self.rail.y1 - s / 2 - 10 * self.unit
        return cx, self.mid_y

    def dice_centres(self, count: int, home: bool) -> list[Point2]:
        """Centres of ``count`` dice across the middle of the home (or the outer) half."""
        half = self.home_field if home else self.outer_field
        cx = (half.x0 + half.x1) / 2
        step = self.die_size + 12 * self.unit
        start = cx - step * (count - 1) / 2
        return [(start + i * step, self.mid_y) for i in range(count)]


@lru_cache(maxsize=32)
def geometry(width: int = 1000, caption: bool = False, home: str = HOME_RIGHT) -> Geometry:
    """A shared :class:`Geometry` for a picture ``width`` pixels wide."""
    return Geometry(width, caption, home)


__all__ = ["MAX_BAR", "MAX_STACK", "Geometry", "Rect", "geometry"]
