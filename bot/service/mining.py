"""Puzzles from the games played here: after a finished contest, its plays that lost at
least 0.16 where one play was clearly best (0.10 ahead of the second at the strongest
evaluator) are stored as puzzles (:mod:`core.learn.puzzles`), without the players' names;
never from a contest of a player who keeps their games out of puzzles (``/settings``).

Finding them analyses the whole contest (seconds of CPU), so it never holds up a press: it
runs in the background after the final board is answered, in a worker process of its own at
a lower priority (one contest at a time); a failure is logged and costs only those puzzles.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.storage.base import GameRecord, Storage
from core.export import contest_terms, split_games
from core.learn.puzzles import Puzzle, puzzles_from_games
from core.match import Match

from .advice import Advisor
from .background import Background
from .compiling import start_worker

log = logging.getLogger(__name__)


def contest_puzzles(match: dict[str, Any], core_events: list[dict[str, Any]]) -> list[Puzzle]:
    """The puzzles of a stored contest (its match and its core events), found at the
    strongest evaluator on the contest's own terms. Slow: run it in a worker."""
    restored = Match.from_dict(match)
    length, jacoby = contest_terms(restored)
    return puzzles_from_games(
        restored.variant, split_games(core_events), length=length, jacoby=jacoby
    )


def players(record: GameRecord) -> set[int]:
    """The user ids seated in a contest."""
    return {seat for seat in record.seats if seat is not None}


@dataclass(eq=False)
class Mining:
    """Finished contests searched for puzzles in the background (the storage, the service's
    background tasks, the clock, the number of worker processes: 0 for a thread)."""

    storage: Storage
    background: Background
    clock: Callable[[], float]
    processes: int = 1
    enabled: bool = True
    _worker: Advisor | None = field(default=None, init=False)

    def after_game(self, record: GameRecord) -> None:
        """A contest ended: look for its puzzles in the background."""
        if self.enabled and record.id is not None and record.match is not None:
            self.background.spawn(self._mine_quietly(record))

    async def _mine_quietly(self, record: GameRecord) -> None:
        await self.mine(record)

    async def mine(self, record: GameRecord) -> int:
        """Store the contest's puzzles (unless one of its players keeps theirs out); how many
        new ones."""
        assert record.id is not None
        assert record.match is not None
        if not await self.allowed(record):
            return 0
        events = await self.storage.events(record.id)
        core = [e.data for e in events if e.type == "core"]
        try:
            found = await self.worker().run(contest_puzzles, record.match, core)
        except Exception:
            log.exception("looking for puzzles in game %s failed", record.id)
            return 0
        added = 0
        for puzzle in found:
            stored = await self.storage.puzzles.add(
                puzzle.key, puzzle.variant, puzzle.to_dict(), "game", record.id, self.clock()
            )
            added += stored is not None
        if added and not await self.allowed(record):
            # A player kept their games out while the search ran: theirs go again.
            for seat in players(record):
                await self.storage.puzzles.remove_games_of(seat)
            return 0
        return added

    async def allowed(self, record: GameRecord) -> bool:
        """Whether every player of the contest lets their games become puzzles."""
        for seat in players(record):
            user = await self.storage.get_user(seat)
            if user is not None and not user.prefs.puzzles:
                return False
        return True

    def worker(self) -> Advisor:
        if self._worker is None:
            self._worker = Advisor(self.processes, initializer=start_worker)
        return self._worker

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
