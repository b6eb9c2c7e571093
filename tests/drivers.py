"""What a scripted player presses, shared by the end-to-end tests and the load bench, and a
free port for the tests that start servers."""

from __future__ import annotations

import socket

from bot.service import actions as A


def press_order(*, double: bool = False) -> tuple[str, ...]:
    """Button codes in the order a scripted player presses the first one offered: play on
    when the tutor asks, take a double, decline a resignation, confirm a finished move, move
    the picked checker, pick a checker, then double (with ``double``, when allowed) or roll."""
    return (
        A.TUTOR_OK,
        A.TAKE,
        A.RESIGN_DECLINE,
        A.CONFIRM,
        A.MOVE,
        A.SELECT,
        *((A.DOUBLE,) if double else ()),
        A.ROLL,
    )


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
