"""The board picture: :func:`render_png` turns a :class:`~renderers.view.BoardView` into PNG.

Speed comes from drawing little per picture. The static board (frame, field, points, point
numbers) is drawn once per theme, width, kind of game and home side, supersampled for smooth
edges, and cached; so are the sprites (a checker of each colour, with each stack count, dice,
cube, markers), drawn supersampled once and then only pasted. A picture is a copy of the cached
board, a few dozen pastes and a handful of text lines (their FreeType masks kept, see
:class:`TextMasks`), then a fast PNG encode (see :func:`encode_png`). The painter first
lists them as ops (:func:`drawing`, :class:`Op`), each with the pixels it may change and a
key for what it draws, so that a JPEG can be put together from tiles kept from earlier
pictures (:mod:`renderers.jpeg_tiles`).
"""

from __future__ import annotations

import io
import math
import random
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from functools import lru_cache, partial, wraps
from pathlib import Path
from typing import Any, NamedTuple

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

from core.position import BAR, OFF

from .geometry import MAX_BAR, MAX_STACK, Geometry, Rect, geometry
from .themes import RGB, theme_by_name
from .view import HOME_RIGHT, BoardView, other

FONT_DIR = Path(__file__).with_name("fonts")
FONT_REGULAR = FONT_DIR / "DejaVuSans.ttf"
FONT_BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"

#: Supersampling factor of everything drawn once and cached.
SS = 4

# -- encoding ---------------------------------------------------------------------------


def encode_png(image: Image.Image, theme: str | None = None) -> bytes:
    """PNG bytes of ``image``, reduced to a palette of at most 256 colours.

    A board picture has few colours besides its anti-aliased edges, so a palette looks the
    same (a mean difference of about 1/255) and makes the file about three times smaller
    and far faster to compress. With ``theme``, the colours are those of the theme's fixed
    palette (:func:`palette`): mapping onto a known palette takes about a millisecond, a
    fifth of building a palette for every picture.
    """
    out = io.BytesIO()
    quantize(image, theme).save(out, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


#: zlib level for the PNG: 2 takes 2.2 ms for about 62 KB, 6 takes 5.2 ms for 52 KB; at
#: a hundred boards a second the time matters more than 10 KB (bench/render.py, bench/load.py).
PNG_COMPRESS_LEVEL = 2


def quantize(image: Image.Image, theme: str | None = None) -> Image.Image:
    """``image`` with at most 256 colours, without dithering (clean flat areas)."""
    if image.mode == "P":
        return image
    if theme is not None:
        return image.quantize(palette=palette(theme, image.width), dither=Image.Dither.NONE)
    return image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


@lru_cache(maxsize=16)
def palette(theme_name: str, width: int = 1000) -> Image.Image:
    """A 255-colour palette for a theme, built once from pictures showing every element."""
    from .samples import palette_views

    frames = [render_image(view, width) for view in palette_views(theme_name)]
    sheet = Image.new("RGB", (width, sum(f.height for f in frames)))
    y = 0
    for frame in frames:
        sheet.paste(frame, (0, y))
        y += frame.height
    # 255 colours: the last index stays free for the transparency of animation frames.
    return sheet.quantize(255, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


# -- fonts ------------------------------------------------------------------------------


_fonts = threading.local()


def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans at ``size`` pixels (basic layout: the same everywhere).

    Loaded once per thread: a FreeType face must not draw in two threads at once, and
    pictures may be drawn in worker threads.
    """
    cache: dict[tuple[int, bool], ImageFont.FreeTypeFont] = _fonts.__dict__.setdefault("c", {})
    key = (max(size, 6), bold)
    loaded = cache.get(key)
    if loaded is None:
        path = str(FONT_BOLD if bold else FONT_REGULAR)
        loaded = ImageFont.truetype(path, key[0], layout_engine=ImageFont.Layout.BASIC)
        cache[key] = loaded
    return loaded


class TextMasks:
    """FreeType's masks of the texts drawn, kept by text, font, anchor and sub-pixel start.

    Every picture writes the same few texts again (the names, "pips", "to move", pip counts
    seen before): rendering them with FreeType is about a quarter of drawing a board, and a
    kept mask is only blended in. :meth:`draw` does what ``ImageDraw.text`` does for one
    line (the same mask, offset and ink, through the same blend), so a picture is the same
    to the last pixel either way. Least recently used dropped first, within ``max_bytes``
    (a mask is one byte a pixel: a name at 25 px is about 6 KB). Thread-safe: pictures may
    be drawn in worker threads (each with its own fonts, see :func:`font`).
    """

    def __init__(self, max_bytes: int = 4 << 20) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[tuple[object, ...], tuple[Any, tuple[int, int], int]] = (
            OrderedDict()
        )
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        """Forget every mask."""
        with self._lock:
            self._items.clear()
            self.size = 0

    def mask(
        self, fnt: ImageFont.FreeTypeFont, text: str, anchor: str, start: tuple[float, float]
    ) -> tuple[Any, tuple[int, int]]:
        """The mask of ``text`` (an ``Image.core`` image, "L") and its offset, as FreeType
        renders it with its origin ``start`` pixels into the first pixel."""
        key = (fnt, text, anchor, start)
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return found[0], found[1]
            self.misses += 1
        # Rendered outside the lock: the font belongs to this thread.
        mask, offset = fnt.getmask2(text, "L", anchor=anchor, start=start)
        width, height = mask.size
        cost = width * height + 200  # the pixels, and the entry itself
        with self._lock:
            if key not in self._items and cost <= self.max_bytes:
                self._items[key] = (mask, offset, cost)
                self.size += cost
                while self.size > self.max_bytes:
                    _, (_, _, dropped) = self._items.popitem(last=False)
                    self.size -= dropped
        return mask, offset

    def draw(
        self,
        draw: ImageDraw.ImageDraw,
        xy: tuple[float, float],
        text: str,
        fnt: ImageFont.FreeTypeFont,
        fill: RGB,
        anchor: str,
    ) -> None:
        """``draw.text(xy, text, font=fnt, fill=fill, anchor=anchor)`` for one line of text,
        with the mask kept."""
        at, mask = self.place(fnt, text, anchor, xy)
        draw.draw.draw_bitmap(at, mask, draw.draw.draw_ink(fill))

    def place(
        self, fnt: ImageFont.FreeTypeFont, text: str, anchor: str, xy: tuple[float, float]
    ) -> tuple[tuple[int, int], Any]:
        """Where the mask of ``text`` written at ``xy`` goes (its top left), and the mask."""
        x, y = xy
        # As ImageDraw.text: whole pixels by truncation, the fraction given to FreeType.
        mask, (dx, dy) = self.mask(fnt, text, anchor, (math.modf(x)[0], math.modf(y)[0]))
        return (int(x) + dx, int(y) + dy), mask


#: The masks of the texts on the boards drawn by this process.
TEXT_MASKS = TextMasks()


def _clean(text: str) -> str:
    """Drop characters the font cannot draw well (emoji, variation selectors, controls)."""
    return "".join(
        c for c in text if ord(c) <= 0xFFFF and c.isprintable() and not 0xFE00 <= ord(c) <= 0xFE0F
    ).strip()


@lru_cache(maxsize=4096)
def text_length(fnt: ImageFont.FreeTypeFont, text: str) -> float:
    """``fnt.getlength(text)``, kept: a board measures the same few texts every time."""
    return fnt.getlength(text)


def _fit(text: str, fnt: ImageFont.FreeTypeFont, width: float) -> str:
    """``text`` cut with an ellipsis so that it fits in ``width`` pixels."""
    if text_length(fnt, text) <= width:
        return text
    while text and text_length(fnt, text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


# -- sprites ----------------------------------------------------------------------------


def _sprite(maxsize: int) -> Callable[[Callable[..., Image.Image]], Callable[..., Image.Image]]:
    """``lru_cache`` for a sprite maker that also names each sprite by what made it.

    The name (``image.info["sprite"]``: the maker and its arguments) is what a picture's
    drawing list records for a paste (:class:`Op`), so two pastes of equal sprites at the
    same place have equal keys however often the sprite was dropped and made again.
    """

    def wrap(make: Callable[..., Image.Image]) -> Callable[..., Image.Image]:
        @lru_cache(maxsize=maxsize)
        @wraps(make)
        def cached(*args: Any, **kwargs: Any) -> Image.Image:
            image = make(*args, **kwargs)
            image.info["sprite"] = (make.__name__, args, tuple(sorted(kwargs.items())))
            return image

        return cached

    return wrap


def _blend(a: RGB, b: RGB, t: float) -> RGB:
    """The colour ``t`` of the way from ``a`` to ``b``."""
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def _downsample(big: Image.Image, size: tuple[int, int]) -> Image.Image:
    return big.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0)


def _sprite_box(diameter: float) -> tuple[int, float]:
    """A sprite's side in pixels and the offset of the circle within it (room for shadow)."""
    pad = max(2.0, diameter * 0.08)
    side = math.ceil(diameter + 2 * pad)
    return side, (side - diameter) / 2


def _canvas(w: int, h: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A transparent supersampled canvas for a sprite ``w`` x ``h`` pixels."""
    big = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    return big, ImageDraw.Draw(big)


def _drop_shadow(big: Image.Image, box: tuple[float, ...], radius: float | None) -> None:
    """A soft shadow under ``box`` (an ellipse when ``radius`` is None)."""
    mask = Image.new("L", big.size, 0)
    draw = ImageDraw.Draw(mask)
    if radius is None:
        draw.ellipse(box, fill=90)
    else:
        draw.rounded_rectangle(box, radius=radius, fill=110)
    blur = 0.045 * (box[2] - box[0])
    big.paste((0, 0, 0, 255), (0, 0), mask.filter(ImageFilter.GaussianBlur(blur)))


def _faded(sprite: Image.Image, percent: int) -> Image.Image:
    """``sprite`` with its opacity cut to ``percent`` %."""
    faded = sprite.copy()
    faded.putalpha(sprite.getchannel("A").point(lambda v: v * percent // 100))
    return faded


@_sprite(512)
def checker_sprite(theme_name: str, color: str, diameter: float, count: int = 0) -> Image.Image:
    """One checker, RGBA, centred in a square sprite; ``count`` > 0 is written on it."""
    theme = theme_by_name(theme_name)
    style = theme.checker(color)
    side, off = _sprite_box(diameter)
    big, draw = _canvas(side, side)
    d = diameter * SS
    x0 = off * SS
    _drop_shadow(big, (x0, x0 + 0.05 * d, x0 + d, x0 + 1.03 * d), None)
    ew = d * theme.checker_edge_width / 100
    body = (x0 + ew, x0 + ew, x0 + d - ew, x0 + d - ew)
    draw.ellipse((x0, x0, x0 + d, x0 + d), fill=(*style.edge, 255))
    draw.ellipse(body, fill=(*style.fill, 255))
    # A bevel: a ring a little inside the edge, and a soft light on the upper part.
    ring = 0.16 * d
    draw.ellipse(
        (x0 + ring, x0 + ring, x0 + d - ring, x0 + d - ring),
        outline=(*style.rim, 255),
        width=max(1, round(0.035 * d)),
    )
    if style.shine != style.fill:
        glow = Image.new("L", big.size, 0)
        g = 0.24 * d
        ImageDraw.Draw(glow).ellipse((x0 + g, x0 + 0.18 * d, x0 + d - 1.4 * g, x0 + 0.52 * d), 80)
        glow = glow.filter(ImageFilter.GaussianBlur(0.08 * d))
        inside = Image.new("L", big.size, 0)
        ImageDraw.Draw(inside).ellipse(body, fill=255)
        big.paste((*style.shine, 255), (0, 0), ImageChops.multiply(glow, inside))
    if count:
        centre = (x0 + d / 2, x0 + 0.52 * d)
        fnt = font(round(0.46 * d), bold=True)
        draw.text(centre, str(count), font=fnt, fill=(*style.text, 255), anchor="mm")
    return _downsample(big, (side, side))


@_sprite(64)
def ring_sprite(
    rgb: RGB, diameter: float, width: float, dashed: bool = False, outline: RGB | None = None
) -> Image.Image:
    """A ring (or a dashed ring) of outer ``diameter``, RGBA, in a sprite like a checker's.

    ``outline`` draws a thin border on both sides of the ring, to keep it visible on any
    background.
    """
    side, off = _sprite_box(diameter)
    big, draw = _canvas(side, side)
    d = diameter * SS
    x0 = off * SS
    w = max(1, round(width * SS))
    layers = [(rgb, w, 0.0)]
    if outline is not None:
        b = max(1, round(0.32 * w))
        layers.insert(0, (outline, w + 2 * b, -b))
    for color, lw, grow in layers:
        box = (x0 + grow, x0 + grow, x0 + d - grow, x0 + d - grow)
        if dashed:
            for start in range(0, 360, 30):
                draw.arc(box, start, start + 18, fill=(*color, 255), width=lw)
        else:
            draw.ellipse(box, outline=(*color, 255), width=lw)
    return _downsample(big, (side, side))


@_sprite(32)
def ghost_sprite(theme_name: str, color: str, diameter: float) -> Image.Image:
    """Where a checker stood before the last play: a faint checker with a dashed ring."""
    theme = theme_by_name(theme_name)
    ghost = _faded(checker_sprite(theme_name, color, diameter), 40)
    ring = ring_sprite(
        theme.ghost, diameter * 0.98, max(2.0, diameter * 0.05), True, theme.marker_outline
    )
    ghost.alpha_composite(ring)
    return ghost


@_sprite(32)
def dot_sprite(rgb: RGB, diameter: float, edge: RGB | None = None) -> Image.Image:
    """A filled disc (with an optional edge), RGBA."""
    side = math.ceil(diameter) + 2
    big, draw = _canvas(side, side)
    o = (side - diameter) / 2 * SS
    d = diameter * SS
    draw.ellipse(
        (o, o, o + d, o + d),
        fill=(*rgb, 255),
        outline=(*edge, 255) if edge else None,
        width=max(1, round(d * 0.09)),
    )
    return _downsample(big, (side, side))


@_sprite(16)
def hit_sprite(theme_name: str, diameter: float) -> Image.Image:
    """The badge on a checker that hit: a small disc with a cross."""
    theme = theme_by_name(theme_name)
    side = math.ceil(diameter) + 2
    big, draw = _canvas(side, side)
    o = (side - diameter) / 2 * SS
    d = diameter * SS
    white = (255, 255, 255, 255)
    draw.ellipse(
        (o, o, o + d, o + d), fill=(*theme.hit, 255), outline=white, width=max(1, round(d * 0.08))
    )
    a, b = o + 0.3 * d, o + 0.7 * d
    w = max(1, round(d * 0.12))
    draw.line((a, a, b, b), fill=white, width=w)
    draw.line((a, b, b, a), fill=white, width=w)
    return _downsample(big, (side, side))


_PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
    6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)],
}


def _rounded_square(
    size: float, face: RGB, edge: RGB, edge_width: float, radius: float
) -> tuple[Image.Image, ImageDraw.ImageDraw, float, float]:
    """A canvas with a shadowed rounded square (a die, the cube): canvas, draw, offset, side."""
    side = math.ceil(size) + 4
    big, draw = _canvas(side, side)
    o = (side - size) / 2 * SS
    d = size * SS
    _drop_shadow(big, (o, o + 0.05 * d, o + d, o + 1.05 * d), radius * d)
    draw.rounded_rectangle(
        (o, o, o + d, o + d),
        radius=radius * d,
        fill=(*face, 255),
        outline=(*edge, 255),
        width=max(1, round(d * edge_width)),
    )
    return big, draw, o, d


@_sprite(128)
def die_sprite(theme_name: str, color: str, value: int, size: float, used: bool) -> Image.Image:
    """A die of ``color``'s player showing ``value``; a used die is faded."""
    theme = theme_by_name(theme_name)
    style = theme.checker(color)
    edge_width = theme.checker_edge_width / 100
    big, draw, o, d = _rounded_square(size, style.fill, style.edge, edge_width, 0.2)
    r = 0.095 * d
    for fx, fy in _PIPS[value]:
        cx, cy = o + fx * d, o + fy * d
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(*style.pip, 255))
    sprite = _downsample(big, (big.width // SS, big.height // SS))
    return _faded(sprite, 38) if used else sprite


@_sprite(32)
def cube_sprite(theme_name: str, value: int, size: float) -> Image.Image:
    """The doubling cube showing ``value`` (64 when it is still at 1 in the middle)."""
    theme = theme_by_name(theme_name)
    big, draw, o, d = _rounded_square(size, theme.cube_face, theme.cube_text, 0.03, 0.16)
    text = str(value)
    fnt = font(round(d * {1: 0.52, 2: 0.44}.get(len(text), 0.32)), bold=True)
    draw.text((o + d / 2, o + d / 2), text, font=fnt, fill=(*theme.cube_text, 255), anchor="mm")
    return _downsample(big, (big.width // SS, big.height // SS))


@_sprite(32)
def slab_sprite(theme_name: str, color: str, w: int, h: int) -> Image.Image:
    """A borne-off checker seen edge on."""
    style = theme_by_name(theme_name).checker(color)
    big, draw = _canvas(w, h)
    # A dark checker's edge would vanish in the dark tray: give it a lit one.
    dark = sum(style.fill) < 3 * 96
    edge = _blend(style.fill, (255, 255, 255), 0.45) if dark else style.edge
    draw.rounded_rectangle(
        (0, 0, w * SS - 1, h * SS - 1),
        radius=h * SS * 0.35,
        fill=(*style.fill, 255),
        outline=(*edge, 255),
        width=max(1, round(h * SS * 0.12)),
    )
    return _downsample(big, (w, h))


@_sprite(32)
def pill_sprite(theme_name: str, color: str, text: str, height: int) -> Image.Image:
    """A label on a rounded pill of ``color``'s checker colours (e.g. an Uzun Tavla head)."""
    style = theme_by_name(theme_name).checker(color)
    fnt = font(round(height * 0.62 * SS), bold=True)
    w = math.ceil(fnt.getlength(text) / SS + height * 0.9)
    big, draw = _canvas(w, height)
    draw.rounded_rectangle(
        (0, 0, w * SS - 1, height * SS - 1),
        radius=height * SS / 2,
        fill=(*style.fill, 255),
        outline=(*style.edge, 255),
        width=max(1, round(height * SS * 0.08)),
    )
    centre = (w * SS / 2, height * SS / 2)
    draw.text(centre, text, font=fnt, fill=(*style.text, 255), anchor="mm")
    return _downsample(big, (w, height))


# -- the static board -------------------------------------------------------------------


def _wood_grain(draw: ImageDraw.ImageDraw, rect: Rect, base: RGB, dark: RGB, seed: int) -> None:
    """Long, gently waving grain lines along a piece of wood (drawn supersampled)."""
    rng = random.Random(seed)
    x0, y0, _, _ = rect
    horizontal = rect.width >= rect.height
    length = rect.width if horizontal else rect.height
    across = rect.height if horizontal else rect.width
    light = _blend(base, (255, 236, 200), 0.18)
    lines = max(3, int(across / (3.5 * SS)))
    for _ in range(lines):
        pos = rng.uniform(0, across)
        amp = rng.uniform(0.5, 3.0) * SS
        freq = rng.uniform(0.8, 2.5) * 2 * math.pi / length
        phase = rng.uniform(0, 2 * math.pi)
        pts = []
        for k in range(81):
            t = k * length / 80
            off = pos + amp * math.sin(freq * t + phase)
            off = min(max(off, 0), across)
            pts.append((x0 + t, y0 + off) if horizontal else (x0 + off, y0 + t))
        shade = _blend(base, dark, rng.uniform(0.3, 0.9)) if rng.random() < 0.75 else light
        draw.line(pts, fill=shade, width=max(1, round(rng.uniform(0.5, 1.4) * SS)))


# Three themes, with and without a caption, each way round for each kind of game: 24.
@lru_cache(maxsize=24)
def background(
    theme_name: str, width: int, uzun: bool, caption: bool, home: str = HOME_RIGHT
) -> Image.Image:
    """The static board for a theme, width, game kind and home side: drawn once, then only
    copied."""
    theme = theme_by_name(theme_name)
    geo = geometry(width, caption, home)
    s = SS
    size = (width * s, geo.height * s)
    big = Image.new("RGB", size, theme.background)
    draw = ImageDraw.Draw(big)
    u = geo.unit * s

    board = geo.board.scaled(s)
    outer = Rect(board.x0 + 6 * u, board.y0 + 2 * u, board.x1 - 6 * u, board.y1 - 2 * u)
    draw.rounded_rectangle(outer, radius=18 * u, fill=theme.frame_dark)
    draw.rounded_rectangle(outer.inset(2 * u), radius=16 * u, fill=theme.frame)
    if theme.wood:
        band = outer.inset(3 * u)
        # The frame's narrow left and right pieces, outside the rail and the trays.
        inner_x0 = min(geo.rail.x0, geo.tray_column.x0) * s
        inner_x1 = max(geo.rail.x1, geo.tray_column.x1) * s
        for i, part in enumerate(
            (
                Rect(band.x0, band.y0, band.x1, geo.field.y0 * s),
                Rect(band.x0, geo.field.y1 * s, band.x1, band.y1),
                Rect(band.x0, geo.field.y0 * s, inner_x0, geo.field.y1 * s),
                Rect(inner_x1, geo.field.y0 * s, band.x1, geo.field.y1 * s),
            )
        ):
            _wood_grain(draw, part, theme.frame, theme.frame_dark, seed=17 + i)
    # The rail and the trays are sunk into the frame.
    for rect in (geo.rail, geo.trays["top"], geo.trays["bottom"]):
        r = rect.scaled(s)
        draw.rounded_rectangle(r, radius=8 * u, fill=theme.tray_edge)
        draw.rounded_rectangle(r.inset(2 * u), radius=7 * u, fill=theme.tray)
    # The two halves of the field and the bar between them.
    for half in (geo.left_field, geo.right_field):
        r = half.scaled(s)
        draw.rectangle(
            (r.x0 - 2 * u, r.y0 - 2 * u, r.x1 + 2 * u, r.y1 + 2 * u), fill=theme.frame_dark
        )
        draw.rectangle(r, fill=theme.field)
    bar = geo.bar.scaled(s)
    draw.rectangle(
        (bar.x0 + 2 * u, bar.y0 - 2 * u, bar.x1 - 2 * u, bar.y1 + 2 * u), fill=theme.frame_dark
    )
    draw.rectangle(bar.inset(4 * u), fill=theme.bar)
    for point in range(1, 25):
        tri = [(x * s, y * s) for x, y in geo.triangle(point)]
        fill = theme.point_a if point % 2 else theme.point_b
        draw.polygon(tri, fill=fill, outline=theme.point_edge, width=max(1, round(1.5 * u)))
    image = _downsample(big, (width, geo.height))

    # The point numbers, drawn at the final size so they stay crisp.
    draw = ImageDraw.Draw(image)
    fnt = font(round(17 * geo.unit), bold=True)
    for point in range(1, 25):
        if uzun and point in (12, 24):
            continue  # the heads get a coloured pill instead, drawn with the checkers
        x, y = geo.label_centre(point)
        draw.text((x, y), str(point), font=fnt, fill=theme.numbers, anchor="mm")
    return image


# -- one picture ------------------------------------------------------------------------


def render_png(view: BoardView, width: int = 1000) -> bytes:
    """The board picture of ``view``, ``width`` pixels wide, as PNG bytes."""
    return encode_png(render_image(view, width), view.theme)


def prepare(themes: list[str] | None = None, width: int = 1000) -> None:
    """Build the caches (boards, sprites, palettes) ahead of the first picture.

    The first picture of a theme and width takes about half a second; a service may call
    this at start-up, off its event loop, so that no player waits for it.
    """
    from .themes import THEMES

    for name in themes or list(THEMES):
        palette(name, width)


def render_image(view: BoardView, width: int = 1000) -> Image.Image:
    """The board picture of ``view`` as an RGB Pillow image."""
    return drawing(view, width).render()


def drawing(view: BoardView, width: int = 1000) -> Drawing:
    """What the picture of ``view`` is made of: its static board and the list of things
    drawn over it (:class:`Drawing`), not yet drawn."""
    painter = _Painter(view, width)
    painter.paint()
    return Drawing(painter.background_key, painter.ops)


def layout(view: BoardView, width: int = 1000) -> list[Placed]:
    """What the picture of ``view`` draws where (for tests, and to map clicks to points)."""
    painter = _Painter(view, width)
    painter.paint()
    return painter.placed


class Placed(NamedTuple):
    """One thing drawn on a picture.

    ``kind`` is ``checker``, ``bar``, ``tray``, ``head``, ``cube``, ``die``, ``ghost``,
    ``moved``, ``hit``, ``hit_bar``, ``selected`` or ``target``; ``where`` the viewer's
    point it belongs to (0 = a tray, 25 = the bar) or ``None``; ``box`` its outline.
    """

    kind: str
    color: str | None
    where: int | None
    box: Rect


class Op(NamedTuple):
    """One thing drawn over the static board: a sprite pasted, a text, a rounded frame.

    ``box`` (x0, y0, x1, y1, the end excluded) holds every pixel ``run`` may change, and
    ``key`` tells everything those pixels depend on: two ops with equal keys change the same
    pixels the same way. That lets a part of a picture be known from the ops that touch it,
    without drawing it (:mod:`renderers.jpeg_tiles`).
    """

    box: tuple[int, int, int, int]
    key: Hashable
    run: Callable[[Image.Image, ImageDraw.ImageDraw], None]


class Drawing(NamedTuple):
    """A board picture as its static board (the arguments of :func:`background`) and the
    ops drawn over it, in order."""

    background_key: tuple[str, int, bool, bool, str]
    ops: list[Op]

    @property
    def background(self) -> Image.Image:
        """The static board this picture is drawn over (shared: copy before drawing)."""
        return background(*self.background_key)

    def render(self) -> Image.Image:
        """The whole picture."""
        image = self.background.copy()
        self.draw(image, self.ops)
        return image

    @staticmethod
    def draw(image: Image.Image, ops: list[Op]) -> None:
        """Draw ``ops`` over ``image`` in order."""
        draw = ImageDraw.Draw(image)
        for op in ops:
            op.run(image, draw)


def _paste(sprite: Image.Image, corner: tuple[int, int], image: Image.Image, _: Any) -> None:
    image.paste(sprite, corner, sprite)


def _bitmap(at: tuple[int, int], mask: Any, fill: RGB, _: Image.Image, draw: Any) -> None:
    # As ImageDraw.text does it with the mask FreeType gives (see TextMasks.draw).
    draw.draw.draw_bitmap(at, mask, draw.draw.draw_ink(fill))


def _rounded(box: tuple[float, ...], style: dict[str, Any], _: Image.Image, draw: Any) -> None:
    draw.rounded_rectangle(box, **style)


def _corner(sprite: Image.Image, centre: tuple[float, float]) -> tuple[int, int]:
    """Where to paste ``sprite`` so that it is centred on ``centre``."""
    w, h = sprite.size
    return round(centre[0] - w / 2), round(centre[1] - h / 2)


def _paste_op(sprite: Image.Image, corner: tuple[int, int]) -> Op:
    """Pasting ``sprite`` (made by a sprite maker) with its top left at ``corner``."""
    x, y = corner
    w, h = sprite.size
    key = ("paste", sprite.info["sprite"], corner)
    return Op((x, y, x + w, y + h), key, partial(_paste, sprite, corner))


def _placed(
    kind: str, centre: tuple[float, float], size: float, color: str | None, where: int | None
) -> Placed:
    cx, cy = centre
    r = size / 2
    return Placed(kind, color, where, Rect(cx - r, cy - r, cx + r, cy + r))


@lru_cache(maxsize=4096)
def _stack(
    theme_name: str, width: int, caption: bool, home: str, point: int, color: str, count: int
) -> tuple[tuple[Op, ...], tuple[Placed, ...]]:
    """The ops and places of ``count`` checkers of ``color`` on the viewer's ``point``:
    the same for every picture that has that stack (most of a board's pastes)."""
    geo = geometry(width, caption, home)
    d = geo.checker
    ops, placed = [], []
    for i in range(min(count, MAX_STACK)):
        label = count if (i == MAX_STACK - 1 and count > MAX_STACK) else 0
        sprite = checker_sprite(theme_name, color, d, label)
        centre = geo.checker_centre(point, i)
        ops.append(_paste_op(sprite, _corner(sprite, centre)))
        placed.append(_placed("checker", centre, d, color, point))
    return tuple(ops), tuple(placed)


class _Painter:
    """Lists what one picture draws over its static board (:class:`Drawing`)."""

    def __init__(self, view: BoardView, width: int) -> None:
        self.view = view
        self.theme = theme_by_name(view.theme)
        self.geo: Geometry = geometry(width, bool(view.caption), view.home)
        self.uzun = not view.variant.hitting
        self.background_key = (self.theme.name, width, self.uzun, bool(view.caption), view.home)
        self.ops: list[Op] = []
        self.u = self.geo.unit
        self.board = view.points()
        self.placed: list[Placed] = []

    def paste(self, sprite: Image.Image, corner: tuple[int, int]) -> None:
        """Paste ``sprite`` (made by a sprite maker) with its top left at ``corner``."""
        self.ops.append(_paste_op(sprite, corner))

    def rounded_rectangle(self, box: tuple[float, ...], **style: Any) -> None:
        """``ImageDraw.rounded_rectangle(box, **style)`` (box corners inclusive)."""
        box = tuple(box)
        x0, y0, x1, y1 = box
        # Pillow fills the box's last row and column too; two pixels more for rounding.
        near = (math.floor(x0) - 2, math.floor(y0) - 2, math.ceil(x1) + 3, math.ceil(y1) + 3)
        key = ("rounded", box, tuple(sorted(style.items())))
        self.ops.append(Op(near, key, partial(_rounded, box, style)))

    def put(
        self,
        kind: str,
        sprite: Image.Image,
        centre: tuple[float, float],
        size: float,
        color: str | None = None,
        where: int | None = None,
    ) -> None:
        """Paste ``sprite`` centred on ``centre``; record it as ``size`` pixels across."""
        self.paste(sprite, _corner(sprite, centre))
        self.placed.append(_placed(kind, centre, size, color, where))

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        *,
        font: ImageFont.FreeTypeFont,
        fill: RGB,
        anchor: str,
    ) -> None:
        """One line of text, its mask kept for the next picture (:data:`TEXT_MASKS`).

        Drawn as :meth:`TextMasks.draw` draws it: the same mask, place and ink."""
        at, mask = TEXT_MASKS.place(font, text, anchor, xy)
        w, h = mask.size
        key = ("text", font.path, font.size, text, anchor, xy, fill)
        self.ops.append(Op((*at, at[0] + w, at[1] + h), key, partial(_bitmap, at, mask, fill)))

    def outline(self, kind: str, rect: Rect, radius: float, rgb: RGB, where: int) -> None:
        """Draw a rounded frame round ``rect`` (a tray, a borne-off checker) and record it."""
        self.rounded_rectangle(
            rect.box(), radius=radius, outline=rgb, width=max(2, round(3 * self.u))
        )
        self.placed.append(Placed(kind, None, where, rect))

    def paint(self) -> None:
        self.heads()
        self.checkers()
        self.bar_and_trays()
        self.last_play()
        self.highlights()
        self.cube()
        self.dice()
        self.strip(self.view.opponent, self.geo.header, top=True)
        self.strip(self.view.viewer, self.geo.footer, top=False)
        self.caption()

    # -- checkers --------------------------------------------------------------------

    def checkers(self) -> None:
        theme, width, _, caption, home = self.background_key
        for point in range(1, 25):
            color, count = self.board[point]
            if count:
                ops, placed = _stack(theme, width, caption, home, point, color, count)
                self.ops += ops
                self.placed += placed

    def bar_and_trays(self) -> None:
        geo, view, d = self.geo, self.view, self.geo.checker
        for color in (view.viewer, view.opponent):
            side = view.side(color)
            upper = color == view.viewer
            n = side[BAR]
            for i in range(min(n, MAX_BAR)):
                label = n if (i == MAX_BAR - 1 and n > MAX_BAR) else 0
                sprite = checker_sprite(self.theme.name, color, d, label)
                self.put("bar", sprite, geo.bar_checker_centre(upper, i), d, color, BAR)
            top = color == view.opponent
            off = side[OFF]
            for i in range(off):
                slot = geo.tray_slot(top, i)
                sprite = slab_sprite(self.theme.name, color, round(slot.width), round(slot.height))
                self.paste(sprite, (round(slot.x0), round(slot.y0)))
                self.placed.append(Placed("tray", color, OFF, slot))
            if off:
                x, y = geo.tray_label_centre(top)
                self.text(
                    (x, y),
                    str(off),
                    font=font(round(20 * self.u), True),
                    fill=self.theme.numbers,
                    anchor="mm",
                )

    def heads(self) -> None:
        """Uzun Tavla: each side's head (its point 24) gets its number on a pill."""
        if not self.uzun:
            return
        h = round(24 * self.u)
        for color in (self.view.viewer, self.view.opponent):
            point = self.view.to_viewer(color, 24)
            sprite = pill_sprite(self.theme.name, color, str(point), h)
            self.put("head", sprite, self.geo.label_centre(point), h, color, point)

    # -- the cube and the dice ---------------------------------------------------------

    def cube(self) -> None:
        view = self.view
        if view.cube_value is None:
            return
        owner = None
        if view.cube_owner is not None:
            owner = "bottom" if view.cube_owner == view.viewer else "top"
        value = view.cube_value if (view.cube_value > 1 or owner) else 64
        sprite = cube_sprite(self.theme.name, value, self.geo.cube_size)
        self.put("cube", sprite, self.geo.cube_centre(owner), self.geo.cube_size, view.cube_owner)

    def dice(self) -> None:
        view = self.view
        dice = view.all_dice
        if not dice:
            return
        roller = view.roller
        # The viewer's dice on their home half, the opponent's on the other.
        home = roller == view.viewer
        for i, (x, y) in enumerate(self.geo.dice_centres(len(dice), home)):
            sprite = die_sprite(
                self.theme.name, roller, dice[i], self.geo.die_size, view.die_used(i)
            )
            self.put("die", sprite, (x, y), self.geo.die_size, roller)

    # -- markers ------------------------------------------------------------------------

    def _stack_top(self, point: int, extra: int = 0) -> tuple[float, float]:
        """Centre of the checker place ``extra`` above the current top of ``point``."""
        _, count = self.board[point]
        return self.geo.checker_centre(point, max(0, count - 1 + extra))

    def last_play(self) -> None:
        view = self.view
        color = view.last_play_color
        if not view.last_play or color is None:
            return
        geo, d = self.geo, self.geo.checker
        # Join one checker's steps into a journey (13/8/5), as the notation does.
        journeys: list[list[int]] = []
        hits: list[int] = []
        for step in view.last_play:
            src = view.to_viewer(color, step.source)
            dst = view.to_viewer(color, step.dest)
            if step.hit:
                hits.append(dst)
            for j in journeys:
                if j[-1] == src and src != OFF:
                    j.append(dst)
                    break
            else:
                journeys.append([src, dst])
        gone: Counter[int] = Counter()
        came: Counter[int] = Counter()
        outline = self.theme.marker_outline
        ring = ring_sprite(self.theme.last_move, d * 1.04, max(2.5, d * 0.075), False, outline)
        ghost = ghost_sprite(self.theme.name, color, d)
        dashed = ring_sprite(
            self.theme.ghost, d * 0.98, max(2.0, d * 0.05), True, self.theme.marker_outline
        )
        upper = color == view.viewer
        side = view.side(color)
        for journey in journeys:
            src, dst = journey[0], journey[-1]
            if src == dst:
                continue
            # Where it came from: the next free place on its old point (or the bar).
            if src == BAR:
                index = side[BAR] + gone[src]
                centre = geo.bar_checker_centre(upper, min(index, MAX_BAR - 1))
                full = index >= MAX_BAR
            else:
                occupant, count = self.board[src]
                index = (count if occupant == color else 0) + gone[src]
                centre = geo.checker_centre(src, index)
                full = index >= MAX_STACK
            gone[src] += 1
            # On a stack drawn full, only the dashed ring, round its top checker.
            self.put("ghost", dashed if full else ghost, centre, d, color, src)
            # Where it went: a ring round it (or round its place in the tray).
            if dst == OFF:
                top = color == view.opponent
                index = side[OFF] - 1 - came[dst]
                if index >= 0:
                    slot = geo.tray_slot(top, index).inset(-2 * self.u)
                    self.outline("moved", slot, slot.height / 2, self.theme.last_move, OFF)
            else:
                occupant, count = self.board[dst]
                index = count - 1 - came[dst]
                if occupant == color and index >= 0:
                    self.put("moved", ring, geo.checker_centre(dst, index), d, color, dst)
            came[dst] += 1
        # Hits: a badge where the blow fell, and rings round the checkers sent to the bar.
        if hits:
            badge = hit_sprite(self.theme.name, d * 0.42)
            for point in hits:
                x, y = self._stack_top(point)
                # Above the checker, toward the home side (mirrored with the board).
                centre = (x + geo.flip * d * 0.36, y - d * 0.36)
                self.put("hit", badge, centre, d * 0.42, color, point)
            victim = other(color)
            n = view.side(victim)[BAR]
            hit_ring = ring_sprite(self.theme.hit, d * 1.04, max(2.5, d * 0.075), False, outline)
            for i in range(min(len(hits), n, MAX_BAR)):
                index = min(n, MAX_BAR) - 1 - i
                centre = geo.bar_checker_centre(victim == view.viewer, index)
                self.put("hit_bar", hit_ring, centre, d, victim, BAR)

    def highlights(self) -> None:
        view = self.view
        geo, d = self.geo, self.geo.checker
        mover = view.to_move or view.viewer
        if view.selected is not None:
            ring = ring_sprite(
                self.theme.highlight, d * 1.06, max(3.0, d * 0.09), False, self.theme.marker_outline
            )
            if view.selected == BAR:
                n = view.side(mover)[BAR]
                centre = geo.bar_checker_centre(mover == view.viewer, max(0, min(n, MAX_BAR) - 1))
                self.put("selected", ring, centre, d, mover, BAR)
            elif 1 <= view.selected <= 24:
                centre = self._stack_top(view.selected)
                self.put("selected", ring, centre, d, mover, view.selected)
        if not view.highlights:
            return
        dot = dot_sprite(self.theme.highlight, d * 0.46, edge=(255, 255, 255))
        target = ring_sprite(
            self.theme.highlight, d * 0.9, max(2.0, d * 0.06), False, self.theme.marker_outline
        )
        for point in view.highlights:
            if point == OFF:
                tray = geo.trays["bottom" if mover == view.viewer else "top"].inset(2 * self.u)
                self.outline("target", tray, 8 * self.u, self.theme.highlight, OFF)
                continue
            if not 1 <= point <= 24:
                continue
            occupant, count = self.board[point]
            index = count if occupant == mover else 0
            centre = geo.checker_centre(point, min(index, MAX_STACK - 1))
            self.put("target", target, centre, d * 0.9, mover, point)
            self.paste(dot, _corner(dot, centre))

    # -- the name strips -----------------------------------------------------------------

    def strip(self, color: str, rect: Rect, top: bool) -> None:
        view, theme, u, draw = self.view, self.theme, self.u, self
        y_mid = (rect.y0 + rect.y1) / 2
        x = 24 * u
        moving = view.to_move == color
        won = view.winner == color
        if moving or won:
            # A bright tab on the left edge: whose turn it is, readable at a glance.
            draw.rounded_rectangle(
                (round(6 * u), round(y_mid - 20 * u), round(12 * u), round(y_mid + 20 * u)),
                radius=3 * u,
                fill=theme.accent,
            )
        chip = checker_sprite(theme.name, color, 40 * u)
        self.paste(chip, _corner(chip, (x + 20 * u, y_mid)))
        x += 52 * u
        name_font = font(round(25 * u), bold=True)
        small = font(round(17 * u))
        small_bold = font(round(17 * u), bold=True)
        x0 = x

        # Right side: pips, and the score when there is one.
        right = rect.x1 - 22 * u
        pips = str(view.pips()[color])
        pip_font = font(round(25 * u), bold=True)
        self.text((right, y_mid - 9 * u), pips, font=pip_font, fill=theme.text, anchor="rm")
        self.text(
            (right, y_mid + 16 * u),
            view.label("pips"),
            font=small,
            fill=theme.text_dim,
            anchor="rm",
        )
        right -= max(text_length(pip_font, "888"), text_length(small, view.label("pips"))) + 22 * u
        if view.shows_score:
            score = str(view.score.get(color, 0))
            sw = max(44 * u, text_length(pip_font, score) + 22 * u)
            box = (round(right - sw), round(y_mid - 22 * u), round(right), round(y_mid + 22 * u))
            draw.rounded_rectangle(
                box,
                radius=8 * u,
                fill=theme.frame,
                outline=theme.frame_dark,
                width=max(1, round(2 * u)),
            )
            self.text((right - sw / 2, y_mid), score, font=pip_font, fill=theme.text, anchor="mm")
            right -= sw + 18 * u

        # Middle: the match (top strip only).
        if top and (view.match_length > 1 or view.crawford):
            self._match_info(rect, right)

        # Left: the name, and under it whose turn it is and the last play.
        name_w = (rect.x1 - rect.x0) * 0.42
        name = _fit(_clean(view.name(color)), name_font, name_w)
        played = view.last_play_text() if view.last_play_color == color else ""
        two_lines = moving or won or bool(played)
        name_y = y_mid - 9 * u if two_lines else y_mid
        self.text((x, name_y), name, font=name_font, fill=theme.text, anchor="lm")
        if moving:
            arrow = "▶ " + view.label("to_move")
            self.text((x, y_mid + 16 * u), arrow, font=small_bold, fill=theme.accent, anchor="lm")
            x += text_length(small_bold, arrow) + 14 * u
        elif won:
            star = "★ " + view.label("winner")
            self.text((x, y_mid + 16 * u), star, font=small_bold, fill=theme.accent, anchor="lm")
            x += text_length(small_bold, star) + 14 * u
        if played:
            text = _fit(played, small_bold, name_w - (x - x0))
            self.text((x, y_mid + 16 * u), text, font=small_bold, fill=theme.text, anchor="lm")

    def _match_info(self, rect: Rect, right_limit: float) -> None:
        view, theme, u, draw = self.view, self.theme, self.u, self
        y_mid = (rect.y0 + rect.y1) / 2
        cx = rect.x1 * 0.6
        text = view.label("match_to", n=view.match_length) if view.match_length > 1 else ""
        f = font(round(18 * u), bold=True)
        badge = view.label("crawford").upper() if view.crawford else ""
        bf = font(round(14 * u), bold=True)
        tw = text_length(f, text)
        bw = text_length(bf, badge) + 18 * u if badge else 0
        total = tw + (bw + 10 * u if badge else 0)
        x = min(cx - total / 2, right_limit - total)
        if text:
            self.text((x, y_mid), text, font=f, fill=theme.text_dim, anchor="lm")
            x += tw + 10 * u
        if badge:
            box = (round(x), round(y_mid - 12 * u), round(x + bw), round(y_mid + 12 * u))
            draw.rounded_rectangle(box, radius=12 * u, fill=theme.accent)
            self.text((x + bw / 2, y_mid), badge, font=bf, fill=theme.accent_text, anchor="mm")

    def caption(self) -> None:
        band = self.geo.caption_band
        if band is None or not self.view.caption:
            return
        f = font(round(19 * self.u))
        text = _fit(_clean(self.view.caption), f, band.width - 40 * self.u)
        cx, cy = band.centre
        self.text((cx, cy - 4 * self.u), text, font=f, fill=self.theme.text_dim, anchor="mm")


__all__ = [
    "Drawing",
    "Op",
    "Placed",
    "background",
    "drawing",
    "encode_png",
    "font",
    "layout",
    "prepare",
    "quantize",
    "render_image",
    "render_png",
]
