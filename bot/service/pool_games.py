"""The game a pairing in the pool starts: saved in the pairing's own transaction (so that a
failure undoes both, and neither player loses their place), then shown in both players'
chats, each from their side and in their language (:mod:`bot.service.seats`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot import metrics
from bot.storage.base import (
    ContestSettings,
    GameRecord,
    GameStatus,
    PoolEntry,
    SeatChat,
    Storage,
    Transaction,
    User,
)

from .contests import Contests
from .lang import language
from .pool_views import addressed, found_line
from .seats import Seats
from .settings import POOL_SCOPE
from .store import ActionContext
from .views import View


@dataclass(frozen=True)
class Opened:
    """A pool game saved with its pairing, to be shown once the transaction is committed."""

    ctx: ActionContext
    entries: tuple[PoolEntry, PoolEntry]
    users: tuple[User, User]


@dataclass(eq=False)
class PoolGames:
    """Pool games started and shown (the storage, the contests that start them, the seats
    that show them in two chats, the clock)."""

    storage: Storage
    contests: Contests
    seats: Seats
    clock: Callable[[], float]

    async def open(self, tx: Transaction, first: PoolEntry, second: PoolEntry) -> Opened:
        """Start the game of a pairing in ``tx``, the pairing's own transaction: ``first``
        (seat 0, the one who waited) against ``second``. Should anything fail, the pairing is
        undone with the game (neither entry lost, no game half made)."""
        users = await self.storage.get_users([first.user_id, second.user_id])
        one, two = users[first.user_id], users[second.user_id]
        now = self.clock()
        variant, length, pace = first.bucket
        record = GameRecord(
            platform=first.platform,
            chat_id=first.chat_id,
            variant=variant,
            status=GameStatus.CHALLENGE,
            seats=[one.id, two.id],
            challenger=one.id,
            settings=ContestSettings(length=length, fast=pace == "fast", scope=POOL_SCOPE),
            rated=True,
            created=now,
            updated=now,
        )
        ctx = await self.contests.prepare(record, [one.name, two.name])
        await self.contests.save_opened(tx, ctx, new=True)
        game_id = ctx.record.stored_id
        await tx.pool.add_seat_chats(
            [
                SeatChat(game_id, 0, one.id, first.platform, first.chat_id, first.message),
                SeatChat(game_id, 1, two.id, second.platform, second.chat_id, second.message),
            ]
        )
        return Opened(ctx, (first, second), (one, two))

    async def announce(self, opened: Opened, *, asker: int | None = None) -> list[View]:
        """Show a started pool game in both chats, each its own side and language: the views
        of the player ``asker`` (a user id) returned, every other delivered."""
        entries, users = opened.entries, opened.users
        chat = await self.storage.get_chat(entries[0].platform, entries[0].chat_id)
        views = await self.contests.opening(opened.ctx, chat, users[0], new=True)
        metrics.POOL.labels("paired").inc()
        split = await self.seats.split(views)
        assert split is not None
        out: list[View] = []
        for seat in (0, 1):
            entry, other = entries[seat], users[1 - seat]
            mine = [
                await self._found(entry, other, entries[1 - seat].seeker.rating),
                *split[seat],
            ]
            if entry.user_id == asker:
                out = mine
            else:
                self.seats.deliver(mine)
        return out

    async def _found(self, entry: PoolEntry, other: User, rating: float) -> View:
        """The waiting message, saying who the opponent is: their display name and rating."""
        me = await self.storage.get_user(entry.user_id)
        chat = await self.storage.get_chat(entry.platform, entry.chat_id)
        view = View([found_line(other.name, rating, entry)], lang=language(me, chat))
        return addressed(view, entry)


__all__ = ["Opened", "PoolGames"]
