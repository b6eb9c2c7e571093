"""Configuration from the environment and an optional ``.env`` file (see ``.env.example``)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from dotenv import load_dotenv

from bot.web.guard import WebLimits

T = TypeVar("T")


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
    #: Daily pool games (/play daily) a player may have going at once.
    pool_daily_games: int = 10
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

    #: Seconds to wait at start-up for a database that cannot be reached yet.
    database_wait: float = 60.0

    #: ``text`` (one line a record) or ``json`` (one JSON object a line, for log collectors).
    log_format: str = "text"

    @classmethod
    def from_env(cls, env_file: str | None = ".env") -> Config:
        """Read the environment, after loading ``env_file`` (it never overrides the env).

        Raises :class:`ConfigError` naming every setting that is wrong, one line each."""
        if env_file and Path(env_file).exists():
            load_dotenv(env_file, override=False)
        env = _Reader(os.environ.get)
        get = env.text
        guild = env.integer("DISCORD_GUILD_ID", None)
        config = cls(
            telegram_token=env.checked("TELEGRAM_TOKEN", check_telegram_token),
            telegram_base_url=get("TELEGRAM_BASE_URL") or "https://api.telegram.org/bot",
            telegram_base_file_url=get("TELEGRAM_BASE_FILE_URL")
            or "https://api.telegram.org/file/bot",
            telegram_webhook_url=get("TELEGRAM_WEBHOOK_URL"),
            telegram_webhook_listen=get("TELEGRAM_WEBHOOK_LISTEN") or "127.0.0.1",
            telegram_webhook_port=env.integer("TELEGRAM_WEBHOOK_PORT", 8443, 0, 65535) or 0,
            telegram_webhook_secret=env.checked("TELEGRAM_WEBHOOK_SECRET", check_webhook_secret),
            telegram_max_rate=env.number("TELEGRAM_MAX_RATE", 30),
            telegram_group_rate=env.number("TELEGRAM_GROUP_RATE", 20),
            telegram_connections=env.integer("TELEGRAM_CONNECTIONS", 64, 1) or 64,
            discord_token=get("DISCORD_TOKEN"),
            discord_guild_id=guild,
            database_url=env.checked("DATABASE_URL", check_database_url),
            database_wait=env.number("DATABASE_WAIT", 60),
            board_dir=Path(get("BOARD_DIR") or "data/boards"),
            render_processes=env.integer(
                "RENDER_PROCESSES", 1 if (os.cpu_count() or 1) > 1 else 0, 0
            )
            or 0,
            pool_daily_games=env.integer("POOL_DAILY_GAMES", 10, 1, 1000) or 10,
            discord_shard_count=env.integer("DISCORD_SHARD_COUNT", 0, 0) or None,
            discord_shard_ids=env.checked("DISCORD_SHARD_IDS", _shard_ids),
            web_base_url=env.checked("WEB_BASE_URL", check_web_base_url),
            web_listen=get("WEB_LISTEN") or "127.0.0.1",
            web_port=env.integer("WEB_PORT", 8080, 0, 65535) or 0,
            web_secret=get("WEB_SECRET"),
            telegram_webapp=get("TELEGRAM_WEBAPP"),
            web_limits=env.limits(),
            # Quiet in the console; informative when serving chats.
            log_level=env.checked("LOG_LEVEL", check_log_level)
            or ("INFO" if get("TELEGRAM_TOKEN") or get("DISCORD_TOKEN") else "WARNING"),
            log_format=env.checked("LOG_FORMAT", check_log_format) or "text",
        )
        env.checked("TAVLA_NUMBA", _numba_wanted)  # read by core itself, checked here
        if env.problems:
            raise ConfigError(env.problems)
        return config

    def __repr__(self) -> str:
        # Tokens are secrets: never print them, not even in a debug log.
        shown = {k: v for k, v in self.__dict__.items() if "token" not in k and "secret" not in k}
        return f"Config({shown}, telegram_token={'set' if self.telegram_token else None}, discord_token={'set' if self.discord_token else None})"


class ConfigError(ValueError):
    """Settings of the environment that are wrong: ``problems`` says each in one line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class _Reader:
    """Reads settings from ``get`` (the environment), collecting every problem rather than
    stopping at the first: an operator fixes them all in one go (``tavla check``)."""

    def __init__(self, get: Callable[[str], str | None]) -> None:
        self.get = get
        self.problems: list[str] = []

    def text(self, name: str) -> str | None:
        """The setting, None when unset or empty."""
        return self.get(name) or None

    def checked(self, name: str, check: Callable[[str], T]) -> T | None:
        """``check`` of the setting (None when unset); its ``ValueError`` is a problem."""
        value = self.text(name)
        if value is None:
            return None
        try:
            return check(value)
        except ValueError as exc:
            reason = str(exc).removeprefix(f"{name} ")
            self.problems.append(f"{name}: {reason}")
            return None

    def integer(
        self, name: str, default: int | None, low: int | None = None, high: int | None = None
    ) -> int | None:
        """A whole number within ``low``..``high``; ``default`` when unset or wrong."""
        value = self.checked(name, lambda text: _number(text, True, low, high))
        return default if value is None else value

    def number(self, name: str, default: float) -> float:
        """A number of zero or more; ``default`` when unset or wrong."""
        value = self.checked(name, lambda text: _number(text, False, 0, None))
        return default if value is None else value

    def limits(self) -> WebLimits:
        """The web board's limits (their defaults where a setting is wrong)."""
        names = (
            "WEB_MAX_STREAMS",
            "WEB_MAX_STREAMS_PER_ADDRESS",
            "WEB_STREAM_MAX_AGE",
            "WEB_HEADER_TIMEOUT",
        )
        for name in names:
            self.checked(name, lambda text: _number(text, False, 0, None))
        try:
            return WebLimits.from_env(self.get)
        except ValueError:
            return WebLimits()


def _number(text: str, whole: bool, low: float | None, high: float | None) -> Any:
    """``text`` as an int (``whole``) or a float within ``low``..``high``."""
    try:
        value = int(text.strip()) if whole else float(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not {'a whole number' if whole else 'a number'}") from None
    if low is not None and value < low:
        raise ValueError(f"{text} is below {low}")
    if high is not None and value > high:
        raise ValueError(f"{text} is above {high}")
    return value


def _numba_wanted(text: str) -> bool:
    # Imported here, after the .env file is loaded: core reads the setting at its import.
    from core.jit import wanted

    return wanted(text)


def _shard_ids(text: str) -> tuple[int, ...] | None:
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not all(part.isdigit() for part in parts):
        raise ValueError(f"{text!r} is not a comma-separated list of shard numbers")
    return tuple(int(part) for part in parts) or None


def check_telegram_token(token: str) -> str:
    """A token as BotFather gives it: the bot's number, a colon and a key of letters, digits,
    ``_`` and ``-`` (quotes, spaces or a ``bot`` prefix pasted with it are refused)."""
    if not re.fullmatch(r"[0-9]{1,20}:[A-Za-z0-9_-]+", token.strip()):
        raise ValueError("not a token as @BotFather gives it (digits, a colon, then the key)")
    return token.strip()


def check_database_url(url: str) -> str:
    """``DATABASE_URL`` in a form the storage accepts (bot/storage/factory.py)."""
    from bot.storage.factory import postgres_dsn_from_url, sqlite_path_from_url

    scheme = url.strip().partition("://")[0].lower()
    if scheme.startswith("postgres"):
        postgres_dsn_from_url(url)
    else:
        sqlite_path_from_url(url)
    return url.strip()


def check_log_level(level: str) -> str:
    """One of Python's logging levels."""
    if level.strip().upper() not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise ValueError(f"{level!r} is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL")
    return level.strip().upper()


def check_log_format(form: str) -> str:
    """``text`` or ``json``."""
    if form.strip().lower() not in ("text", "json"):
        raise ValueError(f"{form!r} is not text or json")
    return form.strip().lower()


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
