"""Live updates across workers: with PostgreSQL, a change committed by one worker
wakes the pages open on another, through LISTEN/NOTIFY. Skipped without a test database
(TAVLA_TEST_POSTGRES_URL; .ci/run starts one)."""

from __future__ import annotations

import asyncio

import asyncpg
from aiohttp.test_utils import TestClient, TestServer

from bot.service.service import GameService, ServiceSettings
from bot.storage.postgres import PostgresDb, PostgresStorage
from bot.web.auth import LinkSigner
from bot.web.hub import CHANNEL, ChangeHub
from bot.web.server import WebBoard
from tests.factory import make_service
from tests.test_web_api import NOW, as_stored, auth, post
from tests.test_web_auth import TOKEN
from tests.web_helpers import ALI, GROUP, VELI, accept_of, seats, set_bear_off, start_game


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


async def test_a_web_action_costs_two_statements(postgres_schema, monkeypatch):
    """On PostgreSQL a player's action on the page reads the game, its players and its
    chat in one statement and saves in one (there were five round trips an action)."""
    dsn, schema = postgres_schema
    hub = ChangeHub()
    inner = PostgresStorage(dsn, server_settings={"search_path": schema})
    await inner.open()
    service = make_service(hub.watch(inner), clock=lambda: NOW, burst_actions=10**6)  # type: ignore[arg-type]
    board = WebBoard(service, hub, LinkSigner("s"), telegram_token=TOKEN, clock=lambda: NOW)
    client = TestClient(TestServer(board.app))
    await client.start_server()
    try:
        game_id = await start_game(service)
        await set_bear_off(service, game_id, turn=0)
        mover = next(p for p, seat in (await seats(service, game_id)).items() if seat == 0)
        me = auth(as_stored(mover))
        state = await (await client.get(f"/api/game/{game_id}", headers=me)).json()
        sent: list[str] = []
        for name in ("fetch", "fetchrow", "fetchval", "execute", "executemany"):
            real = getattr(PostgresDb, name)

            async def counted(self, sql, *args, _real=real):
                sent.append(sql)
                return await _real(self, sql, *args)

            monkeypatch.setattr(PostgresDb, name, counted)
        answer = await post(client, game_id, me, state["version"], action="roll")
        assert answer["ok"]
        assert len(sent) == 2
        source, moves = next(iter(answer["state"]["moves"].items()))
        sent.clear()
        body = {"from": int(source), "to": moves[0]["to"]}
        moved = await post(client, game_id, me, answer["state"]["version"], action="move", **body)
        assert moved["ok"]
        assert len(sent) == 2
    finally:
        await client.close()
        await inner.close()
