"""The web board's actions wait their turn while the event loop lags: people in chats first.

One bot process serves its chats and the web board's pages on one event loop. A chat's board
takes several turns of that loop (its place at Telegram's limits, its picture, the call),
and the bot has 30 messages a second for all its chats; a page's action is a few
milliseconds of CPU, and a crowd of pages offers as many as its players press. Unchecked,
the actions fill every turn of the loop (a second or more a turn on a process with half a
core) and the chats' boards, a few turns each, all but stop.

So an action (and a page's load) is admitted while the loop keeps pace: :class:`LoopLag`
measures how late a timer of the loop runs (a turn's length, about), and :class:`Admission`
lets an action start only while that lag is under :data:`MOST_LAG` and fewer than
:data:`AT_ONCE` run; the others wait in line, first come first served, and go as the loop
catches up (one always runs, so the pages never stop). What the chats need goes on without
waiting. A page waits at most :data:`PATIENCE` seconds in line, and no more than
:data:`MOST_WAITING` pages wait: beyond either, the action is answered ``503`` with
``{"busy": true}`` and ``Retry-After``, and the page says that the board is busy and sends
the same action again (it names the version it was made on: it can't be made twice).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable

from bot import metrics

#: Seconds a timer of the loop may run late for an action to start at once.
MOST_LAG = 0.05
#: Actions under way at once (more wait, whatever the lag).
AT_ONCE = 16
#: Pages waiting in line at most (a page beyond is told "busy" at once).
MOST_WAITING = 2000
#: Seconds a page waits in line at most before it is told "busy".
PATIENCE = 20.0
#: Seconds between the loop lag's measurements.
EVERY = 0.05
#: Seconds a page told "busy" waits before it sends its action again.
RETRY_AFTER = 1


class Busy(Exception):
    """The line is too long, or was waited in too long: the page is to try again."""


class LoopLag:
    """How late the running event loop runs a timer (seconds): measured every ``every``
    seconds; the newest measurement is :attr:`lag`. ``on_tick`` is called after each."""

    def __init__(self, every: float = EVERY) -> None:
        self.every = every
        self.lag = 0.0
        self.on_tick: Callable[[], None] | None = None
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Start measuring on the running loop."""
        loop = asyncio.get_running_loop()
        self._handle = loop.call_at(loop.time() + self.every, self._tick, loop)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        assert self._handle is not None
        now = loop.time()
        self.lag = max(0.0, now - self._handle.when())
        metrics.EVENT_LOOP_LAG.set(self.lag)
        self._handle = loop.call_at(now + self.every, self._tick, loop)
        if self.on_tick is not None:
            self.on_tick()


class Admission:
    """Actions in line behind a lagging loop (see the module's docstring). ``lag`` gives the
    loop's lag now, in seconds."""

    def __init__(
        self,
        lag: Callable[[], float],
        *,
        most_lag: float = MOST_LAG,
        at_once: int = AT_ONCE,
        most_waiting: int = MOST_WAITING,
        patience: float = PATIENCE,
    ) -> None:
        self.lag = lag
        self.most_lag = most_lag
        self.at_once = at_once
        self.most_waiting = most_waiting
        self.patience = patience
        self.running = 0
        self._line: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        """Actions waiting in line."""
        return len(self._line)

    def _may_start(self) -> bool:
        # One always runs: the pages never stop, however busy the loop.
        return self.running == 0 or (self.running < self.at_once and self.lag() <= self.most_lag)

    @contextlib.asynccontextmanager
    async def admitted(self) -> AsyncIterator[None]:
        """Wait for this action's turn (raises :class:`Busy` when the line is too long or
        the turn does not come in time), then hold its place until the block ends."""
        if not self._line and self._may_start():
            self.running += 1
        else:
            if self.waiting >= self.most_waiting:
                metrics.WEB_BUSY.inc()
                raise Busy("too many actions waiting")
            turn = asyncio.get_running_loop().create_future()
            self._line.append(turn)
            metrics.WEB_WAITING.inc()
            try:
                async with asyncio.timeout(self.patience):
                    await turn
            except BaseException as exc:
                if turn.done() and not turn.cancelled():
                    self._done()  # its turn came as it gave up: passed on
                else:
                    with contextlib.suppress(ValueError):
                        self._line.remove(turn)
                if isinstance(exc, TimeoutError):
                    metrics.WEB_BUSY.inc()
                    raise Busy("waited too long") from exc
                raise
            finally:
                metrics.WEB_WAITING.dec()
        try:
            yield
        finally:
            self._done()

    def _done(self) -> None:
        self.running -= 1
        self.admit()

    def admit(self) -> None:
        """Let those next in line start, as far as the loop's lag and the count allow."""
        line = self._line
        while line and self._may_start():
            turn = line.popleft()
            if not turn.done():  # (one given up on is gone)
                turn.set_result(None)
                self.running += 1
