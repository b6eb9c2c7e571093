"""The storage's queries, written once for both SQL dialects.

Every query here is plain SQL that SQLite and PostgreSQL both understand, with ``?``
placeholders. A :class:`Db` runs it on one connection in its own dialect (PostgreSQL numbers
the placeholders ``$1, $2, …``; ids of new rows come from ``lastrowid`` or ``RETURNING id``)
and raises the failures of an unavailable database as
:class:`~bot.storage.base.StorageError`. What really differs stays in the backends:
connecting, migrating, starting and ending transactions, and locking (``BEGIN IMMEDIATE``
on SQLite; ``SELECT … FOR UPDATE`` and advisory locks on PostgreSQL, which
:class:`~bot.storage.postgres.PostgresTransaction` adds around the shared operations).
This module holds the queries outside transactions (:class:`SqlStorage`);
:mod:`bot.storage.transaction` those inside one (:class:`SqlTransaction`).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar
from typing import Any, ClassVar, Self

from bot.storage.base import (
    LIVE_TOURNAMENT_STATUSES,
    OPEN_STATUSES,
    Chat,
    ChatPrefs,
    Event,
    GamePeople,
    GameRecord,
    GameStatus,
    PlayerPrefs,
    RatingRow,
    ResultRow,
    TournamentRecord,
    TournamentStatus,
    User,
    user_unchanged,
)
from bot.storage.forget import forget_user
from bot.storage.pool import PoolStorage
from bot.storage.puzzles import PuzzleStorage
from bot.storage.refs import MessageRef
from bot.storage.rows import (
    CHAT_COLUMNS,
    COMPUTER_NAME,
    COMPUTER_PLATFORM_ID,
    USER_COLUMNS,
    Prefixed,
    chat_from_row,
    event_from_row,
    game_from_row,
    marks,
    name_key,
    prefixed_columns,
    rating_from_row,
    result_from_row,
    status_values,
    stored_message,
    tournament_from_row,
    tournament_status_values,
    user_from_row,
)
from bot.storage.schema import Migration, load_migrations
from bot.storage.transaction import Db, SqlTransaction

_USER_BY_PLATFORM_ID = "SELECT * FROM users WHERE platform = ? AND platform_id = ?"
_CHAT = "SELECT * FROM chats WHERE platform = ? AND chat_id = ?"
#: A game with the users on its seats and its chat (see SqlStorage.game_with_people).
_GAME_WITH_PEOPLE = (
    f"SELECT g.*, {prefixed_columns('u0', USER_COLUMNS)}, {prefixed_columns('u1', USER_COLUMNS)}, "
    f"{prefixed_columns('c', CHAT_COLUMNS)} FROM games g "
    "LEFT JOIN users u0 ON u0.id = g.seat0 LEFT JOIN users u1 ON u1.id = g.seat1 "
    "LEFT JOIN chats c ON c.platform = g.platform AND c.chat_id = g.chat_id WHERE g.id = ?"
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

    @property
    def pool(self) -> PoolStorage:
        """The pool of waiting players, blocks and reports (:mod:`bot.storage.pool`)."""
        return PoolStorage(self._reading, self._writing)

    @property
    def puzzles(self) -> PuzzleStorage:
        """Puzzles, attempts, puzzle ratings and daily puzzles (:mod:`bot.storage.puzzles`)."""
        return PuzzleStorage(self._reading, self._writing)

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
        if row is not None:
            user = user_from_row(row)
            if user_unchanged(user, row["handle"], name, username, platform_lang):
                return user
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
        async with self._reading() as db:
            rows = await db.fetch(f"SELECT * FROM users WHERE id IN ({marks(ids)})", *ids)
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

    async def set_chat_group_lang(self, platform: str, chat_id: str, lang: str) -> None:
        async with self._writing() as db:
            await db.execute(
                "INSERT INTO chats (platform, chat_id, group_lang, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET group_lang = excluded.group_lang",
                platform,
                str(chat_id),
                lang,
                time.time(),
            )

    async def set_chat_prefs(self, platform: str, chat_id: str, prefs: ChatPrefs) -> None:
        async with self._writing() as db:
            await db.execute(
                "INSERT INTO chats (platform, chat_id, prefs, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET prefs = excluded.prefs",
                platform,
                str(chat_id),
                prefs.to_json(),
                time.time(),
            )

    # --- games -----------------------------------------------------------------------------

    async def set_game_message(self, game_id: int, message: MessageRef | None) -> None:
        """Remember where the game's board is shown; its version stays."""
        async with self._writing() as db:
            await db.execute(
                "UPDATE games SET message = ? WHERE id = ?", stored_message(message), game_id
            )

    async def mark_board_shown(
        self, game_id: int, version: int, message: MessageRef | None = None
    ) -> None:
        """The board now shows ``version`` (never lowered), in ``message`` when given."""
        # One statement, atomic by itself: no transaction of its own (with SQLite, a third
        # of the round trips through its thread; this runs after nearly every press).
        async with self._reading() as db:
            if message is None:
                await db.execute(
                    "UPDATE games SET shown_version = ? WHERE id = ? AND shown_version < ?",
                    version,
                    game_id,
                    version,
                )
                return
            await db.execute(
                "UPDATE games SET message = ?, shown_version = "
                "CASE WHEN shown_version < ? THEN ? ELSE shown_version END WHERE id = ?",
                stored_message(message),
                version,
                version,
                game_id,
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
                "INSERT INTO chats (platform, chat_id, title, lang, group_lang, prefs, created) "
                "SELECT platform, ?, title, lang, group_lang, prefs, created FROM chats "
                "WHERE platform = ? AND chat_id = ? "
                "ON CONFLICT (platform, chat_id) DO UPDATE SET "
                "title = COALESCE(chats.title, excluded.title), "
                "lang = COALESCE(chats.lang, excluded.lang), "
                "group_lang = COALESCE(chats.group_lang, excluded.group_lang), "
                "prefs = CASE WHEN chats.prefs = '{}' THEN excluded.prefs ELSE chats.prefs END, "
                "paused = NULL",
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

    async def game_with_people(self, game_id: int) -> GamePeople | None:
        """The game, the users on its seats and its chat, in one query."""
        async with self._reading() as db:
            row = await db.fetchrow(_GAME_WITH_PEOPLE, game_id)
        if row is None:
            return None
        users: dict[int, User] = {}
        handles: dict[int, str] = {}
        for prefix in ("u0_", "u1_"):
            if row[prefix + "id"] is not None:
                columns = Prefixed(row, prefix)
                user = user_from_row(columns)
                users[user.id], handles[user.id] = user, columns["handle"]
        chat = chat_from_row(Prefixed(row, "c_")) if row["c_chat_id"] is not None else None
        return GamePeople(game_from_row(row), users, handles, chat)

    async def games_in_chat(
        self, platform: str, chat_id: str, statuses: tuple[GameStatus, ...] = OPEN_STATUSES
    ) -> list[GameRecord]:
        """The chat's games with one of these statuses, oldest first: those started here,
        and those with a seat played here (a game in two chats, ``seat_chats``)."""
        values = status_values(statuses)
        if not values:
            return []
        return await self._games(
            "(platform = ? AND chat_id = ? OR id IN (SELECT game_id FROM seat_chats "
            f"WHERE platform = ? AND chat_id = ?)) AND status IN ({marks(values)}) ORDER BY id",
            platform,
            str(chat_id),
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

    async def count_computer_games(
        self, user_id: int, statuses: tuple[GameStatus, ...], at_most: int
    ) -> int:
        """How many of the user's games with these statuses were against the computer,
        counted up to ``at_most`` (reads no game: it is asked on every move)."""
        values = status_values(statuses)
        if not values or at_most <= 0:
            return 0
        async with self._reading() as db:
            found = await db.fetchval(
                "SELECT COUNT(*) FROM (SELECT 1 FROM games g JOIN users u"
                " ON u.id = CASE WHEN g.seat0 = ? THEN g.seat1 ELSE g.seat0 END"
                f" WHERE (g.seat0 = ? OR g.seat1 = ?) AND g.status IN ({marks(values)})"
                " AND u.is_bot = ? LIMIT ?) AS counted",
                user_id,
                user_id,
                user_id,
                *values,
                True,
                int(at_most),
            )
        return int(found or 0)

    async def count_games(self, statuses: tuple[GameStatus, ...]) -> int:
        """How many games have one of these statuses."""
        values = status_values(statuses)
        if not values:
            return 0
        async with self._reading() as db:
            found = await db.fetchval(
                f"SELECT COUNT(*) FROM games WHERE status IN ({marks(values)})", *values
            )
        return int(found or 0)

    async def ping(self) -> None:
        """One trivial query: raises :class:`StorageError` when the database can't answer."""
        async with self._reading() as db:
            await db.fetchval("SELECT 1")

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

    async def forget_user(self, user_id: int, name: str, now: float) -> str | None:
        """Forget a player at their request (bot/storage/forget.py): None when done, or
        what stops it (``"game"``, ``"tournament"``)."""
        async with self._writing() as db:
            return await forget_user(db, user_id, name, now)

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
