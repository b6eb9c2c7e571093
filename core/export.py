"""A contest as text: GNU Backgammon's ``.mat`` for Tavla, Tavla's notation for the others.

Tavla is written exactly as GNU Backgammon (and Jellyfish) write a match: it imports with
*File → Import → .mat*. Turkish tavla and Uzun Tavla are written in the same layout under a
header that names the game and its rules, and with the game named on the contest line
(`` 3 point Uzun Tavla match``), so that a backgammon program refuses the file instead of
misreading it (docs/notation.md describes the format; :func:`core.analysis.records.
parse_mat` and ``python -m core analyse`` read all three).

The record is a list of :class:`Action` per game (:func:`from_histories` makes it from
:attr:`core.game.Game.history`). Each game is laid out one line per exchange: seat 0's action
in the left column, seat 1's in the right; :func:`action_lines` gives the line of each action,
the one numbering every analysis text uses to name a move.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .events import Event, EventType
from .gnubg import match_id, position_id
from .match import Match
from .variants import Variant, variant_by_name

COLUMN = 28

#: GNU Backgammon (1.07, import.c ``ImportGame``) keeps 31 bytes of a name (MAX_NAME_LEN 32).
NAME_BYTES = 31
# gnubg reads a name up to the line's first colon, and ends it at a comma followed by a
# positive number (a GamesGrid rating): such characters are written as look-alikes.
_COLON = "\u2236"  # RATIO
_COMMA = "\u201a"  # SINGLE LOW-9 QUOTATION MARK
_RATING_COMMA = re.compile(r",(?=\s*\+?0*[1-9])")
_BREAKS = {"Cc", "Zl", "Zp"}

#: The version of Tavla's notation written in the ``Notation`` header (docs/notation.md).
NOTATION = "Tavla notation 1"
#: How the header and the contest line name each game written in Tavla's notation.
TITLES = {"turkish": "Turkish tavla", "uzun": "Uzun Tavla (long nardy)"}
#: The ``Rules`` header: the rules as played, in short, for a reader.
RULES = {
    "turkish": (
        "backgammon without the cube and without backgammons; mars (gammon) 2 points; the"
        " winner of a game opens the next one rolling both dice"
    ),
    "uzun": (
        "all 15 checkers start on the head (point 24), both sides move the same way round;"
        " no hitting; one checker off the head a turn (two on a first turn that needs it);"
        " no wall of six without an opposing checker past it; no cube; mars 2 points"
    ),
}


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


def from_histories(games: Iterable[Sequence[Event]]) -> list[list[Action]]:
    """Each game's :attr:`core.game.Game.history` as actions.

    Opening dice are left out, and so is a roll whose turn was never played (the game ended
    by a resignation or on time before the play): the record keeps whole turns only.
    """
    out: list[list[Action]] = []
    for events in games:
        actions: list[Action] = []
        for event in events:
            kind = event.get("type")
            seat = event.get("seat")
            if kind == EventType.ROLL:
                a, b = event["dice"]
                actions.append(Action("roll", seat, (a, b)))
            elif kind == EventType.PLAY:
                actions.append(Action("play", seat, play=event["play"]))
            elif kind in (EventType.PASS, EventType.DOUBLE, EventType.TAKE, EventType.DROP):
                actions.append(Action(str(kind), seat))
            elif kind == EventType.END:
                actions.append(Action("end", event.get("winner"), points=event.get("points", 0)))
        out.append(_whole_turns(actions))
    return out


def _whole_turns(actions: list[Action]) -> list[Action]:
    """``actions`` without a roll that no play or pass follows."""
    kept: list[Action] = []
    for index, action in enumerate(actions):
        following = actions[index + 1] if index + 1 < len(actions) else None
        if action.kind == "roll" and (following is None or following.kind not in ("play", "pass")):
            continue
        kept.append(action)
    return kept


# -- the contest's terms --------------------------------------------------------------------


def contest_terms(match: Match) -> tuple[int, bool]:
    """The match length and Jacoby rule a record gives ``match``, as it was played
    (:meth:`Match.terms`: a one-game contest with the cube is money play of one game)."""
    return match.terms()


def record_match_id(match: Match) -> str:
    """GNU Backgammon's Match ID of ``match``'s current state, on the terms of its record
    (:func:`contest_terms`): a one-game contest's ID is a money game's."""
    length, jacoby = contest_terms(match)
    info = match.match_id_info()
    if length != match.length:
        score = (int(match.score[0]), int(match.score[1]))
        info = replace(info, match_length=length, score=score, crawford=False)
    return match_id(replace(info, jacoby=jacoby))


# -- writing ----------------------------------------------------------------------------------


def export_contest(
    match: Match,
    names: Sequence[str],
    games: Iterable[Sequence[Event]],
    *,
    comments: Sequence[str] = (),
) -> str:
    """The text of ``match`` (its games' events in ``games``) on the terms it was played."""
    length, jacoby = contest_terms(match)
    return export_games(
        names, length, games, variant=match.variant, comments=comments, jacoby=jacoby
    )


def export_games(
    names: Sequence[str],
    length: int,
    games: Iterable[Sequence[Event]],
    *,
    variant: Variant | str = "tavla",
    comments: Sequence[str] = (),
    jacoby: bool = False,
) -> str:
    """The text of a contest: ``games`` holds each game's events in order.

    ``length`` 0 is money play; ``jacoby`` says whether the Jacoby rule was on then (GNU
    Backgammon keeps no mark of it in a ``.mat``: the file says it in XG's header line).
    ``comments`` (an analysis, say) are written as ``;`` lines in the header: the one place
    the format has for them (gnubg's import stops at a ``;`` line between a game's moves).
    """
    return export_actions(
        names,
        length,
        from_histories(games),
        variant=variant,
        comments=comments,
        jacoby=jacoby,
    )


def export_actions(
    names: Sequence[str],
    length: int,
    games: Sequence[Sequence[Action]],
    *,
    variant: Variant | str = "tavla",
    comments: Sequence[str] = (),
    jacoby: bool = False,
) -> str:
    """:func:`export_games` for games already given as :class:`Action` lists."""
    game = variant_by_name(variant) if isinstance(variant, str) else variant
    out = header_lines(game, length, jacoby)
    for comment in comments:
        out.extend(f"; {line}".rstrip() for line in str(comment).splitlines() or [""])
    title = f" {TITLES[game.name].split(' (')[0]}" if game.name in TITLES else ""
    out += [f" {length} point{title} match", ""]
    score = [0.0, 0.0]
    shown = [mat_name(name, f"Player {seat + 1}") for seat, name in enumerate(names[:2])]
    for number, actions in enumerate(games, 1):
        out.append(f" Game {number}")
        left = f" {shown[0]} : {_score(score[0])}"
        # At least one space after the score: gnubg reads the score up to a space.
        out.append(f"{left:<{COLUMN + 5}} {shown[1]} : {_score(score[1])}")
        out.extend(_layout(_cells(actions, score, length)))
        out.append("")
    return "\n".join(out) + "\n"


def header_lines(variant: Variant, length: int, jacoby: bool) -> list[str]:
    """The ``; [Key "value"]`` lines that open the text: none for a Tavla match (gnubg's
    own format), the Jacoby rule for Tavla money play, the game, its rules, its options,
    its starting position and the notation's version for the others."""
    if variant.name not in TITLES:
        return [f'; [Jacoby "{"On" if jacoby else "Off"}"]'] if length == 0 else []
    lines = [
        f'; [Variant "{TITLES[variant.name]}"]',
        f'; [Rules "{RULES[variant.name]}"]',
    ]
    options = [name for name, on in variant.options.items() if on]
    if options:
        lines.append(f'; [Options "{", ".join(options)}"]')
    lines.append(f'; [Start "{position_id(variant.start_position())}"]')
    lines.append(f'; [Notation "{NOTATION}"]')
    return lines


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


def _score(points: float) -> str:
    """A score as written: whole points, or with the half of a drawn game (U-draw)."""
    return str(int(points)) if points == int(points) else f"{points:g}"


# -- the layout -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Cell:
    """One entry of the two columns: ``seat`` (None: a line of its own), its text, and the
    indices of the actions it writes."""

    seat: int | None
    text: str
    actions: tuple[int, ...]


def _cells(
    actions: Sequence[Action], score: list[float] | None = None, length: int = 0
) -> list[_Cell]:
    """A game's actions as cells: a roll with its play (or its pass), a cube action, the
    end. ``score`` (both players' points before the game) is brought up to date."""
    score = score if score is not None else [0.0, 0.0]
    cells: list[_Cell] = []
    cube = 1
    roll: tuple[int, Action] | None = None
    for index, action in enumerate(actions):
        seat = action.seat
        if action.kind == "roll" and action.dice is not None:
            roll = (index, action)
        elif action.kind in ("play", "pass"):
            dice = f"{roll[1].dice[0]}{roll[1].dice[1]}:" if roll and roll[1].dice else ""
            text = f"{dice} {action.play}" if action.kind == "play" else dice
            first = (roll[0],) if roll else ()
            cells.append(_Cell(seat, text.strip(), (*first, index)))
            roll = None
        elif action.kind == "double":
            cube *= 2
            cells.append(_Cell(seat, f"Doubles => {cube}", (index,)))
        elif action.kind == "take":
            cells.append(_Cell(seat, "Takes", (index,)))
        elif action.kind == "drop":
            cells.append(_Cell(seat, "Drops", (index,)))
        elif action.kind == "end" and seat is not None:
            score[seat] += action.points
            won = " and the match" if length and score[seat] >= length else ""
            plural = "s" if action.points != 1 else ""
            cells.append(_Cell(seat, f"Wins {action.points} point{plural}{won}", (index,)))
        elif action.kind == "end":
            score[0] += 0.5
            score[1] += 0.5
            cells.append(_Cell(None, "Draw", (index,)))
    return cells


def _line_numbers(cells: Sequence[_Cell]) -> list[int]:
    """The line (from 1) of each cell: one line per exchange, seat 0's action and then seat
    1's; a new line when a seat acts again, and for a cell of no seat."""
    numbers: list[int] = []
    line = 0
    taken = [True, True]  # nothing can join line 0
    for cell in cells:
        seat = cell.seat
        if seat is None or taken[seat] or (seat == 0 and taken[1]):
            line += 1
            taken = [False, False]
        if seat is None:
            taken = [True, True]
        else:
            taken[seat] = True
        numbers.append(line)
    return numbers


def _layout(cells: Sequence[_Cell]) -> list[str]:
    """Two columns, one numbered line per exchange (:func:`_line_numbers`)."""
    rows: dict[int, list[str]] = {}
    for cell, line in zip(cells, _line_numbers(cells), strict=True):
        row = rows.setdefault(line, ["", ""])
        row[0 if cell.seat is None else cell.seat] = cell.text
    # The column ends with a space even under a left cell as wide as it (``11: bar/24
    # 22/21 16/15 11/10``), as in gnubg's files: glued, the two cells read as one action.
    return [
        f"{line:3d}) {left:<{COLUMN - 1}} {right}".rstrip()
        for line, (left, right) in sorted(rows.items())
    ]


def action_lines(actions: Sequence[Action]) -> list[int]:
    """The numbered line each of a game's ``actions`` is written on (the ``N)`` of the
    text): a roll and its play share their line, cube actions and the end have their own
    place. Every analysis names a move by this number, so that it is found in the file."""
    cells = _cells(actions)
    lines = [0] * len(actions)
    last = 1
    for cell, line in zip(cells, _line_numbers(cells), strict=True):
        for index in cell.actions:
            lines[index] = line
        last = line
    # An action that writes nothing (a roll no play follows) is named by the next line.
    following = last
    for index in range(len(actions) - 1, -1, -1):
        if lines[index]:
            following = lines[index]
        else:
            lines[index] = following
    return lines


def split_games(events: Iterable[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Group events tagged with ``"game"`` numbers into one list per game, in order."""
    games: dict[int, list[dict[str, Any]]] = {}
    for event in events:
        games.setdefault(int(event.get("game", 0)), []).append(event)
    return [games[k] for k in sorted(games)]
