"""Live updates across workers: with PostgreSQL, a change committed by one worker
wakes the pages open on another, through LISTEN/NOTIFY. Skipped without a test database
(TAVLA_TEST_POSTGRES_URL; .ci/run starts one)."""

from __future__ import annotations

import asyncio

import asyncpg

from bot.service.service import GameService, ServiceSettings
from bot.storage.postgres import PostgresStorage
from bot.web.hub import CHANNEL, ChangeHub
from tests.web_helpers import ALI, GROUP, VELI, accept_of


async def test_a_change_on_one_worker_reaches_pages_on_another(postgres_schema):
    dsn, schema = postgres_schema
    workers = []
    for _ in range(2):
        hub = ChangeHub()
        inner = PostgresStorage(dsn, server_settings={"search_path": schema})
        await inner.open()
        await hub.listen_postgres(dsn)
        service = GameService(
            hub.watch(inner),  # type: ignore[arg-type]
            ServiceSettings(render_images=False),
        )
        workers.append((hub, inner, service))
    (hub_a, _, service_a), (hub_b, _, service_b) = workers
    try:
        views = await service_a.command(ALI, GROUP, "tavla", "")
        challenge_id = next(v.game_id for v in views if v.game_id is not None)
        page = hub_b.subscribe(challenge_id)
        # Veli's press reaches worker A; the page open on worker B hears of it.
        await service_a.press(VELI, GROUP, accept_of(views))
        accepted = await service_b.storage.get_game(challenge_id)
        # It is told the version the game changed to (after the challenge's own insert,
        # whose notification may come late, with no version).
        assert await told(page, accepted.version)
        # And the other way round, with worker A's own pages woken by its own change.
        own = hub_a.subscribe(challenge_id)
        record = await service_b.storage.get_game(challenge_id)
        async with service_b.storage.transaction() as tx:
            saved = await tx.save_game(record, record.version)
        assert await told(own, saved.version)
    finally:
        for hub, inner, _ in workers:
            await hub.close()
            await inner.close()


async def told(page: asyncio.Queue, version: int) -> bool:
    """Whether ``page`` is told ``version``, after none but older or unversioned changes."""
    while True:
        got = await asyncio.wait_for(page.get(), 5)
        if got == version:
            return True
        if got is not None and got > version:
            return False


async def test_changes_committed_together_all_reach_the_other_workers_pages(postgres_schema):
    """Many games changing at once (a busy evening): the notifications share the worker's
    one connection, and none is lost on the way to the pages of another worker."""
    dsn, _schema = postgres_schema
    sender, receiver = ChangeHub(), ChangeHub()
    await sender.listen_postgres(dsn)
    await receiver.listen_postgres(dsn)
    try:
        pages = {game: receiver.subscribe(game) for game in range(1, 41)}
        for game in pages:  # each commit reports its game, without waiting for the others
            sender.changed({game: game + 100})
        for game, page in pages.items():
            assert await asyncio.wait_for(page.get(), 5) == game + 100
    finally:
        await sender.close()
        await receiver.close()


async def test_a_change_told_without_its_version_still_wakes_the_pages(postgres_schema):
    """A worker that names only the game (as before versions were told) wakes the pages
    too; they then read the game as stored."""
    dsn, _schema = postgres_schema
    receiver = ChangeHub()
    await receiver.listen_postgres(dsn)
    sender = await asyncpg.connect(dsn)
    try:
        page = receiver.subscribe(7)
        await sender.execute("SELECT pg_notify($1, '7')", CHANNEL)
        assert await asyncio.wait_for(page.get(), 5) is None
        await sender.execute("SELECT pg_notify($1, '7:12')", CHANNEL)
        assert await asyncio.wait_for(page.get(), 5) == 12
    finally:
        await sender.close()
        await receiver.close()
