"""JPEG board pictures encoded a tile at a time, each tile kept by what it shows.

A press changes a few places of a board (the checkers that moved, the dice, the pip counts);
the rest of the picture is what some earlier picture showed there. JPEG lets a picture be
cut into parts coded independently: with a *restart interval* of ``k`` blocks, the coder
starts afresh (DC prediction from zero, a whole byte) every ``k`` minimal coded units, and
writes a restart marker between the parts. So with 4:2:0 subsampling (16×16-pixel units),
the standard Huffman tables and a restart interval that divides a row of units, a picture
is a grid of tiles (16·``k`` × 16 pixels) whose coded bytes depend on that tile's pixels
alone, and equal to the bytes the same tile has when coded as a picture of its own.

:class:`JpegTiles` keeps each tile's coded bytes under a key made of the static board, the
tile's place and the keys of the drawing ops that touch it (:class:`renderers.board.Op`):
a tile whose key was seen before is not drawn or encoded again. The tiles not kept are
drawn (only the ops that touch them, on a canvas kept per static board), encoded together
in one call (stacked, one restart interval a tile) and split at their markers.

The result is, byte for byte, what Pillow writes for the whole picture with the same
restart interval (``tests/test_jpeg_tiles.py``), and decodes to exactly the pixels of the
same picture coded without restart markers: the markers cost about 2% in size (134 KB for
132 KB) and nothing a player can see.
"""

from __future__ import annotations

import io
import itertools
import re
import threading
from collections import OrderedDict
from collections.abc import Hashable
from functools import lru_cache

from PIL import Image

from .board import Drawing, Op

#: Pixels of a minimal coded unit with 4:2:0 chroma subsampling (Pillow's default).
MCU = 16

_RESTART = re.compile(rb"\xff[\xd0-\xd7]")
_MARKERS = [bytes((0xFF, 0xD0 + n)) for n in range(8)]
_END = b"\xff\xd9"


def restart_blocks(width: int) -> int | None:
    """Units per tile for a picture ``width`` pixels wide: a divisor of a row of units
    near 7 (a tile 112 pixels wide: small enough to change rarely, large enough that the
    markers cost little), or None when the row has no such divisor."""
    units = -(-width // MCU)
    for blocks in (7, 8, 6, 9, 5, 10, 4):
        if units % blocks == 0:
            return blocks
    return None


def encode(image: Image.Image, quality: int, blocks: int = 0) -> bytes:
    """Pillow's JPEG of ``image`` (baseline, 4:2:0, standard tables), with a restart marker
    every ``blocks`` units (none for 0)."""
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=quality, restart_marker_blocks=blocks)
    return out.getvalue()


def split(data: bytes) -> tuple[bytes, list[bytes]]:
    """A JPEG's headers up to its scan's data, and the scan's coded parts between restart
    markers. Inside coded data a 0xFF byte is always followed by 0x00, so a byte pair
    0xFF 0xD0–0xD7 is a marker."""
    start = data.index(b"\xff\xda")
    start += 2 + int.from_bytes(data[start + 2 : start + 4], "big")
    if not data.endswith(_END):
        raise ValueError("not a whole JPEG")
    return data[:start], _RESTART.split(data[start : -len(_END)])


@lru_cache(maxsize=16)
def _headers(width: int, height: int, quality: int, blocks: int) -> bytes:
    """Everything before the coded data: the same for every picture of this size."""
    head = split(encode(Image.new("RGB", (width, height)), quality, blocks))[0]
    if b"\xff\xdd" not in head:  # Pillow 10.2 was the first to write restart intervals
        raise RuntimeError("this Pillow writes no JPEG restart interval")
    return head


class _Grid:
    """The tiles of a ``width`` × ``height`` picture, row by row."""

    def __init__(self, width: int, height: int, blocks: int) -> None:
        self.width, self.height, self.blocks = width, height, blocks
        self.tile = MCU * blocks
        self.cols = -(-width // self.tile)
        self.rows = -(-height // MCU)
        self.full_rows = height // MCU  # the last row may be lower than a unit
        self.last_width = width - (self.cols - 1) * self.tile

    def box(self, index: int) -> tuple[int, int, int, int]:
        row, col = divmod(index, self.cols)
        x, y = col * self.tile, row * MCU
        return x, y, min(x + self.tile, self.width), min(y + MCU, self.height)

    def spans(self, ops: list[Op]) -> tuple[list[list[int]], list[tuple[int, int]]]:
        """For each row of tiles, the indices of the ops whose box reaches into it, in
        order; and for each op, its first and last column of tiles."""
        rows: list[list[int]] = [[] for _ in range(self.rows)]
        columns: list[tuple[int, int]] = []
        for index, op in enumerate(ops):
            x0, y0, x1, y1 = op.box
            x0, y0 = max(x0, 0), max(y0, 0)
            x1, y1 = min(x1, self.width), min(y1, self.height)
            if x0 >= x1 or y0 >= y1:
                columns.append((1, 0))  # nowhere on the picture
                continue
            columns.append((x0 // self.tile, (x1 - 1) // self.tile))
            for row in range(y0 // MCU, (y1 - 1) // MCU + 1):
                rows[row].append(index)
        return rows, columns


class _Kept:
    """Coded bytes by key (a tuple of small numbers), least recently used dropped first,
    within ``max_bytes`` (the bytes, and an estimate of the entry and its key)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self.items: OrderedDict[tuple[int, ...], tuple[bytes, int]] = OrderedDict()

    def get(self, key: tuple[int, ...]) -> bytes | None:
        found = self.items.get(key)
        if found is None:
            return None
        self.items.move_to_end(key)
        return found[0]

    def put(self, key: tuple[int, ...], data: bytes) -> None:
        cost = len(data) + 150 + 8 * len(key)
        if cost > self.max_bytes:
            return
        old = self.items.pop(key, None)
        if old is not None:
            self.size -= old[1]
        self.items[key] = (data, cost)
        self.size += cost
        while self.size > self.max_bytes:
            _, (_, dropped) = self.items.popitem(last=False)
            self.size -= dropped

    def clear(self) -> None:
        self.items.clear()
        self.size = 0


class JpegTiles:
    """Coded tiles by key within ``max_bytes``, and whole rows of tiles within
    ``row_bytes`` (kept apart: rows that show a game's pip counts seldom come again, and
    must not push out the tiles of its players' names). Thread-safe (one picture at a
    time)."""

    def __init__(
        self,
        quality: int,
        max_bytes: int = 24 << 20,
        row_bytes: int = 4 << 20,
        canvases: int = 4,
        max_numbers: int = 50_000,
    ) -> None:
        self.quality = quality
        self.hits = 0
        self.misses = 0
        self._tiles = _Kept(max_bytes)
        self._rows = _Kept(row_bytes)
        self._numbers: dict[Hashable, int] = {}
        self._max_numbers = max_numbers
        self._counter = itertools.count()
        # Per static board, a canvas on which tiles are drawn; what lies outside the tiles
        # being drawn is left over from earlier pictures and never read.
        self._canvases: OrderedDict[Hashable, Image.Image] = OrderedDict()
        self._max_canvases = canvases
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._tiles.items)

    @property
    def size(self) -> int:
        """The bytes the kept tiles and rows take (as :class:`_Kept` counts them)."""
        return self._tiles.size + self._rows.size

    @property
    def max_bytes(self) -> int:
        """The budget of tiles and rows together."""
        return self._tiles.max_bytes + self._rows.max_bytes

    def clear(self) -> None:
        """Forget every tile and canvas."""
        with self._lock:
            self._tiles.clear()
            self._rows.clear()
            self._canvases.clear()
            self._numbers.clear()

    def encode(self, drawing: Drawing) -> bytes:
        """The JPEG of ``drawing``'s picture (its width must have :func:`restart_blocks`).

        Looked up a row of tiles at a time first (most rows of a board are as some earlier
        picture had them), then, in the rows not kept, tile by tile."""
        width, height = drawing.background.size
        blocks = restart_blocks(width)
        if blocks is None:
            raise ValueError(f"no tiles for a picture {width} pixels wide")
        grid = _Grid(width, height, blocks)
        ops = drawing.ops
        in_rows, columns = grid.spans(ops)
        cols = grid.cols
        with self._lock:
            # Keys are tuples of small numbers standing for the static board and the ops
            # (a tuple's hash is not kept, and the ops' own keys are nested tuples of text);
            # a row's key has the row's number below zero, a tile's its index from zero.
            number = self._number
            board = number(drawing.background_key)
            ids = [number(op.key) for op in ops]
            rows: list[bytes | None] = []
            row_keys: dict[int, tuple[int, ...]] = {}
            for row, found in enumerate(in_rows):
                key = (board, -1 - row, *[ids[i] for i in found])
                line = self._rows.get(key)
                if line is None:
                    row_keys[row] = key
                rows.append(line)
            tiles: dict[int, bytes | None] = {}
            tile_keys: dict[int, tuple[int, ...]] = {}
            touched: dict[int, list[int]] = {}
            get = self._tiles.get
            for row in row_keys:
                in_tiles: list[list[int]] = [[] for _ in range(cols)]
                for i in in_rows[row]:
                    first, last = columns[i]
                    for col in range(first, last + 1):
                        in_tiles[col].append(i)
                base = row * cols
                for col, found in enumerate(in_tiles):
                    index = base + col
                    key = (board, index, *[ids[i] for i in found])
                    tile = tiles[index] = get(key)
                    if tile is None:
                        tile_keys[index] = key
                        touched[index] = found
            self.hits += len(rows) * cols - len(tile_keys)
            self.misses += len(tile_keys)
            if tile_keys:
                for index, part in self._draw(drawing, grid, touched):
                    tiles[index] = part
                    self._tiles.put(tile_keys[index], part)
            markers = _MARKERS
            for row, key in row_keys.items():
                chunks: list[bytes] = []
                for index in range(row * cols, (row + 1) * cols):
                    if chunks:
                        chunks.append(markers[(index - 1) & 7])
                    tile = tiles[index]
                    assert tile is not None
                    chunks.append(tile)
                rows[row] = whole = b"".join(chunks)
                self._rows.put(key, whole)
        out = [_headers(width, height, self.quality, blocks)]
        for row, line in enumerate(rows):
            if row:
                out.append(markers[(row * cols - 1) & 7])
            assert line is not None
            out.append(line)
        out.append(_END)
        return b"".join(out)

    def _number(self, key: Hashable) -> int:
        """The number standing for an op's (or a static board's) key in tile keys.

        Numbers are never given twice: when the table grows past its bound it is emptied,
        and tiles kept under the old numbers are no longer found (they age out)."""
        found = self._numbers.get(key)
        if found is None:
            if len(self._numbers) >= self._max_numbers:
                self._numbers.clear()
            found = self._numbers[key] = next(self._counter)
        return found

    def _canvas(self, drawing: Drawing) -> Image.Image:
        canvas = self._canvases.get(drawing.background_key)
        if canvas is None:
            canvas = self._canvases[drawing.background_key] = drawing.background.copy()
            while len(self._canvases) > self._max_canvases:
                self._canvases.popitem(last=False)
        else:
            self._canvases.move_to_end(drawing.background_key)
        return canvas

    def _draw(
        self, drawing: Drawing, grid: _Grid, touched: dict[int, list[int]]
    ) -> list[tuple[int, bytes]]:
        """Draw and encode the tiles ``touched`` gives the ops of: (index, coded bytes)."""
        missing = sorted(touched)
        canvas = self._canvas(drawing)
        # Pillow's core images directly: its Image wrappers cost more than the copying.
        ours, bare = canvas.im, drawing.background.im
        for index in missing:  # back to the bare board where they are
            box = grid.box(index)
            ours.paste(bare.crop(box), box)
        needed = sorted({i for index in missing for i in touched[index]})
        Drawing.draw(canvas, [drawing.ops[i] for i in needed])
        ours = canvas.im

        # Stacked by width, full-height tiles one above the other; a last, lower row is
        # encoded as a strip of its own (a unit's padding below it must stay the same).
        inner, edge, low = [], [], []
        for index in missing:
            row, col = divmod(index, grid.cols)
            if row == grid.full_rows:
                low.append(index)
            elif col == grid.cols - 1 and grid.last_width != grid.tile:
                edge.append(index)
            else:
                inner.append(index)
        done: list[tuple[int, bytes]] = []
        for group, width in ((inner, grid.tile), (edge, grid.last_width)):
            if not group:
                continue
            stack = Image.new("RGB", (width, MCU * len(group)))
            into = stack.im
            for n, index in enumerate(group):
                into.paste(ours.crop(grid.box(index)), (0, MCU * n, width, MCU * (n + 1)))
            _, coded = split(encode(stack, self.quality, grid.blocks))
            done.extend(zip(group, coded, strict=True))
        if low:
            strip = canvas.crop((0, grid.full_rows * MCU, grid.width, grid.height))
            _, coded = split(encode(strip, self.quality, grid.blocks))
            first = grid.full_rows * grid.cols
            done.extend((index, coded[index - first]) for index in low)
        return done


__all__ = ["MCU", "JpegTiles", "encode", "restart_blocks", "split"]
