"""The board's looks: a classic wooden board, a dark one and a high-contrast one.

A theme is only colours (and whether the frame gets a wood grain); :mod:`renderers.board`
decides the shapes. Colours are RGB tuples. The high-contrast theme is built for
colour-blind players: its points are blue and orange (the Okabe-Ito pair, which stays apart
under deuteranopia, protanopia and tritanopia), its checkers pure white and pure black with
strong outlines, and its markers rely on shape and lightness rather than hue.
"""

from __future__ import annotations

from dataclasses import dataclass

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class CheckerStyle:
    """How the checkers (and the dice) of one colour look."""

    fill: RGB
    edge: RGB
    rim: RGB  # the bevel ring inside the edge
    shine: RGB  # the soft highlight
    text: RGB  # a count written on the checker
    pip: RGB  # the pips of this player's dice


@dataclass(frozen=True)
class Theme:
    name: str
    title: str
    background: RGB  # behind everything: the name strips
    text: RGB
    text_dim: RGB
    frame: RGB
    frame_dark: RGB  # grain lines and the frame's edges
    field: RGB  # the playing surface
    point_a: RGB  # odd points
    point_b: RGB  # even points
    point_edge: RGB | None
    bar: RGB
    tray: RGB
    tray_edge: RGB
    numbers: RGB  # point numbers on the frame
    white: CheckerStyle
    black: CheckerStyle
    checker_edge_width: float  # at a checker diameter of 100 px
    cube_face: RGB
    cube_text: RGB
    last_move: RGB  # rings on the checkers just moved
    ghost: RGB  # where they came from
    hit: RGB
    highlight: RGB  # points a selected checker can reach
    accent: RGB  # whose turn it is, badges
    accent_text: RGB
    marker_outline: RGB | None = None  # a thin border round rings, for light fields
    wood: bool = False

    def checker(self, color: str) -> CheckerStyle:
        return self.white if color == "white" else self.black


CLASSIC = Theme(
    name="classic",
    title="Classic wood",
    background=(43, 29, 20),
    text=(246, 236, 216),
    text_dim=(190, 168, 140),
    frame=(104, 62, 34),
    frame_dark=(74, 42, 22),
    field=(224, 190, 139),
    point_a=(142, 52, 34),
    point_b=(250, 238, 212),
    point_edge=None,
    bar=(96, 56, 30),
    tray=(82, 48, 26),
    tray_edge=(58, 33, 17),
    numbers=(240, 218, 180),
    white=CheckerStyle(
        fill=(248, 243, 232),
        edge=(150, 132, 108),
        rim=(226, 216, 196),
        shine=(255, 255, 255),
        text=(70, 50, 34),
        pip=(40, 30, 24),
    ),
    black=CheckerStyle(
        fill=(40, 34, 31),
        edge=(12, 10, 9),
        rim=(70, 62, 57),
        shine=(110, 100, 94),
        text=(246, 238, 222),
        pip=(246, 240, 228),
    ),
    checker_edge_width=3.0,
    cube_face=(252, 249, 240),
    cube_text=(50, 36, 26),
    last_move=(255, 196, 0),
    ghost=(255, 196, 0),
    hit=(214, 40, 40),
    highlight=(46, 160, 67),
    accent=(255, 196, 0),
    accent_text=(43, 29, 20),
    marker_outline=(70, 40, 18),
    wood=True,
)

DARK = Theme(
    name="dark",
    title="Dark",
    background=(18, 20, 24),
    text=(236, 239, 244),
    text_dim=(140, 148, 160),
    frame=(36, 40, 47),
    frame_dark=(26, 29, 35),
    field=(52, 58, 68),
    point_a=(94, 129, 172),
    point_b=(124, 132, 146),
    point_edge=None,
    bar=(36, 40, 47),
    tray=(28, 31, 37),
    tray_edge=(20, 22, 27),
    numbers=(160, 168, 180),
    white=CheckerStyle(
        fill=(240, 242, 246),
        edge=(160, 166, 178),
        rim=(220, 224, 232),
        shine=(255, 255, 255),
        text=(30, 34, 40),
        pip=(30, 34, 40),
    ),
    black=CheckerStyle(
        fill=(22, 24, 28),
        edge=(200, 206, 216),
        rim=(48, 52, 60),
        shine=(90, 96, 108),
        text=(240, 242, 246),
        pip=(240, 242, 246),
    ),
    checker_edge_width=3.0,
    cube_face=(236, 239, 244),
    cube_text=(24, 28, 34),
    last_move=(255, 184, 76),
    ghost=(255, 184, 76),
    hit=(255, 99, 99),
    highlight=(80, 220, 140),
    accent=(255, 184, 76),
    accent_text=(18, 20, 24),
)

CONTRAST = Theme(
    name="contrast",
    title="High contrast",
    background=(0, 0, 0),
    text=(255, 255, 255),
    text_dim=(200, 200, 200),
    frame=(20, 20, 20),
    frame_dark=(0, 0, 0),
    field=(255, 255, 255),
    point_a=(0, 114, 178),
    point_b=(230, 159, 0),
    point_edge=(0, 0, 0),
    bar=(20, 20, 20),
    tray=(44, 44, 44),
    tray_edge=(0, 0, 0),
    numbers=(255, 255, 255),
    white=CheckerStyle(
        fill=(255, 255, 255),
        edge=(0, 0, 0),
        rim=(255, 255, 255),
        shine=(255, 255, 255),
        text=(0, 0, 0),
        pip=(0, 0, 0),
    ),
    black=CheckerStyle(
        fill=(0, 0, 0),
        edge=(255, 255, 255),
        rim=(0, 0, 0),
        shine=(0, 0, 0),
        text=(255, 255, 255),
        pip=(255, 255, 255),
    ),
    checker_edge_width=5.0,
    cube_face=(255, 255, 255),
    cube_text=(0, 0, 0),
    last_move=(240, 228, 66),
    ghost=(0, 0, 0),
    hit=(213, 94, 0),
    highlight=(204, 121, 167),
    accent=(240, 228, 66),
    accent_text=(0, 0, 0),
    marker_outline=(0, 0, 0),
)

THEMES: dict[str, Theme] = {t.name: t for t in (CLASSIC, DARK, CONTRAST)}


def theme_by_name(name: str) -> Theme:
    """The theme called ``name``: ``classic``, ``dark`` or ``contrast``."""
    try:
        return THEMES[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown theme {name!r}; choose from {', '.join(THEMES)}") from None


__all__ = ["CLASSIC", "CONTRAST", "DARK", "THEMES", "CheckerStyle", "Theme", "theme_by_name"]
