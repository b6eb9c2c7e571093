"""Puzzles, attempts, puzzle ratings and the groups' daily puzzles, on either backend.

A puzzle is stored once (its ``key``: the game, position and roll); an attempt is one per
person, puzzle and place (``scope``: '' in private, the group's daily puzzle otherwise),
so a second press is refused by the table's key, on every worker. A private attempt rates
the player and the puzzle (Glicko-2, :mod:`core.glicko2`) in the attempt's transaction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from bot.storage.base import DailyPuzzle, PuzzlePlayer, StoredPuzzle
from bot.storage.refs import MessageRef
from bot.storage.rows import Db, Row, dumps, stored_message
from core.glicko2 import START, Rating, play

_PLAYER = "user_id, rating, deviation, volatility, streak, best_streak, solved, attempts"
_PUZZLE = "id, variant, data, source, rating, deviation, volatility"


#: Seconds a puzzle shown stays open for typed plays (see :meth:`PuzzleStorage.opened`). A
#: puzzle is solved in a minute or a few; half an hour later the player has moved on, and a
#: play typed then ("13/8" days later) is meant for something else, not a try at a puzzle
#: that has long scrolled away.
OPEN_FOR = 30 * 60.0

#: The order the games take turns in a group's puzzle of the day, from its first.
_GAMES = {"tavla": 0, "turkish": 1, "uzun": 2}


def _mix(platform: str, chat_id: str, day: str, puzzle_id: object) -> int:
    """A number that orders equal puzzles for one chat and day, the same on every worker."""
    digest = hashlib.blake2b(f"{platform}:{chat_id}:{day}:{puzzle_id}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big")


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def puzzle_from_row(row: Row) -> StoredPuzzle:
    return StoredPuzzle(
        id=int(row["id"]),
        variant=row["variant"],
        data=_json(row["data"]),
        source=row["source"],
        rating=float(row["rating"]),
        deviation=float(row["deviation"]),
        volatility=float(row["volatility"]),
    )


def player_from_row(row: Row) -> PuzzlePlayer:
    return PuzzlePlayer(
        user_id=int(row["user_id"]),
        rating=float(row["rating"]),
        deviation=float(row["deviation"]),
        volatility=float(row["volatility"]),
        streak=int(row["streak"]),
        best_streak=int(row["best_streak"]),
        solved=int(row["solved"]),
        attempts=int(row["attempts"]),
    )


def daily_from_row(row: Row) -> DailyPuzzle:
    return DailyPuzzle(
        platform=row["platform"],
        chat_id=row["chat_id"],
        day=row["day"],
        puzzle_id=int(row["puzzle_id"]),
        message=MessageRef.from_stored(_json(row["message"])),
        revealed=bool(row["revealed"]),
    )


Connect = Callable[[], AbstractAsyncContextManager[Db]]


class PuzzleStorage:
    """The puzzles' operations, each its own transaction (``storage.puzzles``)."""

    def __init__(self, reading: Connect, writing: Connect) -> None:
        self._reading = reading
        self._writing = writing

    async def add(
        self,
        key: str,
        variant: str,
        data: dict[str, Any],
        source: str,
        game_id: int | None,
        now: float,
    ) -> int | None:
        """Store a new puzzle at a new puzzle's rating; its id, or None if it is known."""
        rating, deviation, volatility = START
        async with self._writing() as db:
            value = await db.fetchval(
                "INSERT INTO puzzles (key, variant, data, source, game_id, rating, deviation, "
                "volatility, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (key) DO NOTHING RETURNING id",
                key,
                variant,
                dumps(data),
                source,
                game_id,
                rating,
                deviation,
                volatility,
                float(now),
            )
        return None if value is None else int(value)

    async def get(self, puzzle_id: int) -> StoredPuzzle | None:
        async with self._reading() as db:
            row = await db.fetchrow(f"SELECT {_PUZZLE} FROM puzzles WHERE id = ?", puzzle_id)
        return None if row is None else puzzle_from_row(row)

    async def count(self, variant: str | None = None) -> int:
        """How many puzzles there are (of one game)."""
        async with self._reading() as db:
            if variant is None:
                return int(await db.fetchval("SELECT COUNT(*) FROM puzzles"))
            return int(await db.fetchval("SELECT COUNT(*) FROM puzzles WHERE variant = ?", variant))

    async def next_for(
        self, user_id: int, variant: str | None, rating: float
    ) -> StoredPuzzle | None:
        """The puzzle (of ``variant``, or any) the player has not tried yet whose rating is
        nearest ``rating``."""
        where = "" if variant is None else "AND variant = ? "
        args: list[Any] = [user_id] + ([] if variant is None else [variant]) + [float(rating)]
        async with self._reading() as db:
            row = await db.fetchrow(
                f"SELECT {_PUZZLE} FROM puzzles p WHERE NOT EXISTS (SELECT 1 FROM "
                "puzzle_attempts a WHERE a.puzzle_id = p.id AND a.user_id = ?) "
                f"{where}ORDER BY ABS(rating - ?), id LIMIT 1",
                *args,
            )
        return None if row is None else puzzle_from_row(row)

    async def player(self, user_id: int) -> PuzzlePlayer:
        """The player's puzzle rating and streak (a new player's when none)."""
        async with self._reading() as db:
            row = await db.fetchrow(
                f"SELECT {_PLAYER} FROM puzzle_players WHERE user_id = ?", user_id
            )
        return PuzzlePlayer(user_id) if row is None else player_from_row(row)

    async def attempt(
        self, user_id: int, puzzle_id: int, chosen: int, solved: bool, scope: str, now: float
    ) -> tuple[PuzzlePlayer, PuzzlePlayer] | None:
        """Record the player's one try (None if they tried it here before); in private
        (``scope`` '') rate the player and the puzzle. The player's record before and
        after (the same twice for a group's puzzle, which is not rated)."""
        async with self._writing() as db:
            added = await db.fetchval(
                "INSERT INTO puzzle_attempts (puzzle_id, user_id, scope, chosen, solved, created) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING puzzle_id",
                puzzle_id,
                user_id,
                scope,
                chosen,
                int(solved),
                float(now),
            )
            if added is None:
                return None
            before = await self._locked_player(db, user_id, now)
            if scope:
                return before, before
            puzzle = await db.fetchrow(
                "UPDATE puzzles SET rating = rating WHERE id = ? "
                "RETURNING rating, deviation, volatility",
                puzzle_id,
            )
            assert puzzle is not None
            mine = Rating(before.rating, before.deviation, before.volatility)
            theirs = Rating(
                float(puzzle["rating"]), float(puzzle["deviation"]), float(puzzle["volatility"])
            )
            mine, theirs = play(mine, theirs, solved)
            streak = before.streak + 1 if solved else 0
            after = PuzzlePlayer(
                user_id,
                mine.rating,
                mine.deviation,
                mine.volatility,
                streak,
                max(before.best_streak, streak),
                before.solved + int(solved),
                before.attempts + 1,
            )
            await db.execute(
                "UPDATE puzzle_players SET rating = ?, deviation = ?, volatility = ?, "
                "streak = ?, best_streak = ?, solved = ?, attempts = ?, updated = ? "
                "WHERE user_id = ?",
                after.rating,
                after.deviation,
                after.volatility,
                after.streak,
                after.best_streak,
                after.solved,
                after.attempts,
                float(now),
                user_id,
            )
            await db.execute(
                "UPDATE puzzles SET rating = ?, deviation = ?, volatility = ? WHERE id = ?",
                theirs.rating,
                theirs.deviation,
                theirs.volatility,
                puzzle_id,
            )
        return before, after

    @staticmethod
    async def _locked_player(db: Db, user_id: int, now: float) -> PuzzlePlayer:
        """The player's row, made if new and locked until the transaction ends (an UPDATE
        locks the row on PostgreSQL; SQLite's writer holds the whole database)."""
        rating, deviation, volatility = START
        await db.execute(
            "INSERT INTO puzzle_players (user_id, rating, deviation, volatility, updated) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO NOTHING",
            user_id,
            rating,
            deviation,
            volatility,
            float(now),
        )
        row = await db.fetchrow(
            f"UPDATE puzzle_players SET updated = updated WHERE user_id = ? RETURNING {_PLAYER}",
            user_id,
        )
        assert row is not None
        return player_from_row(row)

    async def open(
        self, user_id: int, platform: str, chat_id: str, puzzle_id: int, now: float
    ) -> None:
        """The puzzle the player has open in this chat now (it replaces the one before)."""
        async with self._writing() as db:
            await db.execute(
                "INSERT INTO open_puzzles (user_id, platform, chat_id, puzzle_id, shown) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, platform, chat_id) DO UPDATE "
                "SET puzzle_id = excluded.puzzle_id, shown = excluded.shown",
                user_id,
                platform,
                chat_id,
                puzzle_id,
                float(now),
            )

    async def opened(self, user_id: int, platform: str, chat_id: str, now: float) -> int | None:
        """The puzzle a play the player types in this chat answers, while it is the thing on
        their screen there: shown here (a newer one shown replaces it, an answer closes it)
        less than :data:`OPEN_FOR` ago, and none of their games played in this chat started
        or changed since. None otherwise: a typed play is then what it is without a puzzle."""
        async with self._reading() as db:
            value = await db.fetchval(
                "SELECT o.puzzle_id FROM open_puzzles o WHERE o.user_id = ? AND o.platform = ? "
                "AND o.chat_id = ? AND o.shown > ? AND NOT EXISTS (SELECT 1 FROM games g "
                "WHERE (g.seat0 = o.user_id OR g.seat1 = o.user_id) AND g.updated > o.shown "
                "AND (g.platform = o.platform AND g.chat_id = o.chat_id OR g.id IN (SELECT "
                "s.game_id FROM seat_chats s WHERE s.platform = o.platform "
                "AND s.chat_id = o.chat_id)))",
                user_id,
                platform,
                chat_id,
                float(now) - OPEN_FOR,
            )
        return None if value is None else int(value)

    async def close_stale(self, now: float) -> int:
        """Delete the open puzzles shown :data:`OPEN_FOR` ago or more (no typed play answers
        them any more); how many."""
        async with self._writing() as db:
            return await db.execute(
                "DELETE FROM open_puzzles WHERE shown <= ?", float(now) - OPEN_FOR
            )

    async def close(self, user_id: int, puzzle_id: int) -> None:
        """The player answered ``puzzle_id``: it is open in none of their chats."""
        async with self._writing() as db:
            await db.execute(
                "DELETE FROM open_puzzles WHERE user_id = ? AND puzzle_id = ?", user_id, puzzle_id
            )

    async def attempts(self, scope: str) -> list[tuple[int, int, bool]]:
        """(user, chosen, solved) of every try in ``scope``, in the order made."""
        async with self._reading() as db:
            rows = await db.fetch(
                "SELECT user_id, chosen, solved FROM puzzle_attempts WHERE scope = ? "
                "ORDER BY created, user_id",
                scope,
            )
        return [(int(r["user_id"]), int(r["chosen"]), bool(r["solved"])) for r in rows]

    async def leaderboard(self, scope_prefix: str, limit: int = 10) -> list[tuple[int, int]]:
        """(user, puzzles solved) over the scopes starting with ``scope_prefix`` (a group's
        daily puzzles), most first."""
        async with self._reading() as db:
            rows = await db.fetch(
                "SELECT user_id, SUM(solved) AS n FROM puzzle_attempts WHERE scope LIKE ? "
                "GROUP BY user_id HAVING SUM(solved) > 0 ORDER BY n DESC, user_id LIMIT ?",
                scope_prefix.replace("%", "") + "%",
                limit,
            )
        return [(int(r["user_id"]), int(r["n"])) for r in rows]

    async def set_daily(
        self, platform: str, chat_id: str, day: str, puzzle_id: int, now: float
    ) -> bool:
        """Choose the group's puzzle of ``day``; False if it has one (another worker's)."""
        async with self._writing() as db:
            added = await db.fetchval(
                "INSERT INTO daily_puzzles (platform, chat_id, day, puzzle_id, created) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING puzzle_id",
                platform,
                chat_id,
                day,
                puzzle_id,
                float(now),
            )
        return added is not None

    async def daily(self, platform: str, chat_id: str, day: str) -> DailyPuzzle | None:
        async with self._reading() as db:
            row = await db.fetchrow(
                "SELECT * FROM daily_puzzles WHERE platform = ? AND chat_id = ? AND day = ?",
                platform,
                chat_id,
                day,
            )
        return None if row is None else daily_from_row(row)

    async def daily_posted_as(
        self, platform: str, chat_id: str, message: MessageRef
    ) -> DailyPuzzle | None:
        """The chat's puzzle of the day posted as ``message`` (a reply to it), or None."""
        async with self._reading() as db:
            rows = await db.fetch(
                "SELECT * FROM daily_puzzles WHERE platform = ? AND chat_id = ? "
                "AND message IS NOT NULL ORDER BY day DESC",
                platform,
                chat_id,
            )
        for row in rows:
            daily = daily_from_row(row)
            if daily.message is not None and daily.message.same_message(message):
                return daily
        return None

    async def set_daily_message(
        self, platform: str, chat_id: str, day: str, message: MessageRef | None
    ) -> None:
        async with self._writing() as db:
            await db.execute(
                "UPDATE daily_puzzles SET message = ? WHERE platform = ? AND chat_id = ? "
                "AND day = ?",
                stored_message(message),
                platform,
                chat_id,
                day,
            )

    async def reveal_daily(self, platform: str, chat_id: str, day: str) -> bool:
        """Mark the day's puzzle answered; False if it was (another worker did)."""
        async with self._writing() as db:
            changed = await db.execute(
                "UPDATE daily_puzzles SET revealed = 1 WHERE platform = ? AND chat_id = ? "
                "AND day = ? AND revealed = 0",
                platform,
                chat_id,
                day,
            )
        return changed == 1

    async def dailies_to_reveal(self, day: str) -> list[DailyPuzzle]:
        """The daily puzzles of ``day`` and before whose answer is not posted yet."""
        async with self._reading() as db:
            rows = await db.fetch(
                "SELECT * FROM daily_puzzles WHERE revealed = 0 AND day <= ? "
                "ORDER BY day, platform, chat_id",
                day,
            )
        return [daily_from_row(r) for r in rows]

    async def daily_chats(self) -> list[tuple[str, str]]:
        """(platform, chat id) of the chats that may have a daily puzzle on (their settings
        say so; the caller reads them) and can be posted in."""
        async with self._reading() as db:
            rows = await db.fetch(
                "SELECT platform, chat_id FROM chats WHERE prefs LIKE ? AND paused IS NULL "
                "ORDER BY platform, chat_id",
                '%"daily_puzzle": true%',
            )
        return [(r["platform"], r["chat_id"]) for r in rows]

    async def next_daily(self, platform: str, chat_id: str, day: str = "") -> StoredPuzzle | None:
        """The chat's puzzle of ``day``, among those it has not had: of the game it had least
        recently (one it never had first, Tavla before Turkish tavla before Uzun Tavla), the
        puzzle shown least recently in any group's puzzle of the day (never shown first);
        among equals, a pick that depends on the chat and the day, not on the puzzles' age."""
        async with self._reading() as db:
            had = await db.fetch(
                "SELECT p.variant, MAX(d.created) AS last FROM daily_puzzles d JOIN puzzles p "
                "ON p.id = d.puzzle_id WHERE d.platform = ? AND d.chat_id = ? GROUP BY p.variant",
                platform,
                chat_id,
            )
            rows = await db.fetch(
                "SELECT p.id, p.variant, (SELECT MAX(s.created) FROM daily_puzzles s WHERE "
                "s.puzzle_id = p.id) AS shown FROM puzzles p WHERE NOT EXISTS (SELECT 1 FROM "
                "daily_puzzles d WHERE d.puzzle_id = p.id AND d.platform = ? AND d.chat_id = ?)",
                platform,
                chat_id,
            )
        if not rows:
            return None
        last = {str(r["variant"]): float(r["last"]) for r in had}
        games = {str(r["variant"]) for r in rows}
        game = min(games, key=lambda v: (last.get(v, -1.0), _GAMES.get(v, len(_GAMES)), v))

        def order(row: Row) -> tuple[float, int]:
            shown = row["shown"]
            return (
                -1.0 if shown is None else float(shown),
                _mix(platform, chat_id, day, row["id"]),
            )

        chosen = min((r for r in rows if r["variant"] == game), key=order)
        return await self.get(int(chosen["id"]))

    async def remove_games_of(self, user_id: int) -> int:
        """Take out the puzzles made from the player's games (they keep theirs out)."""
        async with self._writing() as db:
            return await remove_games_of(db, user_id)


async def remove_games_of(db: Db, user_id: int) -> int:
    """Delete the puzzles of every game ``user_id`` played, with their attempts and days."""
    games = "SELECT id FROM games WHERE seat0 = ? OR seat1 = ?"
    for table in ("puzzle_attempts", "daily_puzzles", "open_puzzles"):
        await db.execute(
            f"DELETE FROM {table} WHERE puzzle_id IN (SELECT id FROM puzzles WHERE game_id IN "
            f"({games}))",
            user_id,
            user_id,
        )
    return await db.execute(f"DELETE FROM puzzles WHERE game_id IN ({games})", user_id, user_id)


async def forget_puzzles(db: Db, user_id: int) -> None:
    """``/forget``: the player's attempts, puzzle rating and the puzzles of their games."""
    await db.execute("DELETE FROM puzzle_attempts WHERE user_id = ?", user_id)
    await db.execute("DELETE FROM open_puzzles WHERE user_id = ?", user_id)
    await db.execute("DELETE FROM puzzle_players WHERE user_id = ?", user_id)
    await remove_games_of(db, user_id)


__all__ = ["PuzzleStorage", "forget_puzzles", "remove_games_of"]
