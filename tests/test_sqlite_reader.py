"""SQLite reads outside transactions: on the event loop, through a connection of
their own, without a round trip through aiosqlite's thread. As before, a read waits for the
process's transaction under way and sees what it committed."""

from __future__ import annotations

import asyncio
import sqlite3

import aiosqlite
import pytest

from bot.storage.base import GameRecord, GameStatus
from bot.storage.sqlite import MEMORY, SqliteStorage


@pytest.fixture
async def storage(tmp_path):
    store = SqliteStorage(tmp_path / "reader.db")
    await store.open()
    yield store
    await store.close()


async def test_a_read_waits_for_the_transaction_under_way_and_sees_what_it_committed(
    storage: SqliteStorage,
) -> None:
    ali = await storage.get_or_create_user("telegram", "101", "Ali", "tr")
    inside = asyncio.Event()
    finish = asyncio.Event()

    async def change_language() -> None:
        async with storage.transaction():
            await storage.set_user_lang(ali.id, "ru")
            inside.set()
            await finish.wait()

    writer = asyncio.create_task(change_language())
    try:
        await inside.wait()
        reader = asyncio.create_task(storage.get_user(ali.id))
        await asyncio.sleep(0.05)
        assert not reader.done()  # the transaction holds the lock
    finally:
        finish.set()
        await writer
    user = await reader
    assert user is not None
    assert user.lang == "ru"


async def test_reads_make_no_round_trip_through_aiosqlites_thread(
    storage: SqliteStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    ali = await storage.get_or_create_user("telegram", "101", "Ali", "tr")
    chat = await storage.get_chat("telegram", "-100", "Room")
    hops: list[object] = []
    original = aiosqlite.Connection._execute

    async def counted(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        hops.append(fn)
        return await original(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    assert (await storage.get_chat("telegram", "-100")).title == chat.title == "Room"
    assert (await storage.get_users({ali.id}))[ali.id].name == "Ali"
    assert (await storage.get_or_create_user("telegram", "101", "Ali", "tr")).id == ali.id
    assert hops == []
    await storage.set_user_lang(ali.id, "en")  # a write still goes through the thread
    assert hops
    assert (await storage.get_user(ali.id)).lang == "en"


async def test_an_in_memory_database_reads_through_its_one_connection() -> None:
    store = SqliteStorage(MEMORY)
    await store.open()
    try:
        assert store._reader is None  # a second connection would be another database
        ali = await store.get_or_create_user("telegram", "101", "Ali", "tr")
        await store.set_user_lang(ali.id, "ru")
        assert (await store.get_user(ali.id)).lang == "ru"
    finally:
        await store.close()


async def test_the_reading_connection_refuses_writes(storage: SqliteStorage) -> None:
    assert storage._reader is not None
    with pytest.raises(sqlite3.OperationalError, match=r"readonly|read-only|query_only"):
        storage._reader.execute("DELETE FROM users")


async def test_a_transaction_goes_through_the_thread_only_to_commit(
    storage: SqliteStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the write lock free, a transaction's BEGIN and statements run on the event loop
    (a press: its game saved, its events added); only COMMIT, which may checkpoint the WAL
    and so sync the disk, makes a round trip through aiosqlite's thread."""
    ali = await storage.get_or_create_user("telegram", "101", "Ali", "tr")
    async with storage.transaction() as tx:
        game = await tx.insert_game(_game(ali.id))
    hops: list[object] = []
    original = aiosqlite.Connection._execute

    async def counted(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        hops.append(args[0] if args else fn)
        return await original(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    async with storage.transaction() as tx:
        record = await tx.get_game(game.id)
        assert record is not None
        record.status = GameStatus.FINISHED
        await tx.save_game(record, record.version)
        await tx.add_events(game.id, [("roll", {"dice": [3, 1]}), ("play", {"play": "8/5 6/5"})])
    assert hops == ["COMMIT"]
    stored = await storage.get_game(game.id)
    assert stored is not None
    assert stored.status is GameStatus.FINISHED
    assert [e.seq for e in await storage.events(game.id)] == [1, 2]


async def test_a_transaction_waits_for_another_writer_off_the_loop(tmp_path) -> None:
    """Another process's write under way: BEGIN waits for it in aiosqlite's thread (up to
    the busy timeout), not on the event loop, so the process goes on meanwhile."""
    mine = SqliteStorage(tmp_path / "two.db", busy_timeout=3.0)
    other = SqliteStorage(tmp_path / "two.db", busy_timeout=3.0)
    await mine.open()
    await other.open()
    try:
        ali = await mine.get_or_create_user("telegram", "101", "Ali", "tr")
        held, release = asyncio.Event(), asyncio.Event()

        async def hold() -> None:
            async with other.transaction():
                await other.set_user_lang(ali.id, "ru")
                held.set()
                await release.wait()

        holder = asyncio.create_task(hold())
        await held.wait()
        writer = asyncio.create_task(mine.set_user_lang(ali.id, "en"))
        await asyncio.sleep(0.1)  # the loop runs on while the write waits
        assert not writer.done()
        release.set()
        await holder
        await writer
        user = await mine.get_user(ali.id)
        assert user is not None
        assert user.lang == "en"
    finally:
        await other.close()
        await mine.close()


def _game(seat0: int) -> GameRecord:
    return GameRecord(
        platform="telegram",
        chat_id="-100",
        variant="tavla",
        status=GameStatus.ACTIVE,
        seats=[seat0, None],
        challenger=seat0,
    )
