"""Board pictures as PNG or JPEG, and the cache of drawn pictures keyed by what they show."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PIL import Image, ImageChops, ImageStat

from core.variants import variant_by_name
from renderers.board import render_image, render_png
from renderers.picture import (
    JPEG,
    PNG,
    PictureCache,
    image_extension,
    picture_key,
    render_picture,
)
from renderers.view import BLACK, WHITE, BoardView

TAVLA = variant_by_name("tavla")


def opening(**fields: object) -> BoardView:
    """The tavla opening, 3-1 to play, as a fresh object each time (no shared identity)."""
    base: dict[str, object] = {
        "dice": (3, 1),
        "names": {WHITE: "Ali", BLACK: "Veli"},
        "score": {WHITE: 0, BLACK: 0},
        "match_length": 3,
    }
    return BoardView.from_position(TAVLA, TAVLA.start_position(), WHITE, **{**base, **fields})


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def test_jpeg_board_looks_like_the_png_board() -> None:
    view = opening(highlights=(5, 4), selected=8)
    png, jpeg = render_picture(view, PNG), render_picture(view, JPEG)
    assert png == render_png(view)  # render_png is unchanged
    assert jpeg[:3] == b"\xff\xd8\xff"
    assert Image.open(io.BytesIO(jpeg)).format == "JPEG"
    assert (image_extension(png), image_extension(jpeg)) == (".png", ".jpg")
    exact = render_image(view)
    assert decoded(jpeg).size == exact.size
    # Close to the exact drawing everywhere: a mean error of a few levels per channel.
    error = ImageStat.Stat(ImageChops.difference(decoded(jpeg), exact)).mean
    assert max(error) < 3, error


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="PNG or JPEG"):
        render_picture(opening(), "gif")


def test_same_view_same_key() -> None:
    assert picture_key(opening()) == picture_key(opening())
    assert hash(picture_key(opening(labels={"pips": "pul"}))) == hash(
        picture_key(opening(labels={"pips": "pul"}))
    )


@pytest.mark.parametrize(
    "change",
    [
        {"white": "one checker moved"},
        {"dice": (6, 5)},
        {"dice_used": (True, False)},
        {"cube_value": 2},
        {"cube_owner": BLACK},
        {"labels": {"pips": "pul"}},
        {"names": {WHITE: "Ali", BLACK: "Ayşe"}},
        {"score": {WHITE: 1, BLACK: 0}},
        {"theme": "dark"},
        {"home": "left"},
        {"highlights": (5,)},
        {"selected": 8},
        {"viewer": BLACK},
        {"to_move": BLACK},
        {"caption": "Kahve"},
    ],
    ids=lambda change: next(iter(change)),
)
def test_anything_shown_changes_the_key(change: dict[str, object]) -> None:
    base = opening()
    if "white" in change:  # one of white's checkers from the 24-point to the 23-point
        side = list(base.white)
        side[24] -= 1
        side[23] += 1
        change = {"white": tuple(side)}
    assert picture_key(replace(base, **change)) != picture_key(base)


def test_format_and_width_are_part_of_the_key() -> None:
    view = opening()
    keys = {picture_key(view, PNG), picture_key(view, JPEG), picture_key(view, PNG, 800)}
    assert len(keys) == 3


def test_cache_hits_the_same_view_and_misses_a_changed_one() -> None:
    cache = PictureCache()
    cache.put(picture_key(opening()), b"drawn")
    assert cache.get(picture_key(opening())) == b"drawn"
    assert cache.get(picture_key(opening(dice=(6, 6)))) is None
    assert cache.get(picture_key(opening(), JPEG)) is None
    assert (cache.hits, cache.misses) == (1, 2)


def test_cache_keeps_its_byte_budget_dropping_the_least_recently_used() -> None:
    cache = PictureCache(max_bytes=30)
    cache.put("a", b"x" * 10)
    cache.put("b", b"y" * 10)
    cache.put("c", b"z" * 10)
    assert cache.get("a") == b"x" * 10  # now "b" is the least recently used
    cache.put("d", b"w" * 10)
    assert cache.get("b") is None
    assert [cache.get(k) is not None for k in "acd"] == [True, True, True]
    assert cache.size == 30
    assert len(cache) == 3
    cache.put("a", b"v" * 25)  # replacing an entry counts only its new size
    assert cache.size <= 30
    assert cache.get("a") == b"v" * 25
    cache.put("huge", b"h" * 31)  # larger than the whole budget: not kept, nothing dropped
    assert cache.get("huge") is None
    assert cache.get("a") is not None


def test_a_board_without_names_calls_the_sides_by_their_colour_in_its_language() -> None:
    """A puzzle's board has no players' names: its sides are White and Black in the reader's
    words (a Turkish or Russian reader saw English "White" and "Black" on the picture)."""
    from bot.service.presenter import picture_labels

    for lang, white, black in (("tr", "Beyaz", "Siyah"), ("ru", "Белые", "Чёрные")):
        view = BoardView.from_position(
            TAVLA, TAVLA.start_position(), WHITE, labels=picture_labels(lang)
        )
        assert (view.name(WHITE), view.name(BLACK)) == (white, black)
    view = BoardView.from_position(TAVLA, TAVLA.start_position(), WHITE)
    assert (view.name(WHITE), view.name(BLACK)) == ("White", "Black")
