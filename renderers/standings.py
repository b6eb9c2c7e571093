"""Tournament pictures: a bracket for a knockout, a table for a round robin or a Swiss.

Pure functions of a :class:`core.tournament.Tournament` and the words to write
(:class:`StandingsLabels`, passed in so the bot can translate them), in the board's style:
its theme colours (:mod:`renderers.themes`) and its font. Drawn at twice the size and scaled
down, for smooth edges.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from core.tournament import Format, Outcome, Pairing, Stage, Tournament

from .board import _clean, _fit, encode_png, font
from .themes import RGB, Theme, theme_by_name

#: Drawn at this multiple of the final size, then scaled down.
SCALE = 2


@dataclass(frozen=True)
class StandingsLabels:
    """Every word on the pictures (English by default; the bot passes translations).

    ``round`` and ``round_of`` are templates with ``{n}`` (and ``{total}``); ``last_rounds``
    names a knockout's last rounds, the final first.
    """

    title: str = "Tournament"
    subtitle: str = ""
    round: str = "Round {n}"
    round_of: str = "Round {n} of {total}"
    last_rounds: tuple[str, ...] = ("Final", "Semi-finals", "Quarter-finals")
    winner: str = "Winner"
    bye: str = "bye"
    withdrawn: str = "left"
    forfeit: str = "w/o"
    timeout: str = "time"
    award: str = "award"
    finished: str = "Final standings"
    rank: str = "#"
    player: str = "Player"
    played: str = "P"
    wins: str = "W"
    losses: str = "L"
    score: str = "Pts"
    buchholz: str = "Bch"
    diff: str = "+/−"


def round_title(labels: StandingsLabels, round_: int, rounds: int, knockout: bool) -> str:
    """The heading of round ``round_`` (a knockout's last rounds have their own names)."""
    from_end = rounds - round_
    if knockout and from_end < len(labels.last_rounds):
        return labels.last_rounds[from_end]
    return labels.round.format(n=round_)


def render_standings(
    tournament: Tournament,
    labels: StandingsLabels | None = None,
    theme: str = "classic",
    width: int = 1000,
) -> bytes:
    """PNG of the tournament: the bracket of a knockout, else the standings table."""
    return encode_png(standings_image(tournament, labels, theme, width))


def standings_image(
    tournament: Tournament,
    labels: StandingsLabels | None = None,
    theme: str = "classic",
    width: int = 1000,
) -> Image.Image:
    labels = labels or StandingsLabels()
    if tournament.format is Format.KNOCKOUT:
        return bracket_image(tournament, labels, theme, width)
    return table_image(tournament, labels, theme, width)


# -- shared pieces -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Palette:
    background: RGB
    panel: RGB
    panel_alt: RGB
    edge: RGB
    text: RGB
    dim: RGB
    accent: RGB
    accent_text: RGB
    line: RGB


def _palette(theme: Theme) -> _Palette:
    return _Palette(
        background=theme.background,
        panel=theme.frame,
        panel_alt=theme.frame_dark,
        edge=theme.tray_edge,
        text=theme.text,
        dim=theme.text_dim,
        accent=theme.accent,
        accent_text=theme.accent_text,
        line=theme.text_dim,
    )


def _header(draw: ImageDraw.ImageDraw, pal: _Palette, width: int, title: str, subtitle: str) -> int:
    """The title strip; returns its height (scaled pixels)."""
    s = SCALE
    height = (64 if subtitle else 48) * s
    draw.rectangle((0, 0, width, height), fill=pal.panel_alt)
    draw.rectangle((0, height - 3 * s, width, height), fill=pal.accent)
    big = font(24 * s, bold=True)
    draw.text((20 * s, 10 * s), _fit(_clean(title), big, width - 40 * s), font=big, fill=pal.text)
    if subtitle:
        small = font(15 * s)
        text = _fit(_clean(subtitle), small, width - 40 * s)
        draw.text((20 * s, 40 * s), text, font=small, fill=pal.dim)
    return height


def _finish(image: Image.Image) -> Image.Image:
    # A box average of each SCALE x SCALE block: as smooth as Lanczos here, at a tenth of
    # the time (a 33-player bracket: about 50 ms instead of 540).
    return image.reduce(SCALE)


def _subtitle(t: Tournament, labels: StandingsLabels) -> str:
    if labels.subtitle:
        return labels.subtitle
    if t.stage is Stage.FINISHED:
        return labels.finished
    if t.current_round and t.format is not Format.KNOCKOUT:
        return labels.round_of.format(n=t.current_round, total=t.rounds)
    return ""


def _mark(pairing: Pairing, player: int, labels: StandingsLabels) -> str:
    """What to write after a player in a decided pairing: the score, or how it was decided."""
    result = pairing.result
    if result is None:
        return ""
    points = pairing.points_of(player)
    if points is not None:
        return f"{points[0]:g}"
    if result.outcome is Outcome.FORFEIT:
        return labels.forfeit if result.winner == player else labels.withdrawn
    if result.outcome is Outcome.TIMEOUT and result.winner != player:
        return labels.timeout
    if result.outcome is Outcome.AWARD and result.winner == player:
        return labels.award
    return ""


# -- knockout bracket --------------------------------------------------------------------


def bracket_image(
    t: Tournament, labels: StandingsLabels, theme: str = "classic", width: int = 1000
) -> Image.Image:
    """The knockout bracket: a column per round and one for the winner."""
    pal = _palette(theme_by_name(theme))
    s = SCALE
    rounds = max(t.rounds, 1)
    first = max(len(t.round_pairings(1)), 1)
    columns = rounds + 1
    width = max(width, 230 * columns)
    # Rows shrink as the bracket grows, within what stays readable.
    line_h = max(20, min(30, 1400 // (2 * first + first // 2 + 1)))
    gap = line_h // 2
    box_h = 2 * line_h
    pitch = box_h + gap
    margin = 20
    col_w = (width - 2 * margin) / columns
    box_w = col_w - 24
    heading_h = 30
    names = {e.player: e for e in t.entrants}

    image = Image.new("RGB", (width * s, 10 * s), pal.background)
    header_probe = ImageDraw.Draw(image)
    head = _header(header_probe, pal, width * s, labels.title, _subtitle(t, labels)) // s
    top = head + heading_h + 10
    height = int(top + first * pitch + margin)
    image = Image.new("RGB", (width * s, height * s), pal.background)
    draw = ImageDraw.Draw(image)
    _header(draw, pal, width * s, labels.title, _subtitle(t, labels))

    name_font = font(int(line_h * 0.56) * s)
    bold_font = font(int(line_h * 0.56) * s, bold=True)
    seed_font = font(int(line_h * 0.48) * s)
    heading_font = font(15 * s, bold=True)

    def centre_y(round_: int, table: int) -> float:
        round_ = min(round_, rounds)  # the winner's box stands level with the final
        span = 1 << (round_ - 1)  # first-round boxes under this one
        first_table = (table - 1) * span
        return top + (first_table + span / 2) * pitch - gap / 2

    def x_of(round_: int) -> float:
        return margin + (round_ - 1) * col_w

    for r in range(1, columns + 1):
        title = labels.winner if r > rounds else round_title(labels, r, rounds, knockout=True)
        text = _fit(_clean(title), heading_font, box_w * s)
        draw.text((x_of(r) * s, (head + 8) * s), text, font=heading_font, fill=pal.dim)

    def player_line(x: float, y: float, player: int | None, pairing: Pairing, empty: str) -> None:
        result = pairing.result
        won = result is not None and player is not None and result.winner == player
        lost = result is not None and not won
        if won:
            draw.rectangle(
                (x * s, y * s, (x + box_w) * s, (y + line_h) * s), fill=_mix(pal.panel, pal.accent)
            )
        colour = pal.dim if lost else pal.text
        if player is None:
            draw.text(((x + 8) * s, (y + line_h * 0.2) * s), empty, font=name_font, fill=pal.dim)
            return
        entrant = names[player]
        seed = str(entrant.seed or "")
        draw.text(((x + 6) * s, (y + line_h * 0.3) * s), seed, font=seed_font, fill=pal.dim)
        mark = _mark(pairing, player, labels)
        if entrant.withdrawn and not mark:
            mark = labels.withdrawn
        mark_w = name_font.getlength(mark) / s + 8 if mark else 0
        # Room for a two-digit seed and a clear gap before the name (a 16-player bracket).
        name_x = x + 16 + seed_font.getlength("88") / s
        fnt = bold_font if won else name_font
        name = _fit(_clean(entrant.name), fnt, (x + box_w - name_x - mark_w - 4) * s)
        draw.text((name_x * s, (y + line_h * 0.2) * s), name, font=fnt, fill=colour)
        if mark:
            draw.text(
                ((x + box_w - mark_w) * s, (y + line_h * 0.2) * s),
                mark,
                font=name_font,
                fill=colour,
            )

    for pairing in t.pairings:
        x = x_of(pairing.round)
        cy = centre_y(pairing.round, pairing.table)
        y = cy - box_h / 2
        if pairing.round == 1 and pairing.bye:
            # A bye is no match: the seed simply starts in round two.
            continue
        draw.rounded_rectangle(
            (x * s, y * s, (x + box_w) * s, (y + box_h) * s),
            radius=6 * s,
            fill=pal.panel,
            outline=pal.edge,
            width=s,
        )
        away_empty = labels.bye if pairing.bye else "—"
        player_line(x, y, pairing.home, pairing, "—")
        player_line(x, y + line_h, pairing.away, pairing, away_empty)
        draw.line(
            ((x + 4) * s, (y + line_h) * s, (x + box_w - 4) * s, (y + line_h) * s),
            fill=pal.panel_alt,
            width=s,
        )
        # The connector to the next round (or to the winner's box).
        nx, ny = x_of(pairing.round + 1), centre_y(pairing.round + 1, (pairing.table + 1) // 2)
        mid = x + box_w + 12
        draw.line(
            [((x + box_w) * s, cy * s), (mid * s, cy * s), (mid * s, ny * s), (nx * s, ny * s)],
            fill=pal.line,
            width=s,
        )

    # The winner.
    x, cy = x_of(columns), centre_y(columns, 1)
    winner = t.winner
    fill = pal.accent if winner is not None else pal.panel
    draw.rounded_rectangle(
        (x * s, (cy - line_h / 2) * s, (x + box_w) * s, (cy + line_h / 2) * s),
        radius=6 * s,
        fill=fill,
        outline=pal.edge,
        width=s,
    )
    if winner is not None:
        text = "★ " + _clean(names[winner].name)
        text = _fit(text, bold_font, (box_w - 16) * s)
        draw.text(
            ((x + 8) * s, (cy - line_h * 0.3) * s), text, font=bold_font, fill=pal.accent_text
        )
    return _finish(image)


def _mix(a: RGB, b: RGB, t: float = 0.35) -> RGB:
    r, g, bl = (round(x + (y - x) * t) for x, y in zip(a, b, strict=True))
    return (r, g, bl)


# -- standings table ---------------------------------------------------------------------


def table_image(
    t: Tournament, labels: StandingsLabels, theme: str = "classic", width: int = 1000
) -> Image.Image:
    """The standings table of a round robin or a Swiss (best first)."""
    pal = _palette(theme_by_name(theme))
    s = SCALE
    rows = t.standings()
    row_h = 34 if len(rows) <= 16 else 28
    margin = 20
    swiss = t.format is Format.SWISS
    # Columns: (label, width share, right-aligned). The player's name takes what is left.
    numbers = [
        (labels.played, 52),
        (labels.wins, 52),
        (labels.losses, 52),
        (labels.score, 64),
    ]
    if swiss:
        numbers.append((labels.buchholz, 64))
    numbers.append((labels.diff, 64))
    rank_w = 48
    name_w = width - 2 * margin - rank_w - sum(w for _, w in numbers)

    probe = Image.new("RGB", (width * s, 10 * s))
    head = _header(ImageDraw.Draw(probe), pal, width * s, labels.title, _subtitle(t, labels)) // s
    top = head + 12
    height = top + row_h * (len(rows) + 1) + margin
    image = Image.new("RGB", (width * s, height * s), pal.background)
    draw = ImageDraw.Draw(image)
    _header(draw, pal, width * s, labels.title, _subtitle(t, labels))

    size = int(row_h * 0.5)
    cell = font(size * s)
    bold = font(size * s, bold=True)
    heading = font(int(size * 0.9) * s, bold=True)
    text_y = (row_h - size * 1.2) / 2

    def right(x_end: float, y: float, text: str, fnt: ImageFont.FreeTypeFont, fill: RGB) -> None:
        draw.text(
            ((x_end - 10) * s - fnt.getlength(text), (y + text_y) * s), text, font=fnt, fill=fill
        )

    # Column headings.
    y = top
    draw.text(((margin + 8) * s, (y + text_y) * s), labels.rank, font=heading, fill=pal.dim)
    draw.text(((margin + rank_w) * s, (y + text_y) * s), labels.player, font=heading, fill=pal.dim)
    x = margin + rank_w + name_w
    for label, w in numbers:
        right(x + w, y, label, heading, pal.dim)
        x += w
    winner = t.winner
    for i, row in enumerate(rows):
        y = top + row_h * (i + 1)
        top_row = winner is not None and row.player == winner
        fill = pal.accent if top_row else (pal.panel if i % 2 == 0 else pal.panel_alt)
        draw.rounded_rectangle(
            (margin * s, y * s, (width - margin) * s, (y + row_h - 2) * s), radius=5 * s, fill=fill
        )
        ink = pal.accent_text if top_row else (pal.dim if row.withdrawn else pal.text)
        draw.text(((margin + 8) * s, (y + text_y) * s), str(row.rank), font=bold, fill=ink)
        name = _clean(row.name)
        suffix = f"  ({labels.withdrawn})" if row.withdrawn else ""
        fnt = bold if top_row else cell
        name = _fit(name + suffix, fnt, (name_w - 12) * s)
        draw.text(((margin + rank_w) * s, (y + text_y) * s), name, font=fnt, fill=ink)
        values = [str(row.played), str(row.wins), str(row.losses), f"{row.score:g}"]
        if swiss:
            values.append(f"{row.buchholz:g}")
        values.append(f"{row.point_diff:+g}".replace("-", "−") if row.point_diff else "0")
        x = margin + rank_w + name_w
        for column, ((_, w), value) in enumerate(zip(numbers, values, strict=True)):
            right(x + w, y, value, bold if column == 3 else cell, ink)  # the score in bold
            x += w
    return _finish(image)
