"""Every theme draws every board of a whole game; the text board and the replay work too."""

from __future__ import annotations

import io
import re
from dataclasses import replace

import pytest
from PIL import Image

from core.position import Position
from core.variants import variant_by_name
from renderers.board import quantize, render_image, render_png
from renderers.replay import render_replay
from renderers.samples import random_game
from renderers.text import render_text
from renderers.themes import THEMES, theme_by_name
from renderers.view import BLACK, LABELS, WHITE, BoardView

MAX_PNG = 200 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def games() -> dict[str, list[BoardView]]:
    """The boards of one random game per variant (before and after every play)."""
    return {
        name: random_game(variant_by_name(name), seed=seed)
        for name, seed in (("tavla", 11), ("uzun", 12), ("turkish", 13))
    }


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_every_theme_renders_every_board_of_a_game(
    theme: str, games: dict[str, list[BoardView]]
) -> None:
    for name, views in games.items():
        assert views[-1].side(WHITE)[0] == 15 or views[-1].side(BLACK)[0] == 15, name
        # Turkish tavla draws like tavla: check a sample of its boards only.
        for board in views if name != "turkish" else views[::5]:
            view = replace(board, theme=theme)
            data = render_png(view)
            assert data.startswith(PNG_SIGNATURE)
            assert len(data) < MAX_PNG, f"{name}: {len(data) // 1024} KB"
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.size == (1000, render_image(view).height)


def test_themes_are_distinct_and_named() -> None:
    assert set(THEMES) == {"classic", "dark", "contrast"}
    for name in THEMES:
        theme = theme_by_name(name.upper())
        assert theme.white.fill != theme.black.fill
        assert theme.point_a != theme.point_b
    with pytest.raises(ValueError, match="unknown theme"):
        theme_by_name("neon")


def test_high_contrast_checkers_differ_in_lightness() -> None:
    theme = theme_by_name("contrast")

    def luma(rgb: tuple[int, int, int]) -> float:
        r, g, b = rgb
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    assert abs(luma(theme.white.fill) - luma(theme.black.fill)) > 200
    # Blue and orange points: apart in lightness too, so no hue is needed to tell them.
    assert abs(luma(theme.point_a) - luma(theme.point_b)) > 50


def test_text_board_has_point_numbers_and_pips(games: dict[str, list[BoardView]]) -> None:
    for views in games.values():
        for view in views[::4]:
            text = render_text(view)
            numbers = {int(n) for n in re.findall(r"\b\d+\b", "\n".join(text.splitlines()[::14]))}
            assert set(range(1, 25)) <= numbers
            for color, pips in view.pips().items():
                assert f"pips {pips}" in text, (color, text)


def test_text_board_of_the_opening() -> None:
    tavla = variant_by_name("tavla")
    view = BoardView.from_position(tavla, tavla.start_position(), WHITE, dice=(3, 1))
    lines = render_text(view).splitlines()
    assert lines[0].split()[:12] == [str(p) for p in range(13, 25)]
    assert lines[14].split()[:12] == [str(p) for p in range(12, 0, -1)]
    # The bottom row: Black (X) on White's 12 and 1, White (O) on its 8 and 6.
    bottom_row = lines[12]
    assert bottom_row == "| X           O    |   | O              X |"
    assert "pips 167" in lines[1]
    assert "pips 167" in lines[13]
    assert "Dice 3-1" in lines[7]
    assert "Cube 1" in lines[7]


def test_text_board_counts_tall_stacks_and_heads() -> None:
    uzun = variant_by_name("uzun")
    view = BoardView.from_position(uzun, uzun.start_position(), BLACK)
    text = render_text(view)
    assert "15" in text.splitlines()[6]  # the fifth row of the top right stack
    assert "Heads: X 24, O 12" in text


def test_text_board_takes_every_word_from_its_labels(games: dict[str, list[BoardView]]) -> None:
    """A Turkish or Russian player's text board has no English word left in it."""
    english = set(LABELS.values()) - {"Crawford"}
    marked = {key: f"<{key}>" for key in LABELS}
    seen: set[str] = set()
    for views in games.values():
        for view in views:
            for shown in (view, replace(view, highlights=(3,), selected=9)):
                text = render_text(replace(shown, labels=marked, match_length=5, crawford=True))
                seen |= set(re.findall(r"<(\w+)>", text))
                # Notation ("bar/22 6/off") is the same in every language.
                rest = re.sub(r"<\w+>|\S*/\S*", "", text)
                words = set(re.findall(r"[A-Za-z]+(?: [a-z]+)*", rest))
                assert not words & english, words & english
    # Every label the text board uses showed up somewhere in these games.
    assert {"pips", "off", "white", "black", "dice", "cube", "heads", "played"} <= seen


def test_a_single_game_shows_no_match_length_or_score() -> None:
    tavla = variant_by_name("tavla")
    single = BoardView.from_position(tavla, tavla.start_position(), WHITE, match_length=1)
    match = replace(single, match_length=5, score={WHITE: 2, BLACK: 1})
    assert "Match to" not in render_text(single)
    assert "score" not in render_text(single)
    assert "Match to 5" in render_text(match)
    assert "score 2" in render_text(match)
    assert not single.shows_score
    assert match.shows_score
    money = replace(single, match_length=0, score={WHITE: 4, BLACK: 0})
    assert money.shows_score


def test_replay_gif_and_webp(games: dict[str, list[BoardView]]) -> None:
    frames = [v for v in games["tavla"] if v.last_play][:6]
    gif = render_replay(frames, width=400)
    anim = Image.open(io.BytesIO(gif))
    assert anim.format == "GIF"
    assert anim.n_frames == len(frames)
    # The GIF keeps every frame exactly as the palette picture shows it.
    anim.seek(3)
    want = quantize(render_image(frames[3], 400), frames[3].theme).convert("RGB")
    got = anim.convert("RGB")
    assert got.tobytes() == want.tobytes()
    webp = render_replay(frames[:3], width=300, format="webp")
    anim = Image.open(io.BytesIO(webp))
    assert anim.format == "WEBP"
    assert anim.n_frames == 3
    with pytest.raises(ValueError, match="at least one frame"):
        render_replay([])


def test_view_from_position_and_checks() -> None:
    tavla = variant_by_name("tavla")
    position = Position.from_points({6: 15}, {1: 15})
    view = BoardView.from_position(tavla, position, BLACK)
    assert view.black == position.mover
    assert view.white == position.opponent
    assert view.viewer == BLACK
    assert view.to_move == BLACK
    assert view.cube_value == 1
    assert view.pips() == {BLACK: 90, WHITE: 15}
    assert BoardView.from_position(variant_by_name("uzun"), position).cube_value is None
    double = BoardView.from_position(tavla, position, dice=(5, 5), dice_used=(True,))
    assert double.all_dice == (5, 5, 5, 5)
    assert double.die_used(0)
    assert not double.die_used(1)
    with pytest.raises(ValueError, match="15 checkers"):
        BoardView(variant=tavla, white=(0,) * 26, black=position.mover)
    with pytest.raises(ValueError, match="dice"):
        BoardView.from_position(tavla, position, dice=(7, 1))
    with pytest.raises(ValueError, match="viewer"):
        BoardView.from_position(tavla, position, viewer="red")


def test_long_and_exotic_names_fit() -> None:
    tavla = variant_by_name("tavla")
    names = {WHITE: "Çağdaş Gümüşoğlu the Magnificent of İstanbul 🎲", BLACK: "Ёжик в тумане"}
    view = BoardView.from_position(
        tavla, tavla.start_position(), WHITE, names=names, caption="Ğ" * 300
    )
    assert render_png(view).startswith(PNG_SIGNATURE)
