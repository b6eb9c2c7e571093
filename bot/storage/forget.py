"""Forgetting a player (``/forget``), in one transaction, on either backend.

What identifies the player goes: the platform id (replaced by ``forgotten:<id>``, so the
same person starts afresh if they come back), the name, username and lookup keys, the
languages and settings; their ratings and rating history are deleted. What others need
stays, under a name that says nobody: the games (moves and dice, with the player's name
replaced in each game's names), the results (the others' statistics), the others' ratings,
and the tournaments' tables. Challenges the player left open are withdrawn. A player with a
game under way or in a tournament still open or running is not forgotten (the caller asks
them to finish or leave first): their opponents' games and tables must not lose a player
in the middle.
"""

from __future__ import annotations

import json
from typing import Any

from bot.storage.base import GameStatus, TournamentStatus
from bot.storage.pool import forget_pool
from bot.storage.puzzles import forget_puzzles
from bot.storage.rows import dumps
from bot.storage.transaction import Db


async def forget_user(db: Db, user_id: int, name: str, now: float) -> str | None:
    """Forget ``user_id`` (see the module doc), showing ``name`` in their place; None when
    done, or what stops it: ``"game"`` (one under way) or ``"tournament"``."""
    seats = "(seat0 = ? OR seat1 = ?)"
    active = await db.fetchval(
        f"SELECT COUNT(*) FROM games WHERE {seats} AND status = ?",
        user_id,
        user_id,
        GameStatus.ACTIVE.value,
    )
    if active:
        return "game"
    live = (TournamentStatus.OPEN.value, TournamentStatus.RUNNING.value)
    tournaments = await db.fetch("SELECT id, status, state FROM tournaments")
    changed_tables = []
    for row in tournaments:
        state = _json(row["state"])
        mine = [e for e in state.get("entrants", []) if e.get("player") == user_id]
        if not mine:
            continue
        if row["status"] in live and any(e.get("withdrawn_at") is None for e in mine):
            return "tournament"
        for entrant in mine:
            entrant["name"] = name
        changed_tables.append((row["id"], state))
    for tournament_id, state in changed_tables:
        await db.execute(
            "UPDATE tournaments SET state = ? WHERE id = ?", dumps(state), tournament_id
        )
    # Challenges the player made or was named in, still open: withdrawn.
    await db.execute(
        f"UPDATE games SET status = ?, updated = ? WHERE status = ? AND ({seats[1:-1]} "
        "OR challenger = ?)",
        GameStatus.DECLINED.value,
        now,
        GameStatus.CHALLENGE.value,
        user_id,
        user_id,
        user_id,
    )
    games = await db.fetch(
        f"SELECT id, seat0, seat1, settings FROM games WHERE {seats}", user_id, user_id
    )
    for game in games:
        settings = _json(game["settings"])
        names = settings.get("names")
        if isinstance(names, list):
            for seat, holder in enumerate((game["seat0"], game["seat1"])):
                if holder == user_id and seat < len(names):
                    names[seat] = name
            await db.execute(
                "UPDATE games SET settings = ? WHERE id = ?", dumps(settings), game["id"]
            )
    await forget_pool(db, user_id)
    await forget_puzzles(db, user_id)
    await db.execute("DELETE FROM ratings WHERE user_id = ?", user_id)
    await db.execute("DELETE FROM rating_history WHERE user_id = ?", user_id)
    await db.execute(
        "UPDATE users SET platform_id = ?, name = ?, handle = '', name_key = '', lang = NULL, "
        "platform_lang = NULL, prefs = '{}', updated = ? WHERE id = ?",
        f"forgotten:{user_id}",
        name,
        now,
        user_id,
    )
    return None


def _json(value: Any) -> dict[str, Any]:
    """A JSON column's object (asyncpg and sqlite3 both give JSON columns as text)."""
    data = json.loads(value) if isinstance(value, str | bytes) else value
    return data if isinstance(data, dict) else {}
