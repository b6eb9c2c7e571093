"""Chats the bot loses and finds again: paused, resumed, moved to a new id."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.storage.base import GameStatus, Storage

from .boards import Boards
from .store import GameStore
from .views import Place, View

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Chats:
    """What happens to a chat's games when the chat changes (the storage, the store whose
    clocks resume, the boards shown again, the clock)."""

    storage: Storage
    store: GameStore
    boards: Boards
    clock: Callable[[], float]

    async def chat_unreachable(self, platform: str, chat_id: str) -> None:
        """The bot can no longer post in the chat (removed, muted, chat deleted): its games
        wait, with their clocks stopped, until the chat is heard from again."""
        await self.storage.set_chat_paused(platform, str(chat_id), self.clock())
        log.info("chat %s:%s is unreachable; its games wait", platform, chat_id)

    async def chat_reachable(self, place: Place) -> list[View]:
        """The bot may post in the chat again (added back, rights restored): resume."""
        chat = await self.storage.get_chat(place.platform, place.chat_id, place.title)
        if chat.paused is None:
            return []
        await self.store.resume(chat)
        games = await self.storage.games_in_chat(chat.platform, chat.chat_id, (GameStatus.ACTIVE,))
        return await self.boards.boards_of(chat, games)

    async def chat_moved(self, platform: str, old_chat_id: str, new_chat_id: str) -> list[View]:
        """The chat got a new id (a Telegram group became a supergroup): move its games,
        language and leaderboard, and post the boards of its games in the new chat."""
        old_chat_id, new_chat_id = str(old_chat_id), str(new_chat_id)
        if old_chat_id == new_chat_id:
            return []
        await self.storage.move_chat(platform, old_chat_id, new_chat_id)
        new_scope = f"{platform}:{new_chat_id}"
        moved = []
        for record in await self.storage.games_in_chat(platform, old_chat_id):
            assert record.id is not None
            async with self.storage.transaction() as tx:
                fresh = await tx.get_game(record.id)
                if fresh is None or fresh.chat_id != old_chat_id:
                    continue  # moved already (Telegram announces a move in both chats)
                fresh.chat_id = new_chat_id
                fresh.message = None  # the old chat's messages are gone with it
                if fresh.settings.scope == f"{platform}:{old_chat_id}":
                    fresh.settings = replace(fresh.settings, scope=new_scope)
                moved.append(await tx.save_game(fresh, fresh.version))
        log.info("chat %s:%s moved to %s", platform, old_chat_id, new_chat_id)
        chat = await self.storage.get_chat(platform, new_chat_id)
        return await self.boards.boards_of(
            chat, [r for r in moved if r.status is GameStatus.ACTIVE]
        )
