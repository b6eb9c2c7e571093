""" "This game changed": from every committed change to every open page.

:class:`ChangeHub` keeps, per game, the queues of the pages watching it. Within one process a
change is put on them directly. With PostgreSQL, workers share changes through
``LISTEN``/``NOTIFY`` on one channel: every worker notifies after its commits and listens,
so a page open on one worker follows a move made through another (the worker's own
notifications come back to it too, which is its only path then).

:class:`NotifyingStorage` is the hook: it wraps any storage and reports the games written by
each transaction once it has committed (a rolled-back transaction reports nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from bot.service.numbers import parse_id
from bot.service.views import GameRecord, MessageRef

log = logging.getLogger(__name__)

CHANNEL = "tavla_games"
#: Changes a slow page may fall behind before it is simply told to reload the state.
QUEUE_SIZE = 16


class ChangeHub:
    """Subscriptions of open pages to games, and the fan-out of changes to them."""

    def __init__(self) -> None:
        self._queues: dict[int, set[asyncio.Queue[int]]] = {}
        self._pg: Any = None  # the asyncpg connection that listens and notifies
        # Games whose change is still to be announced, and the one task announcing them: a
        # connection runs one statement at a time, so the changes of the moment go together.
        self._unsent: dict[int, None] = {}
        self._sender: asyncio.Task[None] | None = None

    def subscribe(self, game_id: int) -> asyncio.Queue[int]:
        """A queue that receives ``game_id`` after each change of that game."""
        queue: asyncio.Queue[int] = asyncio.Queue(QUEUE_SIZE)
        self._queues.setdefault(game_id, set()).add(queue)
        return queue

    def unsubscribe(self, game_id: int, queue: asyncio.Queue[int]) -> None:
        queues = self._queues.get(game_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self._queues[game_id]

    def watchers(self, game_id: int) -> int:
        """How many pages follow ``game_id`` in this process."""
        return len(self._queues.get(game_id, ()))

    def deliver(self, game_id: int) -> None:
        """Wake every page of ``game_id`` in this process."""
        for queue in list(self._queues.get(game_id, ())):
            with contextlib.suppress(asyncio.QueueFull):
                # A full queue already holds a wake-up: the page will read the newest state.
                queue.put_nowait(game_id)

    def changed(self, game_ids: list[int]) -> None:
        """Committed changes of ``game_ids``: tell this process's pages, or all workers."""
        if self._pg is None:
            for game_id in game_ids:
                self.deliver(game_id)
            return
        self._unsent.update(dict.fromkeys(game_ids))
        if self._sender is None:
            self._sender = asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        """Announce the changed games to every worker, those of the moment in one statement,
        until none is left."""
        try:
            while self._unsent:
                games = list(self._unsent)
                self._unsent.clear()
                if self._pg is None:  # closed meanwhile (the worker stops): here at least
                    for game_id in games:
                        self.deliver(game_id)
                    continue
                try:
                    await self._pg.execute(
                        "SELECT pg_notify($1, game) FROM unnest($2::text[]) AS game",
                        CHANNEL,
                        [str(game_id) for game_id in games],
                    )
                except Exception:
                    # Lost connection: deliver here at least; pages elsewhere catch up on
                    # reconnect.
                    log.warning("could not notify other workers of games %s", games, exc_info=True)
                    for game_id in games:
                        self.deliver(game_id)
        finally:
            self._sender = None

    async def listen_postgres(self, dsn: str) -> None:
        """Share changes with the other workers through PostgreSQL's LISTEN/NOTIFY."""
        import asyncpg

        conn = await asyncpg.connect(dsn)

        def on_notify(_conn: Any, _pid: int, _channel: str, payload: str) -> None:
            game_id = parse_id(payload)
            if game_id is not None:
                self.deliver(game_id)

        await conn.add_listener(CHANNEL, on_notify)
        self._pg = conn

    async def close(self) -> None:
        if self._sender is not None:
            with contextlib.suppress(Exception):
                await self._sender  # the last changes announced
        if self._pg is not None:
            conn, self._pg = self._pg, None
            with contextlib.suppress(Exception):
                await conn.close()


#: Games whose newest record committed by this process is kept (see NotifyingStorage.saved).
SAVED_MEMORY = 4096


class _RecordingTransaction:
    """A transaction that notes which games it writes, and their records as saved."""

    def __init__(self, inner: Any, written: dict[int, GameRecord | None]) -> None:
        self._inner = inner
        self._written = written

    async def insert_game(self, record: GameRecord) -> GameRecord:
        saved = await self._inner.insert_game(record)
        if saved.id is not None:
            self._written[saved.id] = None
        return saved

    async def save_game(self, record: GameRecord, expected_version: int) -> GameRecord:
        saved = await self._inner.save_game(record, expected_version)
        self._written[record.stored_id] = dataclasses.replace(saved)
        return saved

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class NotifyingStorage:
    """Any storage, reporting the games each committed transaction wrote to ``on_commit``."""

    def __init__(self, inner: Any, on_commit: Callable[[list[int]], None]) -> None:
        self._inner = inner
        self._on_commit = on_commit
        self._saved: OrderedDict[int, GameRecord] = OrderedDict()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Any]:
        written: dict[int, GameRecord | None] = {}
        async with self._inner.transaction() as tx:
            yield _RecordingTransaction(tx, written)
        # Reached only when the transaction committed.
        if written:
            for game_id, record in written.items():
                self._saved.pop(game_id, None)
                if record is not None:
                    self._saved[game_id] = record
            while len(self._saved) > SAVED_MEMORY:
                self._saved.popitem(last=False)
            self._on_commit(sorted(written))

    def saved(self, game_id: int, newer_than: int) -> GameRecord | None:
        """The record of ``game_id`` as this process last committed it, if its version is
        above ``newer_than`` (a change made here since); None: read it from the database. The
        answer to an action is its own result, without reading back what was just written."""
        record = self._saved.get(game_id)
        return record if record is not None and record.version > newer_than else None

    async def set_game_message(self, game_id: int, message: MessageRef | None) -> None:
        await self._inner.set_game_message(game_id, message)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
