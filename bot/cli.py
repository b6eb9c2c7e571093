"""The ``tavla`` command (pyproject's console script).

- ``tavla`` (or ``tavla run``): run the bot, as ``python -m bot`` does;
- ``tavla migrate``: bring the database's schema up to date and stop (before starting
  several workers on one PostgreSQL database, or after an upgrade);
- ``tavla backup PATH``: a consistent copy of the live SQLite database (the bot may run);
- ``tavla check``: validate the configuration; each problem is one line, and the exit
  status is 1 when there is any.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.config import Config, ConfigError


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tavla`` command with ``argv`` (the process's arguments by default)."""
    parser = argparse.ArgumentParser(
        prog="tavla",
        description="Tavla: a backgammon and long nardy bot for Telegram and Discord.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("run", help="run the bot (the default)")
    commands.add_parser("migrate", help="bring the database's schema up to date")
    backup = commands.add_parser("backup", help="copy the live SQLite database to PATH")
    backup.add_argument("path", metavar="PATH", help="the file to write (or a folder)")
    commands.add_parser("check", help="validate the configuration")
    args = parser.parse_args(argv)
    if args.command in (None, "run"):
        from bot.__main__ import main as run_bot

        return run_bot()
    config = _config()
    if config is None:
        return 1
    if args.command == "migrate":
        return asyncio.run(_migrate(config))
    if args.command == "backup":
        return _backup(config, args.path)
    return asyncio.run(_check(config))


def _config() -> Config | None:
    """The configuration, or None after printing its problems one a line."""
    try:
        return Config.from_env()
    except ConfigError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return None


async def _migrate(config: Config) -> int:
    from bot.storage.base import StorageError
    from bot.storage.factory import open_when_reachable, storage_from_url

    storage = storage_from_url(config.database_url)
    try:
        # Applies the migrations not yet applied (waiting for a database starting up).
        await open_when_reachable(storage, config.database_wait)
    except StorageError as exc:
        print(f"DATABASE_URL: {exc}", file=sys.stderr)
        return 1
    finally:
        await storage.close()
    migrations = getattr(storage, "migrations", [])
    version = migrations[-1].version if migrations else 0
    print(f"database schema at version {version}")
    return 0


def _backup(config: Config, path: str) -> int:
    from bot.storage.backup import backup_sqlite
    from bot.storage.base import StorageError

    if (config.database_url or "").lower().startswith("postgres"):
        print(
            "DATABASE_URL is PostgreSQL: back it up with pg_dump "
            "(pg_dump -Fc -f tavla.dump DATABASE_URL; see docs/operating.md)",
            file=sys.stderr,
        )
        return 2
    try:
        written = backup_sqlite(config.database_url, path)
    except (StorageError, ValueError, OSError) as exc:
        print(f"backup: {exc}", file=sys.stderr)
        return 1
    print(f"backup written to {written} ({written.stat().st_size} bytes)")
    return 0


async def _check(config: Config) -> int:
    """Print each problem of ``config`` that can be found without starting the bot."""
    problems = []
    notes = []
    if not (config.telegram_token or config.discord_token):
        notes.append("no TELEGRAM_TOKEN or DISCORD_TOKEN: the bot opens the console")
    if config.web_base_url and not (config.web_secret or config.telegram_token):
        notes.append("WEB_SECRET is unset: personal web links change at every restart")
    url = config.database_url or ""
    if url.lower().startswith("postgres"):
        problem = await _reach_postgres(url)
        if problem:
            problems.append(f"DATABASE_URL: {problem}")
    else:
        from bot.storage.factory import sqlite_path_from_url

        path = Path(sqlite_path_from_url(url))
        folder = next((p for p in (path.parent, *path.parents) if p.exists()), Path("."))
        if path.exists() and not _writable(path):
            problems.append(f"DATABASE_URL: {path} can't be written")
        elif not path.exists() and not _writable(folder):
            problems.append(f"DATABASE_URL: {path} can't be created ({folder} is not writable)")
    for problem in problems:
        print(problem, file=sys.stderr)
    for note in notes:
        print(f"note: {note}")
    if not problems:
        print("configuration ok")
    return 1 if problems else 0


def _writable(path: Path) -> bool:
    import os

    return os.access(path, os.W_OK)


async def _reach_postgres(url: str) -> str | None:
    """Why the PostgreSQL server of ``url`` can't be reached, or None if it can."""
    import asyncpg

    from bot.storage.factory import postgres_dsn_from_url

    try:
        conn = await asyncio.wait_for(asyncpg.connect(postgres_dsn_from_url(url)), 10)
    except Exception as exc:  # any failure to connect is the answer, in one line
        return f"can't connect: {type(exc).__name__}: {exc}".splitlines()[0]
    await conn.close()
    return None


if __name__ == "__main__":
    raise SystemExit(main())
