"""Starting the web board with the bot (``python -m bot`` when ``WEB_BASE_URL`` is set)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from functools import lru_cache
from typing import Any

from aiohttp import web
from aiohttp import web_response as aiohttp_response

from bot.config import Config
from bot.health import Health
from bot.service.service import GameService

from .auth import LinkSigner, derive_secret
from .guard import fitted_limits, quiet_floods
from .hub import ChangeHub
from .links import player_links
from .server import SERVER_NAME, WebBoard

log = logging.getLogger(__name__)

#: Without WEB_SECRET or a bot token (the console alone), links are signed with a secret
#: of this process.
_PROCESS_SECRET = secrets.token_hex(32)


def signer_for(config: Config) -> LinkSigner:
    """The link signer of ``config`` (the same secret in every worker of one bot)."""
    return _signer(
        derive_secret(
            config.web_secret, [config.telegram_token, config.discord_token], _PROCESS_SECRET
        )
    )


@lru_cache(maxsize=8)
def _signer(secret: str) -> LinkSigner:
    return LinkSigner(secret)


def with_change_hub(storage: Any) -> tuple[Any, ChangeHub]:
    """``storage`` wrapped so that every committed change reaches the open pages."""
    hub = ChangeHub()
    return hub.watch(storage), hub


def console_links(
    config: Config, service: GameService
) -> Callable[[int], Awaitable[list[tuple[str, str]]]]:
    """The console's source of a game's web links (personal ones for its local players)."""
    base = config.web_base_url or ""

    async def links(game_id: int) -> list[tuple[str, str]]:
        return await player_links(service, base, signer_for(config), game_id)

    return links


async def run_web(
    config: Config,
    service: GameService,
    hub: ChangeHub,
    stop: asyncio.Event,
    *,
    postgres_dsn: str | None = None,
    health: Health | None = None,
) -> None:
    """Serve the web board until ``stop`` is set; with ``postgres_dsn`` (the database the
    application was built on, when it is PostgreSQL), share changes with the other workers
    over it. ``health``: its checks and metrics are served next to the board."""
    if postgres_dsn is not None:
        await hub.listen_postgres(postgres_dsn)
    board = WebBoard(
        service,
        hub,
        signer_for(config),
        telegram_token=config.telegram_token,
        limits=fitted_limits(config.web_limits),
    )
    if health is not None:
        health.add_routes(board.app)
    log.info("web board at %s", config.web_base_url)
    await serve(board, config.web_listen, config.web_port, stop)


async def start(board: WebBoard, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Start serving ``board`` on ``host:port`` (0: any free port); the runner to clean up,
    and the port it listens on."""
    quiet_floods()
    # The answers aiohttp makes itself, before any route (a malformed request's 400), would
    # name its and Python's versions; the board's own answers say "Tavla" (server.py).
    aiohttp_response.SERVER_SOFTWARE = SERVER_NAME
    # aiohttp counts a connection still waiting for a complete request as idle: its
    # keep-alive timeout closes one whose headers have not all come in time.
    runner = web.AppRunner(
        board.app,
        access_log=None,
        shutdown_timeout=2.0,
        keepalive_timeout=board.limits.header_timeout,
        # A dropped connection ends its handler at once: a stream gives its place back
        # then, not at its next write.
        handler_cancellation=True,
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    return runner, runner.addresses[0][1]


#: Seconds a stopping server waits for the actions still under way (after its 2 s for the
#: requests' handlers; within the 10 s a service manager gives the whole bot).
FINISH_WITHIN = 5.0


async def serve(board: WebBoard, host: str, port: int, stop: asyncio.Event) -> None:
    """Serve ``board`` on ``host:port`` until ``stop`` is set."""
    runner, port = await start(board, host, port)
    log.info("web board on http://%s:%s", host, port)
    try:
        await stop.wait()
    finally:
        board._closing.set()
        with contextlib.suppress(Exception):
            await runner.cleanup()
        await board.finish(FINISH_WITHIN)
        await board.hub.close()
