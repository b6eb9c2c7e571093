"""The PostgreSQL dialect of the shared queries: :class:`PostgresDb` runs them on one asyncpg
connection, and the database's own failures are told apart from bugs here (see
:mod:`bot.storage.postgres`)."""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeAlias

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from bot.storage.base import StorageError

log = logging.getLogger(__name__)

#: The first key of the advisory locks taken here (the second is per schema or per rating).
ADVISORY_LOCK_KEY = 0x7A71A  # "tavla"

Connection: TypeAlias = asyncpg.Connection | PoolConnectionProxy


# --- errors ------------------------------------------------------------------------------

#: SQLSTATE classes of a database that is unavailable or busy, not of a bug in our code:
#: connection exceptions, transaction rollbacks (deadlock, serialization), insufficient
#: resources (too many connections, disk full), operator intervention (shutdown, cannot
#: connect now, statement cancelled), system errors and internal errors.
_UNAVAILABLE_CLASSES = frozenset({"08", "40", "53", "57", "58", "XX"})
_UNAVAILABLE_STATES = frozenset({"55P03"})  # lock_not_available (lock_timeout)


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database is unavailable or busy (not a bug of ours)."""
    if isinstance(exc, asyncpg.PostgresError):
        state = getattr(exc, "sqlstate", None) or ""
        return state[:2] in _UNAVAILABLE_CLASSES or state in _UNAVAILABLE_STATES
    if isinstance(exc, asyncpg.InterfaceError):  # e.g. "connection is closed"
        return "closed" in str(exc) or "closing" in str(exc)
    return isinstance(exc, OSError)  # refused, reset, unreachable, timed out (TimeoutError)


def storage_error(exc: BaseException, what: str = "database error") -> StorageError:
    """The :class:`StorageError` that reports ``exc``, prefixed with ``what`` failed."""
    return StorageError(f"{what}: {type(exc).__name__}: {exc}")


@contextlib.contextmanager
def translated(what: str = "database error") -> Iterator[None]:
    """Raise the database's own failures as :class:`StorageError`, the cause chained."""
    try:
        yield
    except StorageError:
        raise
    except Exception as exc:
        if is_unavailable(exc):
            raise storage_error(exc, what) from exc
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
        with translated():
            return list(await self.conn.fetch(_numbered(sql), *args))

    async def fetchrow(self, sql: str, *args: Any) -> asyncpg.Record | None:
        with translated():
            return await self.conn.fetchrow(_numbered(sql), *args)

    async def fetchval(self, sql: str, *args: Any) -> Any:
        with translated():
            return await self.conn.fetchval(_numbered(sql), *args)

    async def execute(self, sql: str, *args: Any) -> int:
        with translated():
            return _rows_changed(await self.conn.execute(_numbered(sql), *args))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with translated():
            await self.conn.executemany(_numbered(sql), rows)

    async def insert(self, sql: str, *args: Any) -> int:
        new_id = await self.fetchval(sql + " RETURNING id", *args)
        return int(new_id)


async def release(pool: asyncpg.Pool | None, conn: Connection) -> None:
    """Give a connection back to its pool; a broken one is dropped (the pool replaces it)."""
    try:
        if pool is not None:
            await pool.release(conn)
    except Exception:
        log.debug("releasing a connection failed", exc_info=True)
