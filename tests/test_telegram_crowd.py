"""Many games at Telegram's limits: what the bot spares so that every chat keeps up.

Through the real python-telegram-bot application, its production rate limiter and the strict
fake Bot API (Telegram's limits, time ten times faster): a press is answered before its
picture is drawn (answers are not limited; drawing may queue behind other chats' pictures).
"""

from __future__ import annotations

import threading

import pytest

from bot.service import boards
from tests.drivers import press_order
from tests.fakes.telegram import FakeBotAPI, FloodLimits
from tests.test_telegram import Bot, awaiting, board_message, buttons, find, open_game
from tests.test_telegram_flood import SCALE, scaled_rate_limiter, scaled_settings

pytestmark = pytest.mark.filterwarnings(
    "ignore::DeprecationWarning",
    "ignore:.*retry_after:telegram.warnings.PTBDeprecationWarning",
)


@pytest.fixture
async def strict_fake():
    async with FakeBotAPI(flood=FloodLimits(scale=SCALE)) as server:
        yield server


async def test_a_press_is_answered_before_its_board_is_drawn(strict_fake, tmp_path, monkeypatch):
    """The drawing thread is held (as when it is busy with other chats' boards) while a
    player presses: the press is answered at once, and the board follows once its picture
    is drawn. (The answer waited for the picture.)"""
    fake = strict_fake
    bot = Bot(
        fake,
        tmp_path / "answer.db",
        seed=11,
        settings=scaled_settings(),
        rate_limiter=scaled_rate_limiter(fake),
    )
    await bot.start()
    gate = threading.Event()
    asked: list[str] = []
    real = boards.render_picture

    def held(view, fmt):
        asked.append(fmt)
        gate.wait(30)
        return real(view, fmt)

    try:
        ali, veli, group = await open_game(fake, bot, "3")
        actor = await awaiting(bot, {"11": ali, "22": veli})
        board = board_message(fake, group)
        data = next(find(board, c) for c in press_order() if find(board, c))
        before = buttons(board)
        monkeypatch.setattr(boards, "render_picture", held)
        try:
            query = await fake.press(actor, group, board["message_id"], data)
            await fake.wait_for(lambda: query in fake.callback_answers, 5)
            changed_when_answered = buttons(board_message(fake, group)) != before
        finally:
            gate.set()
        await fake.wait_for(lambda: buttons(board_message(fake, group)) != before, 10)
    finally:
        gate.set()
        await bot.stop()
    assert asked  # the press's board needed a new picture
    assert not changed_when_answered  # answered while its picture was not drawn yet
    assert not fake.callback_answers[query].get("text")
    assert fake.flood.refused == 0
