"""PostgreSQL's lazily begun transactions (bot/storage/postgres_tx.py): a press's save and
events reach the server as one statement, with the same outcome as a transaction of four."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from bot.storage import postgres_tx
from bot.storage.base import ContestSettings, GameStatus, StaleVersionError, StorageError
from bot.storage.postgres import PostgresStorage
from tests.test_storage import insert, new_game


@pytest.fixture
async def storage(postgres_schema: tuple[str, str]) -> AsyncIterator[PostgresStorage]:
    dsn, schema = postgres_schema
    store = PostgresStorage(dsn, server_settings={"search_path": schema}, pool_size=4)
    await store.open()
    yield store
    await store.close()


@contextmanager
def sent_queries(conn: Any) -> Iterator[list[str]]:
    """The queries sent on ``conn`` meanwhile (asyncpg's query logger)."""
    sent: list[str] = []

    def logger(record: Any) -> None:
        sent.append(record.query.split()[0].rstrip(";").upper())

    conn.add_query_logger(logger)
    try:
        yield sent
    finally:
        conn.remove_query_logger(logger)


async def started(storage: PostgresStorage):
    ali = await storage.get_or_create_user("telegram", "1", "Ali")
    veli = await storage.get_or_create_user("telegram", "2", "Veli")
    game = await insert(storage, new_game(ali.id, veli.id, settings=ContestSettings()))
    async with storage.transaction() as tx:
        await tx.add_events(game.stored_id, [("start", {})])
    return game


async def test_a_press_sends_its_save_and_events_as_one_statement(storage):
    game = await started(storage)
    record = await storage.get_game(game.stored_id)
    assert record is not None
    async with storage.transaction() as tx:
        conn = tx.db.conn
        with sent_queries(conn) as sent:
            record.status = GameStatus.ACTIVE
            saved = await tx.save_game(record, record.version)
            await tx.add_events(record.stored_id, [("roll", {"dice": [6, 5]}), ("play", {})])
        # Nothing is sent before the block ends: the write waits for the commit.
        await asyncio.sleep(0)
        assert sent == []
    assert saved.version == 2
    stored = await storage.get_game(game.stored_id)
    assert stored is not None
    assert stored.version == 2
    assert stored.status is GameStatus.ACTIVE
    events = await storage.events(game.stored_id)
    assert [(e.seq, e.type) for e in events] == [(1, "start"), (2, "roll"), (3, "play")]
    assert events[1].data == {"dice": [6, 5]}


async def test_the_commit_of_a_held_save_is_one_round_trip(storage):
    game = await started(storage)
    record = await storage.get_game(game.stored_id)
    assert record is not None
    sent: list[str] = []
    async with storage.transaction() as tx:
        conn = tx.db.conn
        conn.add_query_logger(lambda r: sent.append(r.query.split()[0].rstrip(";").upper()))
        await tx.save_game(record, record.version)
        await tx.add_events(record.stored_id, [("play", {})])
    await asyncio.sleep(0)
    assert sent == ["WITH"]  # not BEGIN, UPDATE, INSERT, COMMIT


async def test_a_transaction_that_does_nothing_sends_nothing(storage):
    sent: list[str] = []
    async with storage.transaction() as tx:
        tx.db.conn.add_query_logger(lambda r: sent.append(r.query))
    await asyncio.sleep(0)
    assert sent == []


async def test_a_stale_held_save_writes_nothing_and_is_told_at_the_end(storage):
    game = await started(storage)
    first = await storage.get_game(game.stored_id)
    second = await storage.get_game(game.stored_id)
    assert first is not None
    assert second is not None
    async with storage.transaction() as tx:
        await tx.save_game(first, first.version)

    async def abort() -> None:
        async with storage.transaction() as tx:
            second.status = GameStatus.ABORTED
            await tx.save_game(second, second.version)
            await tx.add_events(second.stored_id, [("abort", {"seat": 0})])

    with pytest.raises(StaleVersionError):
        await abort()
    assert second.version == 1  # the caller's record is as it was
    stored = await storage.get_game(game.stored_id)
    assert stored is not None
    assert stored.version == 2
    assert stored.status is not GameStatus.ABORTED
    assert [e.type for e in await storage.events(game.stored_id)] == ["start"]


async def test_a_statement_after_a_held_save_sees_it(storage):
    """Any other statement begins the transaction and writes the held save first."""
    game = await started(storage)
    record = await storage.get_game(game.stored_id)
    assert record is not None
    sent: list[str] = []
    async with storage.transaction() as tx:
        tx.db.conn.add_query_logger(lambda r: sent.append(r.query.split()[0].rstrip(";")))
        record.reminded = True
        await tx.save_game(record, record.version)
        await tx.add_events(record.stored_id, [("reminded", {})])
        again = await tx.get_game(record.stored_id)
        assert again is not None
        assert again.version == 2
        assert again.reminded
        assert [e.type for e in await storage.events(record.stored_id)] == ["start", "reminded"]
    await asyncio.sleep(0)
    assert sent == ["BEGIN", "UPDATE", "INSERT", "SELECT", "SELECT", "COMMIT"]


async def test_a_stale_held_save_is_told_at_the_next_statement(storage):
    game = await started(storage)
    old = await storage.get_game(game.stored_id)
    assert old is not None
    async with storage.transaction() as tx:
        await tx.save_game(await tx.get_game(game.stored_id), old.version)
    reached: list[str] = []

    async def save_then_read() -> None:
        async with storage.transaction() as tx:
            await tx.save_game(old, old.version)
            await tx.get_game(game.stored_id)
            reached.append("after the read")

    with pytest.raises(StaleVersionError):
        await save_then_read()
    assert reached == []  # the read after the stale save raised
    assert (await storage.get_game(game.stored_id)).version == 2


@pytest.mark.parametrize("retries", [3, 1], ids=["tried again", "no tries left"])
async def test_a_held_save_that_waited_for_the_row_numbers_its_events_after_the_holder(
    postgres_schema, monkeypatch, retries
):
    """Worker A locks the game (FOR UPDATE, no save) and adds events; worker B's press
    (a held save with events) waits for the row meanwhile. B's statement saw the events
    committed when it began, so its first numbers collide: it is tried again, and every
    event keeps its own number, in order, nothing lost. With no tries left the press is
    told the save failed (StorageError, as for a database away), its record as it was."""
    monkeypatch.setattr(postgres_tx, "_SEQUENCE_RETRIES", retries)
    workers = a, b = await two_workers(postgres_schema)
    try:
        game = await started(a)
        record = await b.get_game(game.stored_id)
        assert record is not None
        release = asyncio.Event()
        locked = asyncio.Event()

        async def holder() -> None:
            async with a.transaction() as tx:
                await tx.get_game(game.stored_id)
                await tx.add_events(game.stored_id, [("claim", {}), ("reply", {})])
                locked.set()
                await release.wait()

        async def press() -> None:
            async with b.transaction() as tx:
                await tx.save_game(record, record.version)
                await tx.add_events(game.stored_id, [("roll", {}), ("play", {})])

        holding = asyncio.create_task(holder())
        await locked.wait()
        pressing = asyncio.create_task(press())
        await waiting_for_a_lock(a)
        release.set()
        outcomes = await asyncio.gather(holding, pressing, return_exceptions=True)
        events = await a.events(game.stored_id)
        stored = await a.get_game(game.stored_id)
    finally:
        for worker in workers:
            await worker.close()
    assert outcomes[0] is None
    expected = [(1, "start"), (2, "claim"), (3, "reply")]
    if retries > 1:
        assert outcomes[1] is None
        assert [(e.seq, e.type) for e in events] == [*expected, (4, "roll"), (5, "play")]
        assert stored is not None
        assert stored.version == 2
    else:
        assert isinstance(outcomes[1], StorageError)
        assert [(e.seq, e.type) for e in events] == expected
        assert stored is not None
        assert stored.version == 1
        assert record.version == 1


async def waiting_for_a_lock(storage: PostgresStorage) -> None:
    """Return once some backend's statement waits for a lock (the press behind the holder)."""
    for _ in range(2000):
        async with storage._connection_alone() as db:
            waiting = await db.fetchval(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE wait_event_type = 'Lock' AND query LIKE 'WITH saved%'"
            )
        if waiting:
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the press never waited for the row")


async def two_workers(postgres_schema, press_pool: int = 2) -> list[PostgresStorage]:
    """A holder worker and a press worker on one schema (the press's pool ``press_pool``)."""
    dsn, schema = postgres_schema
    workers = [
        PostgresStorage(dsn, server_settings={"search_path": schema}, pool_size=size)
        for size in (2, press_pool)
    ]
    for worker in workers:
        await worker.open()
    return workers


async def test_a_press_cancelled_while_its_held_save_waits_writes_nothing_and_frees_the_connection(
    postgres_schema,
):
    """The press's task is cancelled while its one statement waits for the game's row: the
    statement is cancelled on the server (nothing of it written, while the holder still
    holds the row), the press's only connection goes back to its pool usable, and the next
    press on the game is saved with its events numbered after the holder's."""
    a, b = await two_workers(postgres_schema, press_pool=1)
    try:
        game = await started(a)
        record = await b.get_game(game.stored_id)
        assert record is not None
        release = asyncio.Event()
        locked = asyncio.Event()

        async def holder() -> None:
            async with a.transaction() as tx:
                await tx.get_game(game.stored_id)
                await tx.add_events(game.stored_id, [("claim", {})])
                locked.set()
                await release.wait()

        async def press() -> None:
            async with b.transaction() as tx:
                record.status = GameStatus.ABORTED
                await tx.save_game(record, record.version)
                await tx.add_events(game.stored_id, [("abort", {"seat": 0})])

        holding = asyncio.create_task(holder())
        await locked.wait()
        pressing = asyncio.create_task(press())
        await waiting_for_a_lock(a)
        pressing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pressing
        # b's only connection: reading through it waits until the cancelled statement has
        # ended on the server, which it can only have done by being cancelled (the holder
        # still holds the row). Bounded, so a statement left waiting fails the test.
        meanwhile = await asyncio.wait_for(b.get_game(game.stored_id), 30)
        assert meanwhile is not None
        assert meanwhile.version == 1
        assert meanwhile.status is GameStatus.ACTIVE
        release.set()
        await holding
        assert [e.type for e in await a.events(game.stored_id)] == ["start", "claim"]

        fresh = await b.get_game(game.stored_id)
        assert fresh is not None
        async with b.transaction() as tx:
            await tx.save_game(fresh, fresh.version)
            await tx.add_events(game.stored_id, [("roll", {})])
        stored = await a.get_game(game.stored_id)
        assert stored is not None
        assert stored.version == 2
        assert stored.status is GameStatus.ACTIVE
        events = await a.events(game.stored_id)
    finally:
        for worker in (a, b):
            await worker.close()
    assert [(e.seq, e.type) for e in events] == [(1, "start"), (2, "claim"), (3, "roll")]


async def test_a_held_save_that_waited_for_a_row_saved_meanwhile_is_stale_and_adds_no_events(
    postgres_schema,
):
    """The holder saves the game while the press's statement waits for the row: the press's
    ``version = $n`` no longer holds once the row is free (PostgreSQL re-checks it on the
    newest row), so nothing of the press is written and it is told StaleVersionError, its
    record as it was."""
    a, b = await two_workers(postgres_schema)
    try:
        game = await started(a)
        record = await b.get_game(game.stored_id)
        assert record is not None
        release = asyncio.Event()
        locked = asyncio.Event()

        async def holder() -> None:
            async with a.transaction() as tx:
                mine = await tx.get_game(game.stored_id)
                assert mine is not None
                mine.reminded = True
                await tx.save_game(mine, mine.version)
                await tx.add_events(game.stored_id, [("reminded", {})])
                locked.set()
                await release.wait()

        async def press() -> None:
            async with b.transaction() as tx:
                record.status = GameStatus.ABORTED
                await tx.save_game(record, record.version)
                await tx.add_events(game.stored_id, [("abort", {"seat": 0})])

        holding = asyncio.create_task(holder())
        await locked.wait()
        pressing = asyncio.create_task(press())
        await waiting_for_a_lock(a)
        release.set()
        await holding
        with pytest.raises(StaleVersionError):
            await pressing
        assert record.version == 1
        stored = await a.get_game(game.stored_id)
        assert stored is not None
        events = await a.events(game.stored_id)
    finally:
        for worker in (a, b):
            await worker.close()
    assert (stored.version, stored.status, stored.reminded) == (2, GameStatus.ACTIVE, True)
    assert [(e.seq, e.type) for e in events] == [(1, "start"), (2, "reminded")]


async def test_pages_hear_of_a_held_save_only_once_it_is_written(storage):
    """NotifyingStorage (bot/web/hub.py) tells the pages after the block; a held save found
    stale at the end is no change to tell."""
    from bot.web.hub import NotifyingStorage

    told: list[dict[int, int | None]] = []
    notifying = NotifyingStorage(storage, told.append)
    game = await started(storage)
    first = await storage.get_game(game.stored_id)
    second = await storage.get_game(game.stored_id)
    assert first is not None
    assert second is not None
    async with notifying.transaction() as tx:
        await tx.save_game(first, first.version)
        await tx.add_events(game.stored_id, [("roll", {})])
        assert told == []
    written = await storage.get_game(game.stored_id)
    assert written is not None
    assert told == [{game.stored_id: written.version}]  # the game, and its new version
    with pytest.raises(StaleVersionError):
        async with notifying.transaction() as tx:
            await tx.save_game(second, second.version)
    assert len(told) == 1


async def test_a_press_whose_connection_is_lost_during_its_held_save_is_told_storage_error(
    postgres_schema,
):
    """The server ends the press's connection while its one statement waits for the row:
    the press is told StorageError (the database's own failure, not a stale board and not
    asyncpg's exception), nothing of it is written, and its pool serves the next press."""
    a, b = await two_workers(postgres_schema, press_pool=1)
    try:
        game = await started(a)
        record = await b.get_game(game.stored_id)
        assert record is not None
        release = asyncio.Event()
        locked = asyncio.Event()

        async def holder() -> None:
            async with a.transaction() as tx:
                await tx.get_game(game.stored_id)
                locked.set()
                await release.wait()

        async def press() -> None:
            async with b.transaction() as tx:
                record.status = GameStatus.ABORTED
                await tx.save_game(record, record.version)
                await tx.add_events(game.stored_id, [("abort", {"seat": 0})])

        holding = asyncio.create_task(holder())
        await locked.wait()
        pressing = asyncio.create_task(press())
        await waiting_for_a_lock(a)
        async with a._connection_alone() as db:
            ended = await db.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'WITH saved%' "
                "AND wait_event_type = 'Lock' AND pg_terminate_backend(pid)"
            )
        assert ended == 1
        with pytest.raises(StorageError) as caught:
            await pressing
        assert not isinstance(caught.value, StaleVersionError)
        release.set()
        await holding

        fresh = await b.get_game(game.stored_id)
        assert fresh is not None
        assert (fresh.version, fresh.status) == (1, GameStatus.ACTIVE)
        async with b.transaction() as tx:
            await tx.save_game(fresh, fresh.version)
            await tx.add_events(game.stored_id, [("roll", {})])
        events = await a.events(game.stored_id)
    finally:
        for worker in (a, b):
            await worker.close()
    assert [(e.seq, e.type) for e in events] == [(1, "start"), (2, "roll")]
