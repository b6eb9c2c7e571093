"""The web board on Discord (issue 14): the board carries "Open the board" and "Watch"; the
button answers a player with a personal seat link and anyone else with the watch link, both
ephemeral; a turn finished on the web edits the channel's board."""

from __future__ import annotations

import dataclasses
import re
from urllib.parse import unquote

import pytest

import tests.test_discord as td
from bot.web import discord as web_discord
from bot.web.auth import LinkSigner, derive_secret
from tests.test_discord import GUILD, Bot, board_message, fake, game_record, open_game

__all__ = ["fake"]  # the fake Discord fixture, shared with test_discord

BASE = "https://board.example.org"


@pytest.fixture
async def web_bot(fake, tmp_path, monkeypatch):
    plain = td.config
    monkeypatch.setattr(
        td,
        "config",
        lambda guild_id=GUILD: dataclasses.replace(plain(guild_id), web_base_url=BASE),
    )
    running = await Bot(fake, tmp_path / "bot.db", seed=7).start()
    yield running
    if not running.stop_event.is_set():
        await running.stop()
    web_discord.disable_web_board()


def components(message):
    return [c for row in message.get("components", []) for c in row.get("components", [])]


async def test_open_the_board_answers_players_and_spectators_privately(fake, web_bot):
    _ali, veli, _channel = await open_game(fake, web_bot)
    board = board_message(fake)
    buttons = components(board)
    opener = next(c for c in buttons if c.get("custom_id", "").startswith("tw:"))
    watch = next(c for c in buttons if c.get("url"))
    record = await game_record(web_bot)
    assert opener["custom_id"] == f"tw:{record.id}"
    signer = LinkSigner(derive_secret(None, [None, "discord-test-token"]))
    assert watch["url"].startswith(BASE + f"/#game={record.id}&watch=")
    signer.check_watch(unquote(watch["url"].split("watch=")[1]), record.id)

    answer = await fake.press(web_bot.client, veli, board, opener["custom_id"])
    assert answer.acks == 1
    [text] = answer.ephemeral()
    token = unquote(re.search(r"link=(\S+)", text).group(1))
    link = signer.check_seat(token, record.id)
    assert record.seats[link.seat] == link.user_id
    assert (await web_bot.storage.get_user(link.user_id)).platform_id == "22"

    ayse = fake.user(33, "Ayşe", locale="ru")
    [text] = (await fake.press(web_bot.client, ayse, board, opener["custom_id"])).ephemeral()
    assert "watch=" in text
    assert "link=" not in text
