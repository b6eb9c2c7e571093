"""The numbered schema migrations shipped with the storage.

Each dialect has its folder of ``NNNN_name.sql`` scripts: ``migrations/`` (SQLite) and
``migrations_pg/`` (PostgreSQL), with the same numbers and names. A storage applies those not
yet recorded in its ``schema_migrations`` table, in order, each in its own transaction.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from importlib import resources

#: The folders of the two dialects, inside the ``bot.storage`` package.
SQLITE_FOLDER = "migrations"
POSTGRES_FOLDER = "migrations_pg"

_MIGRATION_FILE = re.compile(r"^(\d{4})_[A-Za-z0-9_]+\.sql$")


@dataclass(frozen=True)
class Migration:
    """One numbered schema change."""

    version: int
    name: str
    sql: str


def load_migrations(folder: str = SQLITE_FOLDER) -> list[Migration]:
    """The migrations shipped in ``bot/storage/<folder>``, in order.

    They must be numbered 0001, 0002, … without gaps or repeats.
    """
    directory = resources.files("bot.storage").joinpath(folder)
    found = []
    for entry in directory.iterdir():
        match = _MIGRATION_FILE.match(entry.name)
        if match is not None:
            found.append(Migration(int(match[1]), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        names = ", ".join(m.name for m in found)
        raise RuntimeError(f"migrations must be numbered 0001, 0002, … without gaps: {names}")
    return found


def split_statements(script: str) -> list[str]:
    """Split an SQLite script into complete statements (triggers' ``BEGIN … END`` kept whole).

    PostgreSQL takes a whole script at once; SQLite's driver runs one statement a call.
    """
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


__all__ = ["POSTGRES_FOLDER", "SQLITE_FOLDER", "Migration", "load_migrations", "split_statements"]
