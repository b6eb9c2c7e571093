"""The rating chart of ``/stats``: a player's rating after each rated contest, over time.

:func:`rating_chart` is pure: the words (title, axis names, month names) come from ``labels``
(English by default, see :data:`CHART_LABELS`), so the bot passes them translated. The y axis
is marked at round ratings, the x axis with dates.
"""

from __future__ import annotations

import io
import math
import time
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from PIL import Image, ImageDraw

from .board import _fit, font
from .themes import theme_by_name

#: The chart's words in English; ``{…}`` fields are filled in.
CHART_LABELS: dict[str, str] = {
    "title": "Rating of {name}",
    "subtitle": "{variant} · rated games: {n}",
    "rating": "rating",
    "months": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec",
}

#: Steps between marks on the rating axis, the smallest that leaves at most six marks wins.
RATING_STEPS = (5, 10, 20, 25, 50, 100, 200, 250, 500)


class Tick(NamedTuple):
    """A mark on an axis: its value and its label."""

    value: float
    label: str


def rating_ticks(low: float, high: float, most: int = 6) -> list[Tick]:
    """Round ratings covering ``low``..``high``: multiples of the smallest step in
    :data:`RATING_STEPS` that needs at most ``most`` marks."""
    for step in RATING_STEPS:
        first = math.floor(low / step) * step
        last = math.ceil(high / step) * step
        if (last - first) / step + 1 <= most:
            break
    if last == first:
        first, last = first - step, last + step
    count = round((last - first) / step)
    return [Tick(first + i * step, str(int(first + i * step))) for i in range(count + 1)]


def date_ticks(stamps: Sequence[float], months: Sequence[str], most: int = 5) -> list[Tick]:
    """Marks under the games (``value`` is a game's index) where a new day (UTC) begins,
    labelled ``4 Dec``: the first game of each day, thinned to at most ``most``."""
    firsts: list[Tick] = []
    last_day = None
    for index, stamp in enumerate(stamps):
        when = time.gmtime(stamp)
        day = (when.tm_year, when.tm_yday)
        if day != last_day:
            firsts.append(Tick(index, f"{when.tm_mday} {months[when.tm_mon - 1]}"))
            last_day = day
    every = max(1, math.ceil(len(firsts) / most))
    return firsts[::every]


def rating_chart(
    history: Sequence[tuple[float, float]],
    *,
    name: str,
    variant: str,
    labels: Mapping[str, str] | None = None,
    theme: str = "classic",
    width: int = 800,
    height: int = 420,
) -> bytes:
    """PNG of ``history`` ((timestamp, rating) after each rated contest, oldest first; drawn one
    step per contest, with the dates under them) for
    the player ``name`` in the game ``variant`` (already in the reader's language)."""
    words = {**CHART_LABELS, **(labels or {})}
    months = words["months"].split()
    colors = theme_by_name(theme)
    image = Image.new("RGB", (width, height), colors.background)
    draw = ImageDraw.Draw(image)
    u = width / 800
    title_font, sub_font, axis_font = (
        font(round(26 * u), bold=True),
        font(round(17 * u)),
        font(round(15 * u)),
    )
    margin = 24 * u
    title = words["title"].format(name=name)
    draw.text(
        (margin, 16 * u),
        _fit(title, title_font, width - 2 * margin),
        font=title_font,
        fill=colors.text,
    )
    subtitle = words["subtitle"].format(variant=variant, n=len(history))
    draw.text(
        (margin, 52 * u),
        _fit(subtitle, sub_font, width - 2 * margin),
        font=sub_font,
        fill=colors.text_dim,
    )

    left, right, top, bottom = 78 * u, width - 28 * u, 116 * u, height - 44 * u
    stamps = [s for s, _ in history] or [0.0]
    ratings = [r for _, r in history] or [1500.0]
    y_ticks = rating_ticks(min(ratings), max(ratings))
    low, high = y_ticks[0].value, y_ticks[-1].value
    last = max(1, len(ratings) - 1)

    def x_of(index: float) -> float:
        # Games evenly spaced: a busy evening and a quiet month read alike.
        return left + (right - left) * index / last

    def y_of(rating: float) -> float:
        return bottom - (bottom - top) * (rating - low) / (high - low)

    for tick in y_ticks:
        y = y_of(tick.value)
        draw.line((left, y, right, y), fill=colors.frame, width=max(1, round(u)))
        draw.text((left - 10 * u, y), tick.label, font=axis_font, fill=colors.text_dim, anchor="rm")
    draw.text(
        (margin, top - 22 * u),
        words["rating"],
        font=axis_font,
        fill=colors.text_dim,
        anchor="lm",
    )
    draw.line((left, bottom, right, bottom), fill=colors.text_dim, width=max(1, round(2 * u)))
    for tick in date_ticks(stamps, months):
        x = x_of(tick.value)
        draw.line((x, bottom, x, bottom + 6 * u), fill=colors.text_dim, width=max(1, round(2 * u)))
        draw.text(
            (x, bottom + 10 * u), tick.label, font=axis_font, fill=colors.text_dim, anchor="ma"
        )

    points = [(x_of(i), y_of(r)) for i, r in enumerate(ratings)]
    if len(points) > 1:
        draw.line(points, fill=colors.accent, width=max(2, round(4 * u)), joint="curve")
    dot = 6 * u
    for x, y in points[-1:]:
        draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=colors.accent)
        draw.text(
            (x - 10 * u, y - 10 * u),
            str(round(ratings[-1])),
            font=font(round(17 * u), bold=True),
            fill=colors.text,
            anchor="rb",
        )
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=False, compress_level=6)
    return buffer.getvalue()


__all__ = ["CHART_LABELS", "Tick", "date_ticks", "rating_chart", "rating_ticks"]
