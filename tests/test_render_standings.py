"""Tournament pictures (renderers.standings): a bracket for a knockout, a table otherwise."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from core.tournament import Format, Stage, Tournament
from renderers.standings import StandingsLabels, render_standings, round_title, standings_image
from renderers.themes import THEMES, theme_by_name
from tests.tournament_driver import FakeClock, Script, opened


def _played(fmt: Format, n: int, finish: bool = True) -> Tournament:
    clock = FakeClock()
    t = opened(fmt, n, clock, rounds=4 if fmt is Format.SWISS else None)
    t.start(clock.tick(), by=1)
    script = Script(seed=n, withdraw_rate=0.05, timeout_rate=0.05)
    if finish:
        script.play(t, clock)
    return t


def _has_colour(image: Image.Image, rgb: tuple[int, int, int], tolerance: int = 8) -> bool:
    for _count, pixel in image.getcolors(image.width * image.height) or []:
        if all(abs(a - b) <= tolerance for a, b in zip(pixel, rgb, strict=True)):
            return True
    return False


@pytest.mark.parametrize("fmt", list(Format))
@pytest.mark.parametrize("n", [2, 5, 8, 16, 33])
def test_pictures_for_every_format_and_size(fmt: Format, n: int) -> None:
    """A PNG for each format at 2, 5, 8, 16 and 33 players, sized to what it shows, with the
    winner marked in the theme's accent once finished."""
    t = _played(fmt, n)
    assert t.stage is Stage.FINISHED
    png = render_standings(t)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.width >= 1000
    if fmt is Format.KNOCKOUT:
        rounds = t.rounds
        assert image.width >= 230 * (rounds + 1)
        # Rows shrink for a bigger bracket but the picture still grows with it.
        assert image.height > 120 + 40 * len(t.round_pairings(1))
    else:
        assert image.height > 70 + 28 * (n + 1)
    if t.winner is not None:
        assert _has_colour(image, theme_by_name("classic").accent)


def test_labels_are_drawn_from_the_data_given() -> None:
    """The words come from the caller (the bot translates them): other words, other picture."""
    t = _played(Format.SWISS, 6, finish=False)
    english = standings_image(t)
    turkish = standings_image(
        t,
        StandingsLabels(
            title="Turnuva", player="Oyuncu", score="Puan", round_of="Tur {n} / {total}"
        ),
    )
    assert english.size == turkish.size
    assert english.tobytes() != turkish.tobytes()


def test_knockout_round_names() -> None:
    labels = StandingsLabels()
    assert [round_title(labels, r, 6, knockout=True) for r in range(1, 7)] == [
        "Round 1",
        "Round 2",
        "Round 3",
        "Quarter-finals",
        "Semi-finals",
        "Final",
    ]
    assert round_title(labels, 3, 5, knockout=False) == "Round 3"


@pytest.mark.parametrize("theme", list(THEMES))
def test_every_theme_draws_in_its_own_colours(theme: str) -> None:
    t = _played(Format.KNOCKOUT, 8)
    image = standings_image(t, theme=theme)
    assert _has_colour(image, theme_by_name(theme).background, tolerance=0)
    assert _has_colour(image, theme_by_name(theme).accent)


def test_names_the_font_cannot_draw_do_not_break_the_picture() -> None:
    t = _played(Format.ROUND_ROBIN, 3, finish=False)
    t.entrants[0].name = "🎲 Dice \u200b" + "x" * 200
    image = standings_image(t)
    assert image.width == 1000
