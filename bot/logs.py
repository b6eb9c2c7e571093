"""Logging set-up that keeps secrets out of logs."""

from __future__ import annotations

import logging
from collections.abc import Iterable


class RedactSecrets(logging.Filter):
    """Replaces any secret (a bot token) in a record's message and arguments with ``***``."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        cleaned = message
        for secret in self.secrets:
            cleaned = cleaned.replace(secret, "***")
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def quiet_http_clients() -> None:
    """httpx logs every request URL at INFO, and Telegram's URLs contain the bot token."""
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)


def configure(level: str, secrets: Iterable[str | None]) -> None:
    """Log to standard error at ``level``, with every handler redacting ``secrets``."""
    logging.basicConfig(
        level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    redact = RedactSecrets(secrets)
    for handler in logging.getLogger().handlers:
        handler.addFilter(redact)
    quiet_http_clients()
