"""A contest's record in one plain form, from core's event histories or from a ``.mat`` file.

The analysis replays a list of games, each a list of :class:`Action`: rolls, plays, passes,
cube actions and the end. :func:`from_histories` reads :attr:`core.game.Game.history` lists
(what the bot stores; both come from :mod:`core.export`, which writes them); :func:`parse_mat`
reads the text :func:`core.export.export_games` writes for all three games (GNU Backgammon's
``.mat`` for Tavla, Tavla's notation for Turkish tavla and Uzun Tavla: docs/notation.md) and
the ``.mat`` files GNU Backgammon writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.errors import TavlaError
from core.export import Action, action_lines, from_histories
from core.variants import find_variant

__all__ = ["Action", "Record", "RecordError", "action_lines", "from_histories", "parse_mat"]


class RecordError(TavlaError, ValueError):
    """A record that cannot be read or replayed."""


@dataclass
class Record:
    """A contest: the match length (0 money), names, games, and what the header says.

    ``variant`` is the game's name (``tavla``, ``turkish``, ``uzun``) when the file names
    one, ``options`` the variant's options it turns on, ``jacoby`` the Jacoby rule when the
    file says (None: it does not; GNU Backgammon then applies its own setting).
    """

    length: int
    names: tuple[str, str] = ("Player 0", "Player 1")
    games: list[list[Action]] = field(default_factory=list)
    variant: str | None = None
    options: dict[str, bool] = field(default_factory=dict)
    jacoby: bool | None = None


_HEADER = re.compile(r"^\s*(\d+)\s+point\s+(?:(?P<game>\S.*?)\s+)?match\b", re.IGNORECASE)
_KEY = re.compile(r'^\s*;\s*\[(?P<key>[A-Za-z][\w ]*?)\s+"(?P<value>[^"]*)"\]\s*$')
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_NAMES = re.compile(r"^\s*(.*?)\s*:\s*(-?\d+(?:\.\d+)?)\s+(.*?)\s*:\s*(-?\d+(?:\.\d+)?)\s*$")
_MOVE_LINE = re.compile(r"^\s*(\d+)\)(.*)$")
# A play ends where the next action begins, even with no space before it: files written
# before the left column kept one glued a long play to its answer (``9/8*46: bar/21*``).
_ACTION = re.compile(
    r"(?P<roll>[1-6][1-6]):(?P<play>[^:]*?)(?=\s*[1-6][1-6]:|\s*(?:Doubles|Takes|Drops|Passes"
    r"|Wins|Beavers)\b|\s*$)"
    r"|(?P<double>Doubles\s*=>\s*\d+)|(?P<take>Takes|Beavers)|(?P<drop>Drops|Passes)"
    r"|Wins\s+(?P<wins>\d+)\s+points?(?:\s+and\s+the\s+match)?|(?P<draw>\bDraw\b)",
    re.IGNORECASE,
)
# A right-column action starts at least this far into the line's text (the left column is
# 28 wide in core's export and gnubg's).
_RIGHT_COLUMN = 14


def variant_named(name: str) -> str:
    """The game a file's header or contest line names (``Uzun Tavla (long nardy)``,
    ``Turkish tavla``, ``Backgammon``, ``uzun``): its first word, as :func:`core.variants.
    find_variant` knows it. Raises :class:`RecordError` for a game the project does not play."""
    words = name.replace("(", " ").split()
    try:
        return find_variant(words[0] if words else "").name
    except ValueError:
        raise RecordError(
            f"the file is a match of {name!r}, a game this program does not play"
        ) from None


def parse_mat(text: str) -> Record:
    """Read a match: length, names, the game and rules its header names, every game."""
    record = Record(length=0)
    seen_header = False
    in_header = True  # the leading "; [Key "value"]" lines, before any other comment
    names: tuple[str, str] | None = None
    current: list[Action] | None = None
    names_line = False
    for number, line in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        if not line.strip():
            continue
        if names_line:
            # The line after "Game N" names the players, whatever the names look like (a
            # move line "1) x", a comment "; x"), as gnubg reads it.
            names_line = False
            if m := _NAMES.match(line):
                names = names or (m.group(1), m.group(3))
                continue
        if line.lstrip().startswith(";"):
            if in_header and not seen_header and (m := _KEY.match(line)):
                _header(record, m.group("key").strip().casefold(), m.group("value").strip())
            else:
                in_header = False
            continue
        if not seen_header and (m := _HEADER.match(line)):
            record.length = int(m.group(1))
            if m.group("game"):
                record.variant = variant_named(m.group("game"))
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
        raise RecordError("not a match record: no 'N point match' line")
    if names:
        record.names = names
    return record


def _header(record: Record, key: str, value: str) -> None:
    """One ``; [Key "value"]`` line of the header (other keys are left to their readers)."""
    if key in ("variant", "variation"):
        record.variant = variant_named(value)
    elif key == "jacoby":
        record.jacoby = value.casefold() in ("on", "yes", "true", "1")
    elif key == "options":
        record.options = {word: True for word in re.split(r"[\s,]+", value) if word}


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
        elif m.group("draw"):
            actions.append(Action("end", None))
