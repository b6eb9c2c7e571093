"""The web board's button on Telegram boards (issue 14): a web_app button in private chats,
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


def test_group_gets_the_direct_mini_app_link_or_the_watch_link():
    web_telegram.enable_web_board(
        config(web_base_url=BASE, telegram_webapp="board"), SimpleNamespace(), BOT
    )
    [[_roll], [button]] = rows(web_telegram.with_web_board(_markup(), BOARD, -100, BOT))
    assert button["url"] == direct_link("tavlabot", "board", 12)
    assert button["url"] == "https://t.me/tavlabot/board?startapp=g12"
    web_telegram.enable_web_board(config(web_base_url=BASE), SimpleNamespace(), BOT)
    [[_roll], [button]] = rows(web_telegram.with_web_board(_markup(), BOARD, -100, BOT))
    assert button["url"].startswith(f"{BASE}/#game=12&watch=")


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
