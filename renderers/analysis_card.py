"""The analysis card: both players' figures side by side and the costliest decisions.

:func:`render_analysis_card` turns a :class:`core.analysis.MatchAnalysis` into a PNG. It is a
pure function: every word comes from ``labels`` (English by default, see :data:`CARD_LABELS`),
so the bot passes them translated. The small boards are :mod:`renderers.board` pictures in
the same theme: for each of the three worst errors, the board after the play made and after
the best play, each with its steps marked as the board marks a last play.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from PIL import Image, ImageDraw

from core.analysis import Decision, MatchAnalysis, PlayerSummary
from core.variants import variant_by_name

from .board import _fit, font, render_image
from .themes import RGB, theme_by_name
from .view import BLACK, WHITE, BoardView

#: The card's words in English; ``{…}`` fields are filled in. Pass translations as ``labels``.
CARD_LABELS: dict[str, str] = {
    "title": "Game analysis",
    "match": "{variant} · match to {n}",
    "money": "{variant} · money game",
    "single": "{variant} · single game",
    "evaluator": "analysed with {name}",
    "error_rate": "Error rate (millipoints)",
    "pr": "PR",
    "decisions": "Decisions",
    "doubtful": "Doubtful",
    "bad": "Bad",
    "very_bad": "Very bad",
    "luck": "Luck (points)",
    "luck_adjusted": "Luck-adjusted result",
    "worst": "Costliest decisions",
    "where": "Game {game}, move {move} · {name}",
    "played": "Played: {play}",
    "best": "Best: {play}",
    "loss": "−{loss} equity",
    "no_errors": "No decision cost anything: every play was the best one.",
    "double": "double",
    "no double": "no double",
    "take": "take",
    "pass": "pass",
    "tavla": "Tavla",
    "turkish": "Turkish tavla",
    "uzun": "Uzun Tavla",
    # gnubg's rating scale, from worst to best.
    "Awful!": "Awful!",
    "Beginner": "Beginner",
    "Casual player": "Casual player",
    "Intermediate": "Intermediate",
    "Advanced": "Advanced",
    "Expert": "Expert",
    "World class": "World class",
    "Supernatural": "Supernatural",
}

GOOD: RGB = (120, 190, 110)
BAD_RED: RGB = (225, 95, 80)


class _Words:
    def __init__(self, labels: Mapping[str, str] | None) -> None:
        self.labels = {**CARD_LABELS, **(labels or {})}

    def __call__(self, key: str, **params: object) -> str:
        return str(self.labels.get(key, key)).format(**params)


def render_analysis_card(
    analysis: MatchAnalysis,
    labels: Mapping[str, str] | None = None,
    *,
    theme: str = "classic",
    width: int = 1200,
) -> bytes:
    """The card of ``analysis`` as PNG bytes, ``width`` pixels wide."""
    words = _Words(labels)
    colors = theme_by_name(theme)
    worst = [d for d in analysis.worst(3) if d.loss > 0]
    column = width // 3
    board_w = column - 32
    boards = [_boards(analysis, d, board_w, theme) for d in worst]
    board_h = max((sum(b.height for b in pair) for pair in boards), default=0)
    figures_h = 500
    height = figures_h + 70 + (board_h + 170 if boards else 60)
    image = Image.new("RGB", (width, height), colors.background)
    draw = ImageDraw.Draw(image)
    text, dim = colors.text, colors.text_dim

    # Title and what was analysed.
    draw.text((32, 24), words("title"), fill=text, font=font(40, bold=True))
    variant = words(analysis.variant)
    if analysis.length > 1:
        what = words("match", variant=variant, n=analysis.length)
    elif analysis.length == 1:
        what = words("single", variant=variant)
    else:
        what = words("money", variant=variant)
    draw.text((32, 78), what, fill=dim, font=font(22))
    draw.text(
        (width - 32, 84),
        words("evaluator", name=analysis.evaluator),
        fill=dim,
        font=font(18),
        anchor="ra",
    )

    # The players side by side.
    half = width // 2
    for seat, summary in enumerate(analysis.players):
        _player(draw, words, summary, 32 + seat * half, 130, half - 64, colors.accent, text, dim)
    draw.line((half, 140, half, figures_h + 20), fill=colors.frame, width=2)

    # The costliest decisions.
    top = figures_h + 50
    draw.text((32, top), words("worst"), fill=text, font=font(28, bold=True))
    top += 50
    if not worst:
        draw.text((32, top), words("no_errors"), fill=dim, font=font(22))
    for i, (decision, pair) in enumerate(zip(worst, boards, strict=True)):
        x = i * column + 12
        _decision(draw, words, analysis, decision, x, top, board_w, text, dim)
        y = top + 112
        # A red bar beside the play made, a green one beside the best play.
        for board, mark in zip(pair, (BAD_RED, GOOD), strict=False):
            draw.rectangle((x, y + 6, x + 5, y + board.height - 6), fill=mark)
            image.paste(board, (x + 10, y))
            y += board.height
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=6)
    return buffer.getvalue()


def _player(
    draw: ImageDraw.ImageDraw,
    words: _Words,
    s: PlayerSummary,
    x: int,
    y: int,
    w: int,
    accent: RGB,
    text: RGB,
    dim: RGB,
) -> None:
    name_font = font(30, bold=True)
    draw.text((x, y), _fit(s.name, name_font, w), fill=text, font=name_font)
    draw.text((x, y + 44), words(s.rating), fill=accent, font=font(34, bold=True))
    rows = [
        (words("error_rate"), f"{s.error_per_decision:.1f}"),
        (words("pr"), f"{s.pr:.1f}"),
        (words("decisions"), str(s.decisions)),
        (words("doubtful"), str(s.doubtful)),
        (words("bad"), str(s.bad)),
        (words("very_bad"), str(s.very_bad)),
        (words("luck"), f"{s.luck:+.2f}"),
        (words("luck_adjusted"), f"{s.luck_adjusted:+.2f}"),
    ]
    label, value = font(21), font(21, bold=True)
    ry = y + 100
    for key, shown in rows:
        draw.text((x, ry), _fit(key, label, w - 110), fill=dim, font=label)
        draw.text((x + w, ry), shown, fill=text, font=value, anchor="ra")
        ry += 33


def _decision(
    draw: ImageDraw.ImageDraw,
    words: _Words,
    analysis: MatchAnalysis,
    d: Decision,
    x: int,
    y: int,
    w: int,
    text: RGB,
    dim: RGB,
) -> None:
    small, bold = font(18), font(19, bold=True)
    name = analysis.names[d.player]
    where = words("where", game=d.game, move=d.move, name=name)
    if d.dice:
        where += f" · {d.dice[0]}-{d.dice[1]}"
    draw.text((x, y), _fit(where, small, w), fill=dim, font=small)
    played = d.played if d.kind == "play" else words(d.played)
    best = d.best if d.kind == "play" else words(d.best)
    draw.text((x, y + 26), _fit(words("played", play=played), bold, w), fill=BAD_RED, font=bold)
    draw.text((x, y + 52), _fit(words("best", play=best), bold, w), fill=GOOD, font=bold)
    draw.text((x, y + 78), words("loss", loss=f"{d.loss:.3f}"), fill=text, font=small)


def _boards(analysis: MatchAnalysis, d: Decision, width: int, theme: str) -> list[Image.Image]:
    """The board after the play made and after the best one (a cube decision: the board)."""
    variant = variant_by_name(analysis.variant)
    names = {WHITE: analysis.names[d.player], BLACK: analysis.names[1 - d.player]}
    common: dict[str, Any] = {"theme": theme, "names": names}
    if variant.cube:
        value, owner = d.cube
        common["cube_value"] = value
        if owner is not None:
            common["cube_owner"] = WHITE if owner == d.player else BLACK
    if d.kind != "play" or d.played_play is None or d.best_play is None:
        # A cube decision: the board before it, seen by the doubler (on roll).
        doubler = WHITE if d.played in ("double", "no double") else BLACK
        if doubler == BLACK:
            names = {WHITE: analysis.names[1 - d.player], BLACK: analysis.names[d.player]}
            common["names"] = names
            if "cube_owner" in common:
                common["cube_owner"] = WHITE if common["cube_owner"] == BLACK else BLACK
        view = BoardView.from_position(variant, d.before, WHITE, **common)
        return [render_image(view, width)]
    out = []
    for play in (d.played_play, d.best_play):
        view = BoardView.from_position(
            variant,
            play.after,
            WHITE,
            dice=d.dice or (),
            dice_used=(True,) * 4,
            last_play=play.steps,
            last_play_color=WHITE,
            **common,
        )
        out.append(render_image(view, width))
    return out
