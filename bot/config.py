"""Configuration from the environment and an optional ``.env`` file (see ``.env.example``)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from dotenv import load_dotenv

from bot.web.guard import WebLimits


@dataclass(frozen=True)
class Config:
    """Everything the bot reads from its environment."""

    telegram_token: str | None
    telegram_base_url: str
    telegram_base_file_url: str
    telegram_webhook_url: str | None
    #: Where the webhook server listens: loopback by default, behind a TLS proxy.
    telegram_webhook_listen: str
    telegram_webhook_port: int
    discord_token: str | None
    discord_guild_id: int | None
    database_url: str | None
    board_dir: Path
    log_level: str
    #: Flood limits the bot keeps to: messages per second overall, per minute per group
    #: (Telegram's own limits by default; 0 turns one off, e.g. against a local fake).
    telegram_max_rate: float = 30.0
    telegram_group_rate: float = 20.0
    #: Keep-alive connections to the Bot API (more requests at once wait for a free one).
    telegram_connections: int = 64
    #: Processes that draw board pictures (0: a thread of the bot's own process).
    render_processes: int = 0
    #: Discord shards split over processes: this process runs ``discord_shard_ids`` of
    #: ``discord_shard_count`` (None: one process runs them all, as Discord recommends).
    discord_shard_count: int | None = None
    discord_shard_ids: tuple[int, ...] | None = None
    #: The web board (bot/web): its public address (None: not served), where it listens,
    #: the secret that signs personal links, and the Mini App's short name from BotFather.
    web_base_url: str | None = None
    web_listen: str = "127.0.0.1"
    web_port: int = 8080
    web_secret: str | None = None
    telegram_webapp: str | None = None
    #: The webhook's secret (Telegram sends it with every update; other requests are
    #: refused). None: derived from the bot token (bot/telegram/webhook.py).
    telegram_webhook_secret: str | None = None
    #: What the web board may hold open (streams, slow requests).
    web_limits: WebLimits = field(default_factory=WebLimits)

    @classmethod
    def from_env(cls, env_file: str | None = ".env") -> Config:
        """Read the environment, after loading ``env_file`` (it never overrides the env)."""
        if env_file and Path(env_file).exists():
            load_dotenv(env_file, override=False)
        get = os.environ.get
        guild = get("DISCORD_GUILD_ID") or None
        return cls(
            telegram_token=get("TELEGRAM_TOKEN") or None,
            telegram_base_url=get("TELEGRAM_BASE_URL") or "https://api.telegram.org/bot",
            telegram_base_file_url=get("TELEGRAM_BASE_FILE_URL")
            or "https://api.telegram.org/file/bot",
            telegram_webhook_url=get("TELEGRAM_WEBHOOK_URL") or None,
            telegram_webhook_listen=get("TELEGRAM_WEBHOOK_LISTEN") or "127.0.0.1",
            telegram_webhook_port=int(get("TELEGRAM_WEBHOOK_PORT") or 8443),
            telegram_webhook_secret=check_webhook_secret(get("TELEGRAM_WEBHOOK_SECRET") or None),
            telegram_max_rate=float(get("TELEGRAM_MAX_RATE") or 30),
            telegram_group_rate=float(get("TELEGRAM_GROUP_RATE") or 20),
            telegram_connections=int(get("TELEGRAM_CONNECTIONS") or 64),
            discord_token=get("DISCORD_TOKEN") or None,
            discord_guild_id=int(guild) if guild else None,
            database_url=get("DATABASE_URL") or None,
            board_dir=Path(get("BOARD_DIR") or "data/boards"),
            # Quiet in the console; informative when serving chats.
            render_processes=int(
                get("RENDER_PROCESSES") or (1 if (os.cpu_count() or 1) > 1 else 0)
            ),
            discord_shard_count=int(get("DISCORD_SHARD_COUNT") or 0) or None,
            discord_shard_ids=tuple(
                int(x) for x in (get("DISCORD_SHARD_IDS") or "").split(",") if x.strip()
            )
            or None,
            web_base_url=check_web_base_url(get("WEB_BASE_URL") or None),
            web_listen=get("WEB_LISTEN") or "127.0.0.1",
            web_port=int(get("WEB_PORT") or 8080),
            web_secret=get("WEB_SECRET") or None,
            telegram_webapp=get("TELEGRAM_WEBAPP") or None,
            web_limits=WebLimits.from_env(get),
            log_level=get("LOG_LEVEL")
            or ("INFO" if get("TELEGRAM_TOKEN") or get("DISCORD_TOKEN") else "WARNING"),
        )

    def __repr__(self) -> str:
        # Tokens are secrets: never print them, not even in a debug log.
        shown = {k: v for k, v in self.__dict__.items() if "token" not in k and "secret" not in k}
        return f"Config({shown}, telegram_token={'set' if self.telegram_token else None}, discord_token={'set' if self.discord_token else None})"


def check_webhook_secret(secret: str | None) -> str | None:
    """``TELEGRAM_WEBHOOK_SECRET`` as Telegram accepts it: 1-256 of ``A-Z a-z 0-9 _ -``."""
    if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
        raise ValueError(
            "TELEGRAM_WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ and -"
        )
    return secret


def check_web_base_url(url: str | None) -> str | None:
    """``WEB_BASE_URL`` without a trailing slash; it must be https, except on loopback."""
    if not url:
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
    if parts.scheme != "https" and not (parts.scheme == "http" and loopback):
        raise ValueError("WEB_BASE_URL must be https:// (http:// only on 127.0.0.1 or localhost)")
    return url.rstrip("/")
