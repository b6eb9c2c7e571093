"""The storage named by ``DATABASE_URL``.

Accepted forms (design.md):

- unset or empty: the SQLite file ``data/tavla.db`` under the current folder;
- ``sqlite:///relative/path.db`` (three slashes): a path relative to the current folder;
- ``sqlite:////absolute/path.db`` (four slashes): an absolute path;
- ``sqlite://``, ``sqlite://:memory:`` or ``sqlite:///:memory:``: a private in-memory database
  (tests only: it is gone when the storage is closed).

- ``postgresql://user:password@host:port/database`` (also ``postgres://`` and
  ``postgresql+asyncpg://``): a PostgreSQL database through asyncpg, for several worker
  processes; query parameters are passed to asyncpg (e.g. ``?sslmode=require``).

The folder of a SQLite file is created when the storage is opened.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import unquote

from bot.storage.base import Storage, StorageUnreachable
from bot.storage.sqlite import MEMORY, SqliteStorage

DEFAULT_SQLITE_PATH = str(Path("data") / "tavla.db")

log = logging.getLogger(__name__)

_SQLITE_SCHEMES = ("sqlite", "sqlite+aiosqlite")
_POSTGRES_SCHEMES = ("postgresql", "postgres")


def sqlite_path_from_url(url: str | None) -> str:
    """The SQLite path (or ``":memory:"``) that ``url`` names; ``ValueError`` if none."""
    text = (url or "").strip()
    if not text:
        return DEFAULT_SQLITE_PATH
    scheme, separator, rest = text.partition("://")
    scheme = scheme.lower()
    if not separator:
        raise ValueError(
            f"DATABASE_URL {text!r} is not a URL: use sqlite:///relative/path.db or "
            "sqlite:////absolute/path.db"
        )
    if _is_postgres(scheme):
        raise ValueError("DATABASE_URL names a PostgreSQL database, not a SQLite file")
    if scheme not in _SQLITE_SCHEMES:
        raise ValueError(
            f"DATABASE_URL scheme {scheme!r} is not supported: use sqlite:///relative/path.db "
            "or sqlite:////absolute/path.db"
        )
    if "?" in rest or "#" in rest:
        raise ValueError(f"DATABASE_URL {text!r}: query parameters are not supported")
    if rest in ("", MEMORY, "/" + MEMORY):
        return MEMORY
    if not rest.startswith("/"):
        raise ValueError(
            f"DATABASE_URL {text!r} has a host part: a SQLite URL takes three slashes before a "
            "relative path (sqlite:///data/tavla.db) and four before an absolute one "
            "(sqlite:////var/lib/tavla/tavla.db)"
        )
    path = unquote(rest[1:])
    if not path or path.endswith("/"):
        raise ValueError(f"DATABASE_URL {text!r} names no database file")
    return path


def _is_postgres(scheme: str) -> bool:
    return scheme in _POSTGRES_SCHEMES or scheme.startswith(("postgresql+", "postgres+"))


def postgres_dsn_from_url(url: str) -> str:
    """The asyncpg DSN for a ``postgresql://`` URL; ``ValueError`` if it is not one."""
    text = url.strip()
    scheme, separator, rest = text.partition("://")
    scheme = scheme.lower()
    if not separator or not _is_postgres(scheme):
        raise ValueError("DATABASE_URL is not a postgresql:// URL")
    if scheme.partition("+")[2] not in ("", "asyncpg"):
        raise ValueError(f"DATABASE_URL driver {scheme!r} is not supported: use postgresql://")
    if not rest:
        raise ValueError("DATABASE_URL postgresql:// names no PostgreSQL server")
    return "postgresql://" + rest


def storage_from_url(url: str | None) -> Storage:
    """A storage (not yet opened) for ``DATABASE_URL``; see the module docstring."""
    scheme = (url or "").strip().partition("://")[0].lower()
    if url and "://" in url and _is_postgres(scheme):
        from bot.storage.postgres import PostgresStorage

        return PostgresStorage(postgres_dsn_from_url(url))
    return SqliteStorage(sqlite_path_from_url(url))


async def open_when_reachable(
    storage: Storage,
    wait: float,
    *,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Open ``storage``, trying again while its database cannot be reached yet, for up to
    ``wait`` seconds: a bot started together with its database (compose, a service manager)
    waits for it rather than failing. Any other failure, or still no database at the end,
    raises at once."""
    deadline = clock() + max(0.0, wait)
    pause = 1.0
    while True:
        try:
            await storage.open()
            return
        except StorageUnreachable as exc:
            left = deadline - clock()
            if left <= 0:
                raise
            log.warning("%s; trying again in %.0f s", exc, min(pause, left))
            await sleep(min(pause, left))
            pause = min(pause * 2, 2.0)  # a connect is cheap: notice the database soon


__all__ = [
    "DEFAULT_SQLITE_PATH",
    "open_when_reachable",
    "postgres_dsn_from_url",
    "sqlite_path_from_url",
    "storage_from_url",
]
