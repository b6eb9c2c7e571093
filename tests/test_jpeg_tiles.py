"""JPEG boards put together from kept tiles: the same picture as encoding it whole.

A board encoded through :class:`renderers.jpeg_tiles.JpegTiles` must be, byte for byte,
what Pillow writes for the whole picture with the same restart interval, and must decode to
exactly the pixels of the picture encoded whole without restart markers (what Telegram got
before): whatever pictures came before it, whatever the cache dropped.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from core.variants import variant_by_name
from renderers.board import drawing, render_image
from renderers.jpeg_tiles import JpegTiles, encode, restart_blocks, split
from renderers.picture import JPEG, JPEG_QUALITY, encode_jpeg, render_picture
from renderers.samples import gallery_views, random_game
from tests.test_render_caches import board_views


def pixels(data: bytes) -> bytes:
    return Image.open(io.BytesIO(data)).convert("RGB").tobytes()


def assert_same_picture(tiles: JpegTiles, view, width: int = 1000) -> None:
    """The tiled JPEG is Pillow's whole-picture JPEG with restart markers, and decodes to
    the pixels of the plain JPEG."""
    got = tiles.encode(drawing(view, width))
    image = render_image(view, width)
    blocks = restart_blocks(width)
    assert blocks is not None
    assert got == encode(image, JPEG_QUALITY, blocks)
    assert pixels(got) == pixels(encode_jpeg(image))


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    views=st.lists(board_views(), min_size=1, max_size=4),
    budget=st.sampled_from([24 << 20, 40_000]),
    canvases=st.sampled_from([1, 4]),
)
def test_a_tiled_board_is_the_board_encoded_whole(views, budget, canvases) -> None:
    """Any boards in a row (positions, rolls, cube, theme, language, caption, home side),
    through one cache: a large one, and one so small that it drops tiles all the time; with
    one canvas (dropped whenever the static board changes) or several."""
    tiles = JpegTiles(JPEG_QUALITY, max_bytes=budget, row_bytes=budget // 4, canvases=canvases)
    for view in [*views, *views]:  # the second time round, from kept tiles where they fit
        assert_same_picture(tiles, view)
        assert tiles.size <= budget + budget // 4


def test_a_game_reuses_most_tiles_and_every_picture_stays_exact() -> None:
    tiles = JpegTiles(JPEG_QUALITY)
    views = random_game(variant_by_name("tavla"), seed=3, max_plays=30)
    for view in views:
        assert_same_picture(tiles, view)
    # Measured: a play changes a few dozen of the 477 tiles of a board.
    assert tiles.hits > 5 * tiles.misses


def test_tile_numbers_are_never_given_twice() -> None:
    """With a table of a few numbers, it is emptied all the time: tiles kept under old
    numbers must never be taken for new ones."""
    tiles = JpegTiles(JPEG_QUALITY, max_numbers=7)
    views = list(gallery_views().values())
    for view in [*views, *reversed(views)]:
        assert_same_picture(tiles, view)


def test_other_widths_tile_where_a_row_of_units_divides_and_are_whole_where_not() -> None:
    view = next(iter(gallery_views().values()))
    assert restart_blocks(1000) == 7  # 63 units: 9 tiles of 112 pixels a row
    assert restart_blocks(800) == 5
    assert_same_picture(JpegTiles(JPEG_QUALITY), view, 800)
    assert restart_blocks(976) is None  # 61 units, a prime
    assert render_picture(view, JPEG, 976) == encode_jpeg(render_image(view, 976))


def test_split_finds_every_restart_interval() -> None:
    image = render_image(next(iter(gallery_views().values())))
    head, parts = split(encode(image, JPEG_QUALITY, 7))
    assert head.startswith(b"\xff\xd8")
    assert b"\xff\xdd" in head  # a restart interval is set
    assert len(parts) == 9 * -(-image.height // 16)
    with pytest.raises(ValueError, match="not a whole JPEG"):
        split(encode(image, JPEG_QUALITY)[:-2])
