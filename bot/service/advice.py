"""Advice computed off the event loop: hints, the tutor's verdicts and puzzle building.

They run in one process of their own, started at the first request: GNU Backgammon's
module works only in the thread that first used it, and a hint holds the interpreter for a
tenth of a second to a second (a thread would slow every press meanwhile). The work is
plain functions of picklable values (a match as stored, a position), so the process keeps
no state of the games. ``processes=0`` computes in a thread instead (tests, the console).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from bot.storage.base import GameRecord
from core.analysis.evaluators import evaluator_for
from core.analysis.ranking import rank_plays
from core.learn import Hint, hint_for
from core.match import Match
from core.movegen import legal_plays
from core.variants import VARIANTS

from .settings import POOL_SCOPE
from .store import alone

R = TypeVar("R")
log = logging.getLogger("bot")

#: Advice nobody asked for (the tutor's verdicts) is not asked of a worker with this many
#: pieces of work queued or under way: it would make the press that asks wait for them.
ADVISORY_QUEUE = 2
#: Seconds a press waits at most for advice nobody asked for (by default; see ``advisory``).
ADVISORY_WAIT = 2.0

#: ``ContestSettings.hints`` once both players of an unrated game agreed, or one declined.
HINTS_ON = "on"
HINTS_OFF = "off"
#: … while the seat after it is asked.
HINTS_ASKED = "asked"


def solo_help(record: GameRecord) -> bool:
    """Whether help wrongs nobody in this game: against the computer, or one person playing
    both sides; never a rated game or a tournament's. The tutor watches these only."""
    if record.rated or record.settings.tournament:
        return False
    return record.settings.computer is not None or alone(record)


def by_consent(record: GameRecord) -> bool:
    """Whether this is a game where hints need both players' consent: an unrated game
    between two people, not in the pool and not a tournament's."""
    return (
        not record.rated
        and not record.settings.tournament
        and record.settings.scope != POOL_SCOPE
        and record.settings.computer is None
        and None not in record.seats
        and not alone(record)
    )


def hints_allowed(record: GameRecord) -> bool:
    """Whether the game's players may have hints now: :func:`solo_help`, or an unrated game
    between two people where both allowed them."""
    return solo_help(record) or (by_consent(record) and record.settings.hints == HINTS_ON)


def hint_button(record: GameRecord) -> bool:
    """Whether the board offers 💡: where hints are allowed, and in a game where they may
    still be asked for (not declined)."""
    return solo_help(record) or (by_consent(record) and record.settings.hints != HINTS_OFF)


def prepare() -> None:
    """What a first hint or verdict needs, loaded in a new worker before anyone waits for
    it: the analysis modules and each game's evaluator, its networks and databases."""
    for cls in VARIANTS.values():
        variant = cls()
        start = variant.start_position()
        plays = legal_plays(variant, start, (3, 1), True)
        rank_plays(evaluator_for(variant), variant, start, (3, 1), plays)


def _log_failure(future: asyncio.Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("preparing the advice process failed", exc_info=future.exception())


def match_hint(match: dict[str, Any]) -> Hint | None:
    """The hint for the decision the stored match's game waits for."""
    restored = Match.from_dict(match)
    game = restored.game
    if game is None:
        return None
    return hint_for(game, restored)


class Advisor:
    """Runs advice in a worker process (or a thread with ``processes=0``), one at a time."""

    def __init__(self, processes: int = 1, initializer: Callable[[], None] | None = None) -> None:
        self.processes = processes
        #: Run first in the worker process (a lower priority for background work).
        self.initializer = initializer
        self._executor: Executor | None = None
        #: Pieces of work given to the worker and not finished yet.
        self.pending = 0

    def _pool(self) -> Executor:
        if self._executor is None:
            if self.processes > 0:
                context = multiprocessing.get_context("spawn")
                self._executor = ProcessPoolExecutor(
                    1, mp_context=context, initializer=self.initializer
                )
            else:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="tavla-advice")
        return self._executor

    def _submit(self, work: Callable[..., R], *args: Any) -> asyncio.Future[R]:
        """``work(*args)`` given to the worker, counted in :attr:`pending` until it ends."""
        future = asyncio.get_running_loop().run_in_executor(self._pool(), work, *args)
        self.pending += 1
        future.add_done_callback(self._ended)
        return future

    def warm(self) -> None:
        """Starts the worker process now and has it :func:`prepare` (a process is slow to
        start: a player's first verdict would wait for it); nothing with a thread. A worker
        that cannot start is logged here and started again at the first request."""
        if self.processes <= 0:
            return
        try:
            self._submit(prepare).add_done_callback(_log_failure)
        except Exception:
            log.exception("the advice process did not start; starting it at the first hint")
            self._executor = None

    def _ended(self, future: asyncio.Future[Any]) -> None:
        self.pending -= 1
        if not future.cancelled():
            future.exception()  # an answer nobody waits for any more: its error is not lost

    async def run(self, work: Callable[..., R], *args: Any) -> R:
        """``work(*args)`` in the worker; a worker that died is replaced once."""
        try:
            return await self._submit(work, *args)
        except BrokenProcessPool:
            self._executor = None
            return await self._submit(work, *args)

    async def advisory(
        self, work: Callable[..., R | None], *args: Any, wait: float = ADVISORY_WAIT
    ) -> R | None:
        """``work(*args)`` for advice nobody asked for and a player's press waits for (the
        tutor's verdict): None at once when the worker has :data:`ADVISORY_QUEUE` pieces of
        work already, or after ``wait`` seconds without an answer (the work
        ends in the worker, unused), or when the worker died. A crowd of games against the
        computer asks for more verdicts than one worker gives; their presses go on without
        them instead of queueing there."""
        if self.pending >= ADVISORY_QUEUE:
            return None
        try:
            return await asyncio.wait_for(asyncio.shield(self._submit(work, *args)), wait)
        except TimeoutError:
            return None
        except BrokenProcessPool:
            self._executor = None
            return None

    async def hint(self, match: dict[str, Any]) -> Hint | None:
        """:func:`match_hint` in the worker."""
        return await self.run(match_hint, match)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
