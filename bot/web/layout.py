"""The board's geometry and themes as JSON, so the page draws what the pictures draw."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from functools import cache
from typing import Any

from renderers.geometry import MAX_BAR, MAX_STACK, Geometry, Rect
from renderers.themes import THEMES, Theme
from renderers.view import HOMES

#: The width the page's SVG coordinates are given in (the pictures' design width).
WIDTH = 1000


def _rect(r: Rect) -> list[float]:
    return [round(v, 2) for v in r]


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _colours(value: Any) -> Any:
    if is_dataclass(value):
        return {f.name: _colours(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple) and len(value) == 3 and all(isinstance(v, int) for v in value):
        return _hex(value)
    return value


def theme_json(theme: Theme) -> dict[str, Any]:
    """A theme's colours as CSS hex strings, by the theme's field names."""
    return _colours(theme)


#: The taller boards a phone held upright may take (checkers a point shows): the board grows
#: into the room the page has under it rather than leave it empty (board.js ``fitBoard``).
TALL_STACKS = (6, 7, 8)


def _parts(home: str, stack: int = MAX_STACK) -> dict[str, Any]:
    """Where every part of the board goes, with the viewer's home board on ``home``'s side
    (the left one is the exact mirror image, as on the pictures)."""
    g = Geometry(WIDTH, home=home, stack=stack)
    top = g.board.y0
    shift = lambda r: Rect(r.x0, r.y0 - top, r.x1, r.y1 - top)  # noqa: E731
    points = {}
    for p in range(1, 25):
        col = g.column(p)
        tri = g.triangle(p)
        points[str(p)] = {
            "column": _rect(shift(col)),
            "triangle": [[round(x, 2), round(y - top, 2)] for x, y in tri],
            "label": [round(v, 2) for v in (g.label_centre(p)[0], g.label_centre(p)[1] - top)],
            "top": g.is_top(p),
        }
    return {
        "board": _rect(shift(g.board)),
        "field": _rect(shift(g.field)),
        "left_field": _rect(shift(g.left_field)),
        "right_field": _rect(shift(g.right_field)),
        "home_field": _rect(shift(g.home_field)),
        "outer_field": _rect(shift(g.outer_field)),
        "bar": _rect(shift(g.bar)),
        "rail": _rect(shift(g.rail)),
        "trays": {k: _rect(shift(v)) for k, v in g.trays.items()},
        "points": points,
    }


@cache
def layout_json() -> dict[str, Any]:
    """Everything the page needs to lay out a board: the picture's geometry without the
    name strips (the page shows names in HTML), for either home side, and every theme."""
    return {
        **_board(MAX_STACK),
        "checker": round(Geometry(WIDTH).checker, 2),
        "cube": round(Geometry(WIDTH).cube_size, 2),
        "die": round(Geometry(WIDTH).die_size, 2),
        "gap": round(Geometry(WIDTH).gap, 2),
        "max_bar": MAX_BAR,
        # Taller boards for a phone held upright, by the checkers a point shows.
        "tall": {str(stack): _board(stack) for stack in TALL_STACKS},
        "themes": {name: theme_json(theme) for name, theme in THEMES.items()},
    }


def _board(stack: int) -> dict[str, Any]:
    """The parts of a board whose points show ``stack`` checkers, for either home side."""
    g = Geometry(WIDTH, stack=stack)
    return {
        "width": WIDTH,
        "height": round(g.board.height, 2),
        "mid_y": round(g.mid_y - g.board.y0, 2),
        "max_stack": stack,
        "homes": {home: _parts(home, stack) for home in HOMES},
    }
