"""Persistent game buttons: discord.py ``DynamicItem`` s whose custom id is our action id.

A button's ``custom_id`` is ``tv:`` followed by the service's compact action id
(``<game>:<version>:<code>``, see :mod:`bot.service.actions`). Nothing about the button is
kept in memory: after a restart the client registers :class:`GameButton` again and every
board ever posted keeps working, because the template recognises its custom id and the
service loads the game (and checks the version) from the database.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Protocol

import discord

from bot.i18n import translate
from bot.service import actions as A
from bot.service.views import Button, View
from bot.web.discord import with_web_board

log = logging.getLogger(__name__)

PREFIX = "tv:"
#: Discord's limits: 5 rows of 5 buttons, labels of 80 characters.
MAX_ROWS = 5
MAX_PER_ROW = 5
LABEL_LIMIT = 80

_STYLES = {
    A.ROLL: discord.ButtonStyle.primary,
    A.CONFIRM: discord.ButtonStyle.success,
    A.ACCEPT: discord.ButtonStyle.success,
    A.TAKE: discord.ButtonStyle.success,
    A.RESIGN_ACCEPT: discord.ButtonStyle.success,
    A.DECLINE: discord.ButtonStyle.danger,
    A.DROP: discord.ButtonStyle.danger,
    A.RESIGN: discord.ButtonStyle.danger,
    A.DOUBLE: discord.ButtonStyle.primary,
    A.REMATCH: discord.ButtonStyle.primary,
    A.CLAIM: discord.ButtonStyle.primary,
}


def custom_id(action: str) -> str:
    """The custom id of a button carrying ``action``."""
    return PREFIX + action


def style_of(action: str) -> discord.ButtonStyle:
    decoded = A.decode(action)
    if decoded is None:
        return discord.ButtonStyle.secondary
    return _STYLES.get(decoded.code, discord.ButtonStyle.secondary)


class PressHandler(Protocol):
    """Who takes a button's press: the client's adapter (:class:`~bot.discord.adapter.DiscordAdapter`)."""

    async def on_press(self, interaction: discord.Interaction[Any], action: str) -> None: ...


class GameButton(
    discord.ui.DynamicItem[discord.ui.Button],
    # A game's action (its argument: a point, up to four steps ``13-7.7-2``, or a settings
    # choice ``tdark``), or a tournament card's (``tn:<tournament>:<code>``).
    template=r"tv:(?P<action>[0-9]{1,19}:[0-9]{1,19}:[a-z]{1,2}[0-9a-z.-]{0,24}|tn:[0-9]{1,19}:[a-z])",
):
    """One game button; its callback hands the press to the adapter of the client."""

    def __init__(
        self,
        action: str,
        *,
        label: str | None = None,
        style: discord.ButtonStyle | None = None,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=(label or "·")[:LABEL_LIMIT],
                style=style or style_of(action),
                custom_id=custom_id(action),
                row=row,
            )
        )
        self.action = action

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> GameButton:
        button = item if isinstance(item, discord.ui.Button) else None
        return cls(
            match["action"],
            label=button.label if button else None,
            style=button.style if button else None,
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        adapter: PressHandler | None = getattr(interaction.client, "adapter", None)
        if adapter is None:  # pragma: no cover - a client without our adapter
            log.warning("a game button was pressed on a client without the Tavla adapter")
            return
        await adapter.on_press(interaction, self.action)


def layout(rows: list[list[Button]]) -> list[list[Button]]:
    """The service's button rows within Discord's limits (5 rows of at most 5 buttons)."""
    split: list[list[Button]] = []
    for row in rows:
        for i in range(0, len(row), MAX_PER_ROW):
            split.append(row[i : i + MAX_PER_ROW])
    if len(split) <= MAX_ROWS:
        return split
    flat = [b for row in rows for b in row][: MAX_ROWS * MAX_PER_ROW]
    return [flat[i : i + MAX_PER_ROW] for i in range(0, len(flat), MAX_PER_ROW)]


def view_of(view: View) -> discord.ui.View | None:
    """The view's buttons as a persistent discord.py view (None when it has none)."""
    if not view.buttons:
        return with_web_board(None, view)
    ui = discord.ui.View(timeout=None)
    for r, row in enumerate(layout(view.buttons)):
        for button in row:
            ui.add_item(GameButton(button.action, label=translate(button.label, view.lang), row=r))
    return with_web_board(ui, view)
