"""Each chat's Telegram limit, shared by the bot's workers through PostgreSQL.

Telegram counts a group's twenty messages a minute (a private chat's about one a second) for
the bot, whichever of its processes sends them. Behind a load balancer the presses of one
chat reach any worker, so each worker's own count (bot/telegram/limiter.py) would let a busy
chat get twenty a minute from each. So every worker tells the others what it sent, on one
channel of the database they share (``NOTIFY``; the sends of the moment go in one
statement), and adds what it hears to its own count of that chat: a worker then waits for
the chat's window as if it had sent them itself. Sends made at the same instant by two
workers may still pass together; Telegram then answers 429 and that chat waits and retries
(the limiter's job).

The bot's thirty messages a second in all are not shared this way: each worker keeps to its
share of them (``TELEGRAM_MAX_RATE``), so their sum never goes over.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from typing import Any

from .limiter import SlidingWindowLimiter

log = logging.getLogger(__name__)

CHANNEL = "tavla_telegram_sends"
#: Lines of ``<worker> <chat id> <wall time>`` in one notification, at most (a payload holds
#: under 8,000 bytes).
LINES_A_NOTICE = 100


class SharedSends:
    """Tells the other workers of the chat sends ``limiter`` made, and counts theirs in it."""

    def __init__(self, limiter: SlidingWindowLimiter) -> None:
        self.limiter = limiter
        # Who we are, to skip our own sends when they come back on the channel.
        self.worker = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._conn: Any = None
        self._unsent: list[str] = []
        self._sender: asyncio.Task[None] | None = None

    async def start(self, dsn: str) -> None:
        """Listen on the channel of ``dsn``'s database, and tell it of this worker's sends."""
        import asyncpg

        self._conn = await asyncpg.connect(dsn)
        await self._conn.add_listener(CHANNEL, self._heard)
        self.limiter.on_sent = self._sent

    async def close(self) -> None:
        """Stop sharing (the sends of the moment are still told)."""
        self.limiter.on_sent = None
        if self._sender is not None:
            await asyncio.gather(self._sender, return_exceptions=True)
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                await conn.close()
            except Exception:
                log.info("closing the shared limits' connection failed", exc_info=True)

    def _sent(self, chat_id: Any) -> None:
        self._unsent.append(f"{self.worker} {chat_id} {time.time():.3f}")
        if self._sender is None and self._conn is not None:
            self._sender = asyncio.get_running_loop().create_task(self._tell())

    async def _tell(self) -> None:
        """Notify the sends of the moment, a batch a statement, until none is left."""
        try:
            while self._unsent and self._conn is not None:
                lines = self._unsent[:LINES_A_NOTICE]
                del self._unsent[:LINES_A_NOTICE]
                try:
                    await self._conn.execute("SELECT pg_notify($1, $2)", CHANNEL, "\n".join(lines))
                except Exception:
                    # The others count a little less meanwhile; a 429 that follows is waited out.
                    log.warning("could not tell the other workers of %d sends", len(lines))
        finally:
            self._sender = None

    def _heard(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        for line in payload.split("\n"):
            worker, _, rest = line.partition(" ")
            chat_id, _, at = rest.partition(" ")
            if worker == self.worker or not chat_id:
                continue
            try:
                self.limiter.heard(chat_id, float(at))
            except ValueError:
                continue
