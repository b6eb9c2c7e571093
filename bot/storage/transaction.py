"""One transaction's operations, written once for both SQL dialects (see :mod:`bot.storage.sql`):
games and their events, ratings and results, tournaments, each saved with a version check.
:class:`Db` (:mod:`bot.storage.rows`) is what a backend gives them: its connection, running
the shared queries."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

from bot.storage.base import (
    GameRecord,
    RatingRow,
    ResultRow,
    StaleVersionError,
    TournamentRecord,
)
from bot.storage.pool import PoolTransaction
from bot.storage.rows import (
    GAME_ASSIGNMENTS,
    GAME_COLUMNS,
    TOURNAMENT_ASSIGNMENTS,
    TOURNAMENT_COLUMNS,
    Db,
    dumps,
    game_from_row,
    game_values,
    marks,
    rating_from_row,
    tournament_from_row,
    tournament_values,
)

#: A record kept with optimistic locking: its row has ``created``, ``updated``, ``version``.
_Versioned = TypeVar("_Versioned", GameRecord, TournamentRecord)


def versioned_update(table: str, assignments: str) -> str:
    """The update of a versioned row (optimistic locking): the ``assignments``' values, then
    ``updated``, the row's id and the version it must still be at."""
    return (
        f"UPDATE {table} SET {assignments}, updated = ?, version = version + 1 "
        "WHERE id = ? AND version = ?"
    )


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

    @property
    def pool(self) -> PoolTransaction:
        """The pool's operations in this transaction (:mod:`bot.storage.pool`)."""
        return PoolTransaction(lambda: self.db, self._lock_key)

    async def _lock_key(self, key: str) -> None:
        """Hold a lock named ``key`` until the transaction ends, where the transaction itself
        does not keep other writers out (SQLite's ``BEGIN IMMEDIATE`` does)."""

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
            versioned_update(table, assignments),
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
