"""A server's puzzle of the day through the real discord.py client against the fake Discord
(tests/fakes/discord.py): an administrator turns it on in a channel with /settings and sets
the server's time; the deadline rounds post the puzzle in that channel at the server's hour,
a member's answer is acknowledged to them alone, and the evening's answer is a reply to the
morning's puzzle."""

from __future__ import annotations

import pytest

from bot.discord.buttons import PREFIX
from bot.service import actions as A
from tests.fakes.discord import FakeDiscord
from tests.test_discord import CHANNEL, GUILD, Bot, custom_ids
from tests.test_discord import fake as fake

HOUR = 3600.0
#: 2027-01-15 05:00 UTC: 08:00 in Istanbul.
MORNING = 1_800_000_000.0 - 3 * HOUR


@pytest.fixture
async def bot(fake, tmp_path):
    running = await Bot(fake, tmp_path / "bot.db", seed=3).start()
    running.now = MORNING
    yield running
    if not running.stop_event.is_set():
        await running.stop()


def button(message: dict, arg: str) -> str:
    """The custom id of the settings button with ``arg`` (``0:0:o<arg>``)."""
    return next(c for c in custom_ids(message) if A.decode(c.removeprefix(PREFIX)).arg == arg)


def posts(fake: FakeDiscord, text: str) -> list[dict]:
    return [m for m in fake.channel_messages(CHANNEL) if text in m["content"]]


async def test_a_servers_puzzle_of_the_day_on_discord(fake, bot):
    admin = fake.user(99, "Boss", admin=True)
    veli = fake.user(22, "Veli")
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    await fake.slash(bot.client, admin, channel, "settings")
    (shown,) = [m for m in fake.channel_messages(channel) if "Puzzle of the day" in m["content"]]
    assert len(shown["components"]) <= 5  # Discord's rows
    refused = await fake.press(bot.client, veli, shown, button(shown, "gp1"))
    assert "administrators" in refused.ephemeral()[0]
    for arg in ("gp1", "gz0", "gh9", "gr18"):
        await fake.press(bot.client, admin, fake.messages[int(shown["id"])], button(shown, arg))
    settings = fake.messages[int(shown["id"])]["content"]
    assert "Puzzle of the day: ✅" in settings
    assert "The group's time: Istanbul (UTC+3)." in settings
    chat = await bot.storage.get_chat("discord", str(GUILD))
    assert chat.prefs.puzzle_channel == str(CHANNEL)

    await bot.client.adapter.tick()  # 08:00 in Istanbul: not yet
    assert posts(fake, "Puzzle of the day (") == []
    bot.now += HOUR  # 09:00 there
    await bot.client.adapter.tick()
    (puzzle,) = posts(fake, "Puzzle of the day (")
    assert puzzle["attachments"]  # the board
    assert "18:00 (Istanbul (UTC+3))" in puzzle["content"]
    first = custom_ids(puzzle)[0]
    pid = A.decode(first.removeprefix(PREFIX)).game_id
    answer = (await bot.storage.puzzles.get(pid)).data["answer"]
    right = next(c for c in custom_ids(puzzle) if c.endswith(f"z{answer}"))
    before = len(fake.channel_messages(CHANNEL))
    pressed = await fake.press(bot.client, veli, puzzle, right)
    assert any("Your answer is in" in text for text in pressed.ephemeral())
    again = await fake.press(bot.client, veli, puzzle, right)
    assert any("already" in text for text in again.ephemeral())
    assert len(fake.channel_messages(CHANNEL)) == before  # answers are private

    bot.now += 8 * HOUR  # 17:00 there
    await bot.client.adapter.tick()
    assert posts(fake, "answer to today") == []
    bot.now += HOUR  # 18:00 there
    await bot.client.adapter.tick()
    (said,) = posts(fake, "answer to today")
    assert said["message_reference"]["message_id"] == puzzle["id"]  # a reply to the puzzle
    assert "Found by Veli (1 of 1)" in said["content"]
    assert "1. Veli — 1" in said["content"]
