"""The storage's queries, written once for both SQL dialects.

Every query here is plain SQL that SQLite and PostgreSQL both understand, with ``?``
placeholders. A :class:`Db` runs it on one connection in its own dialect (PostgreSQL numbers
the placeholders ``$1, $2, …``; ids of new rows come from ``lastrowid`` or ``RETURNING id``)
and raises the failures of an unavailable database as
:class:`~bot.storage.base.StorageError`. What really differs stays in the backends:
connecting, migrating, starting and ending transactions, and locking (``BEGIN IMMEDIATE``
on SQLite; ``SELECT … FOR UPDATE`` and advisory locks on PostgreSQL, which
:class:`~bot.storage.postgres.PostgresTransaction` adds around the shared operations).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar
from typing import Any, ClassVar, Protocol, Self, TypeVar

from bot.storage.base import (
    LIVE_TOURNAMENT_STATUSES,
    OPEN_STATUSES,
    Chat,
    Event,
    GameRecord,
    GameStatus,
    PlayerPrefs,
    RatingRow,
    ResultRow,
    StaleVersionError,
    TournamentRecord,
    TournamentStatus,
    User,
)
from bot.storage.rows import (
    COMPUTER_NAME,
    COMPUTER_PLATFORM_ID,
    GAME_ASSIGNMENTS,
    GAME_COLUMNS,
    TOURNAMENT_ASSIGNMENTS,
    TOURNAMENT_COLUMNS,
    Row,
    chat_from_row,
    dumps,
    event_from_row,
    game_from_row,
    game_values,
    marks,
    name_key,
    rating_from_row,
    result_from_row,
    status_values,
    tournament_from_row,
    tournament_status_values,
    tournament_values,
    user_from_row,
)
from bot.storage.schema import Migration, load_migrations

#: A record kept with optimistic locking: its row has ``created``, ``updated``, ``version``.
_Versioned = TypeVar("_Versioned", GameRecord, TournamentRecord)


class Db(Protocol):
    """One connection, running the shared SQL (``?`` placeholders) in its dialect."""

    async def fetch(self, sql: str, *args: Any) -> Sequence[Row]:
        """Every row of a query."""
        ...

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        """The first row of a query, or None."""
        ...

    async def fetchval(self, sql: str, *args: Any) -> Any:
        """The first column of the first row, or None."""
        ...

    async def execute(self, sql: str, *args: Any) -> int:
        """Run a statement; how many rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run a statement once for each row of arguments."""
        ...

    async def insert(self, sql: str, *args: Any) -> int:
        """Run an ``INSERT`` of one row into a table with an ``id``; the new row's id."""
        ...


_USER_BY_PLATFORM_ID = "SELECT * FROM users WHERE platform = ? AND platform_id = ?"
_CHAT = "SELECT * FROM chats WHERE platform = ? AND chat_id = ?"


class SqlTransaction:
    """The operations of one transaction on one connection (see ``base.Transaction``).

    A backend's transaction class adds the locking its database needs.
    """

    #: Added to ``get_game``'s query to lock the row until the transaction ends, where the
    #: transaction itself does not keep other writers out.
    _row_lock: ClassVar[str] = ""

    def __init__(self, storage: object, db: Db) -> None:
        self._storage = storage
        self._db = db
        self._open = True

    @property
    def db(self) -> Db:
        """The transaction's connection; a :class:`RuntimeError` once the transaction ended."""
        if not self._open:
            raise RuntimeError("this transaction is over")
        return self._db

    async def get_game(self, game_id: int) -> GameRecord | None:
        row = await self.db.fetchrow("SELECT * FROM games WHERE id = ?" + self._row_lock, game_id)
        return None if row is None else game_from_row(row)

    async def insert_game(self, record: GameRecord) -> GameRecord:
        """Store a new game; sets ``id``, ``version`` = 1 and zero timestamps, in place."""
        if record.id is not None:
            raise ValueError(f"game {record.id} is stored already")
        return await self._insert_versioned("games", GAME_COLUMNS, game_values(record), record)

    async def save_game(self, record: GameRecord, expected_version: int) -> GameRecord:
        """Write the game if it is still at ``expected_version``; sets ``version`` in place.

        ``updated`` is written as given (the caller's clock), or the current time if it is 0.
        """
        if record.id is None:
            raise ValueError("save_game needs a stored game (insert_game first)")
        return await self._save_versioned(
            "games", GAME_ASSIGNMENTS, game_values(record), record, expected_version, "game"
        )

    async def _insert_versioned(
        self, table: str, columns: str, values: Sequence[Any], record: _Versioned
    ) -> _Versioned:
        """Insert a row that carries ``created``, ``updated`` and ``version`` (games,
        tournaments); sets ``id``, the timestamps and ``version`` = 1 on ``record``."""
        created = record.created or time.time()
        updated = record.updated or created
        record.id = await self.db.insert(
            f"INSERT INTO {table} ({columns}, created, updated, version) "
            f"VALUES ({marks(values)}, ?, ?, 1)",
            *values,
            float(created),
            float(updated),
        )
        record.created, record.updated, record.version = created, updated, 1
        return record

    async def _save_versioned(
        self,
        table: str,
        assignments: str,
        values: Sequence[Any],
        record: _Versioned,
        expected_version: int,
        kind: str,
    ) -> _Versioned:
        """Update a versioned row if it is still at ``expected_version`` (optimistic
        locking); raises :class:`StaleVersionError` naming the ``kind`` of record otherwise."""
        updated = record.updated or time.time()
        changed = await self.db.execute(
            f"UPDATE {table} SET {assignments}, updated = ?, version = version + 1 "
            "WHERE id = ? AND version = ?",
            *values,
            float(updated),
            record.id,
            expected_version,
        )
        if changed != 1:
            raise StaleVersionError(
                f"{kind} {record.id} is no longer at version {expected_version}"
            )
        record.updated = updated
        record.version = expected_version + 1
        return record

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
        db = self.db
        last = await db.fetchval(
            "SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = ?", game_id
        )
        stamp = float(time.time() if ts is None else ts)
        await db.executemany(
            "INSERT INTO events (game_id, seq, ts, type, data) VALUES (?, ?, ?, ?, ?)",
            [
                (game_id, last + number, stamp, kind, dumps(data))
                for number, (kind, data) in enumerate(events, start=1)
            ],
        )

    async def get_rating(self, user_id: int, scope: str, kind: str) -> RatingRow:
        row = await self.db.fetchrow(
            "SELECT * FROM ratings WHERE user_id = ? AND scope = ? AND kind = ?",
            user_id,
            scope,
            kind,
        )
        if row is None:
            return RatingRow(user_id=user_id, scope=scope, kind=kind)
        return rating_from_row(row)

    async def put_rating(self, row: RatingRow, ts: float) -> None:
        db = self.db
        await db.execute(
            "INSERT INTO ratings (user_id, scope, kind, rating, experience, games, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) "
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
        await db.execute(
            "INSERT INTO rating_history (user_id, scope, kind, ts, rating, experience) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            row.user_id,
            row.scope,
            row.kind,
            float(ts),
            float(row.rating),
            row.experience,
        )

    async def add_result(self, row: ResultRow) -> None:
        await self.db.execute(
            "INSERT INTO results (game_id, scope, kind, winner_id, loser_id, length, "
            "winner_points, loser_points, gammons, backgammons, rated, finished) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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

    async def count_rated_between(self, user_a: int, user_b: int, kind: str, since: float) -> int:
        """Rated contests of this kind between the two finished at or after ``since``.

        A contest recorded in several scopes counts once.
        """
        count = await self.db.fetchval(
            "SELECT COUNT(DISTINCT game_id) FROM results "
            "WHERE rated AND kind = ? AND finished >= ? "
            "AND ((winner_id = ? AND loser_id = ?) OR (winner_id = ? AND loser_id = ?))",
            kind,
            float(since),
            user_a,
            user_b,
            user_b,
            user_a,
        )
        return int(count or 0)

    # --- tournaments -----------------------------------------------------------------------

    async def get_tournament(self, tournament_id: int) -> TournamentRecord | None:
        """The tournament, its row locked until the transaction ends (where the transaction
        itself does not keep other writers out)."""
        row = await self.db.fetchrow(
            "SELECT * FROM tournaments WHERE id = ?" + self._row_lock, tournament_id
        )
        return None if row is None else tournament_from_row(row)

    async def insert_tournament(self, record: TournamentRecord) -> TournamentRecord:
        """Store a new tournament; sets ``id``, ``version`` = 1 and zero timestamps, in place."""
        if record.id is not None:
            raise ValueError(f"tournament {record.id} is stored already")
        values = tournament_values(record)
        return await self._insert_versioned("tournaments", TOURNAMENT_COLUMNS, values, record)

    async def save_tournament(
        self, record: TournamentRecord, expected_version: int
    ) -> TournamentRecord:
        """Write the tournament if it is still at ``expected_version``; sets ``version`` in
        place. ``updated`` is written as given, or the current time if it is 0."""
        if record.id is None:
            raise ValueError("save_tournament needs a stored tournament (insert_tournament first)")
        values = tournament_values(record)
        return await self._save_versioned(
            "tournaments", TOURNAMENT_ASSIGNMENTS, values, record, expected_version, "tournament"
        )


class SqlStorage(ABC):
    """The storage's methods outside transactions, on either backend.

    A backend provides :meth:`transaction` and :meth:`_reading`; methods called from inside
    one of its transactions (in the same task, or in tasks it starts while it is open) run as
    part of that transaction.
    """

    #: The transaction running in the current task (and the tasks it starts), if any; one
    #: variable per backend class.
    _active: ClassVar[ContextVar[Any]]
    #: The folder of the backend's migrations (see :mod:`bot.storage.schema`).
    migrations_folder: ClassVar[str]

    def __init__(self, migrations: Sequence[Migration] | None = None) -> None:
        self._given_migrations = list(migrations) if migrations is not None else None

    @property
    def migrations(self) -> list[Migration]:
        """The migrations this storage applies: those given, or the shipped ones."""
        if self._given_migrations is not None:
            return self._given_migrations
        return load_migrations(self.migrations_folder)

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @abstractmethod
    async def open(self) -> None:
        """Connect and apply the numbered migrations not yet applied (idempotent)."""

    @abstractmethod
    async def close(self) -> None:
        """Wait for the transactions under way, then disconnect (idempotent)."""

    def transaction(self) -> AbstractAsyncContextManager[SqlTransaction]:
        """``async with storage.transaction() as tx:`` commits on success, rolls back on error.

        Transactions do not nest; the storage's own methods called inside one are part of it.
        """
        return self._scope()

    @abstractmethod
    def _scope(self) -> AbstractAsyncContextManager[SqlTransaction]:
        """A new transaction of the backend, with its locking."""

    @abstractmethod
    def _connection_alone(self) -> AbstractAsyncContextManager[Db]:
        """A connection of the backend's own, outside any transaction."""

    @asynccontextmanager
    async def _reading(self) -> AsyncIterator[Db]:
        """A connection, for statements that need no transaction of their own."""
        tx = self._current_transaction()
        if tx is not None:
            yield tx.db
            return
        async with self._connection_alone() as db:
            yield db

    def _current_transaction(self) -> SqlTransaction | None:
        tx = self._active.get()
        if tx is not None and tx._storage is self and tx._open:
            assert isinstance(tx, SqlTransaction)
            return tx
        return None

    @asynccontextmanager
    async def _writing(self) -> AsyncIterator[Db]:
        """A connection inside a transaction: the current one, or a new one."""
        tx = self._current_transaction()
        if tx is not None:
            yield tx.db
            return
        async with self.transaction() as new:
            yield new.db

    # --- users and chats -------------------------------------------------------------------

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
        handle = name_key(username or name)
        async with self._reading() as db:
            row = await db.fetchrow(_USER_BY_PLATFORM_ID, platform, platform_id)
        if (
            row is not None
            and row["name"] == name
            and row["handle"] == handle
            and (platform_lang is None or row["platform_lang"] == platform_lang)
        ):
            return user_from_row(row)
        return await self._upsert_user(platform, platform_id, name, handle, platform_lang, False)

    async def computer_user(self, platform: str) -> User:
        """The computer player's user on a platform."""
        async with self._reading() as db:
            row = await db.fetchrow(_USER_BY_PLATFORM_ID, platform, COMPUTER_PLATFORM_ID)
        if row is not None and row["is_bot"]:
            return user_from_row(row)
        return await self._upsert_user(
            platform, COMPUTER_PLATFORM_ID, COMPUTER_NAME, name_key(COMPUTER_NAME), None, True
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
        async with self._writing() as db:
            await db.execute(
                "INSERT INTO users (platform, platform_id, name, handle, name_key, platform_lang, "
                "is_bot, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (platform, platform_id) DO UPDATE SET name = excluded.name, "
                "handle = excluded.handle, name_key = excluded.name_key, "
                "platform_lang = COALESCE(excluded.platform_lang, users.platform_lang), "
                "is_bot = users.is_bot OR excluded.is_bot, updated = excluded.updated",
                platform,
                platform_id,
                name,
                handle,
                name_key(name),
                platform_lang,
                is_bot,
                now,
                now,
            )
            row = await db.fetchrow(_USER_BY_PLATFORM_ID, platform, platform_id)
        assert row is not None
        return user_from_row(row)

    async def get_user(self, user_id: int) -> User | None:
        async with self._reading() as db:
            row = await db.fetchrow("SELECT * FROM users WHERE id = ?", user_id)
        return None if row is None else user_from_row(row)

    async def get_users(self, user_ids: Iterable[int]) -> dict[int, User]:
        """Several users by id in one query (a press needs both players'); ids not found
        are left out."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        async with self._reading() as db:
            rows = await db.fetch(f"SELECT * FROM users WHERE id IN ({marks})", *ids)
        return {user.id: user for user in map(user_from_row, rows)}

    async def find_user(self, platform: str, name_or_id: str) -> User | None:
        """By platform id, else by username, else by name (``@`` and case ignored).

        When several users had the same name, the one whose name changed last wins.
        """
        text = str(name_or_id).strip()
        key = name_key(text)
        if not key:
            return None
        bare = text.removeprefix("@")
        async with self._reading() as db:
            row = await db.fetchrow(
                "SELECT * FROM users WHERE platform = ? "
                "AND (platform_id = ? OR platform_id = ? OR handle = ? OR name_key = ?) "
                "ORDER BY platform_id IN (?, ?) DESC, handle = ? DESC, updated DESC, id DESC "
                "LIMIT 1",
                *(platform, text, bare, key, key),
                *(text, bare, key),
            )
        return None if row is None else user_from_row(row)

    async def set_user_lang(self, user_id: int, lang: str | None) -> None:
        async with self._writing() as db:
            await db.execute(
                "UPDATE users SET lang = ?, updated = ? WHERE id = ?", lang, time.time(), user_id
            )

    async def set_user_prefs(self, user_id: int, prefs: PlayerPrefs) -> None:
        async with self._writing() as db:
            await db.execute(
                "UPDATE users SET prefs = ?, updated = ? WHERE id = ?",
                prefs.to_json(),
                time.time(),
                user_id,
            )

    async def get_chat(self, platform: str, chat_id: str, title: str | None = None) -> Chat:
        """The chat, created on first sight; a title given replaces the one known."""
        chat_id = str(chat_id)
        async with self._reading() as db:
            row = await db.fetchrow(_CHAT, platform, chat_id)
        if row is not None and (title is None or row["title"] == title):
            return chat_from_row(row)
        async with self._writing() as db:
            await db.execute(
                "INSERT INTO chats (platform, chat_id, title, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET "
                "title = COALESCE(excluded.title, chats.title)",
                platform,
                chat_id,
                title,
                time.time(),
            )
            row = await db.fetchrow(_CHAT, platform, chat_id)
        assert row is not None
        return chat_from_row(row)

    async def set_chat_lang(self, platform: str, chat_id: str, lang: str | None) -> None:
        async with self._writing() as db:
            await db.execute(
                "INSERT INTO chats (platform, chat_id, lang, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET lang = excluded.lang",
                platform,
                str(chat_id),
                lang,
                time.time(),
            )

    # --- games -----------------------------------------------------------------------------

    async def set_game_message(self, game_id: int, message: dict[str, Any] | None) -> None:
        """Remember where the game's board is shown; its version stays."""
        async with self._writing() as db:
            await db.execute("UPDATE games SET message = ? WHERE id = ?", dumps(message), game_id)

    async def mark_board_shown(
        self, game_id: int, version: int, message: dict[str, Any] | None = None
    ) -> None:
        """The board now shows ``version`` (never lowered), in ``message`` when given."""
        async with self._writing() as db:
            if message is not None:
                await db.execute(
                    "UPDATE games SET message = ? WHERE id = ?", dumps(message), game_id
                )
            await db.execute(
                "UPDATE games SET shown_version = ? WHERE id = ? AND shown_version < ?",
                version,
                game_id,
                version,
            )

    async def lagging_boards(
        self, updated_before: float, updated_after: float, limit: int = 50
    ) -> list[GameRecord]:
        """Games whose board shows an older version, in chats that are not paused."""
        values = status_values((GameStatus.ACTIVE, GameStatus.FINISHED))
        return await self._games(
            "shown_version < version AND updated < ? AND updated > ? "
            f"AND status IN ({marks(values)}) "
            "AND NOT EXISTS (SELECT 1 FROM chats WHERE chats.platform = games.platform "
            "AND chats.chat_id = games.chat_id AND chats.paused IS NOT NULL) "
            "ORDER BY updated, id LIMIT ?",
            float(updated_before),
            float(updated_after),
            *values,
            limit,
        )

    async def set_chat_paused(self, platform: str, chat_id: str, paused: float | None) -> None:
        async with self._writing() as db:
            await db.execute(
                "INSERT INTO chats (platform, chat_id, paused, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET paused = excluded.paused",
                platform,
                str(chat_id),
                paused,
                time.time(),
            )

    async def move_chat(self, platform: str, old_chat_id: str, new_chat_id: str) -> None:
        old_scope, new_scope = f"{platform}:{old_chat_id}", f"{platform}:{new_chat_id}"
        async with self._writing() as db:
            # The WHERE makes SQLite read ON CONFLICT as the upsert, not as a join clause.
            await db.execute(
                "INSERT INTO chats (platform, chat_id, title, lang, created) "
                "SELECT platform, ?, title, lang, created FROM chats "
                "WHERE platform = ? AND chat_id = ? "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET "
                "title = COALESCE(chats.title, excluded.title), "
                "lang = COALESCE(chats.lang, excluded.lang), paused = NULL",
                str(new_chat_id),
                platform,
                str(old_chat_id),
            )
            # Rows the new chat already has win (in practice it has none: Telegram announces
            # the move before anything happens in the new chat).
            await db.execute(
                "UPDATE ratings SET scope = ? WHERE scope = ? AND NOT EXISTS (SELECT 1 "
                "FROM ratings AS r WHERE r.scope = ? AND r.user_id = ratings.user_id "
                "AND r.kind = ratings.kind)",
                new_scope,
                old_scope,
                new_scope,
            )
            await db.execute(
                "UPDATE rating_history SET scope = ? WHERE scope = ?", new_scope, old_scope
            )
            await db.execute(
                "UPDATE results SET scope = ? WHERE scope = ? AND NOT EXISTS (SELECT 1 "
                "FROM results AS r WHERE r.scope = ? AND r.game_id = results.game_id)",
                new_scope,
                old_scope,
                new_scope,
            )

    async def get_game(self, game_id: int) -> GameRecord | None:
        async with self._reading() as db:
            row = await db.fetchrow("SELECT * FROM games WHERE id = ?", game_id)
        return None if row is None else game_from_row(row)

    async def games_in_chat(
        self, platform: str, chat_id: str, statuses: tuple[GameStatus, ...] = OPEN_STATUSES
    ) -> list[GameRecord]:
        """The chat's games with one of these statuses, oldest first."""
        values = status_values(statuses)
        if not values:
            return []
        return await self._games(
            f"platform = ? AND chat_id = ? AND status IN ({marks(values)}) ORDER BY id",
            platform,
            str(chat_id),
            *values,
        )

    async def games_of_user(
        self, user_id: int, statuses: tuple[GameStatus, ...] = OPEN_STATUSES
    ) -> list[GameRecord]:
        """The games where the user holds a seat, with one of these statuses, oldest first."""
        values = status_values(statuses)
        if not values:
            return []
        return await self._games(
            f"(seat0 = ? OR seat1 = ?) AND status IN ({marks(values)}) ORDER BY id",
            user_id,
            user_id,
            *values,
        )

    async def due_games(self, now: float, remind_within: float = 0.0) -> list[GameRecord]:
        """Open games whose deadline has passed, or not yet reminded and whose deadline is
        within ``remind_within`` seconds; soonest first."""
        values = status_values(OPEN_STATUSES)
        return await self._games(
            f"status IN ({marks(values)}) AND deadline IS NOT NULL "
            "AND (deadline <= ? OR (NOT reminded AND deadline <= ?)) ORDER BY deadline, id",
            *values,
            float(now),
            float(now) + float(remind_within),
        )

    async def _games(self, where: str, *args: Any) -> list[GameRecord]:
        async with self._reading() as db:
            rows = await db.fetch(f"SELECT * FROM games WHERE {where}", *args)
        return [game_from_row(row) for row in rows]

    async def events(self, game_id: int) -> list[Event]:
        """The game's log, in order (seq 1, 2, …)."""
        async with self._reading() as db:
            rows = await db.fetch("SELECT * FROM events WHERE game_id = ? ORDER BY seq", game_id)
        return [event_from_row(row) for row in rows]

    # --- ratings and results ---------------------------------------------------------------

    async def top(self, scope: str, kind: str, limit: int = 10) -> list[tuple[User, RatingRow]]:
        """The best ratings of a scope and kind: highest first, then most games."""
        async with self._reading() as db:
            rows = await db.fetch(
                "SELECT users.*, ratings.user_id, ratings.scope, ratings.kind, ratings.rating, "
                "ratings.experience, ratings.games FROM ratings "
                "JOIN users ON users.id = ratings.user_id "
                "WHERE ratings.scope = ? AND ratings.kind = ? "
                "ORDER BY ratings.rating DESC, ratings.games DESC, users.id LIMIT ?",
                scope,
                kind,
                limit,
            )
        return [(user_from_row(row), rating_from_row(row)) for row in rows]

    async def reset_scope(self, scope: str, kind: str | None = None) -> int:
        """Forget a leaderboard's ratings (one kind, or all); how many players it had."""
        where, args = "scope = ?", [scope]
        if kind is not None:
            where, args = where + " AND kind = ?", [*args, kind]
        async with self._writing() as db:
            return await db.execute(f"DELETE FROM ratings WHERE {where}", *args)

    async def rating_history(
        self, user_id: int, scope: str, kind: str
    ) -> list[tuple[float, float]]:
        async with self._reading() as db:
            rows = await db.fetch(
                "SELECT ts, rating FROM rating_history WHERE user_id = ? AND scope = ? "
                "AND kind = ? ORDER BY ts, id",
                user_id,
                scope,
                kind,
            )
        return [(row["ts"], row["rating"]) for row in rows]

    async def results_of_user(self, user_id: int, kind: str | None = None) -> list[ResultRow]:
        """The user's finished contests (as winner or loser), oldest first."""
        kind_filter, kind_args = ("", ()) if kind is None else (" AND kind = ?", (kind,))
        async with self._reading() as db:
            rows = await db.fetch(
                f"SELECT * FROM results WHERE (winner_id = ? OR loser_id = ?){kind_filter} "
                "ORDER BY finished, id",
                user_id,
                user_id,
                *kind_args,
            )
        return [result_from_row(row) for row in rows]

    # --- tournaments -----------------------------------------------------------------------

    async def get_tournament(self, tournament_id: int) -> TournamentRecord | None:
        async with self._reading() as db:
            row = await db.fetchrow("SELECT * FROM tournaments WHERE id = ?", tournament_id)
        return None if row is None else tournament_from_row(row)

    async def tournaments_in_chat(
        self,
        platform: str,
        chat_id: str,
        statuses: tuple[TournamentStatus, ...] = LIVE_TOURNAMENT_STATUSES,
    ) -> list[TournamentRecord]:
        """The chat's tournaments with one of these statuses, newest first."""
        values = tournament_status_values(statuses)
        if not values:
            return []
        return await self._tournaments(
            f"platform = ? AND chat_id = ? AND status IN ({marks(values)}) ORDER BY id DESC",
            platform,
            str(chat_id),
            *values,
        )

    async def due_tournaments(self, now: float, limit: int = 50) -> list[TournamentRecord]:
        """Open or running tournaments whose deadline has come, soonest first."""
        values = tournament_status_values(LIVE_TOURNAMENT_STATUSES)
        return await self._tournaments(
            f"status IN ({marks(values)}) AND deadline IS NOT NULL AND deadline <= ? "
            "ORDER BY deadline, id LIMIT ?",
            *values,
            float(now),
            limit,
        )

    async def _tournaments(self, where: str, *args: Any) -> list[TournamentRecord]:
        async with self._reading() as db:
            rows = await db.fetch(f"SELECT * FROM tournaments WHERE {where}", *args)
        return [tournament_from_row(row) for row in rows]


__all__ = ["Db", "SqlStorage", "SqlTransaction"]
