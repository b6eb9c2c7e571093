"""What a scripted player presses, shared by the end-to-end tests and the load bench."""

from __future__ import annotations

from bot.service import actions as A


def press_order(*, double: bool = False) -> tuple[str, ...]:
    """Button codes in the order a scripted player presses the first one offered: take a
    double, decline a resignation, confirm a finished move, move the picked checker, pick a
    checker, then double (with ``double``, when allowed) or roll."""
    return (
        A.TAKE,
        A.RESIGN_DECLINE,
        A.CONFIRM,
        A.MOVE,
        A.SELECT,
        *((A.DOUBLE,) if double else ()),
        A.ROLL,
    )
