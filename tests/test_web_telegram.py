"""The web board's button on Telegram boards: a web_app button in private chats,
the direct Mini App link in groups (or the watch link when no Mini App is registered)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.config import Config
from bot.service.views import Button, View
from bot.web import telegram as web_telegram
from bot.web.links import direct_link
from bot.web.run import signer_for

BASE = "https://board.example.org"


def config(**web: object) -> Config:
    return dataclasses.replace(
        Config(
            telegram_token="1:tok",
            telegram_base_url="http://127.0.0.1:9/bot",
            telegram_base_file_url="http://127.0.0.1:9/file/bot",
            telegram_webhook_url=None,
            telegram_webhook_listen="127.0.0.1",
            telegram_webhook_port=0,
            discord_token=None,
            discord_guild_id=None,
            database_url=None,
            board_dir=Path("data/boards"),
            log_level="INFO",
        ),
        **web,
    )


BOARD = View(["caption"], lang="tr", game_id=12, buttons=[[Button("x", "12:3:r")]], text_board=".")
BOT = SimpleNamespace(username="tavlabot")


@pytest.fixture(autouse=True)
def _reset():
    yield
    web_telegram.disable_web_board()


def rows(markup):
    return [[b.to_dict() for b in row] for row in markup.inline_keyboard]


def test_no_button_unless_the_board_is_served():
    web_telegram.enable_web_board(config(), SimpleNamespace(), BOT)
    assert web_telegram.with_web_board(None, BOARD, 5, BOT) is None


def test_private_chat_gets_a_web_app_button_in_the_reader_s_language():
    web_telegram.enable_web_board(config(web_base_url=BASE), SimpleNamespace(), BOT)
    markup = web_telegram.with_web_board(None, BOARD, 5, BOT)
    [[button]] = rows(markup)
    assert button["web_app"] == {"url": f"{BASE}/?game=12"}
    assert button["text"] == "🎯 Tahtayı aç"


def test_group_gets_the_direct_mini_app_link_and_the_watch_link():
    served = config(web_base_url=BASE, telegram_webapp="board")
    web_telegram.enable_web_board(served, SimpleNamespace(), BOT)
    [[_roll], [button, watch]] = rows(web_telegram.with_web_board(_markup(), BOARD, -100, BOT))
    assert button["url"] == direct_link("tavlabot", "board", signer_for(served), 12)
    # The start_param is signed: it shows the game to the group's onlookers (a made-up
    # "g12" shows it to nobody who is not playing).
    assert button["url"].startswith("https://t.me/tavlabot/board?startapp=g12_")
    assert button["url"].endswith(signer_for(served).group_start(12))
    assert button["text"] == "🎯 Tahtayı aç"
    assert watch["url"].startswith(f"{BASE}/#game=12&watch=")
    # Without a registered Mini App, the watch link alone.
    web_telegram.enable_web_board(config(web_base_url=BASE), SimpleNamespace(), BOT)
    [[_roll], [watch]] = rows(web_telegram.with_web_board(_markup(), BOARD, -100, BOT))
    assert watch["url"].startswith(f"{BASE}/#game=12&watch=")


def test_a_local_http_board_adds_no_button_telegram_would_refuse():
    web_telegram.enable_web_board(
        config(web_base_url="http://127.0.0.1:8080"), SimpleNamespace(), BOT
    )
    assert web_telegram.with_web_board(None, BOARD, 5, BOT) is None


def test_messages_that_are_not_boards_keep_their_buttons():
    web_telegram.enable_web_board(config(web_base_url=BASE), SimpleNamespace(), BOT)
    notice = View(["hello"], lang="en", game_id=12)
    assert web_telegram.with_web_board(None, notice, 5, BOT) is None


def test_web_base_url_must_be_https_except_on_loopback(monkeypatch):
    for url in ("http://127.0.0.1:8080", "http://localhost:8080/", "https://x.org/board/"):
        monkeypatch.setenv("WEB_BASE_URL", url)
        assert Config.from_env(None).web_base_url == url.rstrip("/")
    monkeypatch.setenv("WEB_BASE_URL", "http://board.example.org")
    with pytest.raises(ValueError, match="https"):
        Config.from_env(None)


def _markup():
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup

    return InlineKeyboardMarkup([[InlineKeyboardButton("Roll", callback_data="12:3:r")]])


async def test_a_turn_played_on_the_web_edits_the_group_s_board(tmp_path, monkeypatch):
    """Through the real Telegram adapter and a fake Bot API: the group's board carries the
    direct Mini App link, and a turn played on the web page edits that board in the group."""
    import json

    from aiohttp.test_utils import TestClient, TestServer

    import tests.test_telegram as tt
    from bot.web.auth import LinkSigner
    from bot.web.hub import ChangeHub
    from bot.web.server import WebBoard
    from tests.fakes.telegram import FakeBotAPI
    from tests.test_web_auth import signed

    plain = tt.config_for
    monkeypatch.setattr(
        tt,
        "config_for",
        lambda fake: dataclasses.replace(plain(fake), web_base_url=BASE, telegram_webapp="board"),
    )
    async with FakeBotAPI() as fake:
        bot = tt.Bot(fake, tmp_path / "bot.db", seed=7)
        await bot.start()
        client = None
        try:
            _ali, _veli, group = await tt.open_game(fake, bot)
            board = tt.board_message(fake, group)
            record = await tt.game_record(bot)
            links = [
                b["url"]
                for row in board["reply_markup"]["inline_keyboard"]
                for b in row
                if "url" in b
            ]
            signer = signer_for(tt.config_for(fake))
            assert links[0] == (
                f"https://t.me/{fake.bot_username}/board?startapp={signer.group_start(record.id)}"
            )
            assert links[1].startswith(f"{BASE}/#game={record.id}&watch=")
            web = WebBoard(bot.service, ChangeHub(), LinkSigner("x"), telegram_token=tt.TOKEN)
            client = TestClient(TestServer(web.app))
            await client.start_server()
            match_user = await bot.storage.get_user(record.seats[0])
            first = await client.get(f"/api/game/{record.id}", headers=_tma(match_user, signed))
            state = await first.json()
            if not state["my_turn"]:
                match_user = await bot.storage.get_user(record.seats[1])
            header = _tma(match_user, signed)
            state = await (await client.get(f"/api/game/{record.id}", headers=header)).json()
            edits = len(fake.calls_to("editMessageMedia"))

            async def act(**body) -> dict:
                resp = await client.post(
                    f"/api/game/{record.id}/action",
                    json={**body, "version": state["version"]},
                    headers=header,
                )
                answer = await resp.json()
                assert answer["ok"], answer
                return answer["state"]

            # The opening roll is made: the first player plays it checker by checker.
            while state["legal"]:
                source, dests = next(iter(state["legal"].items()))
                state = await act(action="move", to=dests[0], **{"from": int(source)})
            if "confirm" in state["buttons"]:  # else handed over by itself (/settings)
                state = await act(action="confirm")
            await fake.wait_for(lambda: len(fake.calls_to("editMessageMedia")) > edits, 10)
            edited = tt.board_message(fake, group)
            assert edited["message_id"] == board["message_id"]
            assert json.dumps(edited["reply_markup"]).count("startapp=g") == 1
        finally:
            if client is not None:
                await client.close()
            await bot.stop()


def _tma(user, signed) -> dict[str, str]:
    import json
    import time

    data = json.dumps({"id": int(user.platform_id), "first_name": user.name})
    return {
        "Authorization": "tma "
        + signed({"user": data, "auth_date": str(int(time.time()))}, token="123:ABC")
    }
