"""PostgreSQL storage through asyncpg, for several worker processes on one database.

The same interface, behaviour and queries (:mod:`bot.storage.sql`, run by :class:`PostgresDb`)
as :mod:`bot.storage.sqlite`. One :class:`PostgresStorage`
owns an asyncpg pool; a transaction is one connection taken from the pool for its whole
duration, inside ``connection.transaction()`` (read committed). Concurrent writers are kept
apart by the database itself:

- ``save_game`` writes ``UPDATE … WHERE id = $1 AND version = $2`` and raises
  :class:`~bot.storage.base.StaleVersionError` when no row matched (another worker saved first);
- ``get_game`` inside a transaction reads the row ``FOR UPDATE``, so the read-modify-write of
  one game by two workers is serialized as ``BEGIN IMMEDIATE`` serializes it on SQLite: the
  second waits, then sees the new version;
- ``add_events`` locks the game row before taking the next sequence numbers, and
  ``get_rating`` takes a transaction-level advisory lock on the rating's key (the row may not
  exist yet), so a rating is never updated from a stale read.

A transaction begins lazily (:mod:`bot.storage.postgres_tx`): a press's save and its events,
when nothing else is done, reach the server as one statement instead of four round trips.
The dialect and the error translation are in :mod:`bot.storage.postgres_db`.

Methods of the storage called from inside a transaction (in the same task, or in tasks it
starts while it is open) run as part of that transaction.

The schema lives in numbered migrations, ``migrations_pg/NNNN_name.sql`` (the PostgreSQL
dialect of ``migrations/``, with the same numbers and names), applied in order by
:meth:`PostgresStorage.open`, each in its own transaction under ``pg_advisory_xact_lock`` (so
two workers starting together never apply one twice) and recorded in ``schema_migrations``.
The event log is append-only: nothing here updates or deletes events, and triggers refuse it.

Unavailability (cannot connect, connection lost, too many connections, server shutting down,
a lock not obtained within ``lock_timeout``, deadlocks and serialization failures…) is raised
as :class:`~bot.storage.base.StorageError` with the asyncpg exception as its cause; integrity
and programming errors (bugs) are left as they are.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import ClassVar

import asyncpg

from bot.storage.base import (
    OPEN_STATUSES,
    GamePeople,
    GameRecord,
    GameStatus,
    StorageError,
    StorageUnreachable,
)
from bot.storage.postgres_db import (
    ADVISORY_LOCK_KEY,
    Connection,
    PostgresDb,
    is_unavailable,
    release,
    storage_error,
    translated,
)
from bot.storage.postgres_tx import PostgresTransaction, TransactionScope
from bot.storage.refs import MessageRef
from bot.storage.schema import POSTGRES_FOLDER, Migration, load_migrations
from bot.storage.sql import Db, SqlStorage

log = logging.getLogger(__name__)

DEFAULT_LOCK_TIMEOUT = 5.0
DEFAULT_POOL_SIZE = 10


def load_pg_migrations() -> list[Migration]:
    """The migrations shipped in ``bot/storage/migrations_pg``, in order (numbered like
    ``migrations/``, without gaps or repeats)."""
    return load_migrations(POSTGRES_FOLDER)


class _PooledConnection(asyncpg.Connection):
    """A pooled connection returned to the pool without asyncpg's reset query.

    The reset (``pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL``) costs a round
    trip on every release, several per button press. Nothing here leaves session state
    behind: locks are transaction-level (``pg_advisory_xact_lock``), there are no cursors,
    listeners or ``SET`` outside the connection settings, and asyncpg still ends any open
    transaction on release.
    """

    def get_reset_query(self) -> str:
        return ""


class PostgresStorage(SqlStorage):
    """:class:`~bot.storage.base.Storage` on a PostgreSQL database (``postgresql://…``).

    ``lock_timeout`` (seconds) is how long a statement waits for a lock held by another
    transaction (another worker) before giving up with :class:`StorageError`;
    ``pool_size`` is the most connections kept open. ``server_settings`` are passed to every
    connection (e.g. ``{"search_path": "tavla"}``), as are query parameters of the URL.
    """

    # The transaction running in the current task (and the tasks it starts), if any.
    _active: ClassVar[ContextVar[PostgresTransaction | None]] = ContextVar(
        "tavla_postgres_tx", default=None
    )
    migrations_folder: ClassVar[str] = POSTGRES_FOLDER

    def __init__(
        self,
        dsn: str,
        *,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        pool_size: int = DEFAULT_POOL_SIZE,
        connect_timeout: float = 10.0,
        server_settings: Mapping[str, str] | None = None,
        migrations: Sequence[Migration] | None = None,
    ) -> None:
        super().__init__(migrations)
        self.dsn = dsn
        self.lock_timeout = lock_timeout
        self.pool_size = pool_size
        self.connect_timeout = connect_timeout
        self.server_settings = dict(server_settings or {})
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()
        #: Per game, the writes of its board's message under way (see _recording_board).
        self._recordings: dict[int, list[asyncio.Event]] = {}

    def __repr__(self) -> str:
        return f"PostgresStorage({_redacted(self.dsn)!r})"

    # --- connection ------------------------------------------------------------------------

    async def open(self) -> None:
        """Create the pool and apply the migrations not yet applied (idempotent)."""
        async with self._opening:
            if self._pool is None:
                self._pool = await self._connect()

    async def _connect(self) -> asyncpg.Pool:
        settings = {
            "lock_timeout": f"{max(0, int(self.lock_timeout * 1000))}ms",
            "application_name": "tavla",
            **self.server_settings,
        }
        try:
            pool = await asyncpg.create_pool(
                self.dsn,
                min_size=1,
                max_size=max(1, self.pool_size),
                timeout=self.connect_timeout,
                server_settings=settings,
                connection_class=_PooledConnection,
            )
        except Exception as exc:
            what = f"cannot connect to {_redacted(self.dsn)}"
            if is_unavailable(exc):
                raise StorageUnreachable(str(storage_error(exc, what))) from exc
            if isinstance(exc, asyncpg.PostgresError | asyncpg.InterfaceError | OSError):
                raise storage_error(exc, what) from exc
            raise
        try:
            async with pool.acquire() as conn:
                await self._migrate(conn)
        except BaseException:
            await pool.close()
            raise
        return pool

    async def close(self) -> None:
        """Wait for the connections in use to come back, then close the pool (idempotent)."""
        if self._current_transaction() is not None:
            raise RuntimeError("cannot close the storage from inside one of its transactions")
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    def _connection_pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise StorageError(f"{self!r} is not open")
        return self._pool

    async def _migrate(self, conn: Connection) -> None:
        migrations = self.migrations
        lock = (
            "SELECT pg_advisory_xact_lock($1, hashtext(COALESCE(current_schema(), '')))",
            ADVISORY_LOCK_KEY,
        )
        try:
            async with conn.transaction():
                await conn.execute(*lock)
                await conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                    "name TEXT NOT NULL, applied DOUBLE PRECISION NOT NULL)"
                )
            applied = {row[0] for row in await conn.fetch("SELECT version FROM schema_migrations")}
        except Exception as exc:
            if isinstance(exc, asyncpg.PostgresError | asyncpg.InterfaceError | OSError):
                raise storage_error(exc, "cannot read schema_migrations") from exc
            raise
        for migration in migrations:
            if migration.version in applied:
                continue
            try:
                async with conn.transaction():
                    await conn.execute(*lock)
                    # Another worker may have applied it while we waited for the lock.
                    done = await conn.fetchval(
                        "SELECT 1 FROM schema_migrations WHERE version = $1", migration.version
                    )
                    if done is None:
                        await conn.execute(migration.sql)  # a script: the simple protocol
                        await conn.execute(
                            "INSERT INTO schema_migrations (version, name, applied) "
                            "VALUES ($1, $2, $3)",
                            migration.version,
                            migration.name,
                            time.time(),
                        )
            except Exception as exc:
                if isinstance(exc, asyncpg.PostgresError | asyncpg.InterfaceError | OSError):
                    raise storage_error(exc, f"migration {migration.name} failed") from exc
                raise
            if done is None:
                log.info("%s: applied migration %s", self, migration.name)

    # --- a board's message, visible to the presses on it ----------------------------------

    async def get_game(self, game_id: int) -> GameRecord | None:
        """The game; outside a transaction, once this process's writes of its board's
        message under way are done (see :meth:`_recording_board`)."""
        await self._board_recorded(game_id)
        return await super().get_game(game_id)

    async def game_with_people(self, game_id: int) -> GamePeople | None:
        """As :meth:`get_game`: once this process's writes of its board's message under way
        are done."""
        await self._board_recorded(game_id)
        return await super().game_with_people(game_id)

    async def _board_recorded(self, game_id: int) -> None:
        """Outside a transaction: wait for this process's writes of the game's board message
        under way."""
        if self._current_transaction() is None:
            for done in list(self._recordings.get(game_id, ())):
                await done.wait()

    async def games_in_chat(
        self, platform: str, chat_id: str, statuses: tuple[GameStatus, ...] = OPEN_STATUSES
    ) -> list[GameRecord]:
        """The chat's games; outside a transaction, once this process's writes of boards'
        messages under way are done, so a reply to a board just posted finds its game."""
        if self._current_transaction() is None:
            # Which games are in the chat is what the read finds out, so wait for every
            # recording under way; they are a single short statement each.
            for waiting in list(self._recordings.values()):
                for done in list(waiting):
                    await done.wait()
        return await super().games_in_chat(platform, chat_id, statuses)

    async def set_game_message(self, game_id: int, message: MessageRef | None) -> None:
        async with self._recording_board(game_id):
            await super().set_game_message(game_id, message)

    async def mark_board_shown(
        self, game_id: int, version: int, message: MessageRef | None = None
    ) -> None:
        async with self._recording_board(game_id):
            await super().mark_board_shown(game_id, version, message)

    @asynccontextmanager
    async def _recording_board(self, game_id: int) -> AsyncIterator[None]:
        """A write of where (and at which version) the game's board is shown, made outside a
        transaction, that reads of the game wait for.

        The adapter records a board's message right after posting it, and Telegram may
        deliver a press on that message meanwhile. A read on another connection does not
        wait for a write under way, so without this the press would find the game's board
        elsewhere and call the new one old (SQLite's reads wait for the process's write
        under way by themselves). Inside a transaction the write is visible at its commit,
        which its caller awaits.
        """
        if self._current_transaction() is not None:
            yield
            return
        done = asyncio.Event()
        self._recordings.setdefault(game_id, []).append(done)
        try:
            yield
        finally:
            done.set()
            waiting = self._recordings[game_id]
            waiting.remove(done)
            if not waiting:
                del self._recordings[game_id]

    # --- transactions ----------------------------------------------------------------------

    def _scope(self) -> TransactionScope:
        return TransactionScope(self)

    @asynccontextmanager
    async def _connection_alone(self) -> AsyncIterator[Db]:
        with translated("could not get a connection"):
            conn = await self._connection_pool().acquire()
        try:
            yield PostgresDb(conn)
        finally:
            await release(self._pool, conn)


def _redacted(dsn: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", dsn)


__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "DEFAULT_POOL_SIZE",
    "PostgresDb",
    "PostgresStorage",
    "PostgresTransaction",
    "load_pg_migrations",
]
