"""One way for tests to build a game service and press its buttons.

A service for tests has reproducible dice (a fresh seed per game, counted up from ``first``)
and, where a test moves time, a :class:`Clock` it controls. Buttons are found in a view by
their action code, as a player would find them by their label.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from typing import Any

from bot.service import actions as A
from bot.service.service import Actor, GameService, Place, ServiceSettings
from bot.service.views import Button, View
from bot.storage.base import Storage
from core.ai import player_for
from core.dice import SeededDice


class Clock:
    """A clock that stands still until the test moves it (``clock.now += 60``)."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def seeded_dice(first: int = 1) -> Callable[[], SeededDice]:
    """A dice factory: game n gets the seed of 32 bytes ``first + n - 1`` (mod 256)."""
    seeds = iter(range(first, first + 100_000))
    return lambda: SeededDice(bytes([next(seeds) % 256]) * 32)


def make_service(
    storage: Storage,
    settings: ServiceSettings | None = None,
    *,
    clock: Callable[[], float] = time.time,
    first_seed: int | None = 1,
    **changes: Any,
) -> GameService:
    """A service on ``storage`` with ``settings`` (the defaults if None, but the tutor not on
    by itself for new players: it would question a scripted player's every costly move) and
    ``changes`` to them; its dice seeded from ``first_seed`` (``None``: random seeds, as in
    production), and with them the computer's choices (``beginner`` draws its noise from a
    seed: unseeded, a test's game would differ from run to run)."""
    settings = settings or ServiceSettings(tutor_first_games=0)
    if changes:
        settings = replace(settings, **changes)
    return GameService(
        storage,
        settings,
        clock=clock,
        dice_factory=SeededDice if first_seed is None else seeded_dice(first_seed),
        computer=None if first_seed is None else partial(player_for, seed=first_seed),
    )


def buttons_of(view: View) -> Iterable[Button]:
    """Every button of a view, row by row."""
    for row in view.buttons:
        yield from row


def find_action(ids: Iterable[str], code: str, *, prefix: str = "") -> str | None:
    """The first of ``ids`` (action ids as a platform carries them, each after ``prefix``)
    whose action is ``code``, if any."""
    for data in ids:
        action = A.decode(data.removeprefix(prefix))
        if action and action.code == code:
            return data
    return None


def find(view: View, code: str) -> str | None:
    """The action id of the first button of ``view`` with action ``code``, if any."""
    return find_action((button.action for button in buttons_of(view)), code)


def actions_of(views: Iterable[View]) -> dict[str, str]:
    """The first action id of each action code on the buttons of ``views``."""
    found: dict[str, str] = {}
    for view in views:
        for button in buttons_of(view):
            action = A.decode(button.action)
            if action:
                found.setdefault(action.code, button.action)
    return found


async def press(
    service: GameService, actor: Actor, place: Place, view: View, code: str
) -> list[View]:
    """Press the button of ``view`` with action ``code`` (it must be there)."""
    action = find(view, code)
    assert action is not None, f"no {code!r} button on the board"
    return await service.press(actor, place, action)


async def a_step(service: GameService, actor: Actor, place: Place, view: View) -> str:
    """The action id of a press on ``view`` that moves a checker: a move button, or the first
    move of the first checker picked (a pick alone changes only the keyboard)."""
    step = find(view, A.MOVE)
    if step is None:
        picked = await press(service, actor, place, view, A.SELECT)
        shown = [v for v in picked if v.buttons and not v.notice]
        step = find(shown[-1], A.MOVE) if shown else None
    assert step is not None, "no checker to move on the board"
    return step


async def resign(
    service: GameService, actor: Actor, place: Place, level: str = "", **kwargs: Any
) -> list[View]:
    """``/resign`` (at ``level``) and a press on the board's "Yes, resign": the offer made
    (answered at once by the computer). ``kwargs`` go to the command (``reply_to_game``)."""
    asked = await service.command(actor, place, "resign", level, **kwargs)
    yes = next((data for view in asked if (data := find(view, A.RESIGN))), None)
    assert yes is not None, f"no 'Yes, resign' in {asked}"
    return await service.press(actor, place, yes)
