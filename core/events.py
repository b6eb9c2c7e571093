"""The events of a game's history: one schema for everything that reads them.

:attr:`core.game.Game.history` is a list of :class:`Event` s, kept as plain JSON dicts (so
the history stored with every game, and the event log, stay readable as they were written).
The kinds and their fields:

========================  =====================================================================
``start``                 ``opening`` (``roll``, ``winner_rolls`` or ``winner``), ``starter``
``opening``               ``dice``: one die each (seat 0's, seat 1's); ties are rolled again
``roll``                  ``seat``, ``dice``; ``opening``: the opening dice, not a new draw
``play``                  ``seat``, ``play`` (notation), ``steps`` ([from, to, hit, die] each),
                          ``forced`` (the only play, made for the player)
``pass``                  ``seat`` (no legal move)
``double``, ``take``      ``seat``, ``value`` (the cube's value offered or taken)
``drop``                  ``seat``
``resign``                ``seat``, ``kind`` (``single``, ``gammon``, ``backgammon``)
``resign_accept``/…       ``seat`` (``resign_decline`` too)
``forfeit``               ``seat`` (the loser), ``reason``
``end``                   ``winner`` (None: a draw), ``kind``, ``points``, ``reason``
========================  =====================================================================

Events the service logs carry the game's number in the contest under ``game``.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any


class EventType(StrEnum):
    """The kind of a history event."""

    START = "start"
    OPENING = "opening"
    ROLL = "roll"
    PLAY = "play"
    PASS = "pass"
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"
    RESIGN = "resign"
    RESIGN_ACCEPT = "resign_accept"
    RESIGN_DECLINE = "resign_decline"
    FORFEIT = "forfeit"
    END = "end"


#: One entry of a game's history: a JSON dict whose ``type`` is an :class:`EventType` value,
#: with the fields the module's table gives for that kind.
Event = dict[str, Any]


def dice_record(events: Iterable[Event]) -> list[tuple[int, ...]]:
    """Every draw of the dice in ``events``, in order, as :func:`core.dice.verify_game_rolls`
    wants: each opening die alone, then each roll's pair (the opening dice are not drawn
    again when the opener plays them)."""
    record: list[tuple[int, ...]] = []
    for event in events:
        kind = event.get("type")
        if kind == EventType.OPENING:
            record.extend((d,) for d in event["dice"])
        elif kind == EventType.ROLL and not event.get("opening"):
            record.append(tuple(event["dice"]))
    return record
