"""A rate limiter that keeps the bot within Telegram's flood limits, read as sliding windows.

Telegram lets a bot send or edit about 20 messages a minute in one group, about one a second
in a private chat (short bursts tolerated) and about 30 a second in all; edits share the limit
with sends, and answers to button presses, reads and deletions are not limited that way (see
/work/shared/platform-facts.md). Telegram counts *per minute*: at most N calls in any window of
that length. PTB's ``AIORateLimiter`` is a leaky bucket, which after a burst of 20 lets the 21st
call through before the minute is over; Telegram then answers 429, and ``AIORateLimiter``
pauses every call of the bot, in every chat, answers to presses included.

:class:`SlidingWindowLimiter` instead remembers when each counted call of the last window
finished, per chat and in all, and makes a call wait (asyncio) until one more fits in every
window it belongs to. A call is counted from the moment its answer arrives (Telegram counted it
somewhere between sending and answering), and a call still under way fills a slot until then.
Calls that are not counted pass at once. A 429 that still comes delays only its own chat:
that chat waits ``retry_after`` and the call is retried, a bounded number of times.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from datetime import timedelta
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

from bot import metrics
from bot.config import Config

log = logging.getLogger(__name__)

Result = bool | dict[str, Any] | list[dict[str, Any]]

#: Bot API methods that send or edit a message in a chat: the ones Telegram's limits count.
COUNTED_METHODS = frozenset(
    {
        "copyMessage",
        "copyMessages",
        "editMessageCaption",
        "editMessageLiveLocation",
        "editMessageMedia",
        "editMessageReplyMarkup",
        "editMessageText",
        "forwardMessage",
        "forwardMessages",
        "sendAnimation",
        "sendAudio",
        "sendContact",
        "sendDice",
        "sendDocument",
        "sendGame",
        "sendInvoice",
        "sendLocation",
        "sendMediaGroup",
        "sendMessage",
        "sendPhoto",
        "sendPoll",
        "sendSticker",
        "sendVenue",
        "sendVideo",
        "sendVideoNote",
        "sendVoice",
        "stopPoll",
    }
)
#: A little room on top of each window, for clocks that differ by a rounding error.
MARGIN = 0.01
#: Windows kept before the idle ones (no call in their last period) are forgotten.
FORGET_AT = 1000

ChatKey = tuple[str, int | str | None]  # ("group" | "private" | "total", chat id)


class _Window:
    """The counted calls of the last ``period`` seconds: their end times, ``inf`` while under way."""

    def __init__(self, count: int, period: float) -> None:
        self.count = count
        self.period = period
        self.ends: list[float] = []

    def wait(self, now: float) -> float:
        """Seconds until one more call fits (0: now; ``inf``: when a call under way ends)."""
        if self.count <= 0:
            return 0.0
        # A few dozen at most, kept in order (calls end out of order).
        self.ends = ends = sorted(end for end in self.ends if end > now - self.period)
        if len(ends) < self.count:
            return 0.0
        return ends[len(ends) - self.count] + self.period - now


class SlidingWindowLimiter(BaseRateLimiter[int]):
    """Telegram's flood limits as sliding windows, per chat and in all.

    ``group`` calls in any ``group_period`` seconds per group (a negative or ``@name`` chat
    id), ``private`` in any ``private_period`` per private chat, ``overall`` in any
    ``overall_period`` in all; a count of 0 leaves that limit out. ``scale`` makes every period
    that many times shorter (for a test against a fake Telegram whose time runs faster).
    ``clock`` and ``sleep`` are injectable for tests. ``rate_limit_args`` of a call, if given,
    is its number of retries after a 429 (default ``max_retries``).
    """

    def __init__(
        self,
        *,
        group: int = 20,
        group_period: float = 60.0,
        private: int = 3,
        private_period: float = 3.0,
        overall: int = 30,
        overall_period: float = 1.0,
        scale: float = 1.0,
        max_retries: int = 5,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.limits = {
            "group": (group, (group_period + MARGIN) / scale),
            "private": (private, (private_period + MARGIN) / scale),
            "total": (overall, (overall_period + MARGIN) / scale),
        }
        self.max_retries = max_retries
        self.clock = clock
        self.sleep = sleep
        self._windows: dict[ChatKey, _Window] = {}
        self._paused: dict[ChatKey, float] = {}  # a chat's 429: no call before this time
        self._queues: dict[ChatKey, asyncio.Lock] = {}  # per chat, while calls wait in it
        self._queued: dict[ChatKey, int] = {}
        self._ended = asyncio.Event()  # set when a counted call ends: a slot may be free

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Forget the windows (a restarted application starts afresh)."""
        self._windows.clear()
        self._paused.clear()

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Result]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Result:
        """Call ``callback`` once a send or edit fits in its windows (others at once); on a
        429, wait that long for the same chat only and retry."""
        chat = chat_key(data.get("chat_id"))
        counted = endpoint in COUNTED_METHODS
        retries = self.max_retries if rate_limit_args is None else rate_limit_args
        for attempt in range(retries + 1):
            slot = await self._take_slot(chat) if counted else []
            try:
                result = await callback(*args, **kwargs)
            except RetryAfter as exc:
                self._release(slot, counted_by_telegram=False)
                if attempt == retries:
                    log.error("still flooded after %d retries: %s %s", retries, endpoint, chat)
                    raise
                seconds = retry_seconds(exc)
                log.info("%s in %s: retrying in %.1f s", endpoint, chat, seconds)
                if chat is None or not counted:  # this call alone waits
                    await self.sleep(seconds)
                else:  # every send or edit in this chat waits, no other chat does
                    until = self.clock() + seconds
                    self._paused[chat] = max(until, self._paused.get(chat, until))
            except BaseException:
                self._release(slot, counted_by_telegram=True)
                raise
            else:
                self._release(slot, counted_by_telegram=True)
                return result
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def _keys(self, chat: ChatKey | None) -> list[ChatKey]:
        keys: list[ChatKey] = [("total", None)]
        if chat is not None:
            keys.append(chat)
        return [key for key in keys if self.limits[key[0]][0] > 0]

    def _window(self, key: ChatKey) -> _Window:
        if key not in self._windows:
            if len(self._windows) >= FORGET_AT:
                self._forget_idle()
            self._windows[key] = _Window(*self.limits[key[0]])
        return self._windows[key]

    def _forget_idle(self) -> None:
        """Drop the windows and pauses of chats with no call in their last period (a bot
        meets many chats; an idle one's window is empty anyway)."""
        now = self.clock()
        for key, window in list(self._windows.items()):
            if window.wait(now) == 0 and not window.ends:
                del self._windows[key]
        for key, until in list(self._paused.items()):
            if until <= now:
                del self._paused[key]

    async def _take_slot(self, chat: ChatKey | None) -> list[_Window]:
        """Wait until one more call fits in ``chat``'s windows and take a place in each.
        Calls to one chat take their slots in the order they came (an asyncio.Lock is fair)."""
        async with self._queue(chat):
            keys = self._keys(chat)
            while True:
                now = self.clock()
                waits = [self._window(key).wait(now) for key in keys]
                if chat is not None:
                    waits.append(self._paused.get(chat, now) - now)
                wait = max(waits, default=0.0)
                if wait <= 0:
                    break
                await self._wait(wait)
            if chat is not None:
                self._paused.pop(chat, None)
            slot = [self._window(key) for key in keys]
            for window in slot:
                window.ends.append(math.inf)  # under way: fills a slot until it ends
            return slot

    def _release(self, slot: list[_Window], *, counted_by_telegram: bool) -> None:
        """End a call: it counts from now, or not at all if Telegram refused it with a 429."""
        now = self.clock()
        for window in slot:
            window.ends.remove(math.inf)
            if counted_by_telegram:
                window.ends.append(now)
        if slot:
            self._ended.set()
            self._ended = asyncio.Event()

    async def _wait(self, seconds: float) -> None:
        """Sleep ``seconds`` (``inf``: no limit), or less if a call under way ends meanwhile."""
        ended = asyncio.ensure_future(self._ended.wait())
        sleeper = asyncio.ensure_future(self.sleep(seconds)) if math.isfinite(seconds) else None
        waiting = {ended} if sleeper is None else {ended, sleeper}
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waiting:
                task.cancel()

    @contextlib.asynccontextmanager
    async def _queue(self, chat: ChatKey | None) -> AsyncIterator[None]:
        """The chat's queue of calls waiting for a slot (dropped when empty)."""
        if chat is None:
            yield
            return
        lock = self._queues.setdefault(chat, asyncio.Lock())
        self._queued[chat] = self._queued.get(chat, 0) + 1
        metrics.LIMITER_WAITING.inc()
        try:
            async with lock:
                yield
        finally:
            metrics.LIMITER_WAITING.dec()
            self._queued[chat] -= 1
            if not self._queued[chat]:
                del self._queued[chat], self._queues[chat]


def chat_key(chat_id: Any) -> ChatKey | None:
    """Which window a chat's calls count in: a group's (negative id or ``@name``, as in PTB's
    AIORateLimiter: channels and supergroups can't be told from groups) or a private chat's."""
    if chat_id is None:
        return None
    with contextlib.suppress(ValueError, TypeError):
        chat_id = int(chat_id)
    if isinstance(chat_id, int):
        return ("group" if chat_id < 0 else "private", chat_id)
    return ("group", str(chat_id))


def retry_seconds(exc: RetryAfter) -> float:
    """The wait a 429 asks for, in seconds (PTB gives it as a number or a timedelta)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def limiter_for(config: Config, *, scale: float = 1.0) -> SlidingWindowLimiter:
    """The bot's rate limiter with the configured rates (``telegram_group_rate`` a minute per
    group, ``telegram_max_rate`` a second in all); ``scale`` as in :class:`SlidingWindowLimiter`."""
    return SlidingWindowLimiter(
        group=int(config.telegram_group_rate),
        overall=int(config.telegram_max_rate),
        scale=scale,
    )
