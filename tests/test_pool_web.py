"""The web board of a pool game between a Telegram player and a Discord player: each opens
their own seat, whichever platform the game's record was made on (the first seat's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

import bot.web.discord as web_discord
from bot.service.views import Actor, Place
from bot.storage.sqlite import SqliteStorage
from bot.web.auth import LinkSigner
from bot.web.hub import ChangeHub
from bot.web.server import WebBoard
from tests.factory import make_service
from tests.test_web_api import NOW, auth, init_data
from tests.test_web_auth import TOKEN

ALI = Actor("telegram", "100", "Ali", None, "en")
VELI = Actor("discord", "200", "Veli", None, "en")


@pytest.fixture
async def pool_game(tmp_path: Path):
    """Veli waits on Discord, Ali comes on Telegram: the game's record is Veli's chat's."""
    storage = SqliteStorage(str(tmp_path / "w.db"))
    await storage.open()
    service = make_service(storage, clock=lambda: NOW, render_images=False)
    service.outlets["telegram"] = service.outlets["discord"] = _drop
    await service.command(VELI, Place("discord", "9200", private=True), "play")
    await service.command(ALI, Place("telegram", "100", private=True), "play")
    await service.settle()
    (record,) = await storage.games_of_user((await storage.find_user("telegram", "100")).id)
    assert record.platform == "discord"
    yield service, record
    await storage.close()


async def _drop(view) -> None:
    return None


async def test_the_telegram_player_opens_their_seat_of_a_game_made_on_discord(pool_game) -> None:
    service, record = pool_game
    board = WebBoard(service, ChangeHub(), LinkSigner("s"), telegram_token=TOKEN, clock=lambda: NOW)
    client = TestClient(TestServer(board.app))
    await client.start_server()
    try:
        resp = await client.get(f"/api/game/{record.id}", headers=auth(init_data(100, "Ali")))
        assert resp.status == 200
        assert (await resp.json())["seat"] == 1
    finally:
        await client.close()


async def test_the_discord_player_gets_their_seat_link_of_a_game_made_on_telegram(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = SqliteStorage(str(tmp_path / "w.db"))
    await storage.open()
    try:
        service = make_service(storage, clock=lambda: NOW, render_images=False)
        service.outlets["telegram"] = service.outlets["discord"] = _drop
        await service.command(ALI, Place("telegram", "100", private=True), "play")
        await service.command(VELI, Place("discord", "9200", private=True), "play")
        await service.settle()
        (record,) = await storage.games_of_user((await storage.find_user("discord", "200")).id)
        assert record.platform == "telegram"
        monkeypatch.setattr(web_discord, "_base_url", "https://board.example")
        monkeypatch.setattr(web_discord, "_signer", LinkSigner("s"))
        answer = await web_discord.board_link(service, record.stored_id, "200", "en")
        assert answer is not None
        assert "Your personal board" in answer
        # A Telegram user with the same number as the Discord player is not them.
        assert "not playing" in (
            await web_discord.board_link(service, record.stored_id, "100", "en")
        )
    finally:
        await storage.close()
