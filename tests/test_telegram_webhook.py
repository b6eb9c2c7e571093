"""The webhook takes updates from Telegram only, end to end.

The bot runs in webhook mode (python-telegram-bot's own webhook server) against the fake Bot
API, which delivers its updates by POST with the secret it was given in ``setWebhook``, as
Telegram does. Someone else posting a hand-made update to the webhook, to act as any user,
is refused (403) and nothing comes of it.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import replace

import aiohttp
import pytest

from bot.config import Config
from bot.service import actions as A
from bot.storage.sqlite import SqliteStorage
from bot.telegram import run_telegram
from bot.telegram.webhook import webhook_secret
from tests.drivers import free_port
from tests.factory import make_service
from tests.fakes.telegram import FakeBotAPI
from tests.test_telegram import config_for, find

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
GROUP_ID = -4242


@pytest.fixture
async def fake():
    async with FakeBotAPI(flood=None) as server:
        yield server


def forged_command(user: dict, chat: dict, text: str) -> dict:
    """An update as an attacker writes it: a command "from" any user, in any chat."""
    command = text.split()[0]
    return {
        "update_id": 900_001,
        "message": {
            "message_id": 77,
            "date": int(time.time()),
            "chat": chat,
            "from": user,
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(command)}],
        },
    }


async def test_a_forged_webhook_post_is_refused_and_creates_nothing(fake, tmp_path):
    port = free_port()
    storage = SqliteStorage(str(tmp_path / "hook.db"))
    await storage.open()
    service = make_service(storage, burst_actions=10**6, render_images=False)
    url = f"http://127.0.0.1:{port}/telegram"
    config = replace(config_for(fake), telegram_webhook_url=url, telegram_webhook_port=port)
    stop = asyncio.Event()
    task = asyncio.create_task(run_telegram(config, service, stop, tick_seconds=3600))
    try:
        await fake.wait_calls("setWebhook", 1, 10)
        # setWebhook received the secret, which Telegram then sends with every update.
        secret = fake.webhook["secret_token"]
        assert secret == webhook_secret(config)
        assert re.fullmatch(r"[A-Za-z0-9_-]{32,256}", secret)

        # Telegram's own deliveries (with the secret) are served.
        veli = fake.user(22, "Veli", username="veli")
        await fake.send_text(veli, None, "/help")
        await fake.wait_for(lambda: fake.messages(fake.private_chat(veli)), 10)

        ali = fake.user(11, "Ali", username="ali")
        group = fake.group(GROUP_ID, "Kahvehane")
        forged = forged_command(ali.to_dict(), group.to_dict(), "/tavla 3")
        async with aiohttp.ClientSession() as http:
            for headers in ({}, {SECRET_HEADER: "guess"}, {SECRET_HEADER: secret[:-1]}):
                async with http.post(url, json=forged, headers=headers) as answer:
                    assert answer.status == 403, headers

            # Telegram's next update is served; the forged ones came to nothing: no
            # challenge, not even the user was seen.
            await fake.send_text(veli, None, "/help")
            await fake.wait_for(lambda: len(fake.messages(fake.private_chat(veli))) == 2, 10)
            assert "/tavla" in fake.messages(fake.private_chat(veli))[-1]["text"]
            assert not fake.messages(group)
            assert await storage.find_user("telegram", "11") is None

            # The very same update with the secret is taken: the header alone made the
            # difference.
            async with http.post(url, json=forged, headers={SECRET_HEADER: secret}) as answer:
                assert answer.status == 200
            challenge = await fake.wait_for(
                lambda: next((m for m in fake.messages(group) if find(m, A.ACCEPT)), None), 10
            )
            assert "Ali" in challenge["text"]
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)
        await storage.close()


def test_the_webhook_listens_on_loopback_unless_told_otherwise(monkeypatch):
    for name in ("TELEGRAM_WEBHOOK_LISTEN", "TELEGRAM_WEBHOOK_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TELEGRAM_TOKEN", "123:ABC")
    assert Config.from_env(env_file=None).telegram_webhook_listen == "127.0.0.1"
    monkeypatch.setenv("TELEGRAM_WEBHOOK_LISTEN", "0.0.0.0")
    assert Config.from_env(env_file=None).telegram_webhook_listen == "0.0.0.0"


def test_the_webhook_secret_is_configured_or_derived_from_the_token(monkeypatch):
    monkeypatch.delenv("TELEGRAM_WEBHOOK_SECRET", raising=False)
    monkeypatch.setenv("TELEGRAM_TOKEN", "123:ABC")
    derived = webhook_secret(Config.from_env(env_file=None))
    # The same in every worker and after a restart; another bot's differs; no token in it.
    assert derived == webhook_secret(Config.from_env(env_file=None))
    assert re.fullmatch(r"[0-9a-f]{64}", derived)
    monkeypatch.setenv("TELEGRAM_TOKEN", "456:DEF")
    assert webhook_secret(Config.from_env(env_file=None)) != derived

    monkeypatch.setenv("TELEGRAM_WEBHOOK_SECRET", "Our_own-secret-42")
    assert webhook_secret(Config.from_env(env_file=None)) == "Our_own-secret-42"
    for bad in ("with space", "x" * 257, "ünï"):
        monkeypatch.setenv("TELEGRAM_WEBHOOK_SECRET", bad)
        with pytest.raises(ValueError, match="TELEGRAM_WEBHOOK_SECRET"):
            Config.from_env(env_file=None)
