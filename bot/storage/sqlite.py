"""SQLite storage through aiosqlite.

One :class:`SqliteStorage` owns one connection (one worker thread of aiosqlite) shared by
every asyncio task of the process. SQLite itself serializes writers between processes
(``BEGIN IMMEDIATE`` waits up to ``busy_timeout`` for another writer); inside the process an
lock (:class:`_StorageLock`) is held for the whole of each transaction, so the statements of two
tasks never interleave on the shared connection. Methods of the storage called from inside a
transaction (in the same task, or in tasks it starts while it is open) run as part of that
transaction instead of waiting for the lock. The queries themselves are shared with
PostgreSQL (:mod:`bot.storage.sql`); :class:`SqliteDb` runs them.

The schema lives in numbered migrations, ``migrations/NNNN_name.sql`` (:mod:`bot.storage.schema`),
applied in order by :meth:`SqliteStorage.open`, each in its own transaction and recorded in
``schema_migrations``. The event log is append-only: nothing here updates or deletes events,
and triggers in the schema refuse it.

Errors of the database (locked for longer than the busy timeout, unable to open the file, disk
full, I/O errors…) are raised as :class:`~bot.storage.base.StorageError` with the sqlite3
exception as their cause; integrity and programming errors (bugs) are left as they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar, Token
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar

import aiosqlite

from bot.storage.base import StorageError
from bot.storage.rows import COMPUTER_NAME, COMPUTER_PLATFORM_ID, dumps
from bot.storage.schema import SQLITE_FOLDER, Migration, load_migrations, split_statements
from bot.storage.sql import Db, SqlStorage, SqlTransaction

log = logging.getLogger(__name__)

MEMORY = ":memory:"
DEFAULT_BUSY_TIMEOUT = 5.0
#: Commits between two checkpoints of the write-ahead log (in a thread, see
#: :meth:`SqliteStorage._committed`): a press's commit writes a handful of pages, so about
#: SQLite's own default of a checkpoint every 1,000 pages.
CHECKPOINT_EVERY = 200


# --- errors ------------------------------------------------------------------------------


def _is_unavailable(exc: BaseException) -> bool:
    """Errors of the database itself (locked, cannot open, I/O, corrupt), not of our code."""
    return isinstance(exc, sqlite3.OperationalError | sqlite3.InternalError) or (
        type(exc) is sqlite3.DatabaseError
    )


def _raise_unavailable(exc: BaseException, what: str = "database error") -> None:
    """Raise ``exc`` as :class:`StorageError` (the cause chained) when it is a failure of
    the database itself; otherwise return, for the caller to raise it as it is."""
    if isinstance(exc, sqlite3.Error) and _is_unavailable(exc):
        raise StorageError(f"{what}: {exc}") from exc


@contextlib.contextmanager
def _translated(what: str = "database error") -> Iterator[None]:
    """Raise the database's own failures as :class:`StorageError`, the cause chained."""
    try:
        yield
    except sqlite3.Error as exc:
        _raise_unavailable(exc, what)
        raise


async def _quiet_rollback(conn: aiosqlite.Connection) -> None:
    """Roll back whatever transaction may be open; never raises (but for cancellation)."""
    # sqlite3.Error: no transaction was open; ValueError: the connection is gone.
    with contextlib.suppress(sqlite3.Error, ValueError):
        await asyncio.shield(conn.execute("ROLLBACK"))


# --- the lock ----------------------------------------------------------------------------


class _StorageLock:
    """The storage's lock: one transaction (or read) of the process at a time, taken at once
    whenever it is free.

    :class:`asyncio.Lock` hands a released lock to its first waiter, which takes it only at
    its next turn of the event loop; meanwhile the lock is free, yet every newcomer queues
    behind the waiters. Once a queue has formed (one transaction held across a turn of the
    loop), the process then gets one transaction or read a turn of the loop, and a loop busy
    with hundreds of presses turns some 80 times a second: under load the queue never
    drained again (hundreds of presses waiting seconds each, the lock idle 95% of the time).
    Here a free lock is taken at once, and its release wakes every waiter, each taking it
    in turn in the loop's next turn (one that finds it taken waits again).
    """

    def __init__(self) -> None:
        self._locked = False
        self._waiters: list[asyncio.Future[None]] = []

    def locked(self) -> bool:
        """Whether a transaction (or read) holds the lock."""
        return self._locked

    async def acquire(self) -> bool:
        """Take the lock, waiting while another holds it."""
        while self._locked:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter
        self._locked = True
        return True

    def release(self) -> None:
        """Give the lock back and wake every task waiting for it."""
        self._locked = False
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.release()


# --- the dialect -------------------------------------------------------------------------


class _RowsOfFetch(ABC):
    """``fetchrow`` and ``fetchval`` of :class:`bot.storage.sql.Db`, from one ``fetch``."""

    @abstractmethod
    async def fetch(self, sql: str, *args: Any) -> list[sqlite3.Row]: ...

    async def fetchrow(self, sql: str, *args: Any) -> sqlite3.Row | None:
        rows = await self.fetch(sql, *args)
        return rows[0] if rows else None

    async def fetchval(self, sql: str, *args: Any) -> Any:
        row = await self.fetchrow(sql, *args)
        return None if row is None else row[0]


class SqliteDb(_RowsOfFetch):
    """The shared queries (:class:`bot.storage.sql.Db`) on an aiosqlite connection."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def fetch(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        with _translated():
            return list(await self.conn.execute_fetchall(sql, args))

    async def execute(self, sql: str, *args: Any) -> int:
        with _translated():
            cursor = await self.conn.execute(sql, args)
        return cursor.rowcount

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with _translated():
            await self.conn.executemany(sql, rows)

    async def insert(self, sql: str, *args: Any) -> int:
        with _translated():
            cursor = await self.conn.execute(sql, args)
        assert cursor.lastrowid is not None
        return cursor.lastrowid


class _LoopDb(SqliteDb):
    """The statements of a transaction, run on the event loop itself.

    Inside ``BEGIN IMMEDIATE`` the write lock is the transaction's: in WAL mode (or in
    memory) a statement then waits for nobody, and a query by key or a row written takes
    tens of microseconds, less than a round trip through aiosqlite's thread (two thread
    switches and a wake-up of the loop). ``BEGIN IMMEDIATE`` goes to the thread only when
    it must wait for another process's writer; ``COMMIT`` runs on the loop too, as the
    connection never checkpoints (the checkpoints, which sync the disk, run in a thread
    of their own). Nothing else uses the connection meanwhile: the storage's lock is held
    for the whole transaction, which so never waits for a turn of the event loop.
    """

    def __init__(self, conn: aiosqlite.Connection, raw: sqlite3.Connection) -> None:
        super().__init__(conn)
        self.raw = raw

    async def fetch(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        with _translated():
            return self.raw.execute(sql, args).fetchall()

    async def execute(self, sql: str, *args: Any) -> int:
        with _translated():
            return self.raw.execute(sql, args).rowcount

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with _translated():
            self.raw.executemany(sql, rows)

    async def insert(self, sql: str, *args: Any) -> int:
        with _translated():
            new_id = self.raw.execute(sql, args).lastrowid
        assert new_id is not None
        return new_id


class _AloneDb(_RowsOfFetch):
    """Statements outside any transaction (:meth:`SqliteStorage._connection_alone`).

    Reads go to the storage's reading connection, run on the event loop itself: a query by
    key takes tens of microseconds, less than a round trip through aiosqlite's thread, and
    in WAL mode a reader never waits for another process's writer. They still take the
    storage's lock, as every statement did: a read waits for this process's transaction
    under way and sees what it committed (a press right after its board was bound to a
    message sees the binding). Writes, each atomic by itself, go to the shared connection.
    Without a reading connection (an in-memory database, no WAL) reads go there too.
    """

    def __init__(self, storage: SqliteStorage) -> None:
        self._storage = storage

    async def fetch(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        async with self._storage._lock:
            reader = self._storage._reader
            if reader is None:
                return await SqliteDb(self._storage._connection()).fetch(sql, *args)
            with _translated():
                return reader.execute(sql, args).fetchall()

    async def execute(self, sql: str, *args: Any) -> int:
        async with self._storage._lock:
            return await SqliteDb(self._storage._connection()).execute(sql, *args)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        async with self._storage._lock:
            await SqliteDb(self._storage._connection()).executemany(sql, rows)

    async def insert(self, sql: str, *args: Any) -> int:
        async with self._storage._lock:
            return await SqliteDb(self._storage._connection()).insert(sql, *args)


class SqliteTransaction(SqlTransaction):
    """The operations of one ``BEGIN IMMEDIATE`` transaction (see ``base.Transaction``).

    ``BEGIN IMMEDIATE`` takes the database's write lock for the whole transaction, so the
    shared operations need no locking of their own here.
    """

    _db: SqliteDb

    def __init__(self, storage: SqliteStorage, db: SqliteDb) -> None:
        super().__init__(storage, db)

    @property
    def conn(self) -> aiosqlite.Connection:
        """The transaction's aiosqlite connection."""
        return self.db.conn

    @property
    def db(self) -> SqliteDb:
        if not self._open:
            raise RuntimeError("this transaction is over")
        return self._db

    async def add_events(
        self,
        game_id: int,
        events: list[tuple[str, dict[str, Any]]],
        *,
        ts: float | None = None,
    ) -> None:
        """Append events with the next sequence numbers (``ts`` defaults to now).

        One statement run once per event, each numbering its event one past the game's last
        (the write lock is ours): one round trip through aiosqlite's thread, not two.
        """
        if not events:
            return
        stamp = float(time.time() if ts is None else ts)
        await self.db.executemany(
            "INSERT INTO events (game_id, seq, ts, type, data) "
            "SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM events WHERE game_id = ?",
            [(game_id, stamp, kind, dumps(data), game_id) for kind, data in events],
        )


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
        raw = storage._raw if storage._statements_on_loop else None
        try:
            if raw is None or not storage._begin_at_once(raw):
                await conn.execute("BEGIN IMMEDIATE")  # may wait for another writer
        except BaseException as exc:
            # A cancelled BEGIN may still run in aiosqlite's thread: undo it before anyone
            # else gets the connection (statements run in the order they were queued).
            await _quiet_rollback(conn)
            storage._lock.release()
            _raise_unavailable(exc, "could not start a transaction")
            raise
        db = SqliteDb(conn) if raw is None else _LoopDb(conn, raw)
        self._tx = SqliteTransaction(storage, db)
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
        tx, self._tx = self._tx, None
        self._storage._active.reset(self._token)
        tx._open = False
        conn = tx._db.conn
        if isinstance(tx._db, _LoopDb):
            self._end_on_loop(tx._db.raw, exc)
            return False
        try:
            if exc is None:
                try:
                    with _translated("could not commit"):
                        await conn.execute("COMMIT")
                except BaseException:
                    await _quiet_rollback(conn)
                    raise
            else:
                await _quiet_rollback(conn)
                _raise_unavailable(exc)
        finally:
            self._storage._lock.release()
        return False

    def _end_on_loop(self, raw: sqlite3.Connection, exc: BaseException | None) -> None:
        """Commit (or roll back) a transaction whose statements ran on the event loop, on
        the loop too: in WAL mode with ``synchronous = NORMAL`` a commit appends to the log
        without syncing the disk (the checkpoints that do run in a thread, see
        :meth:`SqliteStorage._committed`). A round trip through aiosqlite's thread would
        hold the storage's lock across a turn of the event loop: under load every other
        transaction and read of the process queued behind it, each waiting for a turn of
        a loop busy with hundreds of presses."""
        storage = self._storage
        try:
            if exc is None:
                try:
                    with _translated("could not commit"):
                        raw.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        raw.execute("ROLLBACK")
                    raise
                storage._committed()
            else:
                with contextlib.suppress(sqlite3.Error):
                    raw.execute("ROLLBACK")
                _raise_unavailable(exc)
        finally:
            storage._lock.release()


class SqliteStorage(SqlStorage):
    """:class:`~bot.storage.base.Storage` on an SQLite file (or ``":memory:"``).

    ``busy_timeout`` (seconds) is how long a write waits for another connection's write
    (another worker process) before giving up with :class:`StorageError`.
    """

    # The transaction running in the current task (and the tasks it starts), if any.
    _active: ClassVar[ContextVar[SqliteTransaction | None]] = ContextVar(
        "tavla_sqlite_tx", default=None
    )
    migrations_folder: ClassVar[str] = SQLITE_FOLDER

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        migrations: Sequence[Migration] | None = None,
    ) -> None:
        super().__init__(migrations)
        self.path = os.fspath(path)
        self.busy_timeout = busy_timeout
        self._conn: aiosqlite.Connection | None = None
        #: The sqlite3 connection under ``_conn``, for statements on the loop (_LoopDb).
        self._raw: sqlite3.Connection | None = None
        #: Whether transactions run their statements on the loop: WAL or in memory, where a
        #: statement inside ``BEGIN IMMEDIATE`` never waits for another connection.
        self._statements_on_loop = False
        #: Reads outside transactions, on the event loop (see _AloneDb); None: none.
        self._reader: sqlite3.Connection | None = None
        #: Checkpoints of the write-ahead log, in a thread (see _committed); None: none.
        self._checkpointer: sqlite3.Connection | None = None
        self._commits = 0
        self._checkpoint: asyncio.Task[None] | None = None
        self._journal_mode = ""
        self._lock = _StorageLock()

    def __repr__(self) -> str:
        return f"SqliteStorage({self.path!r})"

    # --- connection ------------------------------------------------------------------------

    async def open(self) -> None:
        """Connect, set the pragmas and apply the migrations not yet applied (idempotent)."""
        async with self._lock:
            if self._conn is None:
                with _translated():
                    self._conn = await self._connect()
                    self._statements_on_loop = self._journal_mode in ("wal", "memory")
                    try:
                        self._reader = self._open_reader(self._journal_mode)
                        if self._reader is not None:
                            self._checkpointer = await self._open_checkpointer()
                    except BaseException:
                        if self._reader is not None:
                            self._reader.close()
                            self._reader = None
                        conn, self._conn = self._conn, None
                        await conn.close()
                        raise

    async def _connect(self) -> aiosqlite.Connection:
        uri = self.path.startswith("file:")
        if self.path not in (MEMORY, "") and not uri:
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StorageError(f"cannot create the folder of {self.path}: {exc}") from exc
        made: list[sqlite3.Connection] = []

        def connect() -> sqlite3.Connection:  # in aiosqlite's thread
            # Not bound to that thread: transactions run their statements on the event loop
            # too (_LoopDb), one user at a time under the storage's lock.
            raw = sqlite3.connect(self.path, isolation_level=None, uri=uri, check_same_thread=False)
            made.append(raw)
            return raw

        conn = aiosqlite.Connection(connect, 64)
        # Its worker thread a daemon: a storage never closed (a crash on the way out) must not
        # keep the process from exiting; SQLite's commits are atomic, nothing is half-written.
        worker = getattr(conn, "_thread", None)
        if worker is not None:
            worker.daemon = True
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
            self._journal_mode = "" if row is None else str(row[0]).lower()
            if self.path != MEMORY and (row is None or str(row[0]).lower() != "wal"):
                log.warning("%s: WAL journal mode not available, using %s", self.path, row)
            await conn.execute("PRAGMA synchronous = NORMAL")
            await self._migrate(conn)
        except BaseException:
            await conn.close()
            raise
        self._raw = made[0]
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
                rows = await conn.execute_fetchall("PRAGMA journal_mode = WAL")
                return next(iter(rows), None)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
            await asyncio.sleep(0.02)

    async def close(self) -> None:
        """Wait for the running transaction, then close the connection (idempotent)."""
        if self._current_transaction() is not None:
            raise RuntimeError("cannot close the storage from inside one of its transactions")
        async with self._lock:
            if self._checkpoint is not None:
                with contextlib.suppress(Exception):
                    await self._checkpoint
                self._checkpoint = None
            conn, self._conn = self._conn, None
            self._raw, self._statements_on_loop = None, False
            reader, self._reader = self._reader, None
            if reader is not None:
                reader.close()
            checkpointer, self._checkpointer = self._checkpointer, None
            if checkpointer is not None:
                checkpointer.close()
            if conn is not None:
                await conn.close()

    def _begin_at_once(self, raw: sqlite3.Connection) -> bool:
        """``BEGIN IMMEDIATE`` on the event loop if the write lock is free now (no other
        process writing: nearly always); False, with nothing begun, if it is taken."""
        raw.execute("PRAGMA busy_timeout = 0")
        try:
            raw.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            return False
        finally:
            raw.execute(f"PRAGMA busy_timeout = {max(0, int(self.busy_timeout * 1000))}")
        return True

    def _committed(self) -> None:
        """A transaction committed on the event loop: every :data:`CHECKPOINT_EVERY`
        commits, the write-ahead log is copied into the database (a checkpoint, which syncs
        the disk) in a thread, by a connection of its own. The connection that commits
        never checkpoints (``wal_autocheckpoint`` off): it commits on the event loop."""
        self._commits += 1
        if (
            self._checkpointer is None
            or self._commits < CHECKPOINT_EVERY
            or (self._checkpoint is not None and not self._checkpoint.done())
        ):
            return
        self._commits = 0
        self._checkpoint = asyncio.get_running_loop().create_task(
            self._checkpointed(self._checkpointer)
        )

    @staticmethod
    async def _checkpointed(checkpointer: sqlite3.Connection) -> None:
        """A passive checkpoint in a thread: it waits for no reader or writer, and they do
        not wait for it; what it can't copy yet, the next one does."""
        try:
            await asyncio.to_thread(checkpointer.execute, "PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error:
            log.warning("checkpoint of the write-ahead log failed", exc_info=True)

    async def _open_checkpointer(self) -> sqlite3.Connection:
        """The connection that checkpoints the write-ahead log (with a reading connection
        only: a database file in WAL mode), and the committing one's own checkpoints off."""
        await self._connection().execute("PRAGMA wal_autocheckpoint = 0")
        return sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)

    def _connection(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise StorageError(f"{self!r} is not open")
        return self._conn

    async def _migrate(self, conn: aiosqlite.Connection) -> None:
        migrations = self.migrations
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied REAL NOT NULL)"
        )
        applied = {
            row[0] for row in await conn.execute_fetchall("SELECT version FROM schema_migrations")
        }
        for migration in migrations:
            if migration.version in applied:
                continue
            await conn.execute("BEGIN IMMEDIATE")
            try:
                # Another worker may have applied it while we waited for the write lock.
                done = next(
                    iter(
                        await conn.execute_fetchall(
                            "SELECT 1 FROM schema_migrations WHERE version = ?",
                            (migration.version,),
                        )
                    ),
                    None,
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

    def _scope(self) -> _TransactionScope:
        return _TransactionScope(self)

    @asynccontextmanager
    async def _connection_alone(self) -> AsyncIterator[Db]:
        # No lock held for the block: _AloneDb takes it for each statement.
        self._connection()  # refuse at once when the storage is not open
        yield _AloneDb(self)

    def _open_reader(self, journal_mode: str) -> sqlite3.Connection | None:
        """The reading connection (see :class:`_AloneDb`): for a database file in WAL mode
        only (a second connection to ``:memory:`` would be another, empty database; without
        WAL a reader may wait for a writer, and must not wait on the event loop)."""
        if self.path in (MEMORY, "") or self.path.startswith("file:") or journal_mode != "wal":
            return None
        # Made here, used only on the event loop; check_same_thread off all the same, so a
        # storage used from another thread (a test's) still works (SQLite serializes).
        reader = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        reader.row_factory = sqlite3.Row
        reader.execute(f"PRAGMA busy_timeout = {max(0, int(self.busy_timeout * 1000))}")
        reader.execute("PRAGMA query_only = ON")  # a write sent here is a bug: refused
        return reader


__all__ = [
    "COMPUTER_NAME",
    "COMPUTER_PLATFORM_ID",
    "MEMORY",
    "Migration",
    "SqliteDb",
    "SqliteStorage",
    "SqliteTransaction",
    "load_migrations",
    "split_statements",
]
