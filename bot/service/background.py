"""Work the service does outside any request (analyses), and how its views reach a chat."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from .views import View

log = logging.getLogger(__name__)


class Background:
    """Tasks under way in the background, and the outlets their views are delivered by."""

    def __init__(self, drawn: Callable[[View], Awaitable[View]] | None = None) -> None:
        #: Draws a view's due picture (Boards.drawn): views made while a press was answered
        #: may come here with their picture not drawn, and not every outlet draws it.
        self.drawn = drawn
        #: How views made outside any request (an analysis done) reach their chat, by
        #: platform: the adapters' deadline outlets (DeadlineRunner.serve registers them).
        self.outlets: dict[str, Callable[[View], Awaitable[None]]] = {}
        #: Work under way in the background (analyses), kept until done.
        self.tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background; a failure is logged, never lost."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)

        def done(task: asyncio.Task[None]) -> None:
            self.tasks.discard(task)
            if not task.cancelled() and task.exception() is not None:
                log.error("background work failed", exc_info=task.exception())

        task.add_done_callback(done)

    async def deliver_later(self, view: View) -> None:
        """Deliver a view made outside any request to its chat (``view.chat``) through the
        outlet of its platform; dropped (and logged) where no adapter serves it."""
        outlet = self.outlets.get(view.chat[0]) if view.chat is not None else None
        if outlet is None:
            log.warning("no outlet for a view to %s", view.chat)
            return
        if view.picture_due is not None and self.drawn is not None:
            view = await self.drawn(view)
        await outlet(view)

    async def settle(self) -> None:
        """Wait until the background work is done (tests, shutdown)."""
        while self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
