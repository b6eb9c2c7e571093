"""Analysis in a Discord server through the real discord.py client against the fake Discord:
the Analyse button under a finished board, the "working…" message edited when the
card is ready, and the server's automatic analysis switched on by an administrator (the
interaction carries the member's permissions)."""

from __future__ import annotations

from bot.i18n import Text, t, translate
from bot.service import actions as A
from bot.service.analysis import READY, WORKING
from bot.storage.base import ChatPrefs
from tests.test_discord import (
    CHANNEL,
    GUILD,
    board_message,
    bot,
    custom_ids,
    fake,
    find,
    game_record,
    open_game,
    step_once,
)

__all__ = ["bot", "fake"]  # the fixtures, imported for the tests below


async def play_to_the_end(fake, bot, users) -> int:
    for _ in range(3000):
        if not await step_once(fake, bot, users):
            break
    return (await game_record(bot)).id


def now(fake, message: dict) -> dict:
    """The message as it is now (after edits)."""
    return fake.messages[int(message["id"])]


async def test_the_analyse_button_says_working_then_posts_the_card(fake, bot):
    ali, veli, channel = await open_game(fake, bot)
    game_id = await play_to_the_end(fake, bot, {"11": ali, "22": veli})
    finished = board_message(fake)
    analyse = find(finished, A.ANALYSE)
    assert analyse is not None
    exchange = await fake.press(bot.client, veli, finished, analyse)
    assert exchange.acks == 1
    assert exchange.ephemeral() == []
    # Posted in the server's language (its first speaker's), whoever pressed.
    lang = (await bot.storage.get_chat("discord", str(GUILD))).group_lang or "en"
    said = translate(Text(WORKING.msgid, {"id": game_id}), lang)
    (working,) = [m for m in fake.channel_messages(channel) if m["content"] == said]
    await bot.service.settle()
    done = translate(Text(READY.msgid, {"id": game_id}), lang)
    assert now(fake, working)["content"] == done
    card = fake.channel_messages(channel)[-1]
    assert card["attachments"]
    assert f"/analyse {game_id}" in card["content"]
    assert fake.attachment_bytes(card).startswith(b"\x89PNG")


async def test_an_admin_switches_on_the_analysis_of_every_rated_match(fake, bot):
    ali, veli, channel = await open_game(fake, bot)
    admin = fake.user(11, "Ali", locale="en-US", admin=True)
    # A member is told privately where their own settings are; nothing public.
    exchange = await fake.slash(bot.client, veli, channel, "settings")
    assert "private" in exchange.ephemeral()[0]
    exchange = await fake.slash(bot.client, admin, channel, "settings")
    assert exchange.ephemeral() == []
    # Posted in the server's language (Ali's Turkish, the first heard there), not the admin's.
    heading = translate(t("⚙️ This chat's settings (its administrators may change them):"), "tr")
    (shown,) = [m for m in fake.channel_messages(channel) if heading in m["content"]]
    # The analysis switch (the puzzle of the day and its hours are the other buttons).
    (switch,) = [c for c in custom_ids(shown) if c.endswith("ga1")]
    refused = await fake.press(bot.client, veli, shown, switch)
    assert "administrators" in refused.ephemeral()[0]
    chat = await bot.storage.get_chat("discord", str(GUILD))
    assert chat.prefs == ChatPrefs()
    switched = await fake.press(bot.client, admin, shown, switch)
    assert switched.callback_types() == [7]  # the settings message itself is updated
    assert "✅" in now(fake, shown)["content"]
    chat = await bot.storage.get_chat("discord", str(GUILD))
    assert chat.prefs == ChatPrefs(auto_analysis=True)
    # The game in play ends: its analysis follows by itself, in the game's channel.
    game_id = await play_to_the_end(fake, bot, {"11": ali, "22": veli})
    await bot.service.settle()
    card = fake.channel_messages(CHANNEL)[-1]
    assert card["attachments"]
    assert f"/analyse {game_id}" in card["content"]
