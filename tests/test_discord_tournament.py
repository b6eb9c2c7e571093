"""/tournament on Discord: the slash command, the card's Join and Start buttons (persistent
buttons with a tournament's custom id) and the first round's boards, through the real
discord.py client against the fake (tests/fakes/discord.py)."""

from __future__ import annotations

import pytest

from bot.discord.buttons import PREFIX
from bot.storage.base import GameStatus, TournamentStatus
from core.tournament import Stage, Tournament
from tests.fakes.discord import FakeDiscord
from tests.test_discord import CHANNEL, GUILD, Bot, custom_ids
from tests.test_discord import fake as fake


@pytest.fixture
async def bot(fake, tmp_path):
    running = await Bot(fake, tmp_path / "bot.db", seed=5).start()
    yield running
    if not running.stop_event.is_set():
        await running.stop()


def card_button(fake: FakeDiscord, code: str) -> tuple[dict, str]:
    for message in reversed(fake.channel_messages(CHANNEL)):
        for cid in custom_ids(message):
            if cid.startswith(PREFIX + "tn:") and cid.endswith(":" + code):
                return message, cid
    raise AssertionError("no tournament card")


async def test_open_join_and_start_a_knockout_on_discord(fake, bot):
    players = [
        fake.user(11, "Ali", locale="tr"),
        fake.user(22, "Veli"),
        fake.user(33, "Ayşe", locale="ru"),
        fake.user(44, "Can"),
    ]
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    opened = await fake.slash(bot.client, players[0], channel, "tournament", what="knockout uzun")
    assert opened.acks == 1
    for player in players[1:]:
        message, join = card_button(fake, "j")
        pressed = await fake.press(bot.client, player, message, join)
        assert pressed.acks == 1
        assert pressed.ephemeral() == []
    message, start = card_button(fake, "s")
    refused = await fake.press(bot.client, players[1], message, start)
    assert refused.ephemeral()  # only the organiser may start, said privately
    started = await fake.press(bot.client, players[0], message, start)
    assert started.acks == 1
    games = await bot.storage.games_in_chat("discord", str(GUILD), (GameStatus.ACTIVE,))
    assert len(games) == 2
    assert all(g.variant == "uzun" for g in games)
    boards = [m for m in fake.channel_messages(channel) if m["attachments"] and custom_ids(m)]
    assert len(boards) >= 2
    (stored,) = await bot.storage.tournaments_in_chat("discord", str(GUILD))
    assert stored.status is TournamentStatus.RUNNING
    assert Tournament.from_dict(stored.state).stage is Stage.RUNNING
