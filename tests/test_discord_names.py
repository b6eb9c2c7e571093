"""Names on Discord are shown as written, never as markdown or mentions: a player called
``[Free Nitro](https://ev.il)`` is not a link in the bot's messages (bot/discord/adapter.py
escapes every text it writes). Through the real discord.py client against the local fake."""

from __future__ import annotations

import re

from bot.discord.adapter import mentioned
from bot.i18n import t
from bot.service import actions as A
from bot.service.mentions import Mention
from bot.service.views import View
from tests.test_discord import CHANNEL, GUILD, bot, fake, find, step_once

__all__ = ["bot", "fake"]  # the fixtures, imported for the tests below

LINK = "[Free Nitro](https://ev.il)"
LOUD = "**big** _it_ ~~s~~ ||x|| `c`"
PING = "@everyone <@123456789012345678>"


def unescaped(content: str) -> str:
    """What Discord shows of ``content``: backslash escapes and zero-width spaces removed."""
    return re.sub(r"\\(.)", r"\1", content).replace("\u200b", "")


def live_markdown(content: str) -> list[str]:
    """Markdown and mentions Discord would act on in ``content``: a masked link, any
    unescaped emphasis, spoiler or code mark, @everyone, a user mention by id."""
    found = re.findall(r"(?<!\\)\[[^\]]*\]\(", content)
    found += re.findall(r"(?<!\\)[*_~|`]", content)
    found += re.findall(r"@everyone|<@!?&?\d{17,20}>", content)
    return found


async def test_names_with_markdown_are_shown_as_written(fake, bot):
    nitro = fake.user(11, LINK, locale="en-US")
    loud = fake.user(22, LOUD, locale="en-US")
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    await fake.slash(bot.client, nitro, channel, "tavla", opponent=loud, points=1)
    message = next(m for m in fake.channel_messages(channel) if find(m, A.ACCEPT))
    await fake.press(bot.client, loud, message, find(message, A.ACCEPT))
    users = {"11": nitro, "22": loud}
    for _ in range(6):
        assert await step_once(fake, bot, users)
    pinger = fake.user(33, PING, locale="en-US")
    await fake.slash(bot.client, nitro, channel, "tournament", what="knockout")
    await fake.slash(bot.client, pinger, channel, "tournament", what="join")
    contents = [m["content"] for m in fake.channel_messages(channel)]
    for content in contents:
        assert live_markdown(content) == [], content
    shown = [unescaped(c) for c in contents]
    assert any(LINK in s and LOUD in s for s in shown), shown  # the board's caption
    assert any(LINK in s and PING in s for s in shown), shown  # the tournament's card


def test_a_message_with_mentions_escapes_the_names_around_them():
    view = View(
        [t("{name}, {other} waits", name=Mention("discord", "42", "x"), other=LOUD + PING)],
        lang="en",
    )
    content, allowed = mentioned(view)
    assert content.startswith("<@42>, ")
    assert live_markdown(content.removeprefix("<@42>")) == []
    assert unescaped(content) == f"<@42>, {LOUD}{PING} waits"
    assert [u.id for u in allowed.users] == [42]
