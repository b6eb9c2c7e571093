"""Telegram's flood limits, as the fake enforces them.

Telegram publishes its limits only roughly (Bot FAQ "My bot is hitting limits"; a maintainer
in tdlib/td issue 2592; see /work/shared/platform-facts.md):

* in one group (or supergroup, or channel) a bot sends at most about **20 messages a
  minute**, and edits share that limit with sends;
* in one private chat about **one message a second**, with "short bursts" tolerated;
* about **30 messages a second** in all.

``answerCallbackQuery`` is not limited that way (tdlib/telegram-bot-api issue 648), nor are
reads, deletions or chat actions. A call over a limit is answered
``429 Too Many Requests: retry after N`` with ``parameters.retry_after``.

The fake reads each limit strictly, as a sliding window: at most ``count`` counted calls in
*any* ``window`` seconds (a leaky bucket such as PTB's ``AIORateLimiter`` can let twice as
many through in its first minute, and is then answered 429). Only calls Telegram accepted
count. The size of a private chat's burst is not published: the fake allows 3 messages in
any 3 seconds (one a second on average).

Tests need not wait for real minutes: ``FloodLimits(scale=10)`` runs every window ten times
faster (a minute lasts 6 s, and ``retry_after`` is given in those scaled seconds, a whole
number of Telegram seconds divided by the scale); a bot under test then configures its rate
limiter with the same scale. The clock is injectable for tests of the limits themselves.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from bot.telegram.limiter import COUNTED_METHODS
from tests.fakes.telegram.records import FakeChat, too_many_requests

#: Methods that send or edit a message in a chat: they share the flood limits. The list is
#: what Telegram documents, kept once, with the bot's limiter that counts the same calls.
FLOOD_METHODS = COUNTED_METHODS


@dataclass(frozen=True)
class FloodLimits:
    """Telegram's limits: at most ``count`` sends or edits in any ``window`` Telegram seconds.

    ``scale`` makes time run faster for tests: every window lasts ``window / scale`` real
    seconds. Set a count to 0 to leave that limit out.
    """

    group: int = 20
    group_window: float = 60.0
    private: int = 3
    private_window: float = 3.0
    total: int = 30
    total_window: float = 1.0
    scale: float = 1.0

    def window(self, kind: str) -> tuple[int, float]:
        """``(count, real seconds)`` of the ``group``, ``private`` or ``total`` limit."""
        count: int = getattr(self, kind)
        return count, getattr(self, f"{kind}_window") / self.scale


#: Telegram's published limits, in real time: the fake's default.
TELEGRAM_LIMITS = FloodLimits()


class FloodGate:
    """The counted calls of the last window, per chat and in all; refuses one over a limit."""

    def __init__(self, limits: FloodLimits, clock: Callable[[], float] = time.monotonic):
        self.limits = limits
        self.clock = clock
        self._sent: dict[tuple[str, int | None], deque[float]] = {}
        #: Sends and edits accepted, and refused with a 429, since the fake started (what a
        #: load bench reports: messages a second, and 429s a bot let through).
        self.accepted = 0
        self.refused = 0

    def check(self, chat: FakeChat | None) -> None:
        """Raise Telegram's 429 if one more send or edit in ``chat`` (None: an inline
        message, in no chat) would go over a limit."""
        now = self.clock()
        waits = [self._wait(key, now) for key in self._keys(chat)]
        wait = max(waits, default=0.0)
        if wait > 0:
            self.refused += 1
            # Telegram answers whole seconds, rounded up; scaled back for a scaled test.
            scale = self.limits.scale
            raise too_many_requests(max(1, math.ceil(wait * scale - 1e-9)) / scale)

    def record(self, chat: FakeChat | None) -> None:
        """Count one accepted send or edit in ``chat``."""
        now = self.clock()
        self.accepted += 1
        for key in self._keys(chat):
            self._sent.setdefault(key, deque()).append(now)

    def _keys(self, chat: FakeChat | None) -> list[tuple[str, int | None]]:
        keys: list[tuple[str, int | None]] = [("total", None)]
        if chat is not None:
            keys.append(("private" if chat.type == "private" else "group", chat.id))
        return [key for key in keys if self.limits.window(key[0])[0] > 0]

    def _wait(self, key: tuple[str, int | None], now: float) -> float:
        """Seconds until one more call fits in ``key``'s window (0: it fits now)."""
        count, window = self.limits.window(key[0])
        sent = self._sent.get(key)
        if sent is None:
            return 0.0
        while sent and sent[0] <= now - window:
            sent.popleft()
        if len(sent) < count:
            return 0.0
        return sent[len(sent) - count] + window - now
