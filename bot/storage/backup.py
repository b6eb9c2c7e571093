"""A consistent copy of a live SQLite database (``tavla backup PATH``).

SQLite's online backup API copies the database page by page while the bot keeps running:
the copy is taken in one step, under one read transaction, so it shows the database as it
stood at one commit (in WAL mode writers go on meanwhile; the last commits stay in the
original's log until its next checkpoint and are in the copy). The copy is written next to
its destination and renamed into place once checked, so a failed or interrupted backup never
leaves a half-written file under the name asked for.

PostgreSQL has its own tools for this (``pg_dump``; see docs/operating.md).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from bot.storage.base import StorageError
from bot.storage.factory import sqlite_path_from_url
from bot.storage.sqlite import DEFAULT_BUSY_TIMEOUT, MEMORY


def backup_sqlite(database_url: str | None, destination: str | os.PathLike[str]) -> Path:
    """Copy the SQLite database of ``database_url`` to ``destination`` (a file; an existing
    one is replaced) and check the copy; the path written. ``StorageError`` if it can't be
    done, ``ValueError`` for a URL that names no SQLite file."""
    source_path = sqlite_path_from_url(database_url)
    if source_path == MEMORY:
        raise ValueError("an in-memory database can't be backed up")
    if not Path(source_path).is_file():
        raise StorageError(f"no database at {source_path}")
    target = Path(destination)
    if target.is_dir():
        target = target / Path(source_path).name
    if target.resolve() == Path(source_path).resolve():
        raise ValueError("the backup would overwrite the database itself")
    partial = target.with_name(f".{target.name}.partial")
    try:
        # The source is only read (a read-only open can fail on a WAL database whose
        # shared-memory file is not there).
        source = sqlite3.connect(source_path, timeout=DEFAULT_BUSY_TIMEOUT)
        try:
            with contextlib.suppress(FileNotFoundError):
                partial.unlink()
            copy = sqlite3.connect(partial)
            try:
                source.backup(copy)  # all pages in one step: one consistent snapshot
                copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
                verdict = copy.execute("PRAGMA quick_check").fetchone()[0]
            finally:
                copy.close()
        finally:
            source.close()
        if verdict != "ok":
            raise StorageError(f"the copy failed its check: {verdict}")
        os.replace(partial, target)
    except sqlite3.Error as exc:
        raise StorageError(f"backup failed: {exc}") from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return target
