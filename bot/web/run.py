"""Starting the web board with the bot (``python -m bot`` when ``WEB_BASE_URL`` is set)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from bot.config import Config
from bot.service.service import GameService
from bot.storage.factory import postgres_dsn_from_url

from .auth import LinkSigner, derive_secret
from .hub import ChangeHub, NotifyingStorage
from .server import WebBoard, serve

log = logging.getLogger(__name__)

_SIGNER: LinkSigner | None = None


def signer_for(config: Config) -> LinkSigner:
    """The process's link signer (the same secret in every worker of one bot)."""
    global _SIGNER
    if _SIGNER is None:
        _SIGNER = LinkSigner(
            derive_secret(config.web_secret, [config.telegram_token, config.discord_token])
        )
    return _SIGNER


def with_change_hub(storage: Any) -> tuple[Any, ChangeHub]:
    """``storage`` wrapped so that every committed change reaches the open pages."""
    hub = ChangeHub()
    return NotifyingStorage(storage, hub.changed), hub


async def run_web(
    config: Config, service: GameService, hub: ChangeHub, stop: asyncio.Event
) -> None:
    """Serve the web board until ``stop`` is set; share changes over PostgreSQL if used."""
    url = config.database_url or ""
    if url.startswith(("postgres", "postgresql")):
        await hub.listen_postgres(postgres_dsn_from_url(url))
    board = WebBoard(service, hub, signer_for(config), telegram_token=config.telegram_token)
    log.info("web board at %s", config.web_base_url)
    await serve(board, config.web_listen, config.web_port, stop)
