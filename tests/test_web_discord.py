"""The web board on Discord: the board carries "Open the board" and "Watch"; the
button answers a player with a personal seat link and anyone else with the watch link, both
ephemeral; a turn finished on the web edits the channel's board."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from urllib.parse import unquote

import pytest

import tests.test_discord as td
from bot.web import discord as web_discord
from bot.web.auth import LinkSigner, derive_secret
from tests.test_discord import (
    GUILD,
    Bot,
    awaiting,
    board_message,
    fake,
    game_record,
    open_game,
)

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


async def test_a_turn_played_on_the_web_edits_the_channel_s_board(fake, web_bot):
    """End to end through discord.py and the fake Discord: "Open the board" gives the player
    to act a personal link; the turn played on the page with it edits the channel's board
    message in place (a new picture, the next player's buttons, the web buttons kept)."""
    from aiohttp.test_utils import TestClient, TestServer

    from bot.web.hub import ChangeHub
    from bot.web.server import WebBoard

    ali, veli, _channel = await open_game(fake, web_bot)
    board = board_message(fake)
    record = await game_record(web_bot)
    player = await awaiting(web_bot, {"11": ali, "22": veli})
    opener = next(c["custom_id"] for c in components(board) if c.get("custom_id", "")[:3] == "tw:")
    [text] = (await fake.press(web_bot.client, player, board, opener)).ephemeral()
    header = {"Authorization": "link " + unquote(re.search(r"link=(\S+)", text).group(1))}
    signer = LinkSigner(derive_secret(None, [None, "discord-test-token"]))
    web = WebBoard(web_bot.service, ChangeHub(), signer)
    client = TestClient(TestServer(web.app))
    await client.start_server()
    try:
        picture = fake.attachment_bytes(board)
        edits = len(fake.calls_to("edit_message"))

        async def act(state: dict, **body) -> dict:
            resp = await client.post(
                f"/api/game/{record.id}/action",
                json={**body, "version": state["version"]},
                headers=header,
            )
            answer = await resp.json()
            assert answer["ok"], answer
            return answer["state"]

        state = await (await client.get(f"/api/game/{record.id}", headers=header)).json()
        assert state["my_turn"]
        if "roll" in state["buttons"]:
            state = await act(state, action="roll")
        while state["legal"]:
            source, dests = next(iter(state["legal"].items()))
            state = await act(state, action="move", to=dests[0], **{"from": int(source)})
        if "confirm" in state["buttons"]:
            state = await act(state, action="confirm")
        await asyncio.gather(*web._relaying)  # the chat's edit, made off the page's answer
        assert len(fake.calls_to("edit_message")) > edits
        edited = board_message(fake)
        assert edited["id"] == board["id"]  # the same message, edited in place
        assert fake.attachment_bytes(edited) != picture
        fresh = await game_record(web_bot)
        assert fresh.version == state["version"]
        assert fresh.shown_version == fresh.version  # the chat shows the game as it stands
        assert await awaiting(web_bot, {"11": ali, "22": veli}) is not player
        assert any(c.get("custom_id") == opener for c in components(edited))
    finally:
        await client.close()
