"""The waiting messages' counts ("Waiting for this: 2. In the pool: 5."), edited as players
come and go.

Every arrival and departure changes the count in everyone's message, so the edits are
coalesced: a change asks for a round of edits, and rounds run at most once every
:attr:`CountEdits.every` seconds (Telegram lets a bot edit a private chat about once a
second), each editing a message only when what it says changed, and at most
:attr:`CountEdits.batch` messages (the rest in the next round), so a crowd arriving never
floods the platforms. The deadline rounds edit whatever a worker left behind.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass

from bot.storage.base import Storage

from .background import Background
from .lang import language
from .pool_views import addressed, seen, waiting_view
from .views import View

#: Seconds of waiting before the computer is offered meanwhile; the offer replaces the
#: counts in the waiting message.
OFFER_COMPUTER_AFTER = 60.0


@dataclass(eq=False)
class CountEdits:
    """Waiting messages edited with the pool's counts (the storage, the background that
    delivers them, the clock; ``sleep`` waits between two rounds of edits)."""

    storage: Storage
    background: Background
    clock: Callable[[], float]
    #: Seconds between two rounds of edits at least.
    every: float = 1.0
    #: Messages edited a round at most.
    batch: int = 20
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    _due: bool = False
    _last: float = -math.inf

    def changed(self) -> None:
        """Players came or went: a round of edits soon (one already due takes it in)."""
        if self._due:
            return
        self._due = True
        self.background.spawn(self._round())

    async def _round(self) -> None:
        wait = self._last + self.every - self.clock()
        try:
            if wait > 0:
                await self.sleep(wait)
        finally:
            self._due = False  # what changes from now on asks for the next round
        self._last = self.clock()
        views, more = await self.edits(self._last, limit=self.batch)
        for view in views:
            await self.background.deliver_later(view)
        if more:
            self.changed()

    async def edits(
        self,
        now: float,
        platforms: Collection[str] | None = None,
        limit: int | None = None,
    ) -> tuple[list[View], bool]:
        """The edits of waiting messages whose counts changed (recorded as shown), at most
        ``limit``; and whether more are left."""
        counts = await self.storage.pool.counts(now)
        views: list[View] = []
        for entry in await self.storage.pool.entries(now):
            if (
                entry.message is None
                or "held" in entry.data
                or entry.data.get("offered")
                or now - entry.seeker.joined >= OFFER_COMPUTER_AFTER
                or (platforms is not None and entry.platform not in platforms)
            ):
                continue
            shown = seen(entry, counts)
            if entry.data.get("seen") == shown:
                continue
            if limit is not None and len(views) >= limit:
                return views, True
            if await self.storage.pool.update(
                entry.user_id, entry.seeker.joined, entry.message, {**entry.data, "seen": shown}
            ):
                user = await self.storage.get_user(entry.user_id)
                chat = await self.storage.get_chat(entry.platform, entry.chat_id)
                view = addressed(waiting_view(entry, counts, language(user, chat)), entry)
                view.edit_only = True  # a message gone is not posted again
                views.append(view)
        return views, False


__all__ = ["OFFER_COMPUTER_AFTER", "CountEdits"]
