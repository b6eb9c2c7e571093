"""Logging set-up that keeps secrets out of logs."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from datetime import UTC, datetime


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


#: The text format's line: time, level, logger, message.
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object a line, for log collectors (``LOG_FORMAT=json``): ``time`` (ISO 8601,
    UTC), ``level``, ``logger``, ``message``, and ``exception`` (the traceback) when there is
    one. ``secrets`` are replaced with ``***`` anywhere in the line, tracebacks included."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        clean = {key: _redacted(value, self.secrets) for key, value in entry.items()}
        return json.dumps(clean, ensure_ascii=False)


class RedactingFormatter(logging.Formatter):
    """The text format, with ``secrets`` replaced by ``***`` in the whole record: a secret
    in an exception's message reaches the traceback, which filters do not see."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        super().__init__(TEXT_FORMAT)
        self.secrets = [s for s in secrets if s]

    def format(self, record: logging.LogRecord) -> str:
        return _redacted(super().format(record), self.secrets)


def _redacted(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "***")
    return text


def quiet_http_clients() -> None:
    """httpx logs every request URL at INFO, and Telegram's URLs contain the bot token."""
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)


def configure(level: str, secrets: Iterable[str | None], form: str = "text") -> None:
    """Log to standard error at ``level``, as text lines or JSON objects (``form``), with
    every handler redacting ``secrets``."""
    secrets = [s for s in secrets if s]
    logging.basicConfig(level=level.upper(), format=TEXT_FORMAT, force=True)
    formatter = JsonFormatter(secrets) if form == "json" else RedactingFormatter(secrets)
    redact = RedactSecrets(secrets)
    for handler in logging.getLogger().handlers:
        handler.addFilter(redact)
        handler.setFormatter(formatter)
    quiet_http_clients()
