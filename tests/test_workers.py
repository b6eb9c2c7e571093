"""Several bot processes on one database: concurrent presses and deadlines, each once."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.service import actions as A
from bot.service.service import Actor, GameService, Place, ServiceSettings
from bot.storage.base import GameStatus
from bot.storage.factory import storage_from_url
from core.match import Match
from tests.factory import actions_of, make_service

ROOT = Path(__file__).resolve().parent.parent
WORKER = Path(__file__).with_name("press_worker.py")
PLACE = Place("workers", "room")


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path) -> str:
    """A DATABASE_URL shared by the workers: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    url, schema = request.getfixturevalue("postgres_schema")
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


async def open_games(db: str, count: int) -> dict[int, int]:
    """Start ``count`` games between pairs of players; returns {game id: version}."""
    storage = storage_from_url(db)
    await storage.open()
    service = make_service(storage, render_images=False, burst_actions=10**9)
    for n in range(count):
        a, b = Actor("workers", f"a{n}", f"A{n}"), Actor("workers", f"b{n}", f"B{n}")
        views = await service.command(a, PLACE, "tavla", "5")
        accept = actions_of(views)[A.ACCEPT]
        await service.press(b, PLACE, accept)
    games = await storage.games_in_chat("workers", "room", (GameStatus.ACTIVE,))
    versions = {g.id: g.version for g in games}
    await storage.close()
    return versions


async def versions_now(db: str) -> dict[int, tuple[int, dict]]:
    storage = storage_from_url(db)
    await storage.open()
    out = {}
    for status in (GameStatus.ACTIVE, GameStatus.FINISHED):
        for g in await storage.games_in_chat("workers", "room", (status,)):
            Match.from_dict(g.match)  # still a valid game
            events = await storage.events(g.id)
            assert [e.seq for e in events] == list(range(1, len(events) + 1))
            out[g.id] = (g.version, g.settings)
    await storage.close()
    return out


def test_two_workers_pressing_on_the_same_games(database):
    """Every press applied exactly once: the versions moved by exactly the applied count."""
    db = database
    before = asyncio.run(open_games(db, 3))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), db, "60"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    applied = 0
    for proc in workers:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
        applied += int(out.split()[-1])
    after = asyncio.run(versions_now(db))
    moved = sum(after[g][0] - v for g, v in before.items())
    assert applied > 0
    assert moved == applied


async def test_deadline_jobs_run_once_across_workers(database):
    """Two workers run their deadline round at the same moment: one reminder per game."""
    db = database
    await open_games(db, 4)
    now = [10**10]
    services = []
    for _ in range(2):
        storage = storage_from_url(db)
        await storage.open()
        services.append(
            GameService(storage, ServiceSettings(render_images=False), clock=lambda: now[0])
        )
    # Both workers see the games as due for a reminder at the same moment.
    storage = services[0].storage
    for game in await storage.games_in_chat("workers", "room", (GameStatus.ACTIVE,)):
        async with storage.transaction() as tx:
            game.deadline = now[0] + 3600.0
            await tx.save_game(game, game.version)
    first, second = await asyncio.gather(services[0].tick(), services[1].tick())
    reminders = [v for v in first + second if v.chat is not None]
    assert len(reminders) == 4
    assert not await services[0].tick()  # nothing is sent twice
    for service in services:
        await service.storage.close()
