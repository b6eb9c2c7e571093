"""The web board in Telegram: the board message's button that opens it, and the relay that
edits the chat's board after a turn played on the web."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.config import Config
from bot.i18n import t, translate
from bot.service.views import View

from . import relay
from .links import direct_link, watch_url, webapp_url
from .run import signer_for

OPEN = t("🎯 Open the board")
WATCH = t("👁 Watch")


@dataclass(frozen=True)
class _Settings:
    base_url: str
    app_name: str | None
    config: Config


_settings: _Settings | None = None


def enable_web_board(
    config: Config, deliver: Callable[[list[View], str], Awaitable[None]], bot: Any
) -> None:
    """Called by the Telegram adapter once started: board buttons, and the chat relay, which
    hands the views of a turn played on the web to ``deliver(views, chat_id)``."""
    global _settings
    if not config.web_base_url:
        return
    _settings = _Settings(config.web_base_url, config.telegram_webapp, config)
    relay.register("telegram", deliver, draws=True)


def disable_web_board() -> None:
    """Forget the web board (tests; an adapter that stops)."""
    global _settings
    _settings = None
    relay.unregister("telegram")


def web_board_served() -> bool:
    """Whether board messages carry the web board's buttons (see :func:`with_web_board`)."""
    return _settings is not None and _settings.base_url.startswith("https://")


def with_web_board(
    markup: InlineKeyboardMarkup | None, view: View, chat_id: int | str, bot: Any
) -> InlineKeyboardMarkup | None:
    """``markup`` with a row opening the web board, on board messages when it is served.

    In a private chat (positive chat id) a ``web_app`` button opens the Mini App; in groups,
    where Telegram allows no ``web_app`` button, the direct Mini App link (when BotFather's
    app name is configured) beside the page's watch link (for a browser, or to pass on).
    """
    if _settings is None or view.game_id is None or not view.shows_board:
        return markup
    if not _settings.base_url.startswith("https://"):
        return markup  # Telegram refuses a message whose buttons open plain http pages
    game = view.game_id
    if not str(chat_id).startswith("-"):
        buttons = [
            InlineKeyboardButton(
                translate(OPEN, view.lang),
                web_app=WebAppInfo(webapp_url(_settings.base_url, game)),
            )
        ]
    else:
        signer = signer_for(_settings.config)
        buttons = [
            InlineKeyboardButton(
                translate(WATCH, view.lang), url=watch_url(_settings.base_url, signer, game)
            )
        ]
        if _settings.app_name:
            direct = direct_link(bot.username, _settings.app_name, signer, game)
            buttons.insert(0, InlineKeyboardButton(translate(OPEN, view.lang), url=direct))
    rows = [list(row) for row in markup.inline_keyboard] if markup else []
    return InlineKeyboardMarkup([*rows, buttons])
