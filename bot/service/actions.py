"""Compact action ids carried by buttons: ``<game id>:<version>:<code>``.

Telegram allows 64 bytes of callback data; these stay far below. The version is the game's
version when the button was drawn, so a press on an old board is recognised as stale.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from .numbers import parse_number

MAX_ACTION_BYTES = 64


class Code(StrEnum):
    """What a button does: the letters after the version in its action id."""

    ROLL = "r"
    DOUBLE = "d"
    TAKE = "t"
    DROP = "p"
    SELECT = "s"  # s<point>
    MOVE = "m"  # m<source>-<dest>[.<source>-<dest>...]: up to four steps, made in order
    BACK = "b"
    UNDO = "u"
    CONFIRM = "c"
    ACCEPT = "a"
    DECLINE = "x"
    RESIGN_ACCEPT = "ga"
    RESIGN_DECLINE = "gd"
    RESIGN = "gr"  # gr<seat><level 1-3>: "Yes, resign", the offer confirmed
    RESIGN_CANCEL = "gn"  # "No": the resignation (or the abandoning) asked about is not made
    ABANDON = "ab"  # "Yes, abandon": a game against oneself called off, once confirmed
    REMATCH = "re"
    CLAIM = "cl"
    SETTING = "o"  # o<choice>: a /settings button (game id and version 0)
    ANALYSE = "an"  # under a finished game's board: its analysis
    # pl<c|b>: the pool's waiting message: Cancel, play the computer meanwhile; pl<n|a|d>:
    # a player busy with the computer answers (start now, after this game, decline); plo: a
    # game of /games opened (its id before the version); pl s<n>:
    # a fixed phrase to the opponent of the game (its id before the version); plk: block them
    POOL = "pl"
    HINT = "h"  # 💡 under a board where hints are allowed
    HINT_YES = "hy"  # an unrated game's opponent allows hints for the game…
    HINT_NO = "hn"  # … or declines them
    PUZZLE = "z"  # z<candidate> under a puzzle (game id: the puzzle's), zn: the next one
    TUTOR_OK = "k"  # k<what>: the tutor asked, "Play it anyway" (steps, or d r t p, or none)
    TUTOR_BACK = "kb"  # the tutor asked, "Think again": the board as it was
    OWN_ROLLS = "ro"  # ro<seat>: in a busy chat, that seat rolls itself (to double first)


# The codes by their short names, as the service and the adapters write them (``A.ROLL``).
ROLL = Code.ROLL
DOUBLE = Code.DOUBLE
TAKE = Code.TAKE
DROP = Code.DROP
SELECT = Code.SELECT
MOVE = Code.MOVE
BACK = Code.BACK
UNDO = Code.UNDO
CONFIRM = Code.CONFIRM
ACCEPT = Code.ACCEPT
DECLINE = Code.DECLINE
RESIGN_ACCEPT = Code.RESIGN_ACCEPT
RESIGN_DECLINE = Code.RESIGN_DECLINE
RESIGN = Code.RESIGN
RESIGN_CANCEL = Code.RESIGN_CANCEL
ABANDON = Code.ABANDON
REMATCH = Code.REMATCH
CLAIM = Code.CLAIM
SETTING = Code.SETTING
ANALYSE = Code.ANALYSE
POOL = Code.POOL
HINT = Code.HINT
HINT_YES = Code.HINT_YES
HINT_NO = Code.HINT_NO
PUZZLE = Code.PUZZLE
TUTOR_OK = Code.TUTOR_OK
TUTOR_BACK = Code.TUTOR_BACK
OWN_ROLLS = Code.OWN_ROLLS


class Action(NamedTuple):
    game_id: int
    version: int
    code: Code
    arg: str = ""


def encode(game_id: int, version: int, code: Code, arg: str | int = "") -> str:
    """The action id of a button."""
    data = f"{game_id}:{version}:{code}{arg}"
    if len(data.encode()) > MAX_ACTION_BYTES:
        raise ValueError("action id too long")
    return data


# Longest first, so that "ga" is not read as "a" with an argument.
_CODES = sorted(Code, key=len, reverse=True)


def decode(data: str) -> Action | None:
    """The action of an id, or None if it is not one of ours (forged or garbled)."""
    if not data or len(data) > MAX_ACTION_BYTES:
        return None
    parts = data.split(":")
    if len(parts) != 3:
        return None
    # Game id 0 and version 0 are a /settings button's.
    game_id, version = parse_number(parts[0]), parse_number(parts[1])
    if game_id is None or version is None:
        return None
    rest = parts[2]
    for code in _CODES:
        if rest.startswith(code):
            arg = rest[len(code) :]
            if code is SELECT and parse_number(arg, 0, 25) is None:
                continue
            if code == MOVE and not _is_step(arg):
                return None
            if code == SETTING:
                if not (arg.isascii() and arg.isalnum() and 1 < len(arg) <= 12):
                    return None
                return Action(game_id, version, code, arg.lower())
            if code is TUTOR_OK:
                if arg in ("", "d", "r", "t", "p") or _is_step(arg):
                    return Action(game_id, version, code, arg)
                return None
            if code is PUZZLE:
                if not (len(arg) == 1 and (arg.isdigit() or arg == "n")):
                    return None
                return Action(game_id, version, code, arg)
            if code is OWN_ROLLS:
                return Action(game_id, version, code, arg) if arg in ("0", "1") else None
            if code is RESIGN:
                if len(arg) != 2 or arg[0] not in "01" or arg[1] not in "123":
                    return None
                return Action(game_id, version, code, arg)
            if code is POOL:
                said = len(arg) == 2 and arg[0] == "s" and arg[1].isdigit()
                known = arg in ("c", "b", "k", "n", "a", "d", "o") or said
                return Action(game_id, version, code, arg) if known else None
            if code not in (SELECT, MOVE, SETTING) and arg:
                continue
            return Action(game_id, version, code, arg)
    return None


def _is_step(arg: str) -> bool:
    parts = arg.split(".")
    return 1 <= len(parts) <= 4 and all(_one_step(part) for part in parts)


def _one_step(arg: str) -> bool:
    a, _, b = arg.partition("-")
    return parse_number(a, 0, 25) is not None and parse_number(b, 0, 24) is not None
