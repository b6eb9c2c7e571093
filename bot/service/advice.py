"""Advice computed off the event loop: hints, the tutor's verdicts and puzzle building.

They run in one process of their own, started at the first request: GNU Backgammon's
module works only in the thread that first used it, and a hint holds the interpreter for a
tenth of a second to a second (a thread would slow every press meanwhile). The work is
plain functions of picklable values (a match as stored, a position), so the process keeps
no state of the games. ``processes=0`` computes in a thread instead (tests, the console).
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from bot.storage.base import GameRecord
from core.learn import Hint, hint_for
from core.match import Match

from .store import alone

R = TypeVar("R")


def hints_allowed(record: GameRecord) -> bool:
    """Whether the game's players may ask for hints: against the computer, or one person
    playing both sides; never a rated game or a tournament's."""
    if record.rated or record.settings.tournament:
        return False
    return record.settings.computer is not None or alone(record)


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

    async def run(self, work: Callable[..., R], *args: Any) -> R:
        """``work(*args)`` in the worker; a worker that died is replaced once."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool(), work, *args)
        except BrokenProcessPool:
            self._executor = None
            return await loop.run_in_executor(self._pool(), work, *args)

    async def hint(self, match: dict[str, Any]) -> Hint | None:
        """:func:`match_hint` in the worker."""
        return await self.run(match_hint, match)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
