"""Chats that cannot keep up with Telegram's limits, remembered for a while.

A chat is busy when a board handed over now would wait :data:`SLOW_CHAT_AFTER` seconds or
more to be sent (its own queue and limit, the bot's queue), or one did: its boards say so and
offer the web board, and its turns are played with fewer messages (the service's ``busy``:
the bot rolls for the players, a finished move needs no Confirm). It stays busy until
:data:`BUSY_FOR` after its backlog is expected to clear, so that play does not switch back
and forth from one press to the next. Chats whose time is over are forgotten: on a look-up,
and all at once whenever the set has doubled since it was last trimmed.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Telegram seconds a board waits (or would wait) to be sent from which its chat is busy.
SLOW_CHAT_AFTER = 10.0
#: Telegram seconds a chat stays busy after its backlog is expected to clear.
BUSY_FOR = 60.0
#: Busy chats remembered before the first trim.
TRIM_AT = 1024


class BusyChats:
    """Busy chats, each with the time (of ``clock``) until which it is busy."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._until: dict[str, float] = {}
        self._trim_at = TRIM_AT

    def mark(self, chat: str, seconds: float) -> None:
        """``chat`` is busy for at least ``seconds`` (of the clock) from now."""
        until = self.clock() + seconds
        self._until[chat] = max(until, self._until.get(chat, until))
        if len(self._until) >= self._trim_at:
            self.trim()

    def __contains__(self, chat: object) -> bool:
        until = self._until.get(str(chat))
        if until is None:
            return False
        if until > self.clock():
            return True
        del self._until[str(chat)]
        return False

    def __len__(self) -> int:
        return len(self._until)

    def trim(self) -> None:
        """Forget the chats whose time is over."""
        now = self.clock()
        self._until = {chat: until for chat, until in self._until.items() if until > now}
        self._trim_at = max(TRIM_AT, 2 * len(self._until))
