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
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

from bot.service.numbers import parse_id
from bot.service.views import Chat, GamePeople, GameRecord, MessageRef, User

log = logging.getLogger(__name__)

CHANNEL = "tavla_games"
#: Changes a slow page may fall behind before it is simply told to reload the state.
QUEUE_SIZE = 16


class ChangeHub:
    """Subscriptions of open pages to games, and the fan-out of changes to them."""

    def __init__(self) -> None:
        self._queues: dict[int, set[asyncio.Queue[int | None]]] = {}
        self._pg: Any = None  # the asyncpg connection that listens and notifies
        # Games whose change is still to be announced (with their new version, None when not
        # known), and the one task announcing them: a connection runs one statement at a
        # time, so the changes of the moment go together.
        self._unsent: dict[int, int | None] = {}
        self._sender: asyncio.Task[None] | None = None
        #: The storage whose commits this hub announces (see :meth:`watch`): the web board
        #: reads its committed results and shares its reads within an action.
        self.watched: NotifyingStorage | None = None

    def watch(self, storage: Any) -> NotifyingStorage:
        """``storage`` wrapped so that every change it commits reaches the open pages."""
        self.watched = NotifyingStorage(storage, self.changed)
        return self.watched

    def subscribe(self, game_id: int) -> asyncio.Queue[int | None]:
        """A queue that receives the game's new version after each change of that game
        (None: a change whose version is not known)."""
        queue: asyncio.Queue[int | None] = asyncio.Queue(QUEUE_SIZE)
        self._queues.setdefault(game_id, set()).add(queue)
        return queue

    def unsubscribe(self, game_id: int, queue: asyncio.Queue[int | None]) -> None:
        queues = self._queues.get(game_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self._queues[game_id]

    def watchers(self, game_id: int) -> int:
        """How many pages follow ``game_id`` in this process."""
        return len(self._queues.get(game_id, ()))

    def deliver(self, game_id: int, version: int | None = None) -> None:
        """Wake every page of ``game_id`` in this process: it changed to ``version``."""
        for queue in list(self._queues.get(game_id, ())):
            if queue.full():
                # It already holds wake-ups: the page will read the newest state.
                queue.get_nowait()
                version = None
            queue.put_nowait(version)

    def changed(self, games: dict[int, int | None]) -> None:
        """Committed changes of ``games`` (their new versions, None: not known): tell this
        process's pages, or all workers."""
        if self._pg is None:
            for game_id, version in games.items():
                self.deliver(game_id, version)
            return
        self._unsent.update(games)
        if self._sender is None:
            self._sender = asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        """Announce the changed games to every worker, those of the moment in one statement,
        until none is left."""
        try:
            while self._unsent:
                games = dict(self._unsent)
                self._unsent.clear()
                if self._pg is None:  # closed meanwhile (the worker stops): here at least
                    for game_id, version in games.items():
                        self.deliver(game_id, version)
                    continue
                try:
                    await self._pg.execute(
                        "SELECT pg_notify($1, game) FROM unnest($2::text[]) AS game",
                        CHANNEL,
                        [_payload(game_id, version) for game_id, version in games.items()],
                    )
                except Exception:
                    # Lost connection: deliver here at least; pages elsewhere catch up on
                    # reconnect.
                    log.warning(
                        "could not notify other workers of games %s", list(games), exc_info=True
                    )
                    for game_id, version in games.items():
                        self.deliver(game_id, version)
        finally:
            self._sender = None

    async def listen_postgres(self, dsn: str) -> None:
        """Share changes with the other workers through PostgreSQL's LISTEN/NOTIFY."""
        import asyncpg

        conn = await asyncpg.connect(dsn)

        def on_notify(_conn: Any, _pid: int, _channel: str, payload: str) -> None:
            game, _, version = payload.partition(":")
            game_id = parse_id(game)
            if game_id is not None:
                self.deliver(game_id, parse_id(version) if version else None)

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


def _payload(game_id: int, version: int | None) -> str:
    """A change as NOTIFY carries it: ``game:version``, or the game alone."""
    return str(game_id) if version is None else f"{game_id}:{version}"


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


class _Reads:
    """Reads shared by one request's own task: the game and its players, read when the
    request checks who asks and again when the service acts on it."""

    __slots__ = ("seen", "task")

    def __init__(self, seen: dict[Any, Any]) -> None:
        self.task = asyncio.current_task()
        self.seen = seen


_SHARED: ContextVar[_Reads | None] = ContextVar("tavla_shared_reads", default=None)


class NotifyingStorage:
    """Any storage, reporting the games each committed transaction wrote to ``on_commit``.

    Within :meth:`sharing_reads`, a game or a set of users read again returns the first
    read (a copy) until a transaction commits: a web action reads its game and players to
    check who asks, and the service reads them again to act. Only in the task that shares
    them: work the request leaves behind (a chat's board edited later) reads afresh.
    """

    def __init__(self, inner: Any, on_commit: Callable[[dict[int, int | None]], None]) -> None:
        self._inner = inner
        self._on_commit = on_commit
        self._saved: OrderedDict[int, GameRecord] = OrderedDict()

    @contextlib.contextmanager
    def sharing_reads(self) -> Iterator[None]:
        """Share the reads of games and users in this task (and the same request's in a
        task it runs on: called again there)."""
        outer = _SHARED.get()
        token = _SHARED.set(_Reads(outer.seen if outer is not None else {}))
        try:
            yield
        finally:
            _SHARED.reset(token)

    @staticmethod
    def _shared() -> dict[Any, Any] | None:
        reads = _SHARED.get()
        if reads is None or reads.task is not asyncio.current_task():
            return None
        return reads.seen

    async def get_game(self, game_id: int) -> GameRecord | None:
        seen = self._shared()
        if seen is None:
            record: GameRecord | None = await self._inner.get_game(game_id)
            return record
        key = ("game", game_id)
        if key not in seen:
            # With its players and its chat, which the action reads next: one round trip.
            both: GamePeople | None = await self._inner.game_with_people(game_id)
            seen[key] = both.game if both is not None else None
            if both is not None:
                _remember_people(seen, both)
        record = seen[key]
        return dataclasses.replace(record) if record is not None else None

    async def get_or_create_user(
        self,
        platform: str,
        platform_id: str,
        name: str,
        platform_lang: str | None = None,
        *,
        username: str | None = None,
    ) -> User:
        """The user as read with the game, when nothing of it needs writing."""
        seen = self._shared()
        read = [v for v in (seen or {}).values() if isinstance(v, GamePeople)]
        for people in read:
            known = people.unchanged_user(platform, str(platform_id), name, username, platform_lang)
            if known is not None:
                return dataclasses.replace(known)
        user: User = await self._inner.get_or_create_user(
            platform, platform_id, name, platform_lang, username=username
        )
        if seen is not None and any(user.id in people.users for people in read):
            seen.clear()  # a user read with the game has changed
        return user

    async def get_chat(self, platform: str, chat_id: str, title: str | None = None) -> Chat:
        """The chat as read with the game, when ``title`` changes nothing."""
        seen = self._shared()
        known = seen.get(("chat", platform, str(chat_id))) if seen is not None else None
        if known is not None and (title is None or known.title == title):
            return dataclasses.replace(known)
        chat: Chat = await self._inner.get_chat(platform, chat_id, title)
        return chat

    async def get_users(self, user_ids: Iterable[int]) -> dict[int, User]:
        ids = frozenset(user_ids)
        seen = self._shared()
        if seen is None:
            users: dict[int, User] = await self._inner.get_users(ids)
            return users
        key = ("users", ids)
        if key not in seen:
            seen[key] = await self._inner.get_users(ids)
        return {n: dataclasses.replace(user) for n, user in seen[key].items()}

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Any]:
        written: dict[int, GameRecord | None] = {}
        async with self._inner.transaction() as tx:
            yield _RecordingTransaction(tx, written)
        # Reached only when the transaction committed.
        seen = self._shared()
        if seen is not None:
            seen.clear()  # what was read before may have changed
        if written:
            for game_id, record in written.items():
                self._saved.pop(game_id, None)
                if record is not None:
                    self._saved[game_id] = record
            while len(self._saved) > SAVED_MEMORY:
                self._saved.popitem(last=False)
            self._on_commit(
                {n: (r.version if r is not None else None) for n, r in sorted(written.items())}
            )

    def saved(self, game_id: int, newer_than: int) -> GameRecord | None:
        """The record of ``game_id`` as this process last committed it, if its version is
        above ``newer_than`` (a change made here since); None: read it from the database. The
        answer to an action is its own result, without reading back what was just written."""
        record = self._saved.get(game_id)
        return record if record is not None and record.version > newer_than else None

    async def set_game_message(self, game_id: int, message: MessageRef | None) -> None:
        seen = self._shared()
        if seen is not None:
            seen.clear()
        await self._inner.set_game_message(game_id, message)

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._inner, name)
        if name.startswith(_WRITES) and callable(found):
            return self._forgetting(found)
        return found

    def _forgetting(self, write: Callable[..., Any]) -> Callable[..., Any]:
        """``write``, after which what was read is read again (a user's or a chat's
        settings changed outside a transaction)."""

        async def forgetting(*args: Any, **kwargs: Any) -> Any:
            seen = self._shared()
            if seen is not None:
                seen.clear()
            return await write(*args, **kwargs)

        return forgetting


#: The storage's writes outside transactions that may change what a shared read holds.
_WRITES = ("set_", "mark_", "pause_", "resume_")


def _remember_people(seen: dict[Any, Any], both: GamePeople) -> None:
    """Share what was read with a game: its players (as ``get_users`` of its seats, and
    ``get_or_create_user`` of each when nothing of them changed) and its chat."""
    game = both.game
    ids = frozenset(n for n in game.seats if n is not None)
    if ids <= both.users.keys():
        seen["users", ids] = both.users
    seen["people", game.stored_id] = both
    if both.chat is not None:
        seen["chat", both.chat.platform, both.chat.chat_id] = both.chat
