"""A small rating-history chart for ``/stats``: a line over the ratings after each contest."""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from .board import font


def rating_chart(ratings: Sequence[float], width: int = 800, height: int = 360) -> bytes:
    """PNG of ``ratings`` (oldest first) as a line with its range labelled."""
    image = Image.new("RGB", (width, height), (250, 247, 240))
    draw = ImageDraw.Draw(image)
    left, right, top, bottom = 70, width - 20, 20, height - 40
    values = list(ratings) or [1500.0]
    low, high = min(values), max(values)
    if high - low < 20:
        low, high = low - 10, high + 10
    label = font(16)
    for i in range(5):
        value = low + (high - low) * i / 4
        y = bottom - (bottom - top) * i / 4
        draw.line((left, y, right, y), fill=(220, 214, 200), width=1)
        draw.text((8, y - 9), f"{value:.0f}", fill=(90, 80, 70), font=label)
    n = len(values)
    points = [
        (
            left + (right - left) * (i / (n - 1) if n > 1 else 0.5),
            bottom - (bottom - top) * (v - low) / (high - low),
        )
        for i, v in enumerate(values)
    ]
    if len(points) > 1:
        draw.line(points, fill=(150, 60, 30), width=4, joint="curve")
    for x, y in points[-1:]:
        draw.ellipse((x - 6, y - 6, x + 6, y + 6), fill=(150, 60, 30))
    draw.text((left, bottom + 10), f"n = {n}", fill=(90, 80, 70), font=label)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=False, compress_level=6)
    return buffer.getvalue()
