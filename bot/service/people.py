"""Who and where: the user and the chat of an incoming update, and a refusal turned into a
polite notice."""

from __future__ import annotations

import logging
from collections.abc import Awaitable

from bot.i18n import t
from bot.storage.base import Chat, StaleVersionError, Storage, StorageError, User
from core.errors import TavlaError

from . import group_lang
from .errors import UserFacingError, error_text
from .lang import notice
from .limits import clean_name
from .store import GameStore
from .views import Actor, Place, View

log = logging.getLogger(__name__)


async def guarded(user: User, chat: Chat, work: Awaitable[list[View]]) -> list[View]:
    """``work``'s views, every expected failure turned into a polite notice; nothing else
    escapes unlogged."""
    try:
        return await work
    except UserFacingError as exc:
        return [notice(user, chat, exc.text)]
    except TavlaError as exc:
        return [notice(user, chat, error_text(exc))]
    except StaleVersionError:
        return [notice(user, chat, t("This board is out of date: use the newest one."))]
    except StorageError:
        log.warning("storage unavailable", exc_info=True)
        return [notice(user, chat, t("I couldn't save that just now. Please try again."))]


class People:
    """The stored user and chat behind an update (made on first sight)."""

    def __init__(self, storage: Storage, store: GameStore) -> None:
        self.storage = storage
        self.store = store

    async def user(self, actor: Actor) -> User:
        """The stored user of ``actor`` (made on first sight, name and username cleaned)."""
        return await self.storage.get_or_create_user(
            actor.platform,
            actor.user_id,
            clean_name(actor.name),
            actor.lang,
            username=clean_name(actor.username, "") if actor.username else None,
        )

    async def chat(self, place: Place, user: User | None = None) -> Chat:
        """The chat of an incoming update from ``user``; hearing from a paused chat resumes
        its games, and a group with no language yet takes the first speaker's."""
        chat = await self.storage.get_chat(place.platform, place.chat_id, place.title)
        chat.private = place.private
        if chat.paused is not None:
            await self.store.resume(chat)
        if not place.private and user is not None:
            chat = await group_lang.first_speaker(self.storage, chat, user)
        return chat
