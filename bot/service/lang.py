"""The language of an answer: the player's for private replies, the group's for what the
bot posts in a group."""

from __future__ import annotations

from bot.i18n import DEFAULT_LANGUAGE, Text, normalize_language
from bot.storage.base import Chat, User

from .views import View


def language(user: User | None, chat: Chat | None = None, *, private: bool = True) -> str:
    """The player's language for private replies, the group's for group messages (set
    with /lang, else the one most of its players use: :mod:`bot.service.group_lang`)."""
    if not private and chat is not None and (chat.lang or chat.group_lang):
        return chat.lang or chat.group_lang or DEFAULT_LANGUAGE
    if user is not None:
        lang = user.lang or normalize_language(user.platform_lang)
        if lang:
            return lang
    if chat is not None and chat.lang:
        return chat.lang
    return DEFAULT_LANGUAGE


def notice(user: User | None, chat: Chat | None, text: Text, alert: bool = False) -> View:
    """A short answer to one person (a toast where the platform has them)."""
    return View([text], lang=language(user, chat), notice=True, alert=alert)
