"""Telegram's values as the service's and back: users, chats, keyboards, texts, message
references."""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.i18n import translate, translate_lines
from bot.service.views import Actor, Place, View

PLATFORM = "telegram"
CAPTION_LIMIT = 1024


def actor_id(update: Update) -> int:
    assert update.effective_user is not None
    return update.effective_user.id


def actor_of(user: Any) -> Actor:
    """The service's actor for a Telegram user."""
    return Actor(
        PLATFORM,
        str(user.id),
        user.full_name or user.username or str(user.id),
        user.username,
        user.language_code,
    )


def place_of(chat: Any) -> Place:
    """The service's place for a Telegram chat."""
    return Place(PLATFORM, str(chat.id), private=chat.type == "private", title=chat.title)


def keyboard(view: View) -> InlineKeyboardMarkup | None:
    """The view's buttons as an inline keyboard."""
    if not view.buttons:
        return None
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(translate(b.label, view.lang), callback_data=b.action)
                for b in row
            ]
            for row in view.buttons
        ]
    )


def _text(view: View, limit: int = 4096) -> str:
    text = translate_lines(view.lines, view.lang)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ref(target: dict[str, Any]) -> dict[str, Any]:
    """A board message reference as it is stored."""
    return {
        "chat_id": target["chat_id"],
        "message_id": target["message_id"],
        "photo": bool(target.get("photo")),
    }
