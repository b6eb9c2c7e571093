"""The command catalogue feeds the service's dispatch, /help, Telegram's menu and Discord's
command tree: a command added to it is everywhere, and nothing lists a command it lacks."""

from __future__ import annotations

import re

import pytest

from bot.i18n import translate_lines
from bot.service.commands import COMMANDS, Audience, all_names, find_command, help_lines
from bot.service.views import View
from bot.storage.sqlite import SqliteStorage
from tests import test_discord, test_telegram
from tests.factory import make_service
from tests.fakes.discord import FakeDiscord
from tests.fakes.telegram import FakeBotAPI
from tests.test_service import ALI, GROUP

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

UNKNOWN = "I don't know that command"


def text_of(views: list[View]) -> str:
    return "\n".join(translate_lines(v.lines, "en") for v in views)


@pytest.fixture
async def service(tmp_path):
    storage = SqliteStorage(str(tmp_path / "t.db"))
    await storage.open()
    try:
        yield make_service(storage, burst_actions=10**6, render_images=False)
    finally:
        await storage.close()


@pytest.fixture
async def telegram_fake():
    async with FakeBotAPI(flood=None) as server:
        yield server


@pytest.fixture
async def telegram_bot(telegram_fake, tmp_path):
    running = test_telegram.Bot(telegram_fake, tmp_path / "bot.db", seed=7)
    await running.start()
    yield running
    await running.stop()


@pytest.fixture
def discord_fake():
    world = FakeDiscord()
    with world.patch():
        yield world


@pytest.fixture
async def discord_bot(discord_fake, tmp_path):
    running = await test_discord.Bot(discord_fake, tmp_path / "bot.db", seed=7).start()
    yield running
    await running.stop()


def test_names_are_unique_and_valid_on_both_platforms():
    names = list(all_names())
    assert len(names) == len(set(names))
    for command in COMMANDS:
        # Telegram: 1-32 of a-z, 0-9, _; Discord: the same for ours, descriptions ≤ 100.
        assert re.fullmatch(r"[a-z0-9_]{1,32}", command.name)
        assert 1 <= len(command.description.msgid) <= 100
        assert find_command(command.name.upper()) is command


async def test_every_command_and_alias_is_dispatched(service):
    for name in all_names():
        views = await service.command(ALI, GROUP, name, "")
        assert UNKNOWN not in text_of(views), name
    assert UNKNOWN in text_of(await service.command(ALI, GROUP, "nosuchcommand", ""))


async def test_help_lists_every_command(service):
    text = text_of(await service.command(ALI, GROUP, "help", ""))
    for command in COMMANDS:
        if command.name != "help":  # the help does not list itself
            assert f"/{command.name}" in text, command.name
    for line in help_lines():  # each line once
        assert text.count(translate_lines([line], "en")) == 1


async def test_telegram_menu_has_every_command(telegram_fake, telegram_bot):
    everyone = {c.name for c in COMMANDS if c.audience is not Audience.ADMIN}
    admins = {"type": "all_chat_administrators"}
    for lang in ("", "tr", "ru"):
        listed = {c["command"] for c in telegram_fake.commands(language_code=lang)}
        assert listed == everyone
        listed = {c["command"] for c in telegram_fake.commands(scope=admins, language_code=lang)}
        assert listed == {c.name for c in COMMANDS}
    # The admin menu is translated too.
    turkish = telegram_fake.commands(scope=admins, language_code="tr")
    english = telegram_fake.commands(scope=admins, language_code="")
    assert turkish[-1]["command"] == "resettop"
    assert turkish[-1]["description"] != english[-1]["description"]


async def test_discord_tree_has_every_command(discord_fake, discord_bot):
    (synced,) = discord_fake.calls_to("sync_guild")
    commands = {c["name"]: c for c in synced.payload}
    assert set(commands) == {c.name for c in COMMANDS}
    resettop = commands["resettop"]
    assert resettop["dm_permission"] is False
    assert int(resettop["default_member_permissions"]) == 32  # manage the server
    assert {"tr", "ru"} <= set(resettop["description_localizations"])
    # The command reaches the service, which refuses a member who is no admin.
    ali = discord_fake.user(11, "Ali")
    channel = discord_fake.channel(9001, test_discord.GUILD)
    exchange = await discord_fake.slash(discord_bot.client, ali, channel, "resettop")
    [text] = exchange.ephemeral()
    assert "administrators" in text
