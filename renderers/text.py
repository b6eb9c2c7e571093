"""The text board, in the style of GNU Backgammon's: for the console and as a fallback.

White's checkers are ``O`` and Black's ``X``. The board is seen from the viewer's side, as
the picture is (their points 1..24 run from bottom right round to top right, or, with the
home on the left, from bottom left round to top left); a stack taller than five shows its
count in its fifth row, as gnubg does. Everything else is written to the
right: names, pips, score and checkers borne off beside each player's edge of the board, and
the cube, the dice and the match in the middle.
"""

from __future__ import annotations

from core.dice import larger_first
from core.position import BAR, OFF

from .view import HOME_LEFT, WHITE, BoardView

SYMBOL = {WHITE: "O", "black": "X"}
ROWS = 5


def _cell(text: str) -> str:
    return f"{text:>2} "


def _column(color: str | None, count: int, row: int) -> str:
    """What row ``row`` (0 at the board's edge) of a stack shows."""
    if not count or color is None or row >= min(count, ROWS):
        return _cell("")
    if row == ROWS - 1 and count > ROWS:
        return _cell(str(count))
    return _cell(SYMBOL[color])


def _dice_text(view: BoardView) -> str:
    dice = view.all_dice
    if not dice:
        return ""
    shown = "-".join(str(d) for d in larger_first(view.dice))
    used = [str(d) for i, d in enumerate(dice) if view.die_used(i)]
    text = f"{view.label('dice')} {shown}"
    return text + (f" ({view.label('used')} {' '.join(used)})" if used else "")


def _player_lines(view: BoardView, color: str) -> tuple[str, str]:
    # A side without a player's name (a puzzle's) is called by its colour: said once.
    colour = f" ({view.label(color)})" if view.names.get(color) else ""
    name = f"{SYMBOL[color]}  {view.name(color)}{colour}"
    if view.to_move == color:
        name += f"  <- {view.label('to_move')}"
    elif view.winner == color:
        name += f"  * {view.label('winner')}"
    side = view.side(color)
    facts = [f"{view.label('pips')} {view.pips()[color]}", f"{view.label('off')} {side[OFF]}"]
    if view.shows_score:
        facts.append(f"{view.label('score')} {view.score.get(color, 0)}")
    if side[BAR]:
        facts.append(f"{view.label('bar')} {side[BAR]}")
    return name, "  ".join(facts)


def _bar_word(view: BoardView) -> str:
    """The middle strip's three letters: the bar in the board's language where the word
    fits (БАР), BAR where it does not; blank in Uzun Tavla, which has no bar (U-3)."""
    if not view.variant.hitting:
        return "   "
    word = view.label("bar").upper()
    return word if len(word) == 3 else "BAR"


def render_text(view: BoardView) -> str:
    """The board of ``view`` as lines of text (no trailing newline)."""
    board = view.points()
    top_points: tuple[int, ...] = (*range(13, 19), *range(19, 25))
    bottom_points: tuple[int, ...] = (*range(12, 6, -1), *range(6, 0, -1))
    if view.home == HOME_LEFT:
        # The mirror image: the columns in the other order; the bar and the words stay.
        top_points, bottom_points = top_points[::-1], bottom_points[::-1]
    bars = {True: view.side(view.viewer)[BAR], False: view.side(view.opponent)[BAR]}

    def numbers(points: tuple[int, ...]) -> str:
        cells = [_cell(str(p)) for p in points]
        return " " + "".join(cells[:6]) + "     " + "".join(cells[6:])

    def row(points: tuple[int, ...], r: int, upper: bool) -> str:
        cells = [_column(*board[p], r) for p in points]
        bar_color = view.viewer if upper else view.opponent
        bar = _column(bar_color, bars[upper], r)
        return "|" + "".join(cells[:6]) + "|" + bar + "|" + "".join(cells[6:]) + "|"

    frame = "+" + "-" * 18 + "+---+" + "-" * 18 + "+"
    lines = [numbers(top_points), frame]
    # The upper half grows down from the frame; the bar's upper half holds the viewer's.
    lines += [row(top_points, r, upper=True) for r in range(ROWS)]
    lines.append("|" + " " * 18 + "|" + _bar_word(view) + "|" + " " * 18 + "|")
    lines += [row(bottom_points, r, upper=False) for r in reversed(range(ROWS))]
    lines += [frame, numbers(bottom_points)]

    notes: dict[int, str] = {}
    top_name, top_facts = _player_lines(view, view.opponent)
    bottom_name, bottom_facts = _player_lines(view, view.viewer)
    notes[0], notes[1] = top_name, top_facts
    notes[13], notes[14] = bottom_facts, bottom_name
    if view.last_play and view.last_play_color:
        played = view.last_play_text()
        notes[2 if view.last_play_color == view.opponent else 12] = (
            f"{view.label('played')} {played}"
        )
    middle = []
    if view.cube_value is not None:
        owner = view.name(view.cube_owner) if view.cube_owner else view.label("centred")
        middle.append(f"{view.label('cube')} {view.cube_value} ({owner})")
    if view.dice:
        middle.append(_dice_text(view))
    notes[7] = "   ".join(middle)
    match = []
    if view.match_length > 1:
        match.append(view.label("match_to", n=view.match_length))
    if view.crawford:
        match.append(view.label("crawford"))
    if match:
        notes[6] = ", ".join(match)
    if not view.variant.hitting:
        heads = ", ".join(
            f"{SYMBOL[c]} {view.to_viewer(c, 24)}" for c in (view.viewer, view.opponent)
        )
        notes[8] = f"{view.label('heads')}: {heads}"
    if view.highlights:
        reach = " ".join(view.label("off") if p == OFF else str(p) for p in view.highlights)
        notes[10] = f"{view.label('can_reach')}: {reach}"
    out = [line + (f"    {notes[i]}" if notes.get(i) else "") for i, line in enumerate(lines)]
    if view.caption:
        out.append(view.caption)
    return "\n".join(line.rstrip() for line in out)


__all__ = ["render_text"]
