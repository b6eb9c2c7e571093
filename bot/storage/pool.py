"""The pool of players waiting for an opponent, blocks and reports, on either backend.

The pool lives in the database so that any worker can pair. Pairing is one transaction:
:meth:`PoolTransaction.pair_or_wait` locks the entry's bucket (what it wants: game, length
and pace), reads the entries waiting in it, lets core's rule choose (``core.pool``), and
either takes the chosen entry out (a ``DELETE`` that must remove exactly that row: an entry
cancelled meanwhile is skipped for the next best) or stores the newcomer's. The bucket lock
is ``BEGIN IMMEDIATE`` itself on SQLite (one writer at a time) and a transaction-level
advisory lock per bucket on PostgreSQL, so two workers never pair one entry twice, and two
newcomers who fit each other never both end up waiting (the second sees the first).
A player has one entry at most (the table's key); a new one replaces the old.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any

from bot.storage.base import Bucket, PoolEntry, Report, SeatChat
from bot.storage.refs import MessageRef
from bot.storage.rows import Db, Row, dumps, marks, stored_message
from core.pool import Seeker, pair_waiting, ranked

_COLUMNS = (
    "user_id, variant, length, pace, rating, joined, eligible, expires, platform, chat_id, "
    "message, data"
)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def entry_from_row(row: Row) -> PoolEntry:
    """A pool entry from a ``pool_entries`` row."""
    seeker = Seeker(
        player=int(row["user_id"]),
        variant=row["variant"],
        length=int(row["length"]),
        pace=row["pace"],
        rating=float(row["rating"]),
        joined=float(row["joined"]),
        eligible=float(row["eligible"]),
        expires=float(row["expires"]),
    )
    return PoolEntry(
        seeker,
        row["platform"],
        row["chat_id"],
        MessageRef.from_stored(_json(row["message"])),
        _json(row["data"]) or {},
    )


def _entry_values(entry: PoolEntry) -> tuple[Any, ...]:
    s = entry.seeker
    return (
        s.player,
        s.variant,
        s.length,
        s.pace,
        float(s.rating),
        float(s.joined),
        float(s.eligible),
        float(s.expires),
        entry.platform,
        entry.chat_id,
        stored_message(entry.message),
        dumps(entry.data),
    )


async def _blocks_among(db: Db, players: Iterable[int]) -> set[frozenset[int]]:
    """The blocks between any two of ``players`` (as unordered pairs)."""
    ids = sorted(set(players))
    if len(ids) < 2:
        return set()
    rows = await db.fetch(
        f"SELECT user_id, blocked FROM blocks WHERE user_id IN ({marks(ids)}) "
        f"AND blocked IN ({marks(ids)})",
        *ids,
        *ids,
    )
    return {frozenset((int(r["user_id"]), int(r["blocked"]))) for r in rows}


class PoolTransaction:
    """The pool's operations inside one transaction (``tx.pool``)."""

    def __init__(self, db: Callable[[], Db], lock: Callable[[str], Awaitable[None]]) -> None:
        self._db = db
        self._lock = lock

    async def lock(self, bucket: Bucket) -> None:
        """Hold the bucket's lock until the transaction ends: whatever changes entries of
        the bucket under it (a pairing, a held pairing answered) is done by one worker."""
        variant, length, pace = bucket
        await self._lock(f"tavla.pool:{variant}:{length}:{pace}")

    async def entry(self, user_id: int) -> PoolEntry | None:
        """The player's entry, if they wait (read in the transaction)."""
        row = await self._db().fetchrow(
            f"SELECT {_COLUMNS} FROM pool_entries WHERE user_id = ?", user_id
        )
        return None if row is None else entry_from_row(row)

    async def _bucket(self, bucket: Bucket, now: float) -> list[PoolEntry]:
        """The bucket's entries not yet expired, after taking the bucket's lock."""
        variant, length, pace = bucket
        await self.lock(bucket)
        rows = await self._db().fetch(
            f"SELECT {_COLUMNS} FROM pool_entries WHERE variant = ? AND length = ? "
            "AND pace = ? AND expires > ? ORDER BY joined, user_id",
            variant,
            length,
            pace,
            float(now),
        )
        return [entry_from_row(row) for row in rows]

    async def _take(self, user_id: int) -> PoolEntry | None:
        """Remove the player's entry; the entry removed, or None if there was none."""
        row = await self._db().fetchrow(
            f"DELETE FROM pool_entries WHERE user_id = ? RETURNING {_COLUMNS}", user_id
        )
        return None if row is None else entry_from_row(row)

    async def leave(self, user_id: int) -> PoolEntry | None:
        """Take the player out of the pool; their entry, or None when they were not in it
        (never, expired and removed, or paired a moment ago)."""
        return await self._take(user_id)

    async def put(self, entry: PoolEntry) -> None:
        """Store the entry, replacing the player's earlier one."""
        values = _entry_values(entry)
        updates = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS.split(", ")[1:])
        await self._db().execute(
            f"INSERT INTO pool_entries ({_COLUMNS}) VALUES ({marks(values)}) "
            f"ON CONFLICT (user_id) DO UPDATE SET {updates}",
            *values,
        )

    async def add_seat_chats(self, seats: list[SeatChat]) -> None:
        """Record where each seat of a new game plays (a game in two chats)."""
        await self._db().executemany(
            "INSERT INTO seat_chats (game_id, seat, user_id, platform, chat_id, message, "
            "shown_version) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    s.game_id,
                    s.seat,
                    s.user_id,
                    s.platform,
                    s.chat_id,
                    stored_message(s.message),
                    s.shown_version,
                )
                for s in seats
            ],
        )

    async def pair_or_wait(self, entry: PoolEntry, now: float) -> PoolEntry | None:
        """Pair the newcomer with the best fitting entry waiting, or store it.

        Returns the partner's entry, taken out of the pool (the newcomer's own is then not
        stored), or None when the newcomer now waits. The player's earlier entry, if any, is
        replaced either way.
        """
        await self._take(entry.user_id)
        waiting = await self._bucket(entry.bucket, now)
        blocks = await _blocks_among(self._db(), [entry.user_id, *(w.user_id for w in waiting)])
        by_player = {w.user_id: w for w in waiting}
        for seeker in ranked(entry.seeker, [w.seeker for w in waiting], now, blocks):
            partner = await self._take(seeker.player)
            if partner is not None and partner.seeker == by_player[seeker.player].seeker:
                return partner
            if partner is not None:  # replaced meanwhile by a wish of another kind: keep it
                await self.put(partner)
        await self.put(entry)
        return None

    async def game_over(self, user_id: int, left: bool, now: float) -> int:
        """Count a pool game the player finished: one more left in a row when they ``left``
        it (lost on time), back to 0 otherwise; the new count."""
        return await _game_over(self._db(), user_id, left, now)

    async def pair_waiting(self, bucket: Bucket, now: float) -> list[tuple[PoolEntry, PoolEntry]]:
        """Pair the entries of a bucket that all wait (a wait for leaving games just ended,
        or two newcomers came at one moment on two workers); each pair taken out."""
        waiting = await self._bucket(bucket, now)
        blocks = await _blocks_among(self._db(), (w.user_id for w in waiting))
        pairs = []
        for a, b in pair_waiting([w.seeker for w in waiting], now, blocks):
            first = await self._take(a.player)
            second = await self._take(b.player)
            if first is not None and second is not None:
                pairs.append((first, second))
            else:  # one left meanwhile: the other waits on
                for back in (first, second):
                    if back is not None:
                        await self.put(back)
        return pairs


class PoolStorage:
    """The pool's operations outside transactions, each its own (``storage.pool``)."""

    def __init__(
        self,
        reading: Callable[[], AbstractAsyncContextManager[Db]],
        writing: Callable[[], AbstractAsyncContextManager[Db]],
    ) -> None:
        self._reading = reading
        self._writing = writing

    async def entry(self, user_id: int) -> PoolEntry | None:
        """The player's entry, if they wait."""
        async with self._reading() as db:
            row = await db.fetchrow(
                f"SELECT {_COLUMNS} FROM pool_entries WHERE user_id = ?", user_id
            )
        return None if row is None else entry_from_row(row)

    async def entries(self, now: float) -> list[PoolEntry]:
        """Every entry not yet expired, longest waiting first."""
        async with self._reading() as db:
            rows = await db.fetch(
                f"SELECT {_COLUMNS} FROM pool_entries WHERE expires > ? ORDER BY joined, user_id",
                float(now),
            )
        return [entry_from_row(row) for row in rows]

    async def counts(self, now: float) -> dict[Bucket, int]:
        """How many wait for what (entries not yet expired)."""
        async with self._reading() as db:
            rows = await db.fetch(
                "SELECT variant, length, pace, COUNT(*) AS n FROM pool_entries "
                "WHERE expires > ? GROUP BY variant, length, pace",
                float(now),
            )
        return {(r["variant"], int(r["length"]), r["pace"]): int(r["n"]) for r in rows}

    async def update(
        self, user_id: int, joined: float, message: MessageRef | None, data: dict[str, Any]
    ) -> bool:
        """Keep the waiting message and bookkeeping of the entry made at ``joined``; False
        when that entry is gone (paired, cancelled, replaced)."""
        async with self._writing() as db:
            changed = await db.execute(
                "UPDATE pool_entries SET message = ?, data = ? WHERE user_id = ? AND joined = ?",
                stored_message(message),
                dumps(data),
                user_id,
                float(joined),
            )
        return changed == 1

    async def expire(self, now: float, limit: int = 100) -> list[PoolEntry]:
        """Take out the entries that expired by ``now``; those taken."""
        async with self._writing() as db:
            rows = await db.fetch(
                f"DELETE FROM pool_entries WHERE user_id IN (SELECT user_id FROM pool_entries "
                f"WHERE expires <= ? ORDER BY expires LIMIT ?) RETURNING {_COLUMNS}",
                float(now),
                limit,
            )
        return [entry_from_row(row) for row in rows]

    async def left_in_a_row(self, user_id: int) -> int:
        """Pool games the player left in a row (lost on time)."""
        async with self._reading() as db:
            value = await db.fetchval(
                "SELECT left_in_a_row FROM pool_players WHERE user_id = ?", user_id
            )
        return int(value or 0)

    async def game_over(self, user_id: int, left: bool, now: float) -> int:
        """Count a pool game the player finished: one more left in a row when they ``left``
        it (lost on time), back to 0 otherwise; the new count."""
        async with self._writing() as db:
            return await _game_over(db, user_id, left, now)

    async def block(self, user_id: int, blocked: int, now: float) -> bool:
        """``user_id`` blocks ``blocked`` for good; False if they had already."""
        async with self._writing() as db:
            changed = await db.execute(
                "INSERT INTO blocks (user_id, blocked, created) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id, blocked) DO NOTHING",
                user_id,
                blocked,
                float(now),
            )
        return changed == 1

    async def blocked(self, a: int, b: int) -> bool:
        """Whether one of the two blocked the other."""
        async with self._reading() as db:
            return bool(await _blocks_among(db, (a, b)))

    async def report(
        self, reporter: int, reported: int, game_id: int | None, reason: str, now: float
    ) -> int:
        """Keep a report for the operator; its id."""
        async with self._writing() as db:
            return await db.insert(
                "INSERT INTO reports (reporter, reported, game_id, reason, created) "
                "VALUES (?, ?, ?, ?, ?)",
                reporter,
                reported,
                game_id,
                reason,
                float(now),
            )

    async def reports(self, limit: int = 100) -> list[Report]:
        """The newest reports first."""
        async with self._reading() as db:
            rows = await db.fetch("SELECT * FROM reports ORDER BY id DESC LIMIT ?", limit)
        return [
            Report(
                int(r["id"]),
                int(r["reporter"]),
                int(r["reported"]),
                None if r["game_id"] is None else int(r["game_id"]),
                r["reason"],
                float(r["created"]),
            )
            for r in rows
        ]

    async def seat_chats(self, game_id: int) -> list[SeatChat]:
        """Where each seat of a game in two chats plays (seat 0 first); [] for other games."""
        async with self._reading() as db:
            rows = await db.fetch(
                "SELECT * FROM seat_chats WHERE game_id = ? ORDER BY seat", game_id
            )
        return [
            SeatChat(
                int(r["game_id"]),
                int(r["seat"]),
                int(r["user_id"]),
                r["platform"],
                r["chat_id"],
                MessageRef.from_stored(_json(r["message"])),
                int(r["shown_version"]),
            )
            for r in rows
        ]

    async def turn_notice(self, game_id: int, seat: int, now: float, every: float) -> bool:
        """Whether the seat may be told it is their turn now (not told within ``every``
        seconds); if so, it counts as told. Atomic, so two workers never both tell."""
        async with self._writing() as db:
            changed = await db.execute(
                "UPDATE seat_chats SET noticed = ? WHERE game_id = ? AND seat = ? "
                "AND (noticed IS NULL OR noticed <= ?)",
                float(now),
                game_id,
                seat,
                float(now - every),
            )
        return changed == 1

    async def seat_board_shown(
        self,
        game_id: int,
        seat: int | None,
        version: int,
        message: MessageRef | None = None,
    ) -> int:
        """The seat's board now shows ``version`` (never lowered), in ``message`` if given;
        every seat's when ``seat`` is None (where it was shown is not known). The version
        every seat shows at least (what the game counts as shown)."""
        async with self._writing() as db:
            if seat is None:
                await db.execute(
                    "UPDATE seat_chats SET shown_version = ? WHERE game_id = ? "
                    "AND shown_version < ?",
                    version,
                    game_id,
                    version,
                )
            else:
                await db.execute(
                    "UPDATE seat_chats SET message = COALESCE(?, message), shown_version = "
                    "CASE WHEN shown_version < ? THEN ? ELSE shown_version END "
                    "WHERE game_id = ? AND seat = ?",
                    stored_message(message),
                    version,
                    version,
                    game_id,
                    seat,
                )
            return int(
                await db.fetchval(
                    "SELECT MIN(shown_version) FROM seat_chats WHERE game_id = ?", game_id
                )
                or 0
            )

    async def bookkeeping_shown(self, game_id: int, before: int, after: int) -> int | None:
        """A change no board shows took the game from version ``before`` to ``after``: the
        seats whose board was up to date stay so. The version every seat shows at least;
        None for a game in one chat."""
        async with self._writing() as db:
            await db.execute(
                "UPDATE seat_chats SET shown_version = ? WHERE game_id = ? AND shown_version >= ?",
                after,
                game_id,
                before,
            )
            low = await db.fetchval(
                "SELECT MIN(shown_version) FROM seat_chats WHERE game_id = ?", game_id
            )
        return None if low is None else int(low)


async def _game_over(db: Db, user_id: int, left: bool, now: float) -> int:
    """See :meth:`PoolStorage.game_over`."""
    value = await db.fetchval(
        "INSERT INTO pool_players (user_id, left_in_a_row, updated) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET left_in_a_row = CASE WHEN ? "
        "THEN pool_players.left_in_a_row + 1 ELSE 0 END, updated = excluded.updated "
        "RETURNING left_in_a_row",
        user_id,
        1 if left else 0,
        float(now),
        bool(left),
    )
    return int(value)


async def forget_pool(db: Db, user_id: int) -> None:
    """Forget a player's place in the pool and their leaving count (``/forget``); blocks
    and reports stay: they protect the others."""
    await db.execute("DELETE FROM pool_entries WHERE user_id = ?", user_id)
    await db.execute("DELETE FROM pool_players WHERE user_id = ?", user_id)


__all__ = [
    "PoolStorage",
    "PoolTransaction",
    "entry_from_row",
    "forget_pool",
]
