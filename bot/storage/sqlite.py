"""SQLite storage through aiosqlite.

One :class:`SqliteStorage` owns one connection (one worker thread of aiosqlite) shared by
every asyncio task of the process. SQLite itself serializes writers between processes
(``BEGIN IMMEDIATE`` waits up to ``busy_timeout`` for another writer); inside the process an
:class:`asyncio.Lock` is held for the whole of each transaction, so the statements of two
tasks never interleave on the shared connection. Methods of the storage called from inside a
transaction (in the same task, or in tasks it starts while it is open) run as part of that
transaction instead of waiting for the lock.

The schema lives in numbered migrations, ``migrations/NNNN_name.sql``, applied in order by
:meth:`SqliteStorage.open`, each in its own transaction and recorded in
``schema_migrations``. The event log is append-only: nothing here updates or deletes events,
and triggers in the schema refuse it.

Errors of the database (locked for longer than the busy timeout, unable to open the file, disk
full, I/O errors…) are raised as :class:`~bot.storage.base.StorageError` with the sqlite3
exception as their cause; integrity and programming errors (bugs) are left as they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import Any, ParamSpec, TypeVar

import aiosqlite

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

log = logging.getLogger(__name__)

MEMORY = ":memory:"
COMPUTER_PLATFORM_ID = "computer"
COMPUTER_NAME = "Tavla Bot"
DEFAULT_BUSY_TIMEOUT = 5.0

_P = ParamSpec("_P")
_R = TypeVar("_R")


# --- migrations --------------------------------------------------------------------------

_MIGRATION_FILE = re.compile(r"^(\d{4})_[A-Za-z0-9_]+\.sql$")


@dataclass(frozen=True)
class Migration:
    """One numbered schema change."""

    version: int
    name: str
    sql: str


def load_migrations() -> list[Migration]:
    """The migrations shipped in ``bot/storage/migrations``, in order.

    They must be numbered 0001, 0002, … without gaps or repeats.
    """
    folder = resources.files("bot.storage").joinpath("migrations")
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


def split_statements(script: str) -> list[str]:
    """Split an SQL script into complete statements (triggers' ``BEGIN … END`` kept whole)."""
    statements = []
    buffer = ""
    for part in script.split(";"):
        buffer += part + ";"
        if sqlite3.complete_statement(buffer):
            statement = buffer.strip()
            if _has_code(statement):
                statements.append(statement)
            buffer = ""
    if _has_code(buffer.rstrip(";")):
        raise ValueError(f"incomplete SQL statement at the end of the script: {buffer.strip()!r}")
    return statements


def _has_code(sql: str) -> bool:
    """Whether ``sql`` holds more than comments, whitespace and semicolons."""
    without_comments = re.sub(r"--[^\n]*|/\*.*?\*/", "", sql, flags=re.DOTALL)
    return bool(without_comments.strip().strip(";").strip())


# --- errors ------------------------------------------------------------------------------


def _is_unavailable(exc: BaseException) -> bool:
    """Errors of the database itself (locked, cannot open, I/O, corrupt), not of our code."""
    return isinstance(exc, sqlite3.OperationalError | sqlite3.InternalError) or (
        type(exc) is sqlite3.DatabaseError
    )


def _translated(
    function: Callable[_P, Awaitable[_R]],
) -> Callable[_P, Awaitable[_R]]:
    """Raise the database's own failures as :class:`StorageError`, the cause chained."""

    @functools.wraps(function)
    async def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return await function(*args, **kwargs)
        except sqlite3.Error as exc:
            if _is_unavailable(exc):
                raise StorageError(f"database error: {exc}") from exc
            raise

    return wrapper


async def _quiet_rollback(conn: aiosqlite.Connection) -> None:
    """Roll back whatever transaction may be open; never raises (but for cancellation)."""
    # sqlite3.Error: no transaction was open; ValueError: the connection is gone.
    with contextlib.suppress(sqlite3.Error, ValueError):
        await asyncio.shield(conn.execute("ROLLBACK"))


# --- rows --------------------------------------------------------------------------------


def _dumps(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _key(text: str) -> str:
    """The lookup key of a name or username: no "@", no case."""
    return text.strip().removeprefix("@").strip().casefold()


def _status_values(statuses: Iterable[GameStatus | str]) -> list[str]:
    return [GameStatus(s).value for s in statuses]


def _placeholders(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))


def _seats(seats: Sequence[int | None]) -> tuple[int | None, int | None]:
    if len(seats) != 2:
        raise ValueError(f"a game has two seats, not {len(seats)}: {seats!r}")
    return seats[0], seats[1]


def _user(row: sqlite3.Row) -> User:
    return User(
        id=row["id"],
        platform=row["platform"],
        platform_id=row["platform_id"],
        name=row["name"],
        lang=row["lang"],
        platform_lang=row["platform_lang"],
        is_bot=bool(row["is_bot"]),
    )


def _chat(row: sqlite3.Row) -> Chat:
    return Chat(
        platform=row["platform"],
        chat_id=row["chat_id"],
        lang=row["lang"],
        title=row["title"],
        paused=row["paused"],
    )


def _game(row: sqlite3.Row) -> GameRecord:
    return GameRecord(
        id=row["id"],
        platform=row["platform"],
        chat_id=row["chat_id"],
        variant=row["variant"],
        status=GameStatus(row["status"]),
        seats=[row["seat0"], row["seat1"]],
        challenger=row["challenger"],
        match=_loads(row["match"]),
        dice=json.loads(row["dice"]),
        commitment=row["commitment"],
        settings=json.loads(row["settings"]),
        message=_loads(row["message"]),
        deadline=row["deadline"],
        reminded=bool(row["reminded"]),
        rated=bool(row["rated"]),
        created=row["created"],
        updated=row["updated"],
        version=row["version"],
        shown_version=row["shown_version"],
    )


def _rating(row: sqlite3.Row) -> RatingRow:
    return RatingRow(
        user_id=row["user_id"],
        scope=row["scope"],
        kind=row["kind"],
        rating=row["rating"],
        experience=row["experience"],
        games=row["games"],
    )


def _result(row: sqlite3.Row) -> ResultRow:
    return ResultRow(
        game_id=row["game_id"],
        scope=row["scope"],
        kind=row["kind"],
        winner_id=row["winner_id"],
        loser_id=row["loser_id"],
        length=row["length"],
        winner_points=row["winner_points"],
        loser_points=row["loser_points"],
        gammons=row["gammons"],
        backgammons=row["backgammons"],
        rated=bool(row["rated"]),
        finished=row["finished"],
    )


async def _fetchall(
    conn: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()
) -> list[sqlite3.Row]:
    return list(await conn.execute_fetchall(sql, params))


async def _fetchone(
    conn: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()
) -> sqlite3.Row | None:
    rows = await _fetchall(conn, sql, params)
    return rows[0] if rows else None


# --- queries shared by the storage and its transactions ------------------------------------

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
_GAME_ASSIGNMENTS = ", ".join(f"{name} = ?" for name in _GAME_FIELDS)


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
        int(bool(record.reminded)),
        int(bool(record.rated)),
    )


async def _get_game(conn: aiosqlite.Connection, game_id: int) -> GameRecord | None:
    row = await _fetchone(conn, "SELECT * FROM games WHERE id = ?", (game_id,))
    return None if row is None else _game(row)


async def _get_user(conn: aiosqlite.Connection, user_id: int) -> User | None:
    row = await _fetchone(conn, "SELECT * FROM users WHERE id = ?", (user_id,))
    return None if row is None else _user(row)


# The transaction running in the current task (and the tasks it starts), if any.
_ACTIVE: ContextVar[SqliteTransaction | None] = ContextVar("tavla_sqlite_tx", default=None)


class SqliteTransaction:
    """The operations of one ``BEGIN IMMEDIATE`` transaction (see ``base.Transaction``)."""

    def __init__(self, storage: SqliteStorage, conn: aiosqlite.Connection) -> None:
        self._storage = storage
        self._conn = conn
        self._open = True

    @property
    def conn(self) -> aiosqlite.Connection:
        if not self._open:
            raise RuntimeError("this transaction is over")
        return self._conn

    @_translated
    async def get_game(self, game_id: int) -> GameRecord | None:
        return await _get_game(self.conn, game_id)

    @_translated
    async def insert_game(self, record: GameRecord) -> GameRecord:
        """Store a new game; sets ``id``, ``version`` = 1 and zero timestamps, in place."""
        if record.id is not None:
            raise ValueError(f"game {record.id} is stored already")
        values = _game_values(record)
        created = record.created or time.time()
        updated = record.updated or created
        cursor = await self.conn.execute(
            f"INSERT INTO games ({_GAME_COLUMNS}, created, updated, version) "
            f"VALUES ({_placeholders(values)}, ?, ?, 1)",
            (*values, created, updated),
        )
        record.id = cursor.lastrowid
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
        cursor = await self.conn.execute(
            f"UPDATE games SET {_GAME_ASSIGNMENTS}, updated = ?, version = version + 1 "
            "WHERE id = ? AND version = ?",
            (*_game_values(record), updated, record.id, expected_version),
        )
        if cursor.rowcount != 1:
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
        row = await _fetchone(
            conn, "SELECT COALESCE(MAX(seq), 0) AS last FROM events WHERE game_id = ?", (game_id,)
        )
        last = row["last"] if row is not None else 0
        stamp = time.time() if ts is None else ts
        await conn.executemany(
            "INSERT INTO events (game_id, seq, ts, type, data) VALUES (?, ?, ?, ?, ?)",
            [
                (game_id, last + number, stamp, kind, _dumps(data))
                for number, (kind, data) in enumerate(events, start=1)
            ],
        )

    @_translated
    async def get_rating(self, user_id: int, scope: str, kind: str) -> RatingRow:
        row = await _fetchone(
            self.conn,
            "SELECT * FROM ratings WHERE user_id = ? AND scope = ? AND kind = ?",
            (user_id, scope, kind),
        )
        if row is None:
            return RatingRow(user_id=user_id, scope=scope, kind=kind)
        return _rating(row)

    @_translated
    async def put_rating(self, row: RatingRow, ts: float) -> None:
        conn = self.conn
        await conn.execute(
            "INSERT INTO ratings (user_id, scope, kind, rating, experience, games, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (user_id, scope, kind) DO UPDATE SET rating = excluded.rating, "
            "experience = excluded.experience, games = excluded.games, updated = excluded.updated",
            (row.user_id, row.scope, row.kind, row.rating, row.experience, row.games, ts),
        )
        await conn.execute(
            "INSERT INTO rating_history (user_id, scope, kind, ts, rating, experience) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (row.user_id, row.scope, row.kind, ts, row.rating, row.experience),
        )

    @_translated
    async def add_result(self, row: ResultRow) -> None:
        await self.conn.execute(
            "INSERT INTO results (game_id, scope, kind, winner_id, loser_id, length, "
            "winner_points, loser_points, gammons, backgammons, rated, finished) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                row.game_id,
                row.scope,
                row.kind,
                row.winner_id,
                row.loser_id,
                row.length,
                row.winner_points,
                row.loser_points,
                row.gammons,
                row.backgammons,
                int(bool(row.rated)),
                row.finished,
            ),
        )

    @_translated
    async def count_rated_between(self, user_a: int, user_b: int, kind: str, since: float) -> int:
        """Rated contests of this kind between the two finished at or after ``since``.

        A contest recorded in several scopes counts once.
        """
        row = await _fetchone(
            self.conn,
            "SELECT COUNT(DISTINCT game_id) AS n FROM results "
            "WHERE rated = 1 AND kind = ? AND finished >= ? "
            "AND ((winner_id = ? AND loser_id = ?) OR (winner_id = ? AND loser_id = ?))",
            (kind, since, user_a, user_b, user_b, user_a),
        )
        return 0 if row is None else int(row["n"])


class _TransactionScope(AbstractAsyncContextManager[SqliteTransaction]):
    """``async with storage.transaction() as tx``: lock, BEGIN IMMEDIATE, commit/rollback."""

    def __init__(self, storage: SqliteStorage) -> None:
        self._storage = storage
        self._tx: SqliteTransaction | None = None
        self._token: Token[SqliteTransaction | None] | None = None

    async def __aenter__(self) -> SqliteTransaction:
        storage = self._storage
        if storage._current_transaction() is not None:
            raise RuntimeError("SqliteStorage transactions do not nest")
        await storage._lock.acquire()
        try:
            conn = storage._connection()
        except BaseException:
            storage._lock.release()
            raise
        try:
            await conn.execute("BEGIN IMMEDIATE")
        except BaseException as exc:
            # A cancelled BEGIN may still run in aiosqlite's thread: undo it before anyone
            # else gets the connection (statements run in the order they were queued).
            await _quiet_rollback(conn)
            storage._lock.release()
            if isinstance(exc, sqlite3.Error) and _is_unavailable(exc):
                raise StorageError(f"could not start a transaction: {exc}") from exc
            raise
        self._tx = SqliteTransaction(storage, conn)
        self._token = _ACTIVE.set(self._tx)
        return self._tx

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        assert self._tx is not None
        assert self._token is not None
        tx, self._tx = self._tx, None
        _ACTIVE.reset(self._token)
        tx._open = False
        conn = tx._conn
        try:
            if exc is None:
                try:
                    await conn.execute("COMMIT")
                except BaseException as commit_exc:
                    await _quiet_rollback(conn)
                    if isinstance(commit_exc, sqlite3.Error) and _is_unavailable(commit_exc):
                        raise StorageError(f"could not commit: {commit_exc}") from commit_exc
                    raise
            else:
                await _quiet_rollback(conn)
                if isinstance(exc, sqlite3.Error) and _is_unavailable(exc):
                    raise StorageError(f"database error: {exc}") from exc
        finally:
            self._storage._lock.release()
        return False


class SqliteStorage:
    """:class:`~bot.storage.base.Storage` on an SQLite file (or ``":memory:"``).

    ``busy_timeout`` (seconds) is how long a write waits for another connection's write
    (another worker process) before giving up with :class:`StorageError`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        migrations: Sequence[Migration] | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self.busy_timeout = busy_timeout
        self._migrations = list(migrations) if migrations is not None else None
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"SqliteStorage({self.path!r})"

    async def __aenter__(self) -> SqliteStorage:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # --- connection ------------------------------------------------------------------------

    @_translated
    async def open(self) -> None:
        """Connect, set the pragmas and apply the migrations not yet applied (idempotent)."""
        async with self._lock:
            if self._conn is None:
                self._conn = await self._connect()

    async def _connect(self) -> aiosqlite.Connection:
        uri = self.path.startswith("file:")
        if self.path not in (MEMORY, "") and not uri:
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StorageError(f"cannot create the folder of {self.path}: {exc}") from exc
        conn = aiosqlite.connect(self.path, isolation_level=None, uri=uri)
        try:
            await conn
        except BaseException:
            # aiosqlite stops its worker thread without waiting for it; let it finish while
            # the event loop still runs, or it dies reporting to a closed loop.
            thread = getattr(conn, "_thread", None)
            if thread is not None:
                await asyncio.to_thread(thread.join, 1.0)
            raise
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {max(0, int(self.busy_timeout * 1000))}")
            await conn.execute("PRAGMA foreign_keys = ON")
            row = await self._wal(conn)
            if self.path != MEMORY and (row is None or str(row[0]).lower() != "wal"):
                log.warning("%s: WAL journal mode not available, using %s", self.path, row)
            await conn.execute("PRAGMA synchronous = NORMAL")
            await self._migrate(conn)
        except BaseException:
            await conn.close()
            raise
        return conn

    async def _wal(self, conn: aiosqlite.Connection) -> sqlite3.Row | None:
        """Switch to WAL; the journal mode it answers.

        SQLite answers "database is locked" at once, without its busy handler, when another
        connection switches a new file at the same moment (workers starting together): try
        again for up to ``busy_timeout``.
        """
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                return await _fetchone(conn, "PRAGMA journal_mode = WAL")
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
            await asyncio.sleep(0.02)

    async def close(self) -> None:
        """Wait for the running transaction, then close the connection (idempotent)."""
        if self._current_transaction() is not None:
            raise RuntimeError("cannot close the storage from inside one of its transactions")
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                await conn.close()

    def _connection(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise StorageError(f"{self!r} is not open")
        return self._conn

    async def _migrate(self, conn: aiosqlite.Connection) -> None:
        migrations = self._migrations if self._migrations is not None else load_migrations()
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied REAL NOT NULL)"
        )
        applied = {row[0] for row in await _fetchall(conn, "SELECT version FROM schema_migrations")}
        for migration in migrations:
            if migration.version in applied:
                continue
            await conn.execute("BEGIN IMMEDIATE")
            try:
                # Another worker may have applied it while we waited for the write lock.
                done = await _fetchone(
                    conn, "SELECT 1 FROM schema_migrations WHERE version = ?", (migration.version,)
                )
                if done is None:
                    for statement in split_statements(migration.sql):
                        await conn.execute(statement)
                    await conn.execute(
                        "INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)",
                        (migration.version, migration.name, time.time()),
                    )
                await conn.execute("COMMIT")
            except BaseException as exc:
                await _quiet_rollback(conn)
                if isinstance(exc, sqlite3.Error):
                    raise StorageError(f"migration {migration.name} failed: {exc}") from exc
                raise
            if done is None:
                log.info("%s: applied migration %s", self.path, migration.name)

    # --- transactions ----------------------------------------------------------------------

    def transaction(self) -> AbstractAsyncContextManager[SqliteTransaction]:
        """``async with storage.transaction() as tx:`` commits on success, rolls back on error.

        Transactions do not nest; the storage's own methods called inside one are part of it.
        """
        return _TransactionScope(self)

    def _current_transaction(self) -> SqliteTransaction | None:
        tx = _ACTIVE.get()
        if tx is not None and tx._storage is self and tx._open:
            return tx
        return None

    @asynccontextmanager
    async def _reading(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection, for statements that need no transaction of their own."""
        tx = self._current_transaction()
        if tx is not None:
            yield tx.conn
            return
        async with self._lock:
            yield self._connection()

    @asynccontextmanager
    async def _writing(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection inside a transaction: the current one, or a new one."""
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
            row = await _fetchone(
                conn,
                "SELECT * FROM users WHERE platform = ? AND platform_id = ?",
                (platform, platform_id),
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
            row = await _fetchone(
                conn,
                "SELECT * FROM users WHERE platform = ? AND platform_id = ?",
                (platform, COMPUTER_PLATFORM_ID),
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
            await conn.execute(
                "INSERT INTO users (platform, platform_id, name, handle, name_key, platform_lang, "
                "is_bot, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (platform, platform_id) DO UPDATE SET name = excluded.name, "
                "handle = excluded.handle, name_key = excluded.name_key, "
                "platform_lang = COALESCE(excluded.platform_lang, users.platform_lang), "
                "is_bot = MAX(users.is_bot, excluded.is_bot), updated = excluded.updated",
                (
                    platform,
                    platform_id,
                    name,
                    handle,
                    _key(name),
                    platform_lang,
                    int(is_bot),
                    now,
                    now,
                ),
            )
            row = await _fetchone(
                conn,
                "SELECT * FROM users WHERE platform = ? AND platform_id = ?",
                (platform, platform_id),
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
            row = await _fetchone(
                conn,
                "SELECT * FROM users WHERE platform = ? "
                "AND (platform_id = ? OR platform_id = ? OR handle = ? OR name_key = ?) "
                "ORDER BY platform_id IN (?, ?) DESC, handle = ? DESC, updated DESC, id DESC "
                "LIMIT 1",
                (
                    platform,
                    text,
                    text.removeprefix("@"),
                    key,
                    key,
                    text,
                    text.removeprefix("@"),
                    key,
                ),
            )
        return None if row is None else _user(row)

    @_translated
    async def set_user_lang(self, user_id: int, lang: str | None) -> None:
        async with self._writing() as conn:
            await conn.execute(
                "UPDATE users SET lang = ?, updated = ? WHERE id = ?", (lang, time.time(), user_id)
            )

    @_translated
    async def get_chat(self, platform: str, chat_id: str, title: str | None = None) -> Chat:
        """The chat, created on first sight; a title given replaces the one known."""
        chat_id = str(chat_id)
        async with self._reading() as conn:
            row = await _fetchone(
                conn, "SELECT * FROM chats WHERE platform = ? AND chat_id = ?", (platform, chat_id)
            )
        if row is not None and (title is None or row["title"] == title):
            return _chat(row)
        async with self._writing() as conn:
            await conn.execute(
                "INSERT INTO chats (platform, chat_id, title, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET "
                "title = COALESCE(excluded.title, chats.title)",
                (platform, chat_id, title, time.time()),
            )
            row = await _fetchone(
                conn, "SELECT * FROM chats WHERE platform = ? AND chat_id = ?", (platform, chat_id)
            )
        assert row is not None
        return _chat(row)

    @_translated
    async def set_chat_lang(self, platform: str, chat_id: str, lang: str | None) -> None:
        async with self._writing() as conn:
            await conn.execute(
                "INSERT INTO chats (platform, chat_id, lang, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET lang = excluded.lang",
                (platform, str(chat_id), lang, time.time()),
            )

    # --- games -----------------------------------------------------------------------------

    @_translated
    async def set_game_message(self, game_id: int, message: dict[str, Any] | None) -> None:
        async with self._writing() as conn:
            await conn.execute(
                "UPDATE games SET message = ? WHERE id = ?", (_dumps(message), game_id)
            )

    @_translated
    async def mark_board_shown(
        self, game_id: int, version: int, message: dict[str, Any] | None = None
    ) -> None:
        async with self._writing() as conn:
            await conn.execute(
                "UPDATE games SET shown_version = MAX(shown_version, ?), "
                "message = COALESCE(?, message) WHERE id = ?",
                (version, _dumps(message), game_id),
            )

    @_translated
    async def lagging_boards(
        self, updated_before: float, updated_after: float, limit: int = 50
    ) -> list[GameRecord]:
        values = _status_values((GameStatus.ACTIVE, GameStatus.FINISHED))
        async with self._reading() as conn:
            rows = await _fetchall(
                conn,
                "SELECT * FROM games WHERE shown_version < version "
                "AND updated < ? AND updated > ? "
                f"AND status IN ({_placeholders(values)}) "
                "AND NOT EXISTS (SELECT 1 FROM chats WHERE chats.platform = games.platform "
                "AND chats.chat_id = games.chat_id AND chats.paused IS NOT NULL) "
                "ORDER BY updated, id LIMIT ?",
                (updated_before, updated_after, *values, limit),
            )
        return [_game(row) for row in rows]

    @_translated
    async def set_chat_paused(self, platform: str, chat_id: str, paused: float | None) -> None:
        async with self._writing() as conn:
            await conn.execute(
                "INSERT INTO chats (platform, chat_id, paused, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET paused = excluded.paused",
                (platform, str(chat_id), paused, time.time()),
            )

    @_translated
    async def move_chat(self, platform: str, old_chat_id: str, new_chat_id: str) -> None:
        old_scope, new_scope = f"{platform}:{old_chat_id}", f"{platform}:{new_chat_id}"
        async with self._writing() as conn:
            await conn.execute(
                "INSERT INTO chats (platform, chat_id, title, lang, created) "
                "SELECT platform, ?, title, lang, created FROM chats "
                "WHERE platform = ? AND chat_id = ? "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET "
                "title = COALESCE(chats.title, excluded.title), "
                "lang = COALESCE(chats.lang, excluded.lang), paused = NULL",
                (str(new_chat_id), platform, str(old_chat_id)),
            )
            for table in ("ratings", "rating_history", "results"):
                # OR IGNORE: a row the new chat already has wins (it cannot, in practice:
                # Telegram announces the move before anything happens in the new chat).
                await conn.execute(
                    f"UPDATE OR IGNORE {table} SET scope = ? WHERE scope = ?",
                    (new_scope, old_scope),
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
            rows = await _fetchall(
                conn,
                "SELECT * FROM games WHERE platform = ? AND chat_id = ? "
                f"AND status IN ({_placeholders(values)}) ORDER BY id",
                (platform, str(chat_id), *values),
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
        marks = _placeholders(values)
        async with self._reading() as conn:
            rows = await _fetchall(
                conn,
                f"SELECT * FROM games WHERE seat0 = ? AND status IN ({marks}) UNION "
                f"SELECT * FROM games WHERE seat1 = ? AND status IN ({marks}) ORDER BY id",
                (user_id, *values, user_id, *values),
            )
        return [_game(row) for row in rows]

    @_translated
    async def due_games(self, now: float, remind_within: float = 0.0) -> list[GameRecord]:
        """Open games whose deadline has passed, or not yet reminded and whose deadline is
        within ``remind_within`` seconds; soonest first."""
        values = _status_values(OPEN_STATUSES)
        async with self._reading() as conn:
            rows = await _fetchall(
                conn,
                f"SELECT * FROM games WHERE status IN ({_placeholders(values)}) "
                "AND deadline IS NOT NULL "
                "AND (deadline <= ? OR (reminded = 0 AND deadline <= ?)) "
                "ORDER BY deadline, id",
                (*values, now, now + remind_within),
            )
        return [_game(row) for row in rows]

    @_translated
    async def events(self, game_id: int) -> list[Event]:
        """The game's log, in order (seq 1, 2, …)."""
        async with self._reading() as conn:
            rows = await _fetchall(
                conn, "SELECT * FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
            )
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
            rows = await _fetchall(
                conn,
                "SELECT users.*, ratings.user_id, ratings.scope, ratings.kind, ratings.rating, "
                "ratings.experience, ratings.games FROM ratings "
                "JOIN users ON users.id = ratings.user_id "
                "WHERE ratings.scope = ? AND ratings.kind = ? "
                "ORDER BY ratings.rating DESC, ratings.games DESC, users.id LIMIT ?",
                (scope, kind, limit),
            )
        return [(_user(row), _rating(row)) for row in rows]

    @_translated
    async def reset_scope(self, scope: str, kind: str | None = None) -> int:
        where, args = "scope = ?", [scope]
        if kind is not None:
            where, args = where + " AND kind = ?", [*args, kind]
        async with self._writing() as conn:
            row = await _fetchone(conn, f"SELECT COUNT(*) AS n FROM ratings WHERE {where}", args)
            await conn.execute(f"DELETE FROM ratings WHERE {where}", args)
        return int(row["n"]) if row else 0

    @_translated
    async def rating_history(
        self, user_id: int, scope: str, kind: str
    ) -> list[tuple[float, float]]:
        async with self._reading() as conn:
            rows = await _fetchall(
                conn,
                "SELECT ts, rating FROM rating_history WHERE user_id = ? AND scope = ? "
                "AND kind = ? ORDER BY ts, id",
                (user_id, scope, kind),
            )
        return [(row["ts"], row["rating"]) for row in rows]

    @_translated
    async def results_of_user(self, user_id: int, kind: str | None = None) -> list[ResultRow]:
        """The user's finished contests (as winner or loser), oldest first."""
        kind_filter = "" if kind is None else " AND kind = ?"
        kind_param: tuple[str, ...] = () if kind is None else (kind,)
        async with self._reading() as conn:
            rows = await _fetchall(
                conn,
                f"SELECT * FROM results WHERE winner_id = ?{kind_filter} UNION "
                f"SELECT * FROM results WHERE loser_id = ?{kind_filter} ORDER BY finished, id",
                (user_id, *kind_param, user_id, *kind_param),
            )
        return [_result(row) for row in rows]


__all__ = [
    "COMPUTER_NAME",
    "COMPUTER_PLATFORM_ID",
    "MEMORY",
    "Migration",
    "SqliteStorage",
    "SqliteTransaction",
    "load_migrations",
    "split_statements",
]
