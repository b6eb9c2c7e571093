"""Match export in GNU Backgammon's ``.mat`` (Jellyfish) text format.

The input is the games' event histories as core records them (:attr:`core.game.Game.history`,
each event tagged with its game number under ``"game"``): opening rolls, rolls, plays,
passes, cube actions, resignations and the end. The output imports into GNU Backgammon with
*File → Import → .mat*. Seat 0 is written in the left column, seat 1 in the right.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from .events import Event, EventType

COLUMN = 28

#: GNU Backgammon (1.07, import.c ``ImportGame``) keeps 31 bytes of a name (MAX_NAME_LEN 32).
NAME_BYTES = 31
# gnubg reads a name up to the line's first colon, and ends it at a comma followed by a
# positive number (a GamesGrid rating): such characters are written as look-alikes.
_COLON = "\u2236"  # RATIO
_COMMA = "\u201a"  # SINGLE LOW-9 QUOTATION MARK
_RATING_COMMA = re.compile(r",(?=\s*\+?0*[1-9])")
_BREAKS = {"Cc", "Zl", "Zp"}


def export_games(
    names: Sequence[str],
    length: int,
    games: Iterable[Sequence[Event]],
    *,
    variant: str = "tavla",
    comments: Sequence[str] = (),
) -> str:
    """The ``.mat`` text of a contest: ``games`` holds each game's events in order.

    Tavla's text is exactly gnubg's format. For Turkish tavla and Uzun Tavla (``variant``
    ``turkish`` or ``uzun``) a first comment line names the game: ``; [Variant "uzun"]``.
    ``comments`` (an analysis, say) are written as ``;`` lines in the header: the one place
    the format has for them (gnubg's import stops at a ``;`` line between a game's moves).
    """
    out = [f" {length} point match" if length else " 0 point match", ""]
    for comment in reversed(comments):
        for line in reversed(str(comment).splitlines() or [""]):
            out.insert(0, f"; {line}".rstrip())
    if variant != "tavla":
        out.insert(0, f'; [Variant "{variant}"]')
    score = [0.0, 0.0]
    shown = [mat_name(name, f"Player {seat + 1}") for seat, name in enumerate(names[:2])]
    for number, events in enumerate(games, 1):
        out.append(f" Game {number}")
        left = f" {shown[0]} : {int(score[0])}"
        # At least one space after the score: gnubg reads the score up to a space.
        out.append(f"{left:<{COLUMN + 5}} {shown[1]} : {int(score[1])}")
        out.extend(_game_lines(events, score, length))
        out.append("")
    return "\n".join(out) + "\n"


def mat_name(name: str, fallback: str) -> str:
    """``name`` as a ``.mat`` file can hold it, so that gnubg and :func:`core.analysis.records.
    parse_mat` read back this very text: on one line, no colon (it ends the name), no comma
    before a number (a rating), no space at either end, at most :data:`NAME_BYTES` bytes of
    UTF-8 cut at a character; ``fallback`` when nothing is left."""
    # Control characters (a NUL ends a C string, a newline a line) and line separators.
    text = "".join(" " if unicodedata.category(c) in _BREAKS else c for c in name)
    text = _RATING_COMMA.sub(_COMMA, text.replace(":", _COLON)).strip()
    text = text.encode()[:NAME_BYTES].decode("utf-8", "ignore").rstrip()
    return text or fallback


def _game_lines(events: Sequence[Event], score: list[float], length: int) -> list[str]:
    actions: list[tuple[int, str]] = []
    pending: dict[int, str] = {}
    for event in events:
        kind = event.get("type")
        seat: int = event.get("seat", -1)  # -1: an event of no seat (the end of a game)
        if kind == EventType.ROLL:
            a, b = event["dice"]
            pending[seat] = f"{a}{b}:"
        elif kind in (EventType.PLAY, EventType.PASS):
            text = pending.pop(seat, "")
            if kind == EventType.PLAY:
                text = f"{text} {event['play']}"
            actions.append((seat, text))
        elif kind == EventType.DOUBLE:
            actions.append((seat, f" Doubles => {event['value']}"))
        elif kind == EventType.TAKE:
            actions.append((seat, " Takes"))
        elif kind == EventType.DROP:
            actions.append((seat, " Drops"))
        elif kind == EventType.END and event.get("winner") is not None:
            winner = event["winner"]
            points = event["points"]
            score[winner] += points
            won = " and the match" if length and score[winner] >= length else ""
            actions.append((winner, f" Wins {points} point{'s' if points != 1 else ''}{won}"))
        elif kind == EventType.END:
            score[0] += 0.5
            score[1] += 0.5
    return _layout(actions)


def _layout(actions: list[tuple[int, str]]) -> list[str]:
    """Two columns, one line per exchange: seat 0's action, then seat 1's."""
    lines: list[str] = []
    row: list[str | None] = [None, None]

    def flush() -> None:
        left = row[0] or ""
        right = row[1] or ""
        lines.append(f"{len(lines) + 1:3d}) {left:<{COLUMN}}{right}".rstrip())
        row[0] = row[1] = None

    for seat, text in actions:
        text = text.strip()
        if row[seat] is not None or (seat == 0 and row[1] is not None):
            flush()
        row[seat] = text
    if row[0] is not None or row[1] is not None:
        flush()
    return lines


def split_games(events: Iterable[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Group events tagged with ``"game"`` numbers into one list per game, in order."""
    games: dict[int, list[dict[str, Any]]] = {}
    for event in events:
        games.setdefault(int(event.get("game", 0)), []).append(event)
    return [games[k] for k in sorted(games)]
