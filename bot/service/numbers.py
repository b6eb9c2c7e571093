"""Numbers that come from outside (command arguments, button data, web routes): one reading.

``str.isdigit`` accepts '²' and '١٢', which ``int`` turns into numbers or refuses with an
error; an id of 2**63 or more overflows SQLite's and PostgreSQL's integers. So every outside
number is read here: ASCII digits only, at most :data:`MAX_ID`, and within the field's own
range; anything else is ``None`` and the caller refuses it politely.
"""

from __future__ import annotations

#: The largest value a 64-bit signed database integer holds (SQLite INTEGER, PostgreSQL BIGINT).
MAX_ID = 2**63 - 1

# Longer text is refused before int() reads it (Python refuses over 4,300 digits with an
# error, and reading a megabyte of digits costs time); 2**63 - 1 has 19 digits.
_MAX_DIGITS = 24


def parse_number(text: str, low: int = 0, high: int = MAX_ID) -> int | None:
    """``text`` as a whole number in ``low..high``, or None.

    Only the ASCII digits 0-9 count (no sign, space, underscore or other script's digits).
    """
    if not text or len(text) > _MAX_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if low <= value <= min(high, MAX_ID) else None


def parse_id(text: str) -> int | None:
    """A record's id (a game, a tournament): a number in ``1..MAX_ID``, or None."""
    return parse_number(text, 1)
