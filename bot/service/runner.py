"""One deadline runner for every adapter: rounds of :meth:`GameService.tick`, their views
handed to the adapter of each view's platform.

An adapter only says how it delivers a view made without an incoming message
(:meth:`DeadlineRunner.serve`); the runner decides when rounds run, keeps a failed round or
an undeliverable view from stopping the bot, and asks the service only about the games of
the platforms it serves, so that two adapters in one process never take each other's
reminders.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .service import GameService
from .views import View

log = logging.getLogger(__name__)

#: Seconds between deadline rounds.
ROUND_SECONDS = 30.0
#: Seconds after start-up before the first round of a shared runner (the adapters connect).
FIRST_ROUND_AFTER = 3.0

#: Delivers one view (a reminder, an expiry, a claim offer, a board redrawn) to its chat.
Deliver = Callable[[View], Awaitable[None]]


@dataclass(frozen=True)
class _Outlet:
    deliver: Deliver
    errors: tuple[type[BaseException], ...]
    undeliverable: Deliver | None


class DeadlineRunner:
    """Runs the service's deadline rounds for the adapters that :meth:`serve` a platform."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self._outlets: dict[str, _Outlet] = {}

    def serve(
        self,
        platform: str,
        deliver: Deliver,
        *,
        errors: tuple[type[BaseException], ...] = (Exception,),
        undeliverable: Deliver | None = None,
    ) -> None:
        """Deliver the views of ``platform``'s games with ``deliver``. A view whose delivery
        raises one of ``errors`` is logged and passed to ``undeliverable``, if given.

        The service delivers its views made outside any request (an analysis done) the
        same way (:meth:`GameService.deliver_later`)."""
        outlet = _Outlet(deliver, errors, undeliverable)
        self._outlets[platform] = outlet

        async def later(view: View) -> None:
            try:
                await outlet.deliver(view)
            except outlet.errors:
                log.warning("could not deliver a message made in the background", exc_info=True)

        self.service.outlets[platform] = later

    async def round(self) -> None:
        """One round: the service's due deadlines and lagging boards, delivered."""
        for view in await self.service.tick(platforms=set(self._outlets)):
            outlet = self._outlets.get(view.chat[0]) if view.chat is not None else None
            if outlet is None:
                continue  # a view without an address has nowhere to go
            try:
                await outlet.deliver(view)
            except outlet.errors:
                log.warning("could not deliver a deadline message", exc_info=True)
                if outlet.undeliverable is not None:
                    await outlet.undeliverable(view)

    async def run(self, stop: asyncio.Event, every: float, *, first_after: float = 0.0) -> None:
        """Rounds every ``every`` seconds until ``stop`` is set, the first after
        ``first_after`` (at once by default: boards that lag their game because the bot
        stopped between a save and an edit are redrawn at start-up)."""
        wait = first_after
        while not stop.is_set():
            if wait > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), wait)
                if stop.is_set():
                    return
            try:
                await self.round()
            except Exception:
                # A failed round must not stop the bot; the next one retries.
                log.exception("deadline round failed")
            wait = every
