"""An animated replay of a game, one frame per board, for sharing.

GIF is the default. Every frame is mapped onto the theme's fixed palette (the one the PNG
pictures use, which keeps one index free), so Pillow's encoder can store only the pixels
that changed since the previous frame and mark the rest transparent. Measured on the 77
plays of a random Tavla game at 640 px: GIF 820 KB written in 0.12 s (after rendering),
lossless animated WebP 1.7 MB in 7.6 s, lossy WebP (quality 80) 0.9 MB in 1.8 s but with
blurred numbers. So GIF is both the smaller and by far the faster; WebP stays available.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image

from .board import quantize, render_image
from .view import BoardView

FORMATS = ("gif", "webp")


def render_replay(
    frames: Sequence[BoardView],
    width: int = 640,
    frame_ms: int = 900,
    last_frame_ms: int = 3000,
    format: str = "gif",
    loop: int = 0,
) -> bytes:
    """An animation of ``frames`` (one board each), ``width`` pixels wide.

    Every frame shows for ``frame_ms`` milliseconds and the last one for ``last_frame_ms``;
    ``loop`` 0 repeats forever. ``format`` is ``"gif"`` or ``"webp"`` (lossless).
    """
    if not frames:
        raise ValueError("a replay needs at least one frame")
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {format!r}")
    images = [render_image(view, width) for view in frames]
    # The caption band changes a frame's height: give all frames the tallest one.
    height = max(im.height for im in images)
    for i, im in enumerate(images):
        if im.height != height:
            canvas = Image.new("RGB", (width, height), im.getpixel((0, 0)))
            canvas.paste(im, (0, 0))
            images[i] = canvas
    durations = [frame_ms] * (len(images) - 1) + [last_frame_ms]
    out = io.BytesIO()
    if format == "gif":
        paletted = [quantize(im, view.theme) for im, view in zip(images, frames, strict=True)]
        paletted[0].save(
            out,
            format="GIF",
            save_all=True,
            append_images=paletted[1:],
            duration=durations,
            loop=loop,
            optimize=True,  # unchanged pixels become transparent
            disposal=1,
        )
    else:
        images[0].save(
            out,
            format="WEBP",
            save_all=True,
            append_images=images[1:],
            duration=durations,
            loop=loop,
            lossless=True,
            quality=30,
            method=2,
        )
    return out.getvalue()


__all__ = ["FORMATS", "render_replay"]
