"""Move notation: reading what players type and writing plays the way gnubg does.

Written form (rules.md, Notation): ``from/to`` for each checker, ``*`` after a point where a
blot is hit, ``bar`` and ``off`` for the bar and bearing off, a checker's stops written out
(``24/18/16``) or not (``24/16``), and ``(2)`` for a move repeated. Parts are separated by
spaces or commas. Points are always the moving player's own numbers. A dash between points
reads as the slash (``13-8 8-5``, ``24-18(2)``): many players and books write moves so.

:func:`parse_legs` only reads the text; which legal play (or part of one) it means is decided
by :class:`core.turn.Turn`, which knows the position and the dice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import NamedTuple

from .errors import ErrorCode, NotationError
from .position import BAR, OFF

# Words for the bar and for bearing off: English, Turkish (with and without the Turkish
# letters, as phones often drop them) and Russian. Only words that cannot be misread.
BAR_WORDS = frozenset({"bar", "b", "kırık", "kirik", "orta", "бар"})
OFF_WORDS = frozenset(
    {"off", "o", "çık", "cik", "çıkış", "cikis", "dış", "dis", "dışarı", "disari", "topla"}
    | {"вне", "выброс"}
)

#: Between two points: the slash, or a dash (hyphen, en dash, minus sign: phones put either).
_SEP = "/\\-\u2013\u2212"
_POINT = rf"[^\s{_SEP}*()]+"
_TOKEN = re.compile(rf"^({_POINT})(\*?)((?:[{_SEP}]{_POINT}\*?)+)(?:\((\d+)\))?$")
_STOP = re.compile(rf"[{_SEP}]({_POINT})(\*?)")


class Leg(NamedTuple):
    """One checker's journey as written: its points (start, stops..., end) and hit marks.

    ``hits[i]`` is whether the writer marked a hit at ``points[i + 1]``.
    """

    points: tuple[int, ...]
    hits: tuple[bool, ...]

    @property
    def source(self) -> int:
        return self.points[0]

    @property
    def dest(self) -> int:
        return self.points[-1]


# Upper-case Turkish casefolds to a dotted i ("ÇIK" -> "çik", "İ" -> "i" + U+0307), a
# spelling in neither set: the letters without their marks give the plain form both hold.
_PLAIN_LETTERS = str.maketrans("çşığöü", "csigou", "\u0307")


def _point(word: str, text: str) -> int:
    w = word.casefold()
    plain = w.translate(_PLAIN_LETTERS)
    if w in BAR_WORDS or plain in BAR_WORDS:
        return BAR
    if w in OFF_WORDS or plain in OFF_WORDS:
        return OFF
    if not (w.isascii() and w.isdigit()):
        raise NotationError(
            f"I can't read {word!r} as a point in {text!r}: use numbers 1-24, 'bar' or 'off'",
            ErrorCode.NOTATION_BAD_POINT,
            word=word,
        )
    n = int(w)
    if not 0 <= n <= 25:
        raise NotationError(
            f"There is no point {n}: points are numbered 1 to 24",
            ErrorCode.NOTATION_NO_POINT,
            point=n,
        )
    return n


def parse_legs(text: str) -> list[Leg]:
    """Read typed notation into legs, one per checker (repeats expanded).

    Raises :class:`NotationError` with a message that names the part it could not read.
    """
    cleaned = text.strip().casefold()
    if not cleaned:
        raise NotationError("Write a move such as 13/8 6/5", ErrorCode.NOTATION_EMPTY)
    if len(cleaned) > 200:
        raise NotationError("That move is too long to be a move", ErrorCode.NOTATION_TOO_LONG)
    cleaned = re.sub(r"[,;]", " ", cleaned)
    cleaned = re.sub(rf"\s*([{_SEP}])\s*", r"\1", cleaned)
    cleaned = re.sub(r"\s+(?=[*(])", "", cleaned)
    cleaned = re.sub(r"\(\s*(\d+)\s*\)", r"(\1)", cleaned)
    legs: list[Leg] = []
    for token in cleaned.split():
        match = _TOKEN.match(token)
        if not match:
            raise NotationError(
                f"I can't read {token!r}: write each checker's move as from/to, e.g. 13/8",
                ErrorCode.NOTATION_SYNTAX,
                token=token,
            )
        first, _first_star, rest, repeat = match.groups()
        points = [_point(first, text)]
        hits = []
        for stop, star in _STOP.findall(rest):
            points.append(_point(stop, text))
            hits.append(bool(star))
        _check_direction(points, token)
        count = int(repeat) if repeat else 1
        if not 1 <= count <= 4:
            raise NotationError(
                f"A move can be repeated at most 4 times, not {count}",
                ErrorCode.NOTATION_REPEAT,
                count=count,
            )
        legs.extend([Leg(tuple(points), tuple(hits))] * count)
    if not legs:  # only separators, such as ","
        raise NotationError("Write a move such as 13/8 6/5", ErrorCode.NOTATION_EMPTY)
    if len(legs) > 4:
        raise NotationError(
            "A turn has at most four moves (four with a double)", ErrorCode.NOTATION_TOO_MANY
        )
    return legs


def _check_direction(points: Sequence[int], token: str) -> None:
    if points[0] == OFF:
        raise NotationError(
            f"{token}: a checker that is off the board can't move again",
            ErrorCode.NOTATION_FROM_OFF,
        )
    for i, (a, b) in enumerate(pairwise(points)):
        if b == BAR:
            raise NotationError(
                f"{token}: a checker can't move to the bar", ErrorCode.NOTATION_TO_BAR
            )
        if a == OFF and i:
            raise NotationError(f"{token}: nothing can follow 'off'", ErrorCode.NOTATION_AFTER_OFF)
        if b >= a:
            raise NotationError(
                f"{token}: checkers move from higher to lower numbers, like 13/8",
                ErrorCode.NOTATION_BACKWARDS,
                token=token,
            )


def point_name(point: int) -> str:
    """``bar``, ``off`` or the number."""
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    return str(point)


class _Path:
    __slots__ = ("hits", "points")

    def __init__(self, source: int, dest: int, hit: bool) -> None:
        self.points = [source, dest]
        self.hits = [hit]


def format_steps(steps: Iterable[tuple[int, int, bool]], dice: Sequence[int] = ()) -> str:
    """Write steps as gnubg does: highest first, one checker's steps joined, ``(2)`` repeats.

    An intermediate stop is elided unless a blot was hit there, or the checker went off from
    a point that one of the ``dice`` alone could bear off from (so ``4/3/off`` for 6-1 is
    not mistaken for a single 6).
    """
    ordered = sorted(steps, key=lambda s: (-s[0], -s[1]))
    paths: list[_Path] = []
    for source, dest, hit in ordered:
        for path in paths:
            if path.points[-1] == source and source != OFF:
                path.points.append(dest)
                path.hits.append(hit)
                break
        else:
            paths.append(_Path(source, dest, hit))
    top_die = max(dice, default=0)
    texts: list[str] = []
    for path in paths:
        points, hits = path.points, path.hits
        keep_all = points[-1] == OFF and points[0] <= top_die
        parts = [point_name(points[0])]
        last = len(points) - 1
        for i in range(1, len(points)):
            if i < last and not hits[i - 1] and not keep_all:
                continue
            parts.append(point_name(points[i]) + ("*" if hits[i - 1] else ""))
        texts.append("/".join(parts))
    out: list[str] = []
    counts: dict[str, int] = {}
    for t in texts:
        if t not in counts:
            out.append(t)
        counts[t] = counts.get(t, 0) + 1
    return " ".join(t if counts[t] == 1 else f"{t}({counts[t]})" for t in out)


def format_play(play: object) -> str:
    """Canonical notation of a :class:`core.movegen.Play` (or anything with steps and dice)."""
    steps = getattr(play, "steps", ())
    dice = getattr(play, "dice", ())
    return format_steps(steps, dice)
