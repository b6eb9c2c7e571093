"""Each chat's sends, in order, in a queue of its own (bot/telegram/outbox.py).

A send waiting for its chat's flood limit waits in that chat's queue: the update that made it
is done, and other chats go on. Nothing is dropped, except an edit of a board that a newer
edit of the same message, queued after it, makes useless.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from telegram import Bot
from telegram.ext import ApplicationBuilder

from bot.i18n import translate
from bot.service.views import Button, MessageRef, View
from bot.telegram.api import _BotContext
from bot.telegram.delivery import SLOW_CHAT_WEB, Delivery
from bot.telegram.limiter import SlidingWindowLimiter
from bot.telegram.outbox import Outbox
from bot.web import telegram as web_telegram
from tests.fakes.telegram import FakeRequest, FakeTelegram, FloodLimits
from tests.test_web_telegram import BASE
from tests.test_web_telegram import config as web_config

TOKEN = "123:ABC"


async def test_a_chats_sends_run_in_order_and_never_hold_up_another_chat():
    outbox = Outbox()
    done: list[str] = []
    gate = asyncio.Event()
    other_done = asyncio.Event()

    def job(name: str, *, wait: asyncio.Event | None = None, fail: bool = False):
        async def run() -> None:
            if wait is not None:
                await wait.wait()  # as a send waiting for its chat's flood limit
            if fail:
                raise RuntimeError("a send failed")
            done.append(name)
            if name.startswith("b"):
                other_done.set()

        return run

    outbox.post("a", job("a1", wait=gate))
    outbox.post("a", job("a2", fail=True))
    outbox.post("a", job("a3"))
    outbox.post("b", job("b1"))
    await asyncio.wait_for(other_done.wait(), 5)
    assert done == ["b1"]  # chat b went ahead while chat a's first send waits
    assert outbox.waiting("a") == 2
    gate.set()
    await outbox.drain(5)
    # In order; a failed send does not stop the ones after it.
    assert done == ["b1", "a1", "a3"]
    assert outbox.waiting("a") == 0


async def test_a_stopping_bot_drops_what_is_left_after_its_grace():
    outbox = Outbox()
    never = asyncio.Event()
    outbox.post("a", never.wait)
    outbox.post("a", never.wait)
    await outbox.drain(0)
    assert outbox.waiting("a") == 0


class _Service:
    """The bit of the game service :class:`Delivery` calls after an edit."""

    def __init__(self) -> None:
        self.shown: list[int] = []

    async def board_shown(
        self, game_id: int, version: int, message: object = None, shown_in: object = None
    ) -> None:
        self.shown.append(version)


@pytest.fixture
async def bot():
    fake = FakeTelegram(flood=None)
    client = Bot(TOKEN, request=FakeRequest(fake), get_updates_request=FakeRequest(fake))
    await client.initialize()
    yield fake, client
    await client.shutdown()


async def test_a_queued_board_edit_gives_way_to_a_newer_one(bot):
    """Boards pressed while the chat's queue waits (for its flood limit): only the newest
    is sent, in one edit; every edit is confirmed to the service."""
    fake, client = bot
    group = fake.group(-500, "Kahvehane")
    board = await client.send_message(group.id, "board 0")
    ref = MessageRef(board.message_id, chat_id=str(group.id), photo=False)
    service = _Service()
    delivery = Delivery(service)  # type: ignore[arg-type]
    gate = asyncio.Event()
    delivery.outbox.post(str(group.id), gate.wait)  # the chat's queue is held up
    for version in (1, 2, 3):
        view = View([f"board {version}"], game_id=7, edit=True, version=version, message=ref)
        delivery.hand_over([view], _BotContext(client), chat_id=group.id)
    gate.set()
    await delivery.outbox.drain(5)
    edits = [call.params["text"] for call in fake.calls_to("editMessageText")]
    assert edits == ["board 3"]
    assert fake.message(group, board.message_id)["text"] == "board 3"
    assert sorted(service.shown) == [1, 2, 3]


async def test_boards_that_ask_a_player_to_move_go_first_at_the_bots_limit():
    """Through python-telegram-bot and the bot's rate limiter against the strict fake (ten
    times faster than Telegram): sixty notices to sixty groups, then ten boards with buttons
    to ten other groups. The bot's first 30 a second go to the notices handed over first;
    then the boards go before the other notices. Telegram never has to refuse a call."""
    scale = 10.0
    fake = FakeTelegram(flood=FloodLimits(scale=scale))
    limiter = SlidingWindowLimiter(scale=scale)
    app = ApplicationBuilder().token(TOKEN).request(FakeRequest(fake)).rate_limiter(limiter)
    service = _Service()
    async with app.build() as application:
        delivery = Delivery(service)  # type: ignore[arg-type]
        delivery.limiter = limiter
        context = _BotContext(application.bot)
        for n in range(60):
            delivery.hand_over([View([f"notice {n}"])], context, chat_id=fake.group(-1000 - n).id)
        roll = [[Button("Roll", "r")]]
        for n in range(10):
            board = View([f"board {n}"], game_id=n, version=1, buttons=roll)
            delivery.hand_over([board], context, chat_id=fake.group(-2000 - n).id)
        await delivery.outbox.drain(10)
    sent = [call.params["text"] for call in fake.calls_to("sendMessage") if call.status == 200]
    assert len(sent) == 70
    assert sent[30:40] == [f"board {n}" for n in range(10)]
    assert fake.flood.refused == 0


async def test_a_board_that_waited_says_the_chat_is_busy_and_offers_the_web_board():
    """A board that had to wait long for its group's twenty messages a minute says in its
    caption that the chat is busy and points to the web board, whose button it carries; a
    board that did not wait says nothing of it."""
    scale = 20.0  # a minute lasts three seconds
    fake = FakeTelegram(flood=FloodLimits(scale=scale))
    limiter = SlidingWindowLimiter(scale=scale)
    app = ApplicationBuilder().token(TOKEN).request(FakeRequest(fake)).rate_limiter(limiter)
    busy, quiet = fake.group(-100, "Busy"), fake.group(-200, "Quiet")
    roll = [[Button("Roll", "1:1:r")]]
    web_telegram.enable_web_board(web_config(web_base_url=BASE), SimpleNamespace(), None)
    try:
        async with app.build() as application:
            delivery = Delivery(_Service())  # type: ignore[arg-type]
            delivery.limiter = limiter
            context = _BotContext(application.bot)
            for n in range(20):  # the busy group's minute used up
                await application.bot.send_message(busy.id, f"note {n}")
            for chat in (busy, quiet):
                board = View(["Ali to roll"], game_id=1, version=1, buttons=roll)
                board.text_board = "board"
                delivery.hand_over([board], context, chat_id=chat.id)
            await delivery.outbox.drain(10)
    finally:
        web_telegram.disable_web_board()
    slow, fine = fake.messages(busy)[-1], fake.messages(quiet)[-1]
    assert slow["text"].endswith(translate(SLOW_CHAT_WEB, "en"))
    assert fine["text"] == "Ali to roll"
    for message in (slow, fine):  # the web board's button under the board either way
        labels = [b["text"] for row in message["reply_markup"]["inline_keyboard"] for b in row]
        assert translate(web_telegram.WATCH, "en") in labels
    assert fake.flood.refused == 0
