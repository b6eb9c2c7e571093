"""The analysis card: both players' figures side by side and the costliest decisions.

:func:`render_analysis_card` turns a :class:`core.analysis.MatchAnalysis` into a PNG. It is a
pure function: every word comes from ``labels`` (English by default, see :data:`CARD_LABELS`),
so the bot passes them translated. The small boards are :mod:`renderers.board` pictures in
the same theme: for each of the three worst errors, the board after the play made and after
the best play, each with its steps marked as the board marks a last play.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from PIL import Image, ImageDraw, ImageFont

from core.analysis import Decision, MatchAnalysis
from core.dice import larger_first
from core.variants import variant_by_name

from .board import _fit, font, render_image, text_length
from .geometry import Rect, geometry
from .themes import RGB, theme_by_name
from .view import BLACK, WHITE, BoardView, other
from .view import LABELS as BOARD_LABELS

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
    "no_decisions": "Nothing to judge: the game ended before anyone had a choice to make.",
    "No decisions": "No decisions",
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


def where_line(
    words: Callable[..., str], analysis: MatchAnalysis, d: Decision, name: str | None = None
) -> str:
    """``Game 1, move 7 · Ali · 6-4``: where a decision was made, the roll written the larger
    die first, as it is named (``name``: the player's name as it fits, else in full)."""
    name = analysis.names[d.player] if name is None else name
    where = words("where", game=d.game, move=d.move, name=name)
    if d.dice:
        high, low = sorted(d.dice, reverse=True)
        where += f" · {high}-{low}"
    return where


class CardPlaced(NamedTuple):
    """One thing drawn on the card: ``kind`` (``title``, ``label``, ``value``, ``heading``,
    ``board``, …), the seat or decision column it belongs to (``None`` for the whole card),
    and its outline in pixels."""

    kind: str
    column: int | None
    box: Rect
    #: The words drawn, for a text.
    shown: str = ""


class _Card:
    """Draws the card top to bottom, each block placed below the last one drawn, and keeps
    a record of every box (:func:`card_layout`) so tests can check nothing overlaps."""

    def __init__(
        self, analysis: MatchAnalysis, labels: Mapping[str, str] | None, theme: str, width: int
    ) -> None:
        self.analysis = analysis
        self.words = _Words(labels)
        self.theme = theme
        self.colors = theme_by_name(theme)
        self.width = width
        # Everything scales with the width; the sizes below are for a 1200-pixel card.
        self.u = width / 1200
        self.placed: list[CardPlaced] = []
        self.ops: list[tuple[str, tuple[Any, ...]]] = []

    def px(self, n: float) -> int:
        return round(n * self.u)

    def text(
        self,
        kind: str,
        column: int | None,
        xy: tuple[float, float],
        words: str,
        fnt: ImageFont.FreeTypeFont,
        fill: RGB,
        anchor: str = "la",
    ) -> Rect:
        """Queue ``words`` at ``xy`` and record the box they cover."""
        x0, y0, x1, y1 = fnt.getbbox(words, anchor=anchor)
        box = Rect(x0 + xy[0], y0 + xy[1], x1 + xy[0], y1 + xy[1])
        self.ops.append(("text", (xy, words, fnt, fill, anchor)))
        self.placed.append(CardPlaced(kind, column, box, words))
        return box

    def font(self, size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
        return font(self.px(size), bold=bold)

    def line_height(self, fnt: ImageFont.FreeTypeFont) -> int:
        ascent, descent = fnt.getmetrics()
        return ascent + descent

    def layout(self) -> int:
        """Place everything; the card's height."""
        a, words, c = self.analysis, self.words, self.colors
        width, px = self.width, self.px
        margin = px(32)
        y = px(24)
        title = self.font(40, bold=True)
        self.text("title", None, (margin, y), words("title"), title, c.text)
        y += self.line_height(title) + px(6)
        variant = words(a.variant)
        if a.length > 1:
            what = words("match", variant=variant, n=a.length)
        elif a.length == 1 or a.games == 1:  # one game: a 1-point match, or money play of one
            what = words("single", variant=variant)
        else:
            what = words("money", variant=variant)
        sub, small = self.font(22), self.font(18)
        evaluator = words("evaluator", name=words(a.evaluator))
        room = width - 2 * margin - px(24)
        what_w = min(sub.getlength(what), room * 0.6)
        self.text("subtitle", None, (margin, y), _fit(what, sub, what_w), sub, c.text_dim)
        self.text(
            "evaluator",
            None,
            (width - margin, y + px(4)),
            _fit(evaluator, small, room - what_w),
            small,
            c.text_dim,
            anchor="ra",
        )
        y += self.line_height(sub) + px(24)

        # The players side by side, a line between them.
        half = width // 2
        top = y
        bottoms = [
            self._player(seat, margin + seat * half, top, half - 2 * margin) for seat in (0, 1)
        ]
        y = max(bottoms)
        self.ops.append(("line", ((half, top + px(10), half, y), c.frame, max(1, px(2)))))
        self.placed.append(CardPlaced("divider", None, Rect(half - 1, top + px(10), half + 1, y)))
        y += px(36)

        # The costliest decisions.
        heading = self.font(28, bold=True)
        self.text("heading", None, (margin, y), words("worst"), heading, c.text)
        y += self.line_height(heading) + px(18)
        worst = [d for d in a.worst(3) if d.loss > 0]
        if not worst:
            sub = self.font(22)
            box = self.text(
                "no_errors",
                None,
                (margin, y),
                _fit(
                    words("no_errors" if a.decisions else "no_decisions"), sub, width - 2 * margin
                ),
                sub,
                c.text_dim,
            )
            return int(box.y1) + px(40)
        column = width // 3
        board_w = column - px(32)
        bottom = y
        for i, decision in enumerate(worst):
            x = i * column + px(12)
            by = self._decision(i, decision, x, y, board_w)
            # A red bar beside the play made, a green one beside the best play.
            for board, mark in zip(
                _boards(a, decision, board_w, self.theme, words), (BAD_RED, GOOD), strict=False
            ):
                bar = Rect(x, by + px(6), x + px(5), by + board.height - px(6))
                self.ops.append(("rect", (bar, mark)))
                self.placed.append(CardPlaced("bar", i, bar))
                self.ops.append(("paste", (board, (x + px(10), by))))
                self.placed.append(
                    CardPlaced(
                        "board",
                        i,
                        Rect(x + px(10), by, x + px(10) + board.width, by + board.height),
                    )
                )
                by += board.height
            bottom = max(bottom, by)
        return bottom + px(24)

    def _player(self, seat: int, x: int, y: int, w: int) -> int:
        """One player's name, rating and figures from ``y`` down; where they end."""
        s, words, c, px = self.analysis.players[seat], self.words, self.colors, self.px
        name_font, rating_font = self.font(30, bold=True), self.font(34, bold=True)
        self.text("name", seat, (x, y), _fit(s.name, name_font, w), name_font, c.text)
        y += self.line_height(name_font) + px(4)
        self.text(
            "rating", seat, (x, y), _fit(words(s.rating), rating_font, w), rating_font, c.accent
        )
        y += self.line_height(rating_font) + px(14)
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
        label, value = self.font(21), self.font(21, bold=True)
        step = self.line_height(label) + px(8)
        for key, shown in rows:
            value_w = value.getlength(shown)
            self.text("value", seat, (x + w, y), shown, value, c.text, anchor="ra")
            self.text(
                "label", seat, (x, y), _fit(key, label, w - value_w - px(16)), label, c.text_dim
            )
            y += step
        return y

    def _decision(self, i: int, d: Decision, x: int, y: int, w: int) -> int:
        """The words above decision ``i``'s boards; where the boards start."""
        words, c, px = self.words, self.colors, self.px
        small, bold = self.font(18), self.font(19, bold=True)
        where, where_font = self._where(d, w)
        played = d.played if d.kind == "play" else words(d.played)
        best = d.best if d.kind == "play" else words(d.best)
        lines = [
            ("where", where, where_font, c.text_dim),
            ("played", words("played", play=played), bold, BAD_RED),
            ("best", words("best", play=best), bold, GOOD),
            ("loss", words("loss", loss=f"{d.loss:.3f}"), small, c.text),
        ]
        for kind, shown, fnt, fill in lines:
            self.text(kind, i, (x, y), _fit(shown, fnt, w), fnt, fill)
            y += self.line_height(fnt) + px(4)
        return y + px(12)

    def _where(self, d: Decision, w: int) -> tuple[str, ImageFont.FreeTypeFont]:
        """Where decision ``d`` was made, fitted to ``w`` pixels: a smaller font first, then
        the player's name shortened with an ellipsis, so that the move and the roll are
        always there ("Game 1, move 7 · Tavla Bot (begi… · 6-4")."""
        for size in (18, 16, 15):
            fnt = self.font(size)
            where = where_line(self.words, self.analysis, d)
            if text_length(fnt, where) <= w:
                return where, fnt
        name = self.analysis.names[d.player]
        for keep in range(len(name) - 1, 0, -1):
            where = where_line(self.words, self.analysis, d, name[:keep].rstrip() + "…")
            if text_length(fnt, where) <= w:
                return where, fnt
        return _fit(where_line(self.words, self.analysis, d, "…"), fnt, w), fnt

    def draw(self, height: int) -> Image.Image:
        image = Image.new("RGB", (self.width, height), self.colors.background)
        draw = ImageDraw.Draw(image)
        for op, args in self.ops:
            if op == "text":
                xy, shown, fnt, fill, anchor = args
                draw.text(xy, shown, fill=fill, font=fnt, anchor=anchor)
            elif op == "line":
                draw.line(args[0], fill=args[1], width=args[2])
            elif op == "rect":
                draw.rectangle(tuple(args[0]), fill=args[1])
            else:
                image.paste(args[0], args[1])
        return image


def card_layout(
    analysis: MatchAnalysis,
    labels: Mapping[str, str] | None = None,
    *,
    theme: str = "classic",
    width: int = 1200,
) -> tuple[tuple[int, int], list[CardPlaced]]:
    """The card's size and what it draws where (for tests: nothing may overlap)."""
    card = _Card(analysis, labels, theme, width)
    height = card.layout()
    return (width, height), card.placed


def render_analysis_card(
    analysis: MatchAnalysis,
    labels: Mapping[str, str] | None = None,
    *,
    theme: str = "classic",
    width: int = 1200,
) -> bytes:
    """The card of ``analysis`` as PNG bytes, ``width`` pixels wide."""
    card = _Card(analysis, labels, theme, width)
    image = card.draw(card.layout())
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=6)
    return buffer.getvalue()


def decision_views(
    analysis: MatchAnalysis, d: Decision, words: Callable[..., str] | None = None
) -> list[BoardView]:
    """The boards of decision ``d``: after the play made and after the best one (a cube
    decision: the board before it), seen by the player who decided, each player in the
    colour they played, the dice of the play in the player's colour and not dimmed."""
    variant = variant_by_name(analysis.variant)
    say = words if isinstance(words, _Words) else _Words(None)
    own = WHITE if d.player == d.white else BLACK
    names = {own: analysis.names[d.player], other(own): analysis.names[1 - d.player]}
    board_words = {k: v for k, v in say.labels.items() if k in BOARD_LABELS}
    common: dict[str, Any] = {"names": names, "labels": board_words}
    if variant.cube:
        value, owner = d.cube
        common["cube_value"] = value
        if owner is not None:
            common["cube_owner"] = own if owner == d.player else other(own)
    if d.kind != "play" or d.played_play is None or d.best_play is None:
        # A cube decision: the board before it, seen by the doubler (on roll in ``before``).
        doubler = own if d.played in ("double", "no double") else other(own)
        return [BoardView.from_position(variant, d.before, doubler, to_move=None, **common)]
    return [
        BoardView.from_position(
            variant,
            play.after,
            own,
            to_move=None,
            dice=larger_first(d.dice or ()),
            dice_color=own,
            last_play=play.steps,
            last_play_color=own,
            **common,
        )
        for play in (d.played_play, d.best_play)
    ]


def _boards(
    analysis: MatchAnalysis, d: Decision, width: int, theme: str, words: _Words
) -> list[Image.Image]:
    """:func:`decision_views` drawn ``width`` pixels wide in ``theme``.

    The card writes who decided, the roll and both plays above the boards at a size one can
    read, so the boards are drawn large without their name strips (whose words would be
    too small to read at a third of the card's width) and scaled down."""
    return [
        _without_strips(replace(view, theme=theme), width)
        for view in decision_views(analysis, d, words)
    ]


#: The small boards are drawn this wide, then scaled down to their place on the card.
DRAWN_WIDTH = 800


def _without_strips(view: BoardView, width: int) -> Image.Image:
    """The board of ``view`` without its name strips, ``width`` pixels wide."""
    drawn = max(width, DRAWN_WIDTH)
    geo = geometry(drawn, bool(view.caption), view.home)
    image = render_image(view, drawn).crop((0, round(geo.board.y0), drawn, round(geo.board.y1)))
    height = round(image.height * width / drawn)
    return image.resize((width, height), Image.Resampling.LANCZOS)
