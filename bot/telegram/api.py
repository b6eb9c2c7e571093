"""Calls to the Bot API: retried after network failures, refusals read."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter

log = logging.getLogger(__name__)

NETWORK_ATTEMPTS = 3
NETWORK_BACKOFF = 0.5  # seconds, times the attempt number
T = TypeVar("T")
#: Refusals that mean the bot cannot post in the chat at all (any other BadRequest is about
#: one message). Telegram words them like this; Forbidden is always such a refusal.
_UNREACHABLE = (
    "chat not found",
    "not enough rights",
    "have no rights",
    "chat_write_forbidden",
    "bot is not a member",
    "bot was kicked",
    "group chat was deactivated",
)


async def with_retries(call: Callable[[], Awaitable[T]], attempts: int = NETWORK_ATTEMPTS) -> T:
    """Run a Bot API call, again after a network failure (a 429 is the rate limiter's job).

    A Telegram refusal (BadRequest, Forbidden) is final and raised at once.
    """
    for attempt in range(1, attempts + 1):
        try:
            return await call()
        except (BadRequest, Forbidden, RetryAfter):
            raise
        except NetworkError:
            if attempt == attempts:
                raise
            log.info("network error talking to Telegram; retry %d of %d", attempt, attempts - 1)
            await asyncio.sleep(NETWORK_BACKOFF * attempt)
    raise AssertionError("unreachable")


class _BotContext:
    """The bit of a handler context :meth:`TelegramAdapter.send` uses, for background work."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot


async def answer_press(call: Callable[[], Awaitable[Any]]) -> None:
    """Answer a button press (stop its spinner), retried like any call.

    Telegram refuses an answer to a query that is already answered or older than its
    timeout ("query is too old"): after a retry whose first attempt did reach Telegram, or
    when the bot is far behind. Nothing is lost then (the board is edited all the same), so
    it is no failure of the press.
    """
    try:
        await with_retries(call)
    except BadRequest as exc:
        if "query is too old" not in str(exc).lower():
            raise
        log.info("a press was answered too late for Telegram: %s", exc)


def _unreachable(exc: BadRequest) -> bool:
    """Whether a refusal means the bot cannot post in the chat at all."""
    text = str(exc).lower()
    return any(words in text for words in _UNREACHABLE)
