"""The rating chart of /stats (renderers/chart.py): a title, the player, round ratings on
the y axis, dates under the games, and the number of rated games."""

from __future__ import annotations

import io
import time

from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from bot.service.info import chart_labels
from renderers.chart import CHART_LABELS, date_ticks, rating_chart, rating_ticks

MONTHS = CHART_LABELS["months"].split()


@given(st.floats(0, 3000), st.floats(0, 400))
def test_rating_marks_are_round_and_cover_the_ratings(low: float, spread: float) -> None:
    ticks = rating_ticks(low, low + spread)
    values = [t.value for t in ticks]
    assert 2 <= len(ticks) <= 7
    step = values[1] - values[0]
    assert step in (5, 10, 20, 25, 50, 100, 200, 250, 500)
    assert all(v % step == 0 for v in values)
    assert values[0] <= low
    assert values[-1] >= low + spread
    assert [t.label for t in ticks] == [str(int(v)) for v in values]


def test_dates_mark_the_first_game_of_each_day() -> None:
    day = 86400
    start = time.mktime((2026, 12, 4, 0, 0, 0, 0, 0, 0)) - time.timezone
    stamps = [start + 3600, start + 7200, start + day + 60, start + 3 * day]
    ticks = date_ticks(stamps, MONTHS)
    assert [(t.value, t.label) for t in ticks] == [(0, "4 Dec"), (2, "5 Dec"), (3, "7 Dec")]
    many = [start + i * day for i in range(40)]
    assert len(date_ticks(many, MONTHS)) <= 5


def test_the_chart_is_a_titled_png_in_the_readers_language() -> None:
    history = [(1_800_000_000 + i * 3600, 1500 + 7 * i) for i in range(6)]
    png = rating_chart(history, name="Ayşe", variant="Uzun Tavla", labels=chart_labels("ru"))
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    assert image.size == (800, 420)
    labels = chart_labels("ru")
    assert labels["title"] == "Рейтинг: {name}"
    assert len(labels["months"].split()) == 12
    # The same history in English draws other words: the labels reach the picture.
    assert rating_chart(history, name="Ayşe", variant="Uzun Tavla") != png
