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


def _parts(home: str) -> dict[str, Any]:
    """Where every part of the board goes, with the viewer's home board on ``home``'s side
    (the left one is the exact mirror image, as on the pictures)."""
    g = Geometry(WIDTH, home=home)
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
    g = Geometry(WIDTH)
    return {
        "width": WIDTH,
        "height": round(g.board.height, 2),
        "checker": round(g.checker, 2),
        "cube": round(g.cube_size, 2),
        "die": round(g.die_size, 2),
        "gap": round(g.gap, 2),
        "mid_y": round(g.mid_y - g.board.y0, 2),
        "max_stack": MAX_STACK,
        "max_bar": MAX_BAR,
        "homes": {home: _parts(home) for home in HOMES},
        "themes": {name: theme_json(theme) for name, theme in THEMES.items()},
    }
