# ruff: noqa: F811  (the fake and bot fixtures come from tests/test_telegram.py)
"""Resigning asks first, end to end: the real python-telegram-bot application and the bot's
Telegram adapter against the local fake Bot API. ``/resign`` puts "Yes, resign" and "No, play
on" on the board itself (in the player's language), one press offers it, and the computer's
acceptance is told in the board's caption."""

from __future__ import annotations

import pytest

from bot.service import actions as A
from tests.test_telegram import (  # noqa: F401  (bot and fake are fixtures)
    board_message,
    bot,
    buttons,
    fake,
    find,
    press,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def showing(fake, chat, message_id: int, code: str):
    """A wait: the message once it has a button with action ``code``."""

    def check():
        message = fake.message(chat, message_id)
        return message if find(message, code) else None

    return check


def labels(message: dict) -> list[str]:
    markup = message.get("reply_markup") or {}
    return [b["text"] for row in markup.get("inline_keyboard", []) for b in row]


async def test_resigning_against_the_computer_on_move_one_asks_first(fake, bot):
    ali = fake.user(11, "Ali", username="ali", language_code="en")
    chat = fake.private_chat(ali)
    await fake.send_text(ali, None, "/bot")
    board = await fake.wait_for(
        lambda: next((m for m in fake.messages(chat) if m.get("photo")), None), 10
    )
    board_id = board["message_id"]

    await fake.send_text(ali, None, "/resign")
    asked = await fake.wait_for(showing(fake, chat, board_id, A.RESIGN), 10)
    assert "Ali: resign a single game?" in asked["caption"]
    assert labels(asked) == ["Yes, resign", "No, play on"]
    assert "resigned" not in asked["caption"]  # nothing offered yet

    answer = await press(fake, ali, chat, asked, find(asked, A.RESIGN_CANCEL))
    assert not answer.get("text")
    kept = await fake.wait_for(showing(fake, chat, board_id, A.MOVE), 10)
    assert "resign" not in kept["caption"]

    await fake.send_text(ali, None, "/resign gammon")
    asked = await fake.wait_for(showing(fake, chat, board_id, A.RESIGN), 10)
    assert "Ali: resign a gammon (mars)?" in asked["caption"]
    answer = await press(fake, ali, chat, asked, find(asked, A.RESIGN))
    assert not answer.get("text")
    over = await fake.wait_for(showing(fake, chat, board_id, A.REMATCH), 10)
    assert "Ali resigned a gammon (mars): Tavla Bot (club) wins 2 points." in over["caption"]
    assert board_message(fake, chat)["message_id"] == board_id  # the same board, edited


async def test_the_question_is_in_the_players_language(fake, bot):
    ali = fake.user(12, "Ali", username="ali2", language_code="ru")
    chat = fake.private_chat(ali)
    await fake.send_text(ali, None, "/bot uzun")
    board = await fake.wait_for(
        lambda: next((m for m in fake.messages(chat) if m.get("photo")), None), 10
    )
    await fake.send_text(ali, None, "/resign")
    asked = await fake.wait_for(showing(fake, chat, board["message_id"], A.RESIGN), 10)
    assert labels(asked) == ["Да, сдаться", "Нет, играть дальше"]
    assert "Ali: сдаётесь (обычная партия)?" in asked["caption"]
    assert buttons(asked)
