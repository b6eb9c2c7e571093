"""Telegram's values as the service's and back: users, chats, keyboards, texts, message
references."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    Update,
    User,
)

from bot.i18n import translate, translate_lines
from bot.service.mentions import Mention, mentions_in, pieces
from bot.service.views import Actor, MessageRef, Place, View

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


class CallbackKeyboard(InlineKeyboardMarkup):
    """An inline keyboard of callback buttons alone, as the service's views have.

    It is PTB's own :class:`InlineKeyboardMarkup` with PTB's buttons (PTB, the web board's
    extra row and the tests use it as one), but it keeps its JSON from the start: PTB's
    generic ``to_dict`` walks every attribute of every button (a dozen each), which cost
    about 0.3 ms of a board's edit, more than the rest of the request.
    """

    __slots__ = ("_rows_json",)

    def __init__(self, rows: Sequence[Sequence[tuple[str, str]]]) -> None:
        """``rows`` of (label, callback data)."""
        super().__init__(
            [[InlineKeyboardButton(text, callback_data=data) for text, data in row] for row in rows]
        )
        with self._unfrozen():
            self._rows_json = [
                [{"text": text, "callback_data": data} for text, data in row] for row in rows
            ]

    def to_dict(self, recursive: bool = True) -> dict[str, Any]:
        """The keyboard as the Bot API takes it (what PTB's own ``to_dict`` gives, which
        leaves out an empty list)."""
        return {"inline_keyboard": self._rows_json} if self._rows_json else {}


def keyboard(view: View) -> InlineKeyboardMarkup | None:
    """The view's buttons as an inline keyboard."""
    if not view.buttons:
        return None
    return CallbackKeyboard(
        [[(translate(b.label, view.lang), b.action) for b in row] for row in view.buttons]
    )


def _text(view: View, limit: int = 4096) -> str:
    text = translate_lines(view.lines, view.lang)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def message_ref(message: Message) -> MessageRef:
    """The service's reference of a message the bot sent (or one pressed on)."""
    return MessageRef(message.message_id, chat_id=str(message.chat_id), photo=bool(message.photo))


def reference(chat_id: int | str, message_id: int) -> MessageRef:
    """The service's reference of a message known by its ids alone (its kind not known)."""
    return MessageRef(message_id, chat_id=str(chat_id))


def _entities(view: View, limit: int = 4096) -> list[MessageEntity] | None:
    """The players the view mentions as ``text_mention`` entities of its text (Telegram
    notifies them); None without mentions, or when the text had to be cut to fit."""
    if not mentions_in(view.lines):
        return None
    text, entities = "", []
    for piece in pieces(view.lines, view.lang):
        shown = piece.name if isinstance(piece, Mention) else piece
        if isinstance(piece, Mention) and piece.platform == PLATFORM and shown.strip():
            entities.append(
                MessageEntity(
                    MessageEntity.TEXT_MENTION,
                    _utf16_len(text),
                    _utf16_len(shown),
                    user=User(int(piece.user_id), shown, is_bot=False),
                )
            )
        text += shown
    return entities if entities and text == _text(view, limit) else None


def _utf16_len(text: str) -> int:
    """A length as Telegram counts entity offsets: in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2
