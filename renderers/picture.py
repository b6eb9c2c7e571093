"""Board pictures in the format a platform wants, and a cache of those already drawn.

:func:`render_picture` draws a :class:`~renderers.view.BoardView` and encodes it as PNG or
JPEG. PNG is exact and is what files kept as they are get (the console, ``python -m
renderers --out``, Discord, which shows attachments unchanged). JPEG is for Telegram, which
re-encodes every photo as JPEG anyway: sending one costs the player nothing, and encoding a
1000-pixel board takes about 2.6 ms of CPU where the palette PNG takes about 5 ms.

:class:`PictureCache` keeps encoded pictures by what they show (:func:`picture_key`), least
recently used first out, within a byte budget: a board shown again (a press on an old
board, ``/board``, an undo back to a drawn position) is not drawn twice.
"""

from __future__ import annotations

import io
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import fields

from PIL import Image

from core.variants import Variant

from .board import drawing, encode_png, render_image
from .jpeg_tiles import JpegTiles, restart_blocks
from .view import BoardView

PNG = "png"
JPEG = "jpeg"
FORMATS = (PNG, JPEG)

#: JPEG quality 90 with 4:2:0 chroma subsampling (Pillow's default): side by side with the
#: PNG at 1:1 the boards look the same; at 4x, only the edges of the yellow "to move" text
#: are a touch softer, as after Telegram's own re-encode. 4:4:4 would keep those edges but
#: costs 4.6 ms instead of 2.6 ms a board, for a detail Telegram's re-encode drops again.
JPEG_QUALITY = 90


def encode_jpeg(image: Image.Image) -> bytes:
    """JPEG bytes of an RGB ``image`` (:data:`JPEG_QUALITY`, baseline, no metadata)."""
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=JPEG_QUALITY)
    return out.getvalue()


#: The coded JPEG tiles of the boards drawn by this process (see :mod:`renderers.jpeg_tiles`).
JPEG_TILES = JpegTiles(JPEG_QUALITY)


def render_picture(view: BoardView, fmt: str = PNG, width: int = 1000) -> bytes:
    """The board picture of ``view``, ``width`` pixels wide, as ``fmt`` (``png``/``jpeg``).

    A JPEG is put together from tiles kept from earlier pictures where they show the same
    (:data:`JPEG_TILES`): it decodes to the same pixels as :func:`encode_jpeg` of the whole
    picture, with restart markers between the tiles."""
    if fmt not in FORMATS:
        raise ValueError(f"a board picture is PNG or JPEG, not {fmt!r}")
    if fmt == JPEG:
        if restart_blocks(width) is not None:
            return JPEG_TILES.encode(drawing(view, width))
        return encode_jpeg(render_image(view, width))
    return encode_png(render_image(view, width), view.theme)


def warm_up(theme: str = "classic") -> None:
    """Draws each game's starting board once in both formats, so that the fonts, the
    theme's pieces and the tiles are ready before a first player's board is asked for
    (the first picture of a new process takes about 0.7 s, later ones a few ms)."""
    from core.variants import VARIANTS

    for cls in VARIANTS.values():
        variant = cls()
        view = BoardView.from_position(variant, variant.start_position(), theme=theme)
        for fmt in FORMATS:
            render_picture(view, fmt)


def image_extension(data: bytes) -> str:
    """The file name extension of encoded picture bytes: ``.jpg`` or ``.png``."""
    return ".jpg" if data[:3] == b"\xff\xd8\xff" else ".png"


def picture_key(view: BoardView, fmt: str = PNG, width: int = 1000) -> Hashable:
    """Everything the picture of ``view`` depends on, as a hashable value.

    Built from every field of the view (so a field added later is part of the key without
    a change here): mappings (names, score, labels) as sorted item tuples, the variant by
    its name (hashing the whole rule table each time would cost more than it saves).
    """
    parts: list[Hashable] = [fmt, width]
    for item in fields(view):
        value = getattr(view, item.name)
        if isinstance(value, Mapping):
            value = tuple(sorted(value.items()))
        elif isinstance(value, Variant):
            value = value.name
        parts.append(value)
    return tuple(parts)


class PictureCache:
    """Encoded pictures by key, least recently used dropped first, at most ``max_bytes``.

    Not thread-safe: the service uses it from its event loop only (the drawing itself runs
    elsewhere and its result is put here afterwards).
    """

    def __init__(self, max_bytes: int = 32 << 20) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[Hashable, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> bytes | None:
        """The picture stored under ``key`` (now the most recently used), or None."""
        data = self._items.get(key)
        if data is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return data

    def put(self, key: Hashable, data: bytes) -> None:
        """Store ``data`` under ``key``, dropping the least recently used to fit."""
        if len(data) > self.max_bytes:
            return  # would evict everything and still not fit
        old = self._items.pop(key, None)
        if old is not None:
            self.size -= len(old)
        self._items[key] = data
        self.size += len(data)
        while self.size > self.max_bytes:
            _, dropped = self._items.popitem(last=False)
            self.size -= len(dropped)


__all__ = [
    "FORMATS",
    "JPEG",
    "JPEG_QUALITY",
    "JPEG_TILES",
    "PNG",
    "PictureCache",
    "encode_jpeg",
    "image_extension",
    "picture_key",
    "render_picture",
]
