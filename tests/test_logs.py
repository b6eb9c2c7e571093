"""Logs for people and for log collectors (``LOG_FORMAT=json``): secrets are redacted in both
formats, in messages and in tracebacks alike."""

from __future__ import annotations

import io
import json
import logging

import pytest

from bot.logs import configure

SECRET = "123456:AAE-secret_token"


@pytest.fixture
def root_logging():
    """configure() on a clean root logger, put back afterwards."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    root.handlers = []
    yield root
    root.handlers, level = saved
    root.setLevel(level)


def log_once(root: logging.Logger, form: str) -> str:
    configure("INFO", [SECRET, None], form)
    stream = io.StringIO()
    (handler,) = [h for h in root.handlers if type(h) is logging.StreamHandler]
    handler.setStream(stream)  # type: ignore[attr-defined]
    log = logging.getLogger("bot.test")
    log.info("calling https://api.telegram.org/bot%s/getMe", SECRET)
    try:
        raise ConnectionError(f"cannot reach https://api.telegram.org/bot{SECRET}/getUpdates")
    except ConnectionError:
        log.exception("update failed for chat %s", 42)
    return stream.getvalue()


def test_json_lines_carry_the_fields_and_no_secret(root_logging):
    out = log_once(root_logging, "json")
    lines = out.splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["level"] == "INFO"
    assert first["logger"] == "bot.test"
    assert first["message"] == "calling https://api.telegram.org/bot***/getMe"
    assert first["time"].endswith("+00:00")
    assert second["level"] == "ERROR"
    assert second["message"] == "update failed for chat 42"
    assert "ConnectionError" in second["exception"]
    assert SECRET not in out


def test_text_lines_redact_tracebacks_too(root_logging):
    out = log_once(root_logging, "text")
    assert "INFO bot.test: calling https://api.telegram.org/bot***/getMe" in out
    assert "Traceback" in out
    assert "ConnectionError: cannot reach https://api.telegram.org/bot***/getUpdates" in out
    assert SECRET not in out
