"""The analysis card (renderers/analysis_card.py): a PNG of both players' figures and the
three costliest decisions, with every word taken from the labels passed in."""

from __future__ import annotations

import dataclasses
import functools
import io
import itertools
import re

import pytest
from PIL import Image, ImageChops

from core.ai import player_for
from core.ai.network import shipped_network
from core.analysis import Action, NetworkEvaluator, analyse_actions, analyse_match
from core.analysis.records import parse_mat
from core.analysis.selfplay import play_match
from core.dice import FixedDice, RandomDice
from core.export import export_games
from core.game import Game
from core.position import Position
from core.variants import variant_by_name
from renderers.analysis_card import CARD_LABELS, card_layout, render_analysis_card
from renderers.analysis_text import mat_comments
from renderers.geometry import Rect
from tests.gnubg_anchor import gnubg_binary, gnubg_import


class QuickEvaluator(NetworkEvaluator):
    def play_values(self, variant, afters, scoring, deep):  # type: ignore[override]
        return super().play_values(variant, afters, scoring, False)


@functools.cache
def match_of(name: str, seed: int = 4):
    """A seeded single game, beginner against club: its event histories."""
    variant = variant_by_name(name)
    players = [player_for(name, "beginner", seed), player_for(name, "club")]
    return play_match(variant, players, RandomDice(seed), length=1)[1]


@functools.cache
def analysis_of(name: str, seed: int = 4):
    variant = variant_by_name(name)
    histories = match_of(name, seed)
    net = shipped_network("uzun" if name == "uzun" else "tavla")
    return analyse_match(
        variant, histories, length=1, names=("Ayşe", "Bob"), evaluator=QuickEvaluator(net)
    )


def image(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def test_card_is_a_png_of_the_asked_width_with_two_boards_per_error() -> None:
    analysis = analysis_of("tavla")
    assert len([d for d in analysis.worst(3) if d.loss > 0]) == 3
    card = image(render_analysis_card(analysis, width=1200))
    assert card.width == 1200
    # Six boards below the figures make the card taller than wide.
    assert card.height > card.width


def test_card_words_come_from_the_labels() -> None:
    analysis = analysis_of("uzun")
    english = image(render_analysis_card(analysis))
    turkish = {**CARD_LABELS, "title": "Oyun analizi", "very_bad": "Çok kötü"}
    translated = image(render_analysis_card(analysis, turkish))
    assert english.size == translated.size
    assert ImageChops.difference(english, translated).getbbox() is not None
    assert image(render_analysis_card(analysis, CARD_LABELS)) == english


def test_a_game_without_errors_has_no_boards() -> None:
    variant = variant_by_name("tavla")
    start = Game.new(variant, FixedDice([]), opening="winner", starter=0)
    position = Position.from_points({4: 1, 3: 1}, {1: 1})
    start.sides = [position.mover, position.opponent]
    start.played_first_turn = [True, True]
    actions = [Action("roll", 0, (4, 3)), Action("play", 0, play="4/off 3/off")]
    net = shipped_network("tavla")
    analysis = analyse_actions(variant, [actions], evaluator=NetworkEvaluator(net), start=start)
    card = image(render_analysis_card(analysis))
    assert card.height < card.width


def test_the_decision_list_has_a_line_per_decision_in_the_labels_language() -> None:
    from renderers.analysis_text import analysis_text

    analysis = analysis_of("turkish")
    text = analysis_text(analysis)
    for d in analysis.decisions:
        assert f"move {d.move} · {analysis.names[d.player]}" in text
    very_bad = sum(p.very_bad for p in analysis.players)
    assert text.count("(Very bad)") == very_bad
    turkish = analysis_text(
        analysis, {"very_bad": "Çok kötü", "where": "Oyun {game}, hamle {move} · {name}"}
    )
    assert turkish.count("(Çok kötü)") == very_bad
    assert "hamle" in turkish
    assert ", move " not in turkish


def test_the_evaluator_is_named_in_the_players_language() -> None:
    """The project's own evaluator is described in the labels' language, on the document and
    in the .mat comments alike; GNU Backgammon keeps its name."""
    from bot.service.analysis import labels
    from renderers.analysis_text import analysis_text

    analysis = analysis_of("turkish")
    assert analysis.evaluator == "network 1-ply"
    for lang in ("tr", "ru"):
        words = labels(lang)
        own = words["network 1-ply"]
        expected = words["evaluator"].format(name=own)
        assert expected in analysis_text(analysis, words).splitlines()
        assert mat_comments(analysis, words)[0] == expected
        assert "network" not in expected
    gnubg = dataclasses.replace(analysis, evaluator="gnubg 2-ply")
    assert "gnubg 2-ply" in analysis_text(gnubg, labels("tr")).splitlines()[1]


# Russian words run longest; the stretched set makes every word three times as long.
RUSSIAN = {
    "title": "Анализ партии",
    "single": "{variant} · одна партия",
    "evaluator": "анализ: {name}",
    "error_rate": "Ошибки (миллипункты)",
    "decisions": "Решения",
    "doubtful": "Сомнительные",
    "bad": "Плохие",
    "very_bad": "Очень плохие",
    "luck": "Удача (очки)",
    "luck_adjusted": "Результат с поправкой на удачу",
    "worst": "Самые дорогие решения",
    "where": "Партия {game}, ход {move} · {name}",
    "played": "Сыграно: {play}",
    "best": "Лучший ход: {play}",
    "loss": "−{loss} эквити",
    "Awful!": "Ужасно!",
    "Supernatural": "Сверхъестественно",
    "Beginner": "Новичок",
}
STRETCHED = {key: " ".join([value] * 3) for key, value in CARD_LABELS.items()}


@pytest.mark.parametrize("width", [1200, 800])
@pytest.mark.parametrize("words", ["en", "ru", "stretched"])
@pytest.mark.parametrize("name", ["tavla", "turkish", "uzun"])
def test_nothing_on_the_card_overlaps_and_the_heading_clears_the_figures(
    name: str, words: str, width: int
) -> None:
    labels = {"en": None, "ru": RUSSIAN, "stretched": STRETCHED}[words]
    analysis = analysis_of(name)
    (w, h), placed = card_layout(analysis, labels, width=width)
    card = Rect(0, 0, w, h)
    for item in placed:
        assert card.contains_rect(item.box, tolerance=0), item
    for a, b in itertools.combinations(placed, 2):
        assert not a.box.intersects(b.box), (a, b)
    # The heading of the costliest decisions sits clearly below both players' figures.
    heading = next(p.box for p in placed if p.kind == "heading")
    figures = [p.box for p in placed if p.column is not None and p.kind in ("label", "value")]
    assert len(figures) == 2 * 2 * 8
    assert heading.y0 - max(b.y1 for b in figures) >= 0.02 * width
    # Each player's figures stay in that player's half, each decision in its column.
    for p in placed:
        if p.kind in ("name", "rating", "label", "value"):
            half = Rect(p.column * w / 2, 0, (p.column + 1) * w / 2, h)
            assert half.contains_rect(p.box, tolerance=0), p
        elif p.kind in ("where", "played", "best", "loss", "board", "bar"):
            third = Rect(p.column * w / 3, 0, (p.column + 1) * w / 3, h)
            assert third.contains_rect(p.box, tolerance=0), p
    # The picture is the laid-out card.
    assert image(render_analysis_card(analysis, labels, width=width)).size == (w, h)


@pytest.mark.parametrize("name", ["tavla", "uzun"])
def test_the_mat_export_carries_the_errors_as_header_comments(name: str) -> None:
    analysis = analysis_of(name)
    names = list(analysis.names)
    plain = export_games(names, 1, match_of(name), variant=name)
    comments = mat_comments(analysis)
    text = export_games(names, 1, match_of(name), variant=name, comments=comments)
    # Every error is there, and only errors (with each player's figures on top).
    errors = [d for d in analysis.decisions if d.skill.value]
    assert errors
    assert len(comments) == 1 + 2 + len(errors)
    for d in errors:
        assert any(f"move {d.move} · {analysis.names[d.player]}" in c for c in comments)
    assert sum("(Very bad)" in c for c in comments) == sum(p.very_bad for p in analysis.players)
    # As ";" lines before the match header; the rest of the file is the plain export.
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if re.match(r" 1 point .*match", line))
    assert all(line.startswith(";") for line in lines[:header])
    assert text.endswith(plain[plain.index(lines[header]) :])
    # The project reads it back as the same match, in the same game.
    again, before = parse_mat(text), parse_mat(plain)
    assert again.games == before.games
    assert again.variant == before.variant
    assert again.names == before.names


@pytest.mark.skipif(gnubg_binary() is None, reason="Debian's gnubg is not installed")
def test_gnubg_imports_the_commented_export_without_a_warning() -> None:
    analysis = analysis_of("tavla", 9)  # a long game (seed 4's ends on a passed double)
    names = list(analysis.names)
    plain = export_games(names, 1, match_of("tavla", 9))
    text = export_games(names, 1, match_of("tavla", 9), comments=mat_comments(analysis))
    counts, printed = gnubg_import(text)
    assert counts == gnubg_import(plain)[0]
    assert sum(counts) > 40
    assert "Unrecognized" not in printed


def test_each_player_keeps_the_colour_they_played_on_the_small_boards() -> None:
    """U-2: in Uzun Tavla the starter plays White; a player who played Black is drawn in
    Black on the card's boards (with dice of that colour), not turned into White."""
    from renderers.analysis_card import decision_views
    from renderers.view import BLACK, WHITE

    analysis = analysis_of("uzun")
    seen = set()
    for d in analysis.decisions:
        if d.kind != "play" or d.played_play is None:
            continue
        colour = WHITE if d.player == d.white else BLACK
        seen.add((d.player, colour))
        for view in decision_views(analysis, d):
            assert view.viewer == colour
            assert view.name(colour) == analysis.names[d.player]
            assert view.dice_color == colour
            assert not any(view.dice_used)  # the roll is shown clearly, not dimmed
    # Both players, each in one colour: the game's two sides.
    assert len(seen) == 2
    assert {colour for _, colour in seen} == {WHITE, BLACK}


def test_a_game_with_no_decision_has_no_rating() -> None:
    """A game resigned before either player had a choice rates nobody (it used to rate both
    "Supernatural": every play was the best one, over zero plays)."""
    from renderers.analysis_text import analysis_text

    variant = variant_by_name("tavla")
    actions = [Action("end", 1, points=1)]
    analysis = analyse_actions(
        variant, [actions], evaluator=QuickEvaluator(shipped_network("tavla"))
    )
    assert [p.rating for p in analysis.players] == ["No decisions", "No decisions"]
    (_, placed) = card_layout(analysis, CARD_LABELS)
    assert "no_errors" in {p.kind for p in placed}
    text = analysis_text(analysis)
    assert "Supernatural" not in text
    assert CARD_LABELS["no_decisions"] in text


@pytest.mark.parametrize("width", [1200, 800])
@pytest.mark.parametrize(
    "long_name", ["Tavla Bot (beginner)", "Tavla Bot (гроссмейстер)", "W" * 40]
)
def test_a_long_name_is_fitted_and_the_move_and_dice_stay(width: int, long_name: str) -> None:
    """ "Tavla Bot (beginner…" dropped the roll: the name gives way, never the dice."""
    analysis = dataclasses.replace(analysis_of("tavla"), names=(long_name, "Bob"))
    (w, _h), placed = card_layout(analysis, width=width)
    wheres = [p for p in placed if p.kind == "where"]
    assert wheres
    for p in wheres:
        d = analysis.worst(3)[p.column]
        if d.dice:
            high, low = sorted(d.dice, reverse=True)
            assert p.shown.endswith(f" · {high}-{low}"), p.shown
        assert p.shown.startswith(f"Game {d.game}, move {d.move} · "), p.shown
        third = Rect(p.column * w / 3, 0, (p.column + 1) * w / 3, _h)
        assert third.contains_rect(p.box, tolerance=0), p
    # The player who made the decision is still recognisable: the name starts it.
    assert any(long_name[:6] in p.shown for p in wheres if analysis.worst(3)[p.column].player == 0)
