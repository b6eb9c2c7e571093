"""A press on a board whose message is still being recorded, on both databases.

The adapter posts a board, then records its message (``board_shown``); Telegram may deliver
a press on the new message while that write is still under way. The press must see the new
message as the game's board, not call it an old one: with SQLite a read waits for the
process's write under way; with PostgreSQL reads never wait for another connection's write,
so the storage makes a read of a game wait for its board's message being recorded.

Another worker holding the game's row (PostgreSQL) or the database's write lock (SQLite)
keeps the recording under way for as long as the test needs, so the order is certain.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.i18n import translate
from bot.service.play import BOARD_OLD, BOARD_REPAIRED
from bot.service.service import GameService
from bot.service.views import MessageRef
from bot.storage.base import Storage
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import SqliteStorage
from tests.drivers import press_order
from tests.factory import Clock, find, make_service
from tests.test_service import GROUP, awaiting_actor, board, start_game, text_of


@pytest.fixture(params=["sqlite", "postgres"])
def make_storage(request: pytest.FixtureRequest, tmp_path: Path):
    """A function making storages (workers) on one new database of the backend."""
    if request.param == "sqlite":
        return lambda: SqliteStorage(tmp_path / "bind.db")
    dsn, schema = request.getfixturevalue("postgres_schema")
    return lambda: PostgresStorage(dsn, server_settings={"search_path": schema}, pool_size=4)


@contextlib.asynccontextmanager
async def holding(worker: Storage, game_id: int, release: asyncio.Event) -> AsyncIterator[None]:
    """Another worker's transaction on the game, open until ``release`` is set."""
    locked = asyncio.Event()

    async def hold() -> None:
        async with worker.transaction() as tx:
            await tx.get_game(game_id)  # FOR UPDATE on PostgreSQL; SQLite's write lock
            locked.set()
            await release.wait()

    task = asyncio.create_task(hold())
    await locked.wait()
    try:
        yield
    finally:
        release.set()
        await task


async def test_a_press_while_its_board_is_being_recorded_is_played(make_storage) -> None:
    storage, other = make_storage(), make_storage()
    await storage.open()
    await other.open()
    service: GameService = make_service(
        storage,
        clock=Clock(),
        burst_actions=10**6,
        render_images=False,
        repair_after=float("inf"),
    )
    try:
        views = await start_game(service)
        shown = board(views)
        game_id = shown.game_id
        assert game_id is not None
        assert shown.version is not None
        data = next(a for code in press_order() if (a := find(shown, code)))
        player = await awaiting_actor(service, game_id)
        # The board was on message 41; the adapter has just posted it anew as message 42.
        await service.bind_message(game_id, MessageRef(41, chat_id=GROUP.chat_id))
        posted = MessageRef(42, chat_id=GROUP.chat_id)
        before = await storage.get_game(game_id)
        assert before is not None

        release = asyncio.Event()
        async with holding(other, game_id, release):
            recording = asyncio.create_task(service.board_shown(game_id, shown.version, posted))
            await asyncio.sleep(0)  # the recording is under way, held by the other worker
            pressing = asyncio.create_task(service.press(player, GROUP, data, message=posted))
            # Long enough for the press to finish if it did not wait for the recording.
            await asyncio.wait({pressing}, timeout=0.5)
            release.set()
        await recording
        answer = await pressing

        said = text_of(answer)
        assert translate(BOARD_OLD, "en") not in said
        assert translate(BOARD_REPAIRED, "en") not in said
        after = await storage.get_game(game_id)
        assert after is not None
        assert after.version > before.version  # the press was played
        assert after.message is not None
        assert after.message.same_message(posted)
    finally:
        await other.close()
        await storage.close()


async def test_a_reply_to_a_board_being_recorded_finds_its_game(make_storage) -> None:
    """A reply to the board just posted (e.g. a typed move) names the game of that board, even
    while the board's message is still being recorded by this process."""
    storage, other = make_storage(), make_storage()
    await storage.open()
    await other.open()
    service: GameService = make_service(
        storage, clock=Clock(), burst_actions=10**6, render_images=False
    )
    try:
        shown = board(await start_game(service))
        game_id = shown.game_id
        assert game_id is not None
        assert shown.version is not None
        await service.bind_message(game_id, MessageRef(41, chat_id=GROUP.chat_id))
        posted = MessageRef(42, chat_id=GROUP.chat_id)

        release = asyncio.Event()
        async with holding(other, game_id, release):
            recording = asyncio.create_task(service.board_shown(game_id, shown.version, posted))
            await asyncio.sleep(0)  # the recording is under way, held by the other worker
            asking = asyncio.create_task(service.game_of_message(GROUP.platform, posted))
            # Long enough for the lookup to finish if it did not wait for the recording.
            await asyncio.wait({asking}, timeout=0.5)
            release.set()
        await recording
        assert await asking == game_id
    finally:
        await other.close()
        await storage.close()
