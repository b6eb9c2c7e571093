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

When the bot as a whole is at its 30 a second, the chats take turns: a call first waits for
its own chat's window (one call at a time per chat), then queues for the bot's window behind
the other chats' calls, so every chat with something to send gets one message in its turn,
however much another chat has queued. Calls marked urgent (:data:`URGENT`: a board that asks a
player to move) go before the rest, and the rest before them once they have waited
:data:`DEFER_AT_MOST` seconds. Calls marked :data:`BACKGROUND` (the chat's board of a game its
players follow on the web board: nobody waits for it in the chat) take the slots the others
leave, or go once they have waited :data:`BACKGROUND_AT_MOST` seconds, but then take no more
than one slot in :data:`BACKGROUND_EVERY` while other calls wait (so many games followed on
the web board that their boards alone would fill the bot's 30 a second do not take them from
the chats); a chat's call waiting so is moved up when the chat has something more pressing to
send (:meth:`hurry`). One task
hands out the bot's slots: a freed slot wakes the one call whose turn it is, not every call
waiting (with a thousand chats queued, waking them all for each slot cost more than the
sends).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import warnings
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextvars import ContextVar
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
TOTAL: ChatKey = ("total", None)

#: Set (by the adapter, for the sends of one job) when a person is waiting for them: a board
#: that asks a player to move. Such calls take the bot's next free slots before the others.
URGENT: ContextVar[bool] = ContextVar("telegram_urgent", default=False)
#: Seconds a call that is not urgent waits at most behind urgent ones, once in the bot's queue.
DEFER_AT_MOST = 10.0
#: Set (by the adapter) for the sends of a game whose players follow it on the web board:
#: nobody waits for them in the chat, so they take the slots the other calls leave.
BACKGROUND: ContextVar[bool] = ContextVar("telegram_background", default=False)
#: Seconds a background call waits at most behind the others, once in the bot's queue: such
#: a board is about a minute behind its game at worst, and (the newest board replacing one
#: still queued, bot/telegram/edits.py) costs the bot about one message a minute a game.
BACKGROUND_AT_MOST = 60.0
#: Background calls that have waited that long take one slot in this many at most while other
#: calls wait: a minute behind is what the bot's spare slots keep when they are enough; when
#: they are not (hundreds of games on the web board), the chats' people still come first.
BACKGROUND_EVERY = 10
#: The bot's queues, in the order they are served (see :meth:`SlidingWindowLimiter._next_turn`).
URGENT_RANK, OTHER_RANK, BACKGROUND_RANK = 0, 1, 2


def rank() -> int:
    """The queue of the calls made now: urgent, background or the others."""
    if URGENT.get():
        return URGENT_RANK
    return BACKGROUND_RANK if BACKGROUND.get() else OTHER_RANK


class _Held:
    """A slot taken ahead of its call (:meth:`SlidingWindowLimiter.reserved`): the next
    counted call to ``chat`` in this context uses it instead of queueing again."""

    __slots__ = ("chat", "slot")

    def __init__(self, chat: ChatKey | None, slot: list[_Window] | None) -> None:
        self.chat = chat
        self.slot = slot


_HELD: ContextVar[_Held | None] = ContextVar("telegram_held_slot", default=None)


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


class _Turn:
    """A call waiting for the bot's window: ``dealt`` is done when it may go."""

    __slots__ = ("dealt", "since")

    def __init__(self, dealt: asyncio.Future[None], since: float) -> None:
        self.dealt = dealt
        self.since = since


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
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.limits = {
            "group": (group, (group_period + MARGIN) / scale),
            "private": (private, (private_period + MARGIN) / scale),
            "total": (overall, (overall_period + MARGIN) / scale),
        }
        self.scale = scale
        self.max_retries = max_retries
        self.clock = clock
        self.sleep = sleep
        self.wall = wall  # the time other workers' sends are told in (see :meth:`heard`)
        #: Told of each send or edit to a chat Telegram took (bot/telegram/shared_limits.py
        #: tells the bot's other workers), with the chat id.
        self.on_sent: Callable[[Any], None] | None = None
        self._windows: dict[ChatKey, _Window] = {}
        self._paused: dict[ChatKey, float] = {}  # a chat's 429: no call before this time
        self._queues: dict[ChatKey, asyncio.Lock] = {}  # per chat, while calls wait in it
        self._queued: dict[ChatKey, int] = {}
        self._ended = asyncio.Event()  # set when a counted call ends: a slot may be free
        # Per chat, set when one of its counted calls ends (for a call waiting on that chat's
        # window while the chat's calls are under way).
        self._chat_ended: dict[ChatKey, asyncio.Event] = {}
        # The calls waiting for the bot's window, in turn: urgent ones, the others, the
        # background ones, each with the time it came (one per chat: a chat's calls queue in
        # its lock first).
        self._turns: tuple[deque[_Turn], ...] = (deque(), deque(), deque())
        self._in_background: dict[ChatKey | None, _Turn] = {}  # each chat's, if waiting
        self._since_background = 0  # slots dealt to other calls since the last background one
        self._dealer: asyncio.Task[None] | None = None

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Forget the windows (a restarted application starts afresh)."""
        self._windows.clear()
        self._paused.clear()
        if self._dealer is not None:
            self._dealer.cancel()

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
        held = _HELD.get()
        for attempt in range(retries + 1):
            if counted and held is not None and held.slot is not None and held.chat == chat:
                slot, held.slot = held.slot, None  # taken ahead of the call, in its turn
            else:
                slot = await self._take_slot(chat, rank()) if counted else []
            try:
                result = await callback(*args, **kwargs)
            except RetryAfter as exc:
                self._release(slot, chat, counted_by_telegram=False)
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
                self._release(slot, chat, counted_by_telegram=True)
                raise
            else:
                self._release(slot, chat, counted_by_telegram=True)
                if counted and chat is not None and self.on_sent is not None:
                    self.on_sent(data.get("chat_id"))
                return result
        raise AssertionError("unreachable")  # the last attempt returns or raises

    @contextlib.asynccontextmanager
    async def reserved(self, chat_id: Any) -> AsyncIterator[None]:
        """Wait for the turn of a send or edit to ``chat_id`` (its chat's window, then the
        bot's, as :meth:`process_request` would) and keep that slot for the next counted
        call to the chat made inside: what to send is decided once its turn has come (a
        board edit sends the newest board of its message, see bot/telegram/edits.py). A
        slot not used is given back."""
        chat = chat_key(chat_id)
        held = _Held(chat, await self._take_slot(chat, rank()))
        token = _HELD.set(held)
        try:
            yield
        finally:
            _HELD.reset(token)
            if held.slot is not None:
                self._release(held.slot, chat, counted_by_telegram=False)

    def heard(self, chat_id: Any, at: float) -> None:
        """Another worker of the bot sent or edited a message in ``chat_id`` at ``at`` (the
        :attr:`wall` clock's time): it fills a slot of that chat's window here too."""
        chat = chat_key(chat_id)
        if chat is None or self.limits[chat[0]][0] <= 0:
            return
        self._window(chat).ends.append(self.clock() - max(0.0, self.wall() - at))

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

    async def _take_slot(self, chat: ChatKey | None, queue: int = OTHER_RANK) -> list[_Window]:
        """Wait until one more call fits in ``chat``'s window, then for the bot's turn, and
        take a place in each. Calls to one chat take their slots in the order they came (an
        asyncio.Lock is fair); chats take the bot's slots in turn (see :meth:`_deal`)."""
        async with self._queue(chat):
            slot: list[_Window] = []
            if chat is not None:
                await self._chat_free(chat)
                if self.limits[chat[0]][0] > 0:
                    slot.append(self._window(chat))
            total = await self._bots_turn(queue, chat)
            if total is not None:
                slot.append(total)
            if chat is not None:
                self._paused.pop(chat, None)
            for window in slot:
                if window is not total:  # the bot's slot was taken when it was dealt
                    window.ends.append(math.inf)  # under way: fills a slot until it ends
            return slot

    async def _chat_free(self, chat: ChatKey) -> None:
        """Wait until ``chat``'s own window has room and its 429 pause is over."""
        counted = self.limits[chat[0]][0] > 0
        while True:
            now = self.clock()
            wait = self._paused.get(chat, now) - now
            if counted:
                wait = max(wait, self._window(chat).wait(now))
            if wait <= 0:
                return
            ended = self._chat_ended.setdefault(chat, asyncio.Event())
            await self._wait(wait, ended)

    async def _bots_turn(self, queue: int, chat: ChatKey | None) -> _Window | None:
        """Wait for this call's turn at the bot's window (in the bot's ``queue``: see
        :func:`rank`); return it with a slot taken."""
        if self.limits["total"][0] <= 0:
            return None
        window = self._window(TOTAL)
        if not any(self._turns) and window.wait(self.clock()) <= 0:
            window.ends.append(math.inf)
            return window
        turn = _Turn(asyncio.get_running_loop().create_future(), self.clock())
        self._turns[queue].append(turn)
        if queue == BACKGROUND_RANK:
            self._in_background[chat] = turn
        if self._dealer is None:
            self._dealer = asyncio.ensure_future(self._deal())
        try:
            await turn.dealt
        except asyncio.CancelledError:
            if turn.dealt.done() and not turn.dealt.cancelled():
                window.ends.remove(math.inf)  # dealt, but the call is gone: give it back
                self._signal_ended()
            raise
        finally:
            if self._in_background.get(chat) is turn:
                del self._in_background[chat]
        return window

    async def _deal(self) -> None:
        """Hand out the bot's slots, one at a time, to the calls waiting in turn."""
        window = self._window(TOTAL)
        try:
            while True:
                turn = self._next_turn()
                if turn is None:
                    return
                wait = window.wait(self.clock())
                if wait > 0:
                    await self._wait(wait, self._ended)
                    continue
                window.ends.append(math.inf)
                turn.dealt.set_result(None)
                if self._pop_turn(turn) == BACKGROUND_RANK:
                    self._since_background = 0
                else:
                    self._since_background += 1
        finally:
            self._dealer = None

    def _next_turn(self) -> _Turn | None:
        """The call whose turn it is: the first urgent one, unless the first other one has
        waited too long; then the first other one; the first background one when no other
        call waits, or when it has waited too long and its share of the slots is due (calls
        given up on are dropped)."""
        for queue in self._turns:
            while queue and queue[0].dealt.done():
                queue.popleft()
        urgent, other, background = self._turns
        now = self.clock()
        if (
            background
            and now - background[0].since >= BACKGROUND_AT_MOST
            and self._since_background >= BACKGROUND_EVERY - 1
        ):
            return background[0]
        if other and (not urgent or now - other[0].since >= DEFER_AT_MOST):
            return other[0]
        if urgent:
            return urgent[0]
        return background[0] if background else None

    def hurry(self, chat_id: Any, urgent: bool) -> None:
        """``chat_id`` has a call to make that is not background (urgent or not): its own
        background call waiting for the bot's window, which the chat's other calls queue
        behind, moves to that queue, keeping the time it came."""
        waiting = self._in_background.pop(chat_key(chat_id), None)
        if waiting is None or waiting.dealt.done():
            return
        self._turns[BACKGROUND_RANK].remove(waiting)
        target = self._turns[URGENT_RANK if urgent else OTHER_RANK]
        # In the order the calls came, as if it had been queued there.
        place = next((n for n, turn in enumerate(target) if turn.since > waiting.since), None)
        target.insert(len(target) if place is None else place, waiting)

    def _pop_turn(self, turn: _Turn) -> int | None:
        """Take ``turn`` off the head of its queue; which queue it was (its rank)."""
        for rank, queue in enumerate(self._turns):
            if queue and queue[0] is turn:
                queue.popleft()
                return rank
        return None

    def backlog(self, chat_id: Any, queued: int = 0) -> float:
        """About how many (Telegram) seconds a send to ``chat_id`` made now would wait, with
        ``queued`` sends of that chat before it: its chat's window and 429 pause, its queued
        sends at the chat's rate, and the calls of other chats queued for the bot's window
        (not the background ones, which go after it)."""
        now = self.clock()
        chat = chat_key(chat_id)
        wait = 0.0
        if chat is not None:
            wait = self._paused.get(chat, now) - now
            window = self._windows.get(chat)
            if window is not None:
                wait = max(wait, window.wait(now))
            count, period = self.limits[chat[0]]
            if count > 0:
                wait += queued * period / count
        count, period = self.limits["total"]
        if count > 0:
            ahead = self._turns[URGENT_RANK], self._turns[OTHER_RANK]
            wait += sum(len(queue) for queue in ahead) * period / count
        if not math.isfinite(wait):  # calls under way fill the window: about a period
            wait = period
        return wait * self.scale

    def _release(
        self, slot: list[_Window], chat: ChatKey | None, *, counted_by_telegram: bool
    ) -> None:
        """End a call: it counts from now, or not at all if Telegram refused it with a 429."""
        now = self.clock()
        for window in slot:
            window.ends.remove(math.inf)
            if counted_by_telegram:
                window.ends.append(now)
        if not slot:
            return
        ended = self._chat_ended.pop(chat, None) if chat is not None else None
        if ended is not None:
            ended.set()
        self._signal_ended()

    def _signal_ended(self) -> None:
        """A slot of the bot's window may be free: wake the dealer (the only one waiting)."""
        self._ended.set()
        self._ended = asyncio.Event()

    async def _wait(self, seconds: float, ended: asyncio.Event) -> None:
        """Sleep ``seconds`` (``inf``: no limit), or less if ``ended`` is set meanwhile."""
        woken = asyncio.ensure_future(ended.wait())
        sleeper = asyncio.ensure_future(self.sleep(seconds)) if math.isfinite(seconds) else None
        waiting = {woken} if sleeper is None else {woken, sleeper}
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
