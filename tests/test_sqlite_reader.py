"""SQLite on the event loop: reads outside transactions through a connection of their own,
and transactions from BEGIN to COMMIT, without a round trip through aiosqlite's thread (the
write-ahead log's checkpoints, which sync the disk, run in a thread by a connection of
their own). As before, a read waits for the process's transaction under way and sees what it
committed."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading

import aiosqlite
import pytest

from bot.storage import sqlite as sqlite_module
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


async def test_a_transaction_makes_no_round_trip_through_aiosqlites_thread(
    storage: SqliteStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the write lock free, a transaction runs on the event loop from BEGIN to COMMIT
    (a press: its game saved, its events added), and so does a write of its own."""
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
    await storage.set_user_lang(ali.id, "en")
    assert hops == []
    stored = await storage.get_game(game.id)
    assert stored is not None
    assert stored.status is GameStatus.FINISHED
    assert [e.seq for e in await storage.events(game.id)] == [1, 2]
    assert (await storage.get_user(ali.id)).lang == "en"


async def test_writes_of_many_tasks_at_once_never_wait_for_each_other(
    storage: SqliteStorage,
) -> None:
    """A hundred presses saving at once (one write each, and a read): none finds the
    storage's lock taken, as none holds it across a turn of the event loop. (Each commit's
    round trip through aiosqlite's thread held the lock while the loop ran the others:
    under load every transaction and read of the process queued there.)"""
    users = [
        await storage.get_or_create_user("telegram", str(n), f"P{n}", "tr") for n in range(100)
    ]
    lock = storage._lock
    taken: list[bool] = []
    acquire = lock.acquire

    async def noted() -> bool:
        taken.append(lock.locked())
        return await acquire()

    lock.acquire = noted  # type: ignore[method-assign]

    async def press(user_id: int) -> None:
        await storage.set_user_lang(user_id, "ru")
        assert (await storage.get_user(user_id)).lang == "ru"

    await asyncio.gather(*(press(user.id) for user in users))
    assert len(taken) >= 200
    assert not any(taken)


async def test_writes_queued_behind_a_held_transaction_all_go_at_its_end(
    storage: SqliteStorage,
) -> None:
    """A transaction held open across turns of the event loop while a hundred presses
    queue to save: at its end they all save in the loop's next turns, not one a turn. (The
    lock handed itself to one waiter a turn, newcomers queueing behind: under load, where
    presses come faster than the loop turns, the queue never drained.)"""
    users = [
        await storage.get_or_create_user("telegram", str(n), f"P{n}", "tr") for n in range(100)
    ]
    inside, finish = asyncio.Event(), asyncio.Event()

    async def held() -> None:
        async with storage.transaction():
            await storage.set_user_lang(users[0].id, "ru")
            inside.set()
            await finish.wait()

    holder = asyncio.create_task(held())
    await inside.wait()
    saves = [asyncio.create_task(storage.set_user_lang(user.id, "ru")) for user in users]
    await asyncio.sleep(0)
    assert not any(save.done() for save in saves)  # all waiting behind the held one
    finish.set()
    await holder
    turns = 0
    while not all(save.done() for save in saves):
        await asyncio.sleep(0)
        turns += 1
    assert turns <= 5
    for user in users:
        assert (await storage.get_user(user.id)).lang == "ru"


async def test_the_write_ahead_log_is_checkpointed_in_a_thread(
    storage: SqliteStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection that commits on the event loop never checkpoints (that syncs the
    disk); every CHECKPOINT_EVERY commits a connection of its own does, in a thread."""
    monkeypatch.setattr(sqlite_module, "CHECKPOINT_EVERY", 5)
    raw = storage._raw
    assert raw is not None
    assert raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    checkpointer = storage._checkpointer
    assert checkpointer is not None
    threads: list[threading.Thread] = []

    class Noted:
        def execute(self, sql: str) -> sqlite3.Cursor:
            threads.append(threading.current_thread())
            assert checkpointer is not None
            return checkpointer.execute(sql)

    ali = await storage.get_or_create_user("telegram", "101", "Ali", "tr")
    storage._checkpointer = Noted()  # type: ignore[assignment]
    storage._commits = 0
    for n in range(4):
        await storage.set_user_lang(ali.id, "ru" if n % 2 else "en")
    assert storage._checkpoint is None
    await storage.set_user_lang(ali.id, "tr")  # the fifth commit
    assert storage._checkpoint is not None
    await storage._checkpoint
    storage._checkpointer = checkpointer
    assert len(threads) == 1
    assert threads[0] is not threading.main_thread()
    # Everything written is in the database file: no frame of the log is left to copy.
    busy, logged, copied = raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    assert (busy, logged - copied) == (0, 0)


def _game(seat0: int) -> GameRecord:
    return GameRecord(
        platform="telegram",
        chat_id="-100",
        variant="tavla",
        status=GameStatus.ACTIVE,
        seats=[seat0, None],
        challenger=seat0,
    )


async def test_a_storage_left_open_does_not_keep_the_process_from_exiting(tmp_path) -> None:
    """A bot that crashes on its way out without closing its storage still exits (a service
    manager waiting on it would otherwise have to kill it), and what it committed is kept."""
    db = tmp_path / "left-open.db"
    script = (
        "import asyncio\n"
        "from bot.storage.sqlite import SqliteStorage\n"
        "async def main():\n"
        f"    storage = SqliteStorage({str(db)!r})\n"
        "    await storage.open()\n"
        "    await storage.get_or_create_user('telegram', '7', 'Ali', 'tr')\n"
        "    main.storage = storage  # still referenced at exit: never closed\n"
        "asyncio.run(main())\n"
    )
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", script)
    try:
        status = await asyncio.wait_for(proc.wait(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert status == 0
    storage = SqliteStorage(db)
    await storage.open()
    try:
        ali = await storage.find_user("telegram", "7")
        assert ali is not None
        assert ali.name == "Ali"
    finally:
        await storage.close()
