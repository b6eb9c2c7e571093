"""How a move made on the web reaches the chat: each adapter registers how it delivers views.

The web server hands the views of a finished turn to the adapter of the game's platform,
which edits the board message in the chat as after a button press. Without a registered
adapter (tests, the console) the views are dropped: the page itself is then the board.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar

from bot.service.views import View

log = logging.getLogger(__name__)

Deliver = Callable[[list[View], str], Awaitable[None]]
Draw = Callable[[View], Awaitable[View]]
_ADAPTERS: dict[str, tuple[Deliver, bool]] = {}
#: True while an adapter is handed the views of a game whose players all follow it on its
#: page (the game not over): nobody waits for them in the chat, so an adapter at its
#: platform's limits may send them after what people there wait for.
ON_PAGE: ContextVar[bool] = ContextVar("web_relay_on_page", default=False)


def register(platform: str, deliver: Deliver, *, draws: bool = False) -> None:
    """``deliver(views, chat_id)`` sends views to a chat of ``platform``; ``draws``: it
    draws the pictures left due itself (``View.picture_due``), when it sends them."""
    _ADAPTERS[platform] = (deliver, draws)


def unregister(platform: str) -> None:
    _ADAPTERS.pop(platform, None)


async def deliver(
    platform: str, chat_id: str, views: list[View], draw: Draw, *, on_page: bool = False
) -> None:
    """Send ``views`` to the chat, their due pictures drawn by ``draw`` first unless the
    adapter draws them; a failure is logged, never raised to the web page. ``on_page``: see
    :data:`ON_PAGE`."""
    adapter = _ADAPTERS.get(platform)
    if adapter is None or not views:
        return
    send, draws = adapter
    token = ON_PAGE.set(on_page)
    try:
        if not draws:
            views = [await draw(view) for view in views]
        await send(views, chat_id)
    except Exception:
        log.warning(
            "could not update the %s chat %s after a web move", platform, chat_id, exc_info=True
        )
    finally:
        ON_PAGE.reset(token)
