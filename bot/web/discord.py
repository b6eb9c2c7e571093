"""The web board on Discord: "Open the board" answers each player with a personal link
(ephemeral, so nobody else can use it), a "Watch" link for everyone, and the relay that
edits the channel's board after a turn played on the web."""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import Any

import discord

from bot.config import Config
from bot.i18n import normalize_language, t, translate
from bot.service.service import GameService
from bot.service.views import View

from . import relay
from .auth import LinkSigner
from .links import seat_url, watch_url
from .run import signer_for

log = logging.getLogger(__name__)

PLATFORM = "discord"
OPEN = t("🎯 Open the board")
WATCH = t("👁 Watch")
YOUR_LINK = t("Your personal board for this game (do not share it): {url}")
WATCH_LINK = t("You are not playing in this game; here is the board to watch it: {url}")

_base_url: str | None = None
_signer: LinkSigner | None = None


def enable_web_board(config: Config, client: Any) -> None:
    """Called by the Discord adapter before it connects: the button, and the chat relay."""
    global _base_url, _signer
    if not config.web_base_url:
        return
    _base_url, _signer = config.web_base_url, signer_for(config)
    client.add_dynamic_items(OpenBoardButton)
    adapter = client.adapter

    async def deliver(views: list[View], chat_id: str) -> None:
        for view in views:
            await adapter.send_background(dataclasses.replace(view, chat=(PLATFORM, chat_id)))

    relay.register(PLATFORM, deliver)


def disable_web_board() -> None:
    """Forget the web board (tests; a client that stops)."""
    global _base_url, _signer
    _base_url = _signer = None
    relay.unregister(PLATFORM)


async def board_link(service: GameService, game_id: int, user_id: str, lang: str) -> str | None:
    """The answer to "Open the board": a seat link for a player, a watch link for others."""
    if _base_url is None or _signer is None:
        return None
    record = await service.game_record(game_id)
    if record is None:
        return None
    # A pool game's record may be the other seat's (on Telegram): the Discord player is
    # found among the seats by platform and id, never by the id alone.
    for seat, user in await service.seated(record):
        if (user.platform, user.platform_id) == (PLATFORM, user_id):
            url = seat_url(_base_url, _signer, game_id, seat, user.id)
            return translate(t(YOUR_LINK.msgid, url=url), lang)
    return translate(t(WATCH_LINK.msgid, url=watch_url(_base_url, _signer, game_id)), lang)


class OpenBoardButton(
    discord.ui.DynamicItem[discord.ui.Button], template=r"tw:(?P<game>[0-9]{1,19})"
):
    """The board message's "Open the board" button (its custom id carries the game)."""

    def __init__(self, game_id: int, label: str | None = None, row: int | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or "🎯",
                style=discord.ButtonStyle.secondary,
                custom_id=f"tw:{game_id}",
                row=row,
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> OpenBoardButton:
        label = item.label if isinstance(item, discord.ui.Button) else None
        return cls(int(match["game"]), label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        adapter = getattr(interaction.client, "adapter", None)
        lang = normalize_language(interaction.locale.value if interaction.locale else None) or "en"
        text = None
        if adapter is not None:
            text = await board_link(adapter.service, self.game_id, str(interaction.user.id), lang)
        await interaction.response.send_message(text or "—", ephemeral=True)


def with_web_board(ui: discord.ui.View | None, view: View) -> discord.ui.View | None:
    """``ui`` with "Open the board" and "Watch" on board messages, when the board is served
    and Discord's five rows leave room."""
    if _base_url is None or _signer is None or view.game_id is None or not view.shows_board:
        return ui
    ui = ui or discord.ui.View(timeout=None)
    rows = {getattr(item, "row", None) for item in ui.children}
    row = max((r for r in rows if r is not None), default=-1) + 1
    if row > 4:
        return ui
    ui.add_item(OpenBoardButton(view.game_id, translate(OPEN, view.lang), row=row))
    ui.add_item(
        discord.ui.Button(
            label=translate(WATCH, view.lang),
            style=discord.ButtonStyle.link,
            url=watch_url(_base_url, _signer, view.game_id),
            row=row,
        )
    )
    return ui
