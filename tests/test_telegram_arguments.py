# ruff: noqa: F811  (the fake and bot fixtures come from tests/test_telegram.py)
"""An argument a command does not take is refused with the command's usage, in the player's
language, end to end through the real python-telegram-bot application and the local fake
Bot API (``/bot godlike`` quietly started a club game)."""

from __future__ import annotations

import pytest

from bot.i18n import translate
from bot.service.commands import find_command
from tests.test_telegram import GROUP_ID, bot, fake  # noqa: F401  (fixtures)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def test_unknown_words_are_refused_with_the_usage(fake, bot):
    ali = fake.user(11, "Ali", username="ali", language_code="tr")
    chat = fake.private_chat(ali)
    await fake.send_text(ali, None, "/bot godlike")
    reply = await fake.wait_for(lambda: fake.messages(chat) or None, 10)
    usage = translate(find_command("bot").usage_line, "tr")
    assert reply[-1]["text"] == f"“godlike” anlaşılmadı. {usage}"
    assert not any(m.get("photo") for m in fake.messages(chat))  # no game started
    assert await bot.storage.games_in_chat("telegram", str(chat.id)) == []

    group = fake.group(GROUP_ID, "Kahvehane")
    veli = fake.user(22, "Veli", username="veli", language_code="ru")
    await fake.send_text(veli, group, "/top chess")
    refused = await fake.wait_for(lambda: fake.messages(group) or None, 10)
    assert refused[-1]["text"].startswith("Не понял «chess».")
    assert "/top [пул] [длинные|турецкие]" in refused[-1]["text"]
