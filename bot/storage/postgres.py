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
import contextlib
import functools
import itertools
import logging
import re
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar, Token
from types import TracebackType
from typing import Any, ClassVar, TypeAlias

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from bot.storage.base import OPEN_STATUSES, GameRecord, GameStatus, RatingRow, StorageError
from bot.storage.refs import MessageRef
from bot.storage.rows import dumps
from bot.storage.schema import POSTGRES_FOLDER, Migration, load_migrations
from bot.storage.sql import Db, SqlStorage, SqlTransaction

log = logging.getLogger(__name__)

DEFAULT_LOCK_TIMEOUT = 5.0
DEFAULT_POOL_SIZE = 10
#: The first key of the advisory locks taken here (the second is per schema or per rating).
_MIGRATION_LOCK = 0x7A71A  # "tavla"

Connection: TypeAlias = asyncpg.Connection | PoolConnectionProxy


def load_pg_migrations() -> list[Migration]:
    """The migrations shipped in ``bot/storage/migrations_pg``, in order (numbered like
    ``migrations/``, without gaps or repeats)."""
    return load_migrations(POSTGRES_FOLDER)


# --- errors ------------------------------------------------------------------------------

#: SQLSTATE classes of a database that is unavailable or busy, not of a bug in our code:
#: connection exceptions, transaction rollbacks (deadlock, serialization), insufficient
#: resources (too many connections, disk full), operator intervention (shutdown, cannot
#: connect now, statement cancelled), system errors and internal errors.
_UNAVAILABLE_CLASSES = frozenset({"08", "40", "53", "57", "58", "XX"})
_UNAVAILABLE_STATES = frozenset({"55P03"})  # lock_not_available (lock_timeout)


def _is_unavailable(exc: BaseException) -> bool:
    if isinstance(exc, asyncpg.PostgresError):
        state = getattr(exc, "sqlstate", None) or ""
        return state[:2] in _UNAVAILABLE_CLASSES or state in _UNAVAILABLE_STATES
    if isinstance(exc, asyncpg.InterfaceError):  # e.g. "connection is closed"
        return "closed" in str(exc) or "closing" in str(exc)
    return isinstance(exc, OSError)  # refused, reset, unreachable, timed out (TimeoutError)


def _storage_error(exc: BaseException, what: str = "database error") -> StorageError:
    return StorageError(f"{what}: {type(exc).__name__}: {exc}")


@contextlib.contextmanager
def _translated(what: str = "database error") -> Iterator[None]:
    """Raise the database's own failures as :class:`StorageError`, the cause chained."""
    try:
        yield
    except StorageError:
        raise
    except Exception as exc:
        if _is_unavailable(exc):
            raise _storage_error(exc, what) from exc
        raise


# --- the dialect -------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _numbered(sql: str) -> str:
    """The shared SQL with PostgreSQL's placeholders: each ``?`` becomes ``$1``, ``$2``, …

    (The shared queries never hold a ``?`` inside a string literal.)
    """
    numbers = itertools.count(1)
    return re.sub(r"\?", lambda _: f"${next(numbers)}", sql)


def _rows_changed(status: str) -> int:
    """The row count at the end of a command status such as ``UPDATE 1`` or ``INSERT 0 1``."""
    last = status.rpartition(" ")[2]
    return int(last) if last.isdigit() else 0


class PostgresDb:
    """The shared queries (:class:`bot.storage.sql.Db`) on an asyncpg connection."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    async def fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        with _translated():
            return list(await self.conn.fetch(_numbered(sql), *args))

    async def fetchrow(self, sql: str, *args: Any) -> asyncpg.Record | None:
        with _translated():
            return await self.conn.fetchrow(_numbered(sql), *args)

    async def fetchval(self, sql: str, *args: Any) -> Any:
        with _translated():
            return await self.conn.fetchval(_numbered(sql), *args)

    async def execute(self, sql: str, *args: Any) -> int:
        with _translated():
            return _rows_changed(await self.conn.execute(_numbered(sql), *args))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with _translated():
            await self.conn.executemany(_numbered(sql), rows)

    async def insert(self, sql: str, *args: Any) -> int:
        new_id = await self.fetchval(sql + " RETURNING id", *args)
        return int(new_id)


class PostgresTransaction(SqlTransaction):
    """The operations of one transaction on one pooled connection (see ``base.Transaction``).

    Read committed, so the reads that a write depends on take locks: the game's row
    (``FOR UPDATE``) and an advisory lock per rating.
    """

    _db: PostgresDb

    @property
    def db(self) -> PostgresDb:
        if not self._open:
            raise RuntimeError("this transaction is over")
        return self._db

    @property
    def conn(self) -> Connection:
        """The transaction's asyncpg connection."""
        return self.db.conn

    #: ``get_game`` locks the game's row until the transaction ends.
    _row_lock: ClassVar[str] = " FOR UPDATE"

    def __init__(self, storage: PostgresStorage, db: PostgresDb) -> None:
        super().__init__(storage, db)
        #: Games whose row this transaction has locked (read FOR UPDATE, saved or inserted).
        self._locked: set[int] = set()

    async def get_game(self, game_id: int) -> GameRecord | None:
        record = await super().get_game(game_id)
        if record is not None:
            self._locked.add(game_id)
        return record

    async def insert_game(self, record: GameRecord) -> GameRecord:
        record = await super().insert_game(record)
        assert record.id is not None
        self._locked.add(record.id)  # no other transaction sees the row before we commit
        return record

    async def save_game(self, record: GameRecord, expected_version: int) -> GameRecord:
        record = await super().save_game(record, expected_version)
        assert record.id is not None
        self._locked.add(record.id)  # the UPDATE locked the row
        return record

    async def add_events(
        self,
        game_id: int,
        events: list[tuple[str, dict[str, Any]]],
        *,
        ts: float | None = None,
    ) -> None:
        """Append events with the next sequence numbers (``ts`` defaults to now).

        The game's row lock keeps two transactions (two workers) from taking the same
        numbers. A transaction that already holds it (it read the game ``FOR UPDATE``, or
        saved it: a press does both) numbers and inserts every event in one statement, one
        round trip. Otherwise it takes the lock first, in a statement of its own: in read
        committed a statement sees the rows committed when it began, so a ``MAX(seq)`` in the
        statement that waited for the lock could miss the events of the transaction it
        waited for.
        """
        if not events:
            return
        if game_id not in self._locked:
            await self.db.execute("SELECT 1 FROM games WHERE id = ? FOR UPDATE", game_id)
            self._locked.add(game_id)
        stamp = float(time.time() if ts is None else ts)
        await self.db.execute(
            "INSERT INTO events (game_id, seq, ts, type, data) "
            "SELECT $1, last.seq + e.n, $2, e.type, e.data::json "
            "FROM (SELECT COALESCE(MAX(seq), 0) AS seq FROM events WHERE game_id = $1) AS last, "
            "unnest($3::text[], $4::text[]) WITH ORDINALITY AS e(type, data, n)",
            game_id,
            stamp,
            [kind for kind, _ in events],
            [dumps(data) for _, data in events],
        )

    async def get_rating(self, user_id: int, scope: str, kind: str) -> RatingRow:
        """The rating row (or a fresh one), locked against other writers until the end."""
        await self.db.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(?, ?))",
            f"tavla.rating:{user_id}:{scope}:{kind}",
            _MIGRATION_LOCK,
        )
        return await super().get_rating(user_id, scope, kind)


class _TransactionScope(AbstractAsyncContextManager[PostgresTransaction]):
    """``async with storage.transaction() as tx``: a pooled connection, BEGIN, commit/rollback."""

    def __init__(self, storage: PostgresStorage) -> None:
        self._storage = storage
        self._tx: PostgresTransaction | None = None
        self._token: Token[PostgresTransaction | None] | None = None
        self._conn: Connection | None = None
        self._transaction: Any = None

    async def __aenter__(self) -> PostgresTransaction:
        storage = self._storage
        if storage._current_transaction() is not None:
            raise RuntimeError("PostgresStorage transactions do not nest")
        pool = storage._connection_pool()
        try:
            conn = await pool.acquire()
        except Exception as exc:
            if _is_unavailable(exc):
                raise _storage_error(exc, "could not get a connection") from exc
            raise
        try:
            transaction = conn.transaction()
            await transaction.start()
        except BaseException as exc:
            await _release(self._storage._pool, conn)
            if isinstance(exc, Exception) and _is_unavailable(exc):
                raise _storage_error(exc, "could not start a transaction") from exc
            raise
        self._conn = conn
        self._transaction = transaction
        self._tx = PostgresTransaction(storage, PostgresDb(conn))
        self._token = storage._active.set(self._tx)
        return self._tx

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        assert self._tx is not None
        assert self._token is not None
        assert self._conn is not None
        tx, self._tx = self._tx, None
        self._storage._active.reset(self._token)
        tx._open = False
        conn, transaction = self._conn, self._transaction
        try:
            if exc is None:
                try:
                    await transaction.commit()
                except BaseException as commit_exc:
                    await self._quiet_rollback(transaction)
                    if isinstance(commit_exc, Exception) and _is_unavailable(commit_exc):
                        raise _storage_error(commit_exc, "could not commit") from commit_exc
                    raise
            else:
                await self._quiet_rollback(transaction)
                if (
                    isinstance(exc, Exception)
                    and not isinstance(exc, StorageError)
                    and _is_unavailable(exc)
                ):
                    raise _storage_error(exc) from exc
        finally:
            await _release(self._storage._pool, conn)
        return False

    @staticmethod
    async def _quiet_rollback(transaction: Any) -> None:
        """Roll back if still possible; a lost connection has rolled back by itself."""
        try:
            await transaction.rollback()
        except Exception:
            log.debug("rollback failed", exc_info=True)


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
            if isinstance(exc, asyncpg.PostgresError | asyncpg.InterfaceError | OSError):
                raise _storage_error(exc, f"cannot connect to {_redacted(self.dsn)}") from exc
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
            _MIGRATION_LOCK,
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
                raise _storage_error(exc, "cannot read schema_migrations") from exc
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
                    raise _storage_error(exc, f"migration {migration.name} failed") from exc
                raise
            if done is None:
                log.info("%s: applied migration %s", self, migration.name)

    # --- a board's message, visible to the presses on it ----------------------------------

    async def get_game(self, game_id: int) -> GameRecord | None:
        """The game; outside a transaction, once this process's writes of its board's
        message under way are done (see :meth:`_recording_board`)."""
        if self._current_transaction() is None:
            for done in list(self._recordings.get(game_id, ())):
                await done.wait()
        return await super().get_game(game_id)

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

    def _scope(self) -> _TransactionScope:
        return _TransactionScope(self)

    @asynccontextmanager
    async def _connection_alone(self) -> AsyncIterator[Db]:
        with _translated("could not get a connection"):
            conn = await self._connection_pool().acquire()
        try:
            yield PostgresDb(conn)
        finally:
            await _release(self._pool, conn)


async def _release(pool: asyncpg.Pool | None, conn: Connection) -> None:
    """Give a connection back to its pool; a broken one is dropped (the pool replaces it)."""
    try:
        if pool is not None:
            await pool.release(conn)
    except Exception:
        log.debug("releasing a connection failed", exc_info=True)


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
