"""A contest's record in one plain form, from core's event histories or from a ``.mat`` file.

The analysis replays a list of games, each a list of :class:`Action`: rolls, plays, passes,
cube actions and the end. :func:`from_histories` reads :attr:`core.game.Game.history` lists
(what the bot stores and :mod:`core.export` writes); :func:`parse_mat` reads the ``.mat``
text that :func:`core.export.export_games` (or GNU Backgammon) writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from core.errors import TavlaError


class RecordError(TavlaError, ValueError):
    """A record that cannot be read or replayed."""


@dataclass(frozen=True)
class Action:
    """One thing a player did: ``kind`` is roll, play, pass, double, take, drop or end.

    ``dice`` for a roll; ``play`` the notation for a play; for the end ``seat`` is the winner
    (None for a draw) and ``points`` what was won.
    """

    kind: str
    seat: int | None
    dice: tuple[int, int] | None = None
    play: str = ""
    points: int = 0


@dataclass
class Record:
    """A contest: the variant's name as given, the match length (0 money), names, games."""

    length: int
    names: tuple[str, str] = ("Player 0", "Player 1")
    games: list[list[Action]] = field(default_factory=list)
    variant: str | None = None


def from_histories(games: Iterable[list[dict[str, Any]]]) -> list[list[Action]]:
    """Each game's :attr:`core.game.Game.history` as actions (opening dice are left out)."""
    out: list[list[Action]] = []
    for events in games:
        actions: list[Action] = []
        for event in events:
            kind = event.get("type")
            seat = event.get("seat")
            if kind == "roll":
                a, b = event["dice"]
                actions.append(Action("roll", seat, (a, b)))
            elif kind == "play":
                actions.append(Action("play", seat, play=event["play"]))
            elif kind in ("pass", "double", "take", "drop"):
                actions.append(Action(kind, seat))
            elif kind == "end":
                actions.append(Action("end", event.get("winner"), points=event.get("points", 0)))
        out.append(actions)
    return out


_HEADER = re.compile(r"^\s*(\d+)\s+point\s+match", re.IGNORECASE)
_VARIANT = re.compile(r'^\s*;\s*\[Variant\s+"([^"]*)"\]', re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_NAMES = re.compile(r"^\s*(.*?)\s*:\s*(-?\d+)\s+(.*?)\s*:\s*(-?\d+)\s*$")
_MOVE_LINE = re.compile(r"^\s*(\d+)\)(.*)$")
_ACTION = re.compile(
    r"(?P<roll>[1-6][1-6]):(?P<play>[^:]*?)(?=\s+[1-6][1-6]:|\s+(?:Doubles|Takes|Drops|Passes"
    r"|Wins|Beavers)\b|\s*$)"
    r"|(?P<double>Doubles\s*=>\s*\d+)|(?P<take>Takes|Beavers)|(?P<drop>Drops|Passes)"
    r"|Wins\s+(?P<wins>\d+)\s+points?(?:\s+and\s+the\s+match)?",
    re.IGNORECASE,
)
# A right-column action starts at least this far into the line's text (the left column is
# 28 wide in core's export and gnubg's).
_RIGHT_COLUMN = 14


def parse_mat(text: str) -> Record:
    """Read a ``.mat`` match: length, names, the variant named in its header, every game."""
    record = Record(length=0)
    seen_header = False
    names: tuple[str, str] | None = None
    current: list[Action] | None = None
    names_line = False
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if names_line:
            # The line after "Game N" names the players, whatever the names look like (a
            # move line "1) x", a comment "; x"), as gnubg reads it.
            names_line = False
            if m := _NAMES.match(line):
                names = names or (m.group(1), m.group(3))
                continue
        if m := _VARIANT.match(line):
            record.variant = m.group(1).strip()
            continue
        if line.lstrip().startswith(";"):
            continue
        if not seen_header and (m := _HEADER.match(line)):
            record.length = int(m.group(1))
            seen_header = True
            continue
        if m := _GAME.match(line):
            current = []
            record.games.append(current)
            names_line = True
            continue
        if current is None:
            continue
        if m := _MOVE_LINE.match(line):
            _parse_move_line(m.group(2), current, number)
            continue
    if not seen_header:
        raise RecordError("not a .mat match: no 'N point match' header")
    if names:
        record.names = names
    return record


def _parse_move_line(body: str, actions: list[Action], number: int) -> None:
    found = list(_ACTION.finditer(body))
    if not body.strip():
        return
    if not found:
        raise RecordError(f"line {number}: cannot read {body.strip()!r}")
    for index, m in enumerate(found):
        # One action: its column tells the seat; two: left then right.
        seat = (1 if m.start() >= _RIGHT_COLUMN else 0) if len(found) == 1 else index
        if m.group("roll"):
            roll = m.group("roll")
            dice = (int(roll[0]), int(roll[1]))
            actions.append(Action("roll", seat, dice))
            play = m.group("play").strip()
            actions.append(Action("play", seat, play=play) if play else Action("pass", seat))
        elif m.group("double"):
            actions.append(Action("double", seat))
        elif m.group("take"):
            actions.append(Action("take", seat))
        elif m.group("drop"):
            actions.append(Action("drop", seat))
        elif m.group("wins"):
            actions.append(Action("end", seat, points=int(m.group("wins"))))
