"""SQLite reads outside transactions (issue 18): on the event loop, through a connection of
their own, without a round trip through aiosqlite's thread and without waiting for another
task's transaction. What they read is what was committed last, as on PostgreSQL."""

from __future__ import annotations

import asyncio
import sqlite3

import aiosqlite
import pytest

from bot.storage.sqlite import MEMORY, SqliteStorage


@pytest.fixture
async def storage(tmp_path):
    store = SqliteStorage(tmp_path / "reader.db")
    await store.open()
    yield store
    await store.close()


async def test_a_read_sees_what_was_committed_and_does_not_wait_for_an_open_transaction(
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
        # The transaction is open and holds the lock: the read answers at once, with what
        # was committed (no language of the user's own yet).
        user = await asyncio.wait_for(storage.get_user(ali.id), 1.0)
        assert user is not None
        assert user.lang is None
    finally:
        finish.set()
        await writer
    user = await storage.get_user(ali.id)
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
