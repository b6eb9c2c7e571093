"""The caches of the board drawing: what they give is what drawing anew gives.

A kept text mask (:class:`renderers.board.TextMasks`) is blended in exactly as
``ImageDraw.text`` would draw the text, so a board drawn through it is the same picture to
the last pixel (and the same JPEG bytes); the cache keeps to its byte budget.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

import renderers.board as board_module
from bot.i18n import LANGUAGES, catalog
from renderers.board import TEXT_MASKS, TextMasks, font, render_image
from renderers.picture import JPEG, PNG, render_picture
from renderers.themes import THEMES
from renderers.view import BLACK, WHITE, BoardView
from tests.strategies import any_positions, dice

#: Letters a board may carry: Turkish and Russian names and words, digits, the arrow.
LETTERS = (
    "abcçdefgğhıijklmnoöprsştuüvyzABCÇĞİÖŞÜ0123456789 ▶…/*()-абвгдеёжзийклмнопрстуфхцчшщъыьэюяДЖ"
)


def plain_text(self, xy, text, *, font, fill, anchor):
    """The painter's text drawn by ImageDraw itself, without the cache (an op that may
    reach anywhere on the picture, under a key of its own)."""

    def run(image, draw):
        draw.text(xy, text, font=font, fill=fill, anchor=anchor)

    key = ("plain text", font.path, font.size, text, anchor, xy, fill)
    self.ops.append(board_module.Op((0, 0, 10**4, 10**4), key, run))


@pytest.fixture
def fresh_masks() -> Iterator[None]:
    TEXT_MASKS.clear()
    yield
    TEXT_MASKS.clear()


def backdrop() -> Image.Image:
    """A picture that is not flat, so that a blend that differs anywhere shows."""
    image = Image.linear_gradient("L").resize((300, 120)).convert("RGB")
    ImageDraw.Draw(image).ellipse((40, 10, 200, 110), fill=(180, 40, 60))
    return image


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(alphabet=LETTERS, max_size=18),
    size=st.integers(8, 40),
    bold=st.booleans(),
    anchor=st.sampled_from(["mm", "lm", "rm", "la", "ls"]),
    x=st.floats(0, 299, allow_nan=False),
    y=st.floats(0, 119, allow_nan=False),
    fill=st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)),
)
def test_a_kept_mask_draws_what_imagedraw_draws(text, size, bold, anchor, x, y, fill) -> None:
    masks = TextMasks()
    fnt = font(size, bold)
    expected = backdrop()
    ImageDraw.Draw(expected).text((x, y), text, font=fnt, fill=fill, anchor=anchor)
    for _ in range(2):  # rendered and kept, then taken from the cache
        image = backdrop()
        masks.draw(ImageDraw.Draw(image), (x, y), text, fnt, fill, anchor)
        assert image.tobytes() == expected.tobytes()
    assert (masks.misses, masks.hits) == (1, 1)


def labels(lang: str) -> dict[str, str]:
    words = catalog(lang)
    keys = {
        "pips": "pips",
        "to_move": "to move",
        "match_to": "Match to {n}",
        "crawford": "Crawford",
    }
    return {key: words.gettext(text) for key, text in keys.items()}


@st.composite
def board_views(draw: st.DrawFn) -> BoardView:
    """Boards as players see them: any reachable position, roll, cube, theme and language."""
    variant, position, _ = draw(any_positions())
    mover = draw(st.sampled_from([WHITE, BLACK]))
    fields: dict[str, object] = {
        "dice": draw(st.one_of(st.just(()), dice())),
        "theme": draw(st.sampled_from(sorted(THEMES))),
        "home": draw(st.sampled_from(["right", "left"])),
        "labels": labels(draw(st.sampled_from(LANGUAGES))),
        "names": {WHITE: draw(st.text(LETTERS, max_size=12)), BLACK: "Дмитрий"},
        "score": {WHITE: draw(st.integers(0, 9)), BLACK: 2},
        "match_length": draw(st.sampled_from([0, 5, 7])),
        "crawford": draw(st.booleans()),
        "caption": draw(st.one_of(st.none(), st.text(LETTERS, min_size=1, max_size=30))),
    }
    if variant.cube:
        fields["cube_value"] = draw(st.sampled_from([1, 2, 4, 64]))
        owner = draw(st.sampled_from([None, WHITE, BLACK]))
        fields["cube_owner"] = None if fields["cube_value"] == 1 else owner
    return BoardView.from_position(variant, position, mover, **fields)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(view=board_views())
def test_a_board_drawn_through_the_text_cache_is_the_board_drawn_anew(
    view: BoardView, monkeypatch: pytest.MonkeyPatch, fresh_masks: None
) -> None:
    cold = render_image(view).tobytes()
    warm = render_image(view).tobytes()  # every text now from the cache
    jpeg = render_picture(view, JPEG)
    with monkeypatch.context() as patch:
        patch.setattr(board_module._Painter, "text", plain_text)
        assert render_image(view).tobytes() == cold == warm
        assert render_picture(view, JPEG) == jpeg
        assert render_picture(view, PNG) == render_picture(view, PNG)


def test_the_text_cache_keeps_to_its_byte_budget_dropping_the_least_recently_used() -> None:
    masks = TextMasks(max_bytes=20_000)
    fnt = font(25, True)
    image = backdrop()
    draw = ImageDraw.Draw(image)
    masks.draw(draw, (10, 50), "first", fnt, (0, 0, 0), "lm")
    for n in range(200):
        masks.draw(draw, (10, 50), f"name {n}", fnt, (0, 0, 0), "lm")
        masks.draw(draw, (10, 50), "first", fnt, (0, 0, 0), "lm")  # kept fresh: stays
        assert masks.size <= masks.max_bytes
    assert 1 < len(masks) < 200
    assert masks.hits == 200  # "first", every time
    masks.draw(draw, (10, 50), "name 0", fnt, (0, 0, 0), "lm")  # long dropped
    assert masks.misses == 202
    # A mask larger than the whole budget is drawn but not kept.
    tiny = TextMasks(max_bytes=100)
    tiny.draw(draw, (10, 50), "too large to keep", fnt, (0, 0, 0), "lm")
    assert (len(tiny), tiny.size) == (0, 0)


def test_the_masks_of_a_game_fit_in_a_small_part_of_the_budget(fresh_masks: None) -> None:
    """Measured: the texts of a whole review set of boards (names, pips, labels, plays) take
    a few hundred kilobytes at most, so the default 4 MB keeps thousands of games' words."""
    from renderers.samples import gallery_views

    for theme in sorted(THEMES):
        for view in gallery_views(theme).values():
            render_image(view)
    assert 0 < TEXT_MASKS.size < 512 << 10
