"""Learning on Discord through the real discord.py client against the fake Discord
(tests/fakes/discord.py): a whole guided first game started with /learn, and hints by
consent in an unrated game between two members of a server."""

from __future__ import annotations

import pytest

from bot.service import actions as A
from bot.storage.base import GameStatus
from core.match import Match
from tests.drivers import press_order
from tests.test_discord import CHANNEL, GUILD, custom_ids, find
from tests.test_discord import bot as bot
from tests.test_discord import fake as fake

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def newest_board(fake) -> dict:
    """The newest public message of the channel with a picture and game buttons."""
    return next(
        m for m in reversed(fake.channel_messages(CHANNEL)) if m["attachments"] and custom_ids(m)
    )


def contents(fake) -> list[str]:
    return [m["content"] for m in fake.channel_messages(CHANNEL)]


async def the_game(bot):
    games = await bot.storage.games_in_chat(
        "discord", str(GUILD), (GameStatus.ACTIVE, GameStatus.FINISHED)
    )
    return max(games, key=lambda g: g.id)


async def test_a_whole_guided_first_game_on_discord(fake, bot):
    """/learn uzun in a server channel: the lesson's welcome comes before the first board and
    speaks the member's Russian, the board's buttons take the game to its end (the tutor's
    question answered "play on"), nothing is rated, and the last word says what to try
    next, once."""
    ayse = fake.user(33, "Ayşe", locale="ru")
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    started = await fake.slash(bot.client, ayse, channel, "learn", variant="uzun")
    assert started.acks == 1
    assert started.ephemeral() == []
    said = contents(fake)
    welcome = next(i for i, text in enumerate(said) if "длинные нарды" in text.casefold())
    first_board = next(i for i, m in enumerate(fake.channel_messages(CHANNEL)) if m["attachments"])
    assert welcome < first_board  # the board is explained before it is shown (U-1, U-2)
    record = await the_game(bot)
    assert record.variant == "uzun"
    for _ in range(800):
        record = await the_game(bot)
        if record.status is not GameStatus.ACTIVE:
            break
        board = newest_board(fake)
        code = next(c for c in press_order() if find(board, c))
        pressed = await fake.press(bot.client, ayse, board, find(board, code))
        assert pressed.acks == 1, pressed.kinds()
        assert pressed.ephemeral() == [], pressed.ephemeral()
    assert record.status is GameStatus.FINISHED
    assert not record.rated
    everything = "\n".join(contents(fake))
    assert everything.count("🎓") == 1
    assert "/puzzle" in everything.split("🎓", 1)[1]
    assert "Your " not in everything  # every note in Russian


async def test_hints_by_consent_between_two_members(fake, bot):
    """An unrated challenge on Discord: the player to act presses 💡, the opponent is asked
    in the channel, only the opponent's answer counts, and once allowed the hint is posted
    saying who used it."""
    ali = fake.user(11, "Ali", locale="en-US")
    veli = fake.user(22, "Veli", locale="en-US")
    users = {"11": ali, "22": veli}
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    await fake.slash(bot.client, ali, channel, "tavla", opponent=veli, unrated=True)
    challenge = next(m for m in fake.channel_messages(channel) if find(m, A.ACCEPT))
    assert "Unrated" in challenge["content"]
    await fake.press(bot.client, veli, challenge, find(challenge, A.ACCEPT))
    record = await the_game(bot)
    assert not record.rated
    for _ in range(8):
        record = await the_game(bot)
        match = Match.from_dict(record.match)
        asker = users[(await bot.storage.get_user(record.seats[match.game.awaiting])).platform_id]
        board = newest_board(fake)
        if find(board, A.HINT):
            break
        await fake.press(bot.client, asker, board, find(board, A.ROLL))
    other = veli if asker is ali else ali
    await fake.press(bot.client, asker, board, find(board, A.HINT))
    question = next(m for m in reversed(fake.channel_messages(channel)) if find(m, A.HINT_YES))
    assert "asks to use hints" in question["content"]
    refused = await fake.press(bot.client, asker, question, find(question, A.HINT_YES))
    assert refused.ephemeral()  # the asker cannot allow their own hints
    before = len(fake.channel_messages(channel))
    allowed = await fake.press(bot.client, other, question, find(question, A.HINT_YES))
    assert allowed.ephemeral() == []
    answered = fake.messages[int(question["id"])]
    assert "allowed hints in this game" in answered["content"]
    assert not custom_ids(answered)
    hinted = [m["content"] for m in fake.channel_messages(channel)[before:]]
    assert any(text.startswith(f"💡 {asker.name} used a hint.") for text in hinted), hinted
