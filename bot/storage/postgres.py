"""PostgreSQL storage through asyncpg, for several worker processes on one database.

The same interface and behaviour as :mod:`bot.storage.sqlite`. One :class:`PostgresStorage`
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
import functools
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar, Token
from importlib import resources
from types import TracebackType
from typing import Any, ParamSpec, TypeVar

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from bot.storage.base import (
    OPEN_STATUSES,
    Chat,
    Event,
    GameRecord,
    GameStatus,
    RatingRow,
    ResultRow,
    StaleVersionError,
    StorageError,
    User,
)
from bot.storage.sqlite import (
    COMPUTER_NAME,
    COMPUTER_PLATFORM_ID,
    Migration,
    _chat,
    _dumps,
    _game,
    _key,
    _rating,
    _result,
    _seats,
    _status_values,
    _user,
)

log = logging.getLogger(__name__)

DEFAULT_LOCK_TIMEOUT = 5.0
DEFAULT_POOL_SIZE = 10
#: The first key of the advisory locks taken here (the second is per schema or per rating).
_MIGRATION_LOCK = 0x7A71A  # "tavla"

_P = ParamSpec("_P")
_R = TypeVar("_R")

Connection = asyncpg.Connection | PoolConnectionProxy


# --- migrations --------------------------------------------------------------------------

_MIGRATION_FILE = re.compile(r"^(\d{4})_[A-Za-z0-9_]+\.sql$")


def load_pg_migrations() -> list[Migration]:
    """The migrations shipped in ``bot/storage/migrations_pg``, in order.

    They must be numbered 0001, 0002, … without gaps or repeats, like ``migrations/``.
    """
    folder = resources.files("bot.storage").joinpath("migrations_pg")
    found = []
    for entry in folder.iterdir():
        match = _MIGRATION_FILE.match(entry.name)
        if match is not None:
            found.append(Migration(int(match[1]), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        names = ", ".join(m.name for m in found)
        raise RuntimeError(f"migrations must be numbered 0001, 0002, … without gaps: {names}")
    return found


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


def _translated(
    function: Callable[_P, Awaitable[_R]],
) -> Callable[_P, Awaitable[_R]]:
    """Raise the database's own failures as :class:`StorageError`, the cause chained."""

    @functools.wraps(function)
    async def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return await function(*args, **kwargs)
        except StorageError:
            raise
        except Exception as exc:
            if _is_unavailable(exc):
                raise _storage_error(exc) from exc
            raise

    return wrapper


# --- rows --------------------------------------------------------------------------------

#: The columns written from a GameRecord (besides id, created, updated and version).
_GAME_FIELDS = (
    "platform",
    "chat_id",
    "variant",
    "status",
    "seat0",
    "seat1",
    "challenger",
    "match",
    "dice",
    "commitment",
    "settings",
    "message",
    "deadline",
    "reminded",
    "rated",
)
_GAME_COLUMNS = ", ".join(_GAME_FIELDS)
_GAME_MARKS = ", ".join(f"${n}" for n in range(1, len(_GAME_FIELDS) + 1))
_GAME_ASSIGNMENTS = ", ".join(f"{name} = ${n}" for n, name in enumerate(_GAME_FIELDS, start=1))
_N = len(_GAME_FIELDS)


def _game_values(record: GameRecord) -> tuple[Any, ...]:
    seat0, seat1 = _seats(record.seats)
    return (
        record.platform,
        str(record.chat_id),
        record.variant,
        GameStatus(record.status).value,
        seat0,
        seat1,
        record.challenger,
        _dumps(record.match),
        _dumps(record.dice if record.dice is not None else {}),
        record.commitment,
        _dumps(record.settings if record.settings is not None else {}),
        _dumps(record.message),
        record.deadline,
        bool(record.reminded),
        bool(record.rated),
    )


async def _get_game(conn: Connection, game_id: int, *, lock: bool = False) -> GameRecord | None:
    sql = "SELECT * FROM games WHERE id = $1" + (" FOR UPDATE" if lock else "")
    row = await conn.fetchrow(sql, game_id)
    return None if row is None else _game(row)


async def _get_user(conn: Connection, user_id: int) -> User | None:
    row = await conn.fetchrow("SELECT * FROM users WHERE id = $1", user_id)
    return None if row is None else _user(row)


# The transaction running in the current task (and the tasks it starts), if any.
_ACTIVE: ContextVar[PostgresTransaction | None] = ContextVar("tavla_postgres_tx", default=None)


class PostgresTransaction:
    """The operations of one transaction on one pooled connection (see ``base.Transaction``)."""

    def __init__(self, storage: PostgresStorage, conn: Connection) -> None:
        self._storage = storage
        self._conn = conn
        self._open = True

    @property
    def conn(self) -> Connection:
        if not self._open:
            raise RuntimeError("this transaction is over")
        return self._conn

    @_translated
    async def get_game(self, game_id: int) -> GameRecord | None:
        """The game, its row locked until the transaction ends (``FOR UPDATE``)."""
        return await _get_game(self.conn, game_id, lock=True)

    @_translated
    async def insert_game(self, record: GameRecord) -> GameRecord:
        """Store a new game; sets ``id``, ``version`` = 1 and zero timestamps, in place."""
        if record.id is not None:
            raise ValueError(f"game {record.id} is stored already")
        created = record.created or time.time()
        updated = record.updated or created
        record.id = await self.conn.fetchval(
            f"INSERT INTO games ({_GAME_COLUMNS}, created, updated, version) "
            f"VALUES ({_GAME_MARKS}, ${_N + 1}, ${_N + 2}, 1) RETURNING id",
            *_game_values(record),
            float(created),
            float(updated),
        )
        record.created = created
        record.updated = updated
        record.version = 1
        return record

    @_translated
    async def save_game(self, record: GameRecord, expected_version: int) -> GameRecord:
        """Write the game if it is still at ``expected_version``; sets ``version`` in place.

        ``updated`` is written as given (the caller's clock), or the current time if it is 0.
        """
        if record.id is None:
            raise ValueError("save_game needs a stored game (insert_game first)")
        updated = record.updated or time.time()
        status = await self.conn.execute(
            f"UPDATE games SET {_GAME_ASSIGNMENTS}, updated = ${_N + 1}, version = version + 1 "
            f"WHERE id = ${_N + 2} AND version = ${_N + 3}",
            *_game_values(record),
            float(updated),
            record.id,
            expected_version,
        )
        if status != "UPDATE 1":
            raise StaleVersionError(f"game {record.id} is no longer at version {expected_version}")
        record.updated = updated
        record.version = expected_version + 1
        return record

    @_translated
    async def add_events(
        self,
        game_id: int,
        events: list[tuple[str, dict[str, Any]]],
        *,
        ts: float | None = None,
    ) -> None:
        """Append events with the next sequence numbers (``ts`` defaults to now)."""
        if not events:
            return
        conn = self.conn
        # The game's row lock keeps two transactions from taking the same numbers.
        await conn.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", game_id)
        last = await conn.fetchval(
            "SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = $1", game_id
        )
        stamp = time.time() if ts is None else ts
        await conn.executemany(
            "INSERT INTO events (game_id, seq, ts, type, data) VALUES ($1, $2, $3, $4, $5)",
            [
                (game_id, last + number, float(stamp), kind, _dumps(data))
                for number, (kind, data) in enumerate(events, start=1)
            ],
        )

    @_translated
    async def get_rating(self, user_id: int, scope: str, kind: str) -> RatingRow:
        """The rating row (or a fresh one), locked against other writers until the end."""
        conn = self.conn
        await conn.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended($1, $2))",
            f"tavla.rating:{user_id}:{scope}:{kind}",
            _MIGRATION_LOCK,
        )
        row = await conn.fetchrow(
            "SELECT * FROM ratings WHERE user_id = $1 AND scope = $2 AND kind = $3",
            user_id,
            scope,
            kind,
        )
        if row is None:
            return RatingRow(user_id=user_id, scope=scope, kind=kind)
        return _rating(row)

    @_translated
    async def put_rating(self, row: RatingRow, ts: float) -> None:
        conn = self.conn
        await conn.execute(
            "INSERT INTO ratings (user_id, scope, kind, rating, experience, games, updated) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7) "
            "ON CONFLICT (user_id, scope, kind) DO UPDATE SET rating = excluded.rating, "
            "experience = excluded.experience, games = excluded.games, updated = excluded.updated",
            row.user_id,
            row.scope,
            row.kind,
            float(row.rating),
            row.experience,
            row.games,
            float(ts),
        )
        await conn.execute(
            "INSERT INTO rating_history (user_id, scope, kind, ts, rating, experience) "
            "VALUES ($1, $2, $3, $4, $5, $6)",
            row.user_id,
            row.scope,
            row.kind,
            float(ts),
            float(row.rating),
            row.experience,
        )

    @_translated
    async def add_result(self, row: ResultRow) -> None:
        await self.conn.execute(
            "INSERT INTO results (game_id, scope, kind, winner_id, loser_id, length, "
            "winner_points, loser_points, gammons, backgammons, rated, finished) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            row.game_id,
            row.scope,
            row.kind,
            row.winner_id,
            row.loser_id,
            row.length,
            float(row.winner_points),
            float(row.loser_points),
            row.gammons,
            row.backgammons,
            bool(row.rated),
            float(row.finished),
        )

    @_translated
    async def count_rated_between(self, user_a: int, user_b: int, kind: str, since: float) -> int:
        """Rated contests of this kind between the two finished at or after ``since``.

        A contest recorded in several scopes counts once.
        """
        count = await self.conn.fetchval(
            "SELECT COUNT(DISTINCT game_id) FROM results "
            "WHERE rated AND kind = $1 AND finished >= $2 "
            "AND ((winner_id = $3 AND loser_id = $4) OR (winner_id = $4 AND loser_id = $3))",
            kind,
            float(since),
            user_a,
            user_b,
        )
        return int(count or 0)


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
            await self._release(conn)
            if isinstance(exc, Exception) and _is_unavailable(exc):
                raise _storage_error(exc, "could not start a transaction") from exc
            raise
        self._conn = conn
        self._transaction = transaction
        self._tx = PostgresTransaction(storage, conn)
        self._token = _ACTIVE.set(self._tx)
        return self._tx

    async def _release(self, conn: Connection) -> None:
        pool = self._storage._pool
        try:
            if pool is not None:
                await pool.release(conn)
        except Exception:  # a broken connection: the pool replaces it
            log.debug("releasing a connection failed", exc_info=True)

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
        _ACTIVE.reset(self._token)
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
            await self._release(conn)
        return False

    @staticmethod
    async def _quiet_rollback(transaction: Any) -> None:
        """Roll back if still possible; a lost connection has rolled back by itself."""
        try:
            await transaction.rollback()
        except Exception:
            log.debug("rollback failed", exc_info=True)


class _PooledConnection(asyncpg.Connection):  # type: ignore[misc]
    """A pooled connection returned to the pool without asyncpg's reset query.

    The reset (``pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL``) costs a round
    trip on every release, several per button press. Nothing here leaves session state
    behind: locks are transaction-level (``pg_advisory_xact_lock``), there are no cursors,
    listeners or ``SET`` outside the connection settings, and asyncpg still ends any open
    transaction on release.
    """

    def get_reset_query(self) -> str:
        return ""


class PostgresStorage:
    """:class:`~bot.storage.base.Storage` on a PostgreSQL database (``postgresql://…``).

    ``lock_timeout`` (seconds) is how long a statement waits for a lock held by another
    transaction (another worker) before giving up with :class:`StorageError`;
    ``pool_size`` is the most connections kept open. ``server_settings`` are passed to every
    connection (e.g. ``{"search_path": "tavla"}``), as are query parameters of the URL.
    """

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
        self.dsn = dsn
        self.lock_timeout = lock_timeout
        self.pool_size = pool_size
        self.connect_timeout = connect_timeout
        self.server_settings = dict(server_settings or {})
        self._migrations = list(migrations) if migrations is not None else None
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()

    def __repr__(self) -> str:
        return f"PostgresStorage({_redacted(self.dsn)!r})"

    async def __aenter__(self) -> PostgresStorage:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

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
        migrations = self._migrations if self._migrations is not None else load_pg_migrations()
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

    # --- transactions ----------------------------------------------------------------------

    def transaction(self) -> AbstractAsyncContextManager[PostgresTransaction]:
        """``async with storage.transaction() as tx:`` commits on success, rolls back on error.

        Transactions do not nest; the storage's own methods called inside one are part of it.
        """
        return _TransactionScope(self)

    def _current_transaction(self) -> PostgresTransaction | None:
        tx = _ACTIVE.get()
        if tx is not None and tx._storage is self and tx._open:
            return tx
        return None

    @asynccontextmanager
    async def _reading(self) -> AsyncIterator[Connection]:
        """A connection, for statements that need no transaction of their own."""
        tx = self._current_transaction()
        if tx is not None:
            yield tx.conn
            return
        async with self._connection_pool().acquire() as conn:
            yield conn

    @asynccontextmanager
    async def _writing(self) -> AsyncIterator[Connection]:
        """A connection inside a transaction: the current one, or a new one."""
        tx = self._current_transaction()
        if tx is not None:
            yield tx.conn
            return
        async with self.transaction() as new:
            yield new.conn

    # --- users and chats -------------------------------------------------------------------

    @_translated
    async def get_or_create_user(
        self,
        platform: str,
        platform_id: str,
        name: str,
        platform_lang: str | None = None,
        *,
        username: str | None = None,
    ) -> User:
        """The user, created on first sight; name, username and platform language refreshed.

        ``username`` (e.g. Telegram's ``@ali``) is what :meth:`find_user` looks for first;
        without it the name serves. A ``platform_lang`` of None keeps the one known.
        """
        platform_id = str(platform_id)
        handle = _key(username or name)
        async with self._reading() as conn:
            row = await conn.fetchrow(
                "SELECT * FROM users WHERE platform = $1 AND platform_id = $2",
                platform,
                platform_id,
            )
        if (
            row is not None
            and row["name"] == name
            and row["handle"] == handle
            and (platform_lang is None or row["platform_lang"] == platform_lang)
        ):
            return _user(row)
        return await self._upsert_user(platform, platform_id, name, handle, platform_lang, False)

    @_translated
    async def computer_user(self, platform: str) -> User:
        async with self._reading() as conn:
            row = await conn.fetchrow(
                "SELECT * FROM users WHERE platform = $1 AND platform_id = $2",
                platform,
                COMPUTER_PLATFORM_ID,
            )
        if row is not None and row["is_bot"]:
            return _user(row)
        return await self._upsert_user(
            platform, COMPUTER_PLATFORM_ID, COMPUTER_NAME, _key(COMPUTER_NAME), None, True
        )

    async def _upsert_user(
        self,
        platform: str,
        platform_id: str,
        name: str,
        handle: str,
        platform_lang: str | None,
        is_bot: bool,
    ) -> User:
        now = time.time()
        async with self._writing() as conn:
            row = await conn.fetchrow(
                "INSERT INTO users (platform, platform_id, name, handle, name_key, platform_lang, "
                "is_bot, created, updated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) "
                "ON CONFLICT (platform, platform_id) DO UPDATE SET name = excluded.name, "
                "handle = excluded.handle, name_key = excluded.name_key, "
                "platform_lang = COALESCE(excluded.platform_lang, users.platform_lang), "
                "is_bot = users.is_bot OR excluded.is_bot, updated = excluded.updated "
                "RETURNING *",
                platform,
                platform_id,
                name,
                handle,
                _key(name),
                platform_lang,
                is_bot,
                now,
            )
        assert row is not None
        return _user(row)

    @_translated
    async def get_user(self, user_id: int) -> User | None:
        async with self._reading() as conn:
            return await _get_user(conn, user_id)

    @_translated
    async def find_user(self, platform: str, name_or_id: str) -> User | None:
        """By platform id, else by username, else by name (``@`` and case ignored).

        When several users had the same name, the one whose name changed last wins.
        """
        text = str(name_or_id).strip()
        key = _key(text)
        if not key:
            return None
        async with self._reading() as conn:
            row = await conn.fetchrow(
                "SELECT * FROM users WHERE platform = $1 "
                "AND (platform_id = $2 OR platform_id = $3 OR handle = $4 OR name_key = $4) "
                "ORDER BY platform_id IN ($2, $3) DESC, handle = $4 DESC, updated DESC, id DESC "
                "LIMIT 1",
                platform,
                text,
                text.removeprefix("@"),
                key,
            )
        return None if row is None else _user(row)

    @_translated
    async def set_user_lang(self, user_id: int, lang: str | None) -> None:
        async with self._writing() as conn:
            await conn.execute(
                "UPDATE users SET lang = $1, updated = $2 WHERE id = $3",
                lang,
                time.time(),
                user_id,
            )

    @_translated
    async def get_chat(self, platform: str, chat_id: str, title: str | None = None) -> Chat:
        """The chat, created on first sight; a title given replaces the one known."""
        chat_id = str(chat_id)
        async with self._reading() as conn:
            row = await conn.fetchrow(
                "SELECT * FROM chats WHERE platform = $1 AND chat_id = $2", platform, chat_id
            )
        if row is not None and (title is None or row["title"] == title):
            return _chat(row)
        async with self._writing() as conn:
            row = await conn.fetchrow(
                "INSERT INTO chats (platform, chat_id, title, created) VALUES ($1, $2, $3, $4) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET "
                "title = COALESCE(excluded.title, chats.title) RETURNING *",
                platform,
                chat_id,
                title,
                time.time(),
            )
        assert row is not None
        return _chat(row)

    @_translated
    async def set_chat_lang(self, platform: str, chat_id: str, lang: str | None) -> None:
        async with self._writing() as conn:
            await conn.execute(
                "INSERT INTO chats (platform, chat_id, lang, created) VALUES ($1, $2, $3, $4) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET lang = excluded.lang",
                platform,
                str(chat_id),
                lang,
                time.time(),
            )

    # --- games -----------------------------------------------------------------------------

    @_translated
    async def set_game_message(self, game_id: int, message: dict[str, Any] | None) -> None:
        async with self._writing() as conn:
            await conn.execute(
                "UPDATE games SET message = $1 WHERE id = $2", _dumps(message), game_id
            )

    @_translated
    async def mark_board_shown(
        self, game_id: int, version: int, message: dict[str, Any] | None = None
    ) -> None:
        async with self._writing() as conn:
            await conn.execute(
                "UPDATE games SET shown_version = GREATEST(shown_version, $1), "
                "message = COALESCE($2::json, message) WHERE id = $3",
                version,
                _dumps(message),
                game_id,
            )

    @_translated
    async def lagging_boards(
        self, updated_before: float, updated_after: float, limit: int = 50
    ) -> list[GameRecord]:
        async with self._reading() as conn:
            rows = await conn.fetch(
                "SELECT * FROM games WHERE shown_version < version "
                "AND updated < $1 AND updated > $2 AND status = ANY($3::text[]) "
                "AND NOT EXISTS (SELECT 1 FROM chats WHERE chats.platform = games.platform "
                "AND chats.chat_id = games.chat_id AND chats.paused IS NOT NULL) "
                "ORDER BY updated, id LIMIT $4",
                float(updated_before),
                float(updated_after),
                _status_values((GameStatus.ACTIVE, GameStatus.FINISHED)),
                limit,
            )
        return [_game(row) for row in rows]

    @_translated
    async def set_chat_paused(self, platform: str, chat_id: str, paused: float | None) -> None:
        async with self._writing() as conn:
            await conn.execute(
                "INSERT INTO chats (platform, chat_id, paused, created) VALUES ($1, $2, $3, $4) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET paused = excluded.paused",
                platform,
                str(chat_id),
                paused,
                time.time(),
            )

    @_translated
    async def move_chat(self, platform: str, old_chat_id: str, new_chat_id: str) -> None:
        old_scope, new_scope = f"{platform}:{old_chat_id}", f"{platform}:{new_chat_id}"
        async with self._writing() as conn:
            await conn.execute(
                "INSERT INTO chats (platform, chat_id, title, lang, created) "
                "SELECT platform, $1, title, lang, created FROM chats "
                "WHERE platform = $2 AND chat_id = $3 "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET "
                "title = COALESCE(chats.title, excluded.title), "
                "lang = COALESCE(chats.lang, excluded.lang), paused = NULL",
                str(new_chat_id),
                platform,
                str(old_chat_id),
            )
            # Rows the new chat already has win (it cannot have any, in practice: Telegram
            # announces the move before anything happens in the new chat).
            await conn.execute(
                "UPDATE ratings SET scope = $1 WHERE scope = $2 AND NOT EXISTS (SELECT 1 "
                "FROM ratings AS r WHERE r.scope = $1 AND r.user_id = ratings.user_id "
                "AND r.kind = ratings.kind)",
                new_scope,
                old_scope,
            )
            await conn.execute(
                "UPDATE rating_history SET scope = $1 WHERE scope = $2", new_scope, old_scope
            )
            await conn.execute(
                "UPDATE results SET scope = $1 WHERE scope = $2 AND NOT EXISTS (SELECT 1 "
                "FROM results AS r WHERE r.scope = $1 AND r.game_id = results.game_id)",
                new_scope,
                old_scope,
            )

    @_translated
    async def get_game(self, game_id: int) -> GameRecord | None:
        async with self._reading() as conn:
            return await _get_game(conn, game_id)

    @_translated
    async def games_in_chat(
        self, platform: str, chat_id: str, statuses: tuple[GameStatus, ...] = OPEN_STATUSES
    ) -> list[GameRecord]:
        """The chat's games with one of these statuses, oldest first."""
        values = _status_values(statuses)
        if not values:
            return []
        async with self._reading() as conn:
            rows = await conn.fetch(
                "SELECT * FROM games WHERE platform = $1 AND chat_id = $2 "
                "AND status = ANY($3::text[]) ORDER BY id",
                platform,
                str(chat_id),
                values,
            )
        return [_game(row) for row in rows]

    @_translated
    async def games_of_user(
        self, user_id: int, statuses: tuple[GameStatus, ...] = OPEN_STATUSES
    ) -> list[GameRecord]:
        """The games where the user holds a seat, with one of these statuses, oldest first."""
        values = _status_values(statuses)
        if not values:
            return []
        async with self._reading() as conn:
            rows = await conn.fetch(
                "SELECT * FROM games WHERE (seat0 = $1 OR seat1 = $1) "
                "AND status = ANY($2::text[]) ORDER BY id",
                user_id,
                values,
            )
        return [_game(row) for row in rows]

    @_translated
    async def due_games(self, now: float, remind_within: float = 0.0) -> list[GameRecord]:
        """Open games whose deadline has passed, or not yet reminded and whose deadline is
        within ``remind_within`` seconds; soonest first."""
        async with self._reading() as conn:
            rows = await conn.fetch(
                "SELECT * FROM games WHERE status = ANY($1::text[]) "
                "AND deadline IS NOT NULL "
                "AND (deadline <= $2 OR (NOT reminded AND deadline <= $3)) "
                "ORDER BY deadline, id",
                _status_values(OPEN_STATUSES),
                float(now),
                float(now) + float(remind_within),
            )
        return [_game(row) for row in rows]

    @_translated
    async def events(self, game_id: int) -> list[Event]:
        """The game's log, in order (seq 1, 2, …)."""
        async with self._reading() as conn:
            rows = await conn.fetch("SELECT * FROM events WHERE game_id = $1 ORDER BY seq", game_id)
        return [
            Event(
                game_id=row["game_id"],
                seq=row["seq"],
                ts=row["ts"],
                type=row["type"],
                data=json.loads(row["data"]),
            )
            for row in rows
        ]

    # --- ratings and results ---------------------------------------------------------------

    @_translated
    async def top(self, scope: str, kind: str, limit: int = 10) -> list[tuple[User, RatingRow]]:
        """The best ratings of a scope and kind: highest first, then most games."""
        async with self._reading() as conn:
            rows = await conn.fetch(
                "SELECT users.*, ratings.user_id, ratings.scope, ratings.kind, ratings.rating, "
                "ratings.experience, ratings.games FROM ratings "
                "JOIN users ON users.id = ratings.user_id "
                "WHERE ratings.scope = $1 AND ratings.kind = $2 "
                "ORDER BY ratings.rating DESC, ratings.games DESC, users.id LIMIT $3",
                scope,
                kind,
                limit,
            )
        return [(_user(row), _rating(row)) for row in rows]

    @_translated
    async def reset_scope(self, scope: str, kind: str | None = None) -> int:
        where, args = "scope = $1", [scope]
        if kind is not None:
            where, args = where + " AND kind = $2", [*args, kind]
        async with self._writing() as conn:
            status = await conn.execute(f"DELETE FROM ratings WHERE {where}", *args)
        return int(status.split()[-1])

    @_translated
    async def rating_history(
        self, user_id: int, scope: str, kind: str
    ) -> list[tuple[float, float]]:
        async with self._reading() as conn:
            rows = await conn.fetch(
                "SELECT ts, rating FROM rating_history WHERE user_id = $1 AND scope = $2 "
                "AND kind = $3 ORDER BY ts, id",
                user_id,
                scope,
                kind,
            )
        return [(row["ts"], row["rating"]) for row in rows]

    @_translated
    async def results_of_user(self, user_id: int, kind: str | None = None) -> list[ResultRow]:
        """The user's finished contests (as winner or loser), oldest first."""
        async with self._reading() as conn:
            rows = await conn.fetch(
                "SELECT * FROM results WHERE (winner_id = $1 OR loser_id = $1) "
                "AND ($2::text IS NULL OR kind = $2) ORDER BY finished, id",
                user_id,
                kind,
            )
        return [_result(row) for row in rows]


def _redacted(dsn: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", dsn)


__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "DEFAULT_POOL_SIZE",
    "PostgresStorage",
    "PostgresTransaction",
    "load_pg_migrations",
]
