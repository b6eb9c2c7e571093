"""Where a chat message is: :class:`MessageRef`, one typed value on every platform.

A game keeps the reference of its board message (``games.message``), a tournament that of
its standings picture (``tournaments.message``); the adapters make references of the
messages they post and of those pressed on, and the service compares and hands them back.
It lives with the records that store it; adapters import it from ``bot.service.views``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MessageRef:
    """A message as its platform addresses it.

    Telegram: ``chat_id`` and ``message_id`` (the chat is where the message is).
    Discord: ``channel_id`` and ``message_id`` (a server is one chat of many channels), and
    ``chat_id`` the service's chat (the server) where the adapter knows it.

    Stored form (a JSON object, the same keys the adapters wrote before this type existed):
    ``{"chat_id": "-100…", "channel_id": "…", "message_id": 42, "photo": true}``, the keys
    that are None left out. Rows written earlier load unchanged: chat and channel ids stored
    as numbers become strings, and Discord's older ``"image"`` key stands for ``photo``.
    """

    message_id: int
    #: The chat (Telegram) or server (Discord) the message is in, as ``Place.chat_id``.
    chat_id: str | None = None
    #: Discord: the channel the message is in (None on Telegram).
    channel_id: str | None = None
    #: Whether the message carries a picture (Telegram edits a picture's caption or media, a
    #: text message's text); None: not known, which Telegram treats as a picture.
    photo: bool | None = None

    def same_message(self, other: MessageRef) -> bool:
        """Whether both name the same message (ids that either side leaves out match)."""
        if self.message_id != other.message_id:
            return False
        for mine, theirs in (
            (self.chat_id, other.chat_id),
            (self.channel_id, other.channel_id),
        ):
            if mine is not None and theirs is not None and mine != theirs:
                return False
        return True

    def to_stored(self) -> dict[str, Any]:
        """The JSON object to store (see the class's docstring)."""
        stored: dict[str, Any] = {}
        if self.chat_id is not None:
            stored["chat_id"] = self.chat_id
        if self.channel_id is not None:
            stored["channel_id"] = self.channel_id
        stored["message_id"] = self.message_id
        if self.photo is not None:
            stored["photo"] = self.photo
        return stored

    @classmethod
    def from_stored(cls, data: dict[str, Any] | None) -> MessageRef | None:
        """The reference a stored JSON object names (every form ever written); None for
        nothing stored, or an object without a message id."""
        if not data or data.get("message_id") is None:
            return None
        photo = data.get("photo", data.get("image"))
        return cls(
            message_id=int(data["message_id"]),
            chat_id=_text(data.get("chat_id")),
            channel_id=_text(data.get("channel_id")),
            photo=None if photo is None else bool(photo),
        )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
