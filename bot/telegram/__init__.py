"""The Telegram adapter (python-telegram-bot v22): updates in, service views out.

Small async handlers in the style of python-telegram-bot's examples: every button press is
answered, one error handler logs with the exception and apologises to the user. No game state
lives here (no ``user_data``, no conversation state): each update goes to the game service,
which loads the game from the database, and each view it returns becomes a message, an edit of
the board, or the answer to a button press.

The adapter is split by concern: :mod:`.convert` (Telegram's values as the service's),
:mod:`.api` (Bot API calls: retries, refusals), :mod:`.delivery` (views to messages),
:mod:`.edits` (board edits, newest board wins), :mod:`.photos` (pictures sent again by their
file id), :mod:`.busy` (chats behind their limits), :mod:`.shared_limits` (each chat's limit
shared by the workers), :mod:`.outbox` (each chat's sends in order, apart from the updates that made them),
:mod:`.handlers` (updates to service calls), :mod:`.webhook` (updates from Telegram only);
this module builds and runs the application.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram import BotCommand, BotCommandScopeAllChatAdministrators
from telegram.ext import (
    Application,
    ApplicationBuilder,
    BaseRateLimiter,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

from bot.config import Config
from bot.health import Health
from bot.i18n import LANGUAGES, translate
from bot.logs import quiet_http_clients
from bot.service.commands import COMMANDS, Audience, all_names
from bot.service.privacy import DESCRIPTION, SHORT_DESCRIPTION
from bot.service.runner import ROUND_SECONDS, DeadlineRunner
from bot.service.service import GameService
from bot.service.views import View
from bot.telegram.limiter import SlidingWindowLimiter, limiter_for
from bot.telegram.shared_limits import SharedSends
from bot.telegram.transport import AiohttpRequest
from bot.web.telegram import enable_web_board

from .api import NETWORK_ATTEMPTS, NETWORK_BACKOFF, _BotContext, with_retries
from .convert import CAPTION_LIMIT, PLATFORM, actor_of, keyboard, place_of
from .delivery import Delivery
from .edits import EDITED_MEMORY
from .handlers import TelegramAdapter
from .webhook import start_webhook

log = logging.getLogger(__name__)

__all__ = [
    "CAPTION_LIMIT",
    "EDITED_MEMORY",
    "NETWORK_ATTEMPTS",
    "NETWORK_BACKOFF",
    "PLATFORM",
    "TICK_SECONDS",
    "Delivery",
    "TelegramAdapter",
    "_BotContext",
    "actor_of",
    "build_application",
    "keyboard",
    "place_of",
    "run_telegram",
    "set_commands",
    "set_descriptions",
    "with_retries",
]

TICK_SECONDS = ROUND_SECONDS
#: Seconds getUpdates waits for an answer beyond its long poll (see build_application).
GET_UPDATES_READ_TIMEOUT = 2.0
#: Seconds a stopping bot gives the sends still queued (see outbox.py) to finish: within
#: the 10 s a service manager allows after SIGTERM, with room for the updates under way
#: before and the shutdown after. Sends held longer by a chat's flood limit are dropped;
#: their boards are redrawn after the restart.
STOP_GRACE = 5.0


async def set_commands(app: Application) -> None:
    """Register the command menu in every language (English as the default): the catalogue's
    commands for everyone, and with the admin-only ones for the chats' administrators."""
    everyone = [c for c in COMMANDS if c.audience is not Audience.ADMIN]
    for lang in LANGUAGES:
        code = None if lang == "en" else lang
        for scope, listed in ((None, everyone), (BotCommandScopeAllChatAdministrators(), COMMANDS)):
            commands = [BotCommand(c.name, translate(c.description, lang)[:256]) for c in listed]
            await app.bot.set_my_commands(commands, scope=scope, language_code=code)


async def set_descriptions(app: Application) -> None:
    """The bot's profile texts in every language (English as the default): the description
    of an empty chat ("What can this bot do?") and the short one of its profile."""
    for lang in LANGUAGES:
        code = None if lang == "en" else lang
        await app.bot.set_my_description(translate(DESCRIPTION, lang)[:512], language_code=code)
        await app.bot.set_my_short_description(
            translate(SHORT_DESCRIPTION, lang)[:120], language_code=code
        )


def build_application(
    config: Config, service: GameService, *, rate_limiter: BaseRateLimiter[Any] | None = None
) -> tuple[Application, TelegramAdapter]:
    """The python-telegram-bot application with every handler, not yet started.

    The default rate limiter (bot/telegram/limiter.py) keeps to Telegram's flood limits as
    sliding windows and retries a 429 answer, delaying only the chat it concerns.
    """
    adapter = TelegramAdapter(service)
    limiter = rate_limiter or limiter_for(config)
    if isinstance(limiter, SlidingWindowLimiter):
        adapter.limiter = limiter  # how far behind each chat is (see Delivery.lag)
    quiet_http_clients()
    app = (
        ApplicationBuilder()
        .token(config.telegram_token or "")
        .base_url(config.telegram_base_url)
        .base_file_url(config.telegram_base_file_url)
        .rate_limiter(limiter)
        .concurrent_updates(True)
        .request(AiohttpRequest(config.telegram_connections))
        # getUpdates runs one long poll at a time, on a connection of its own. Its read
        # timeout is added to each poll's own; at a stop, PTB's last getUpdates (which marks
        # the updates taken as read) sometimes gets no answer, and the stop waits it out.
        .get_updates_request(AiohttpRequest(1, read_timeout=GET_UPDATES_READ_TIMEOUT))
        .build()
    )
    app.add_handler(CommandHandler(list(all_names()), adapter.on_command))
    app.add_handler(CallbackQueryHandler(adapter.on_press))
    app.add_handler(InlineQueryHandler(adapter.on_inline))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, adapter.on_migrate))
    app.add_handler(ChatMemberHandler(adapter.on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, adapter.on_text))
    app.add_error_handler(adapter.on_error)
    return app, adapter


async def share_limits(
    postgres_dsn: str | None, limiter: SlidingWindowLimiter | None
) -> SharedSends | None:
    """On PostgreSQL (``postgres_dsn``), share each chat's Telegram limit with the bot's
    other workers (see shared_limits.py); None where there is nothing to share it through,
    or it can't be."""
    if limiter is None or postgres_dsn is None:
        return None
    shared = SharedSends(limiter)
    try:
        await shared.start(postgres_dsn)
    except Exception:
        log.warning("each chat's limit is counted by this worker alone", exc_info=True)
        return None
    return shared


async def run_telegram(
    config: Config,
    service: GameService,
    stop: asyncio.Event | None = None,
    *,
    rate_limiter: BaseRateLimiter[Any] | None = None,
    tick_seconds: float = TICK_SECONDS,
    runner: DeadlineRunner | None = None,
    health: Health | None = None,
    postgres_dsn: str | None = None,
) -> None:
    """Run the bot until ``stop`` is set (or forever): polling, or a webhook if configured.
    Deadline rounds run every ``tick_seconds``, unless a shared ``runner`` runs them.
    ``health``: where ``/readyz`` asks whether the adapter is taking updates.
    ``postgres_dsn``: the database the workers share (each chat's limit is shared there)."""
    app, adapter = build_application(config, service, rate_limiter=rate_limiter)
    if health is not None:
        health.add_check(
            PLATFORM, lambda: app.running and app.updater is not None and app.updater.running
        )
    stop = stop or asyncio.Event()
    own_rounds = runner is None
    runner = runner or DeadlineRunner(service)
    adapter.serve_deadlines(runner, app.bot)
    shared = await share_limits(postgres_dsn, adapter.limiter)
    async with app:
        await set_commands(app)
        await set_descriptions(app)
        await app.start()

        async def deliver(views: list[View], chat_id: str) -> None:
            adapter.relayed(views, _BotContext(app.bot), chat_id)

        enable_web_board(config, deliver, app.bot)
        assert app.updater is not None
        if config.telegram_webhook_url:
            await start_webhook(app, config)
        else:
            await app.updater.start_polling()
        try:
            if own_rounds:
                await runner.run(stop, tick_seconds)  # the first round at once
            else:
                await stop.wait()
        finally:
            await app.updater.stop()
            await app.stop()  # the updates under way are handled, their sends queued
            await adapter.outbox.drain(STOP_GRACE)
            if shared is not None:
                await shared.close()
