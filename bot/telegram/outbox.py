"""Per-chat delivery queues: an update's handler hands its sends over and returns.

Telegram lets a bot send about one message a second in a private chat and twenty a minute in
a group, and the rate limiter (limiter.py) makes a send wait for its chat's turn. A handler
that waited there held one of python-telegram-bot's concurrent update slots meanwhile; one
chat's flood (every reply waiting its turn) took them all, and every other chat waited for
it. So the handlers give their sends to the chat's queue here and return at once. Each chat's
sends run one after another, in the order they were handed over (nothing is dropped), in a
task of that chat's own: started by the first send, ended when the queue is empty. Another
chat never waits for them.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]


class Outbox:
    """A queue of sends per chat, each worked through in order by a task of its own."""

    def __init__(self) -> None:
        self._queues: dict[Hashable, deque[Job]] = {}
        self._workers: dict[Hashable, asyncio.Task[None]] = {}

    def post(self, chat: Hashable, job: Job) -> None:
        """Run ``job`` after every job posted for ``chat`` before it (a job handles its own
        failures; one that escapes is logged and the queue goes on)."""
        queue = self._queues.get(chat)
        if queue is None:
            queue = self._queues[chat] = deque()
            self._workers[chat] = asyncio.get_running_loop().create_task(
                self._work(chat, queue), name=f"telegram-outbox-{chat}"
            )
        queue.append(job)

    def waiting(self, chat: Hashable) -> int:
        """Jobs of ``chat`` not yet started."""
        queue = self._queues.get(chat)
        return len(queue) if queue is not None else 0

    async def _work(self, chat: Hashable, queue: deque[Job]) -> None:
        try:
            while queue:
                job = queue.popleft()
                try:
                    await job()
                except Exception:
                    log.exception("a send to chat %s failed", chat)
        finally:
            # Nothing can be posted between the empty queue's check and this (no await).
            del self._queues[chat], self._workers[chat]

    async def drain(self, timeout: float) -> None:
        """Let the queued sends finish, for ``timeout`` seconds at most (then the rest is
        dropped: the bot is stopping; boards left behind are redrawn after the restart)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._workers:
            left = deadline - loop.time()
            if left <= 0:
                break
            await asyncio.wait(set(self._workers.values()), timeout=left)
        workers = list(self._workers.values())
        if workers:
            log.warning("stopping with sends still queued for %d chats", len(workers))
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        # A worker cancelled before it ever ran did not clear its chat.
        self._queues.clear()
        self._workers.clear()
