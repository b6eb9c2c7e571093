"""Many games at Telegram's limits: what the bot spares so that every chat keeps up.

Through the real python-telegram-bot application, its production rate limiter and the strict
fake Bot API (Telegram's limits): a press is answered before its picture is drawn (answers
are not limited; drawing may queue behind other chats' pictures); a board edit waiting for
its turn sends the newest board of its message.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from telegram.ext import ApplicationBuilder

from bot.i18n import LANGUAGES, translate
from bot.service import actions as A
from bot.service import boards
from bot.service.play import OWN_ROLLS
from bot.service.views import Button, MessageRef, View
from bot.telegram.api import _BotContext
from bot.telegram.busy import SLOW_CHAT_AFTER
from bot.telegram.delivery import SLOW_CHAT, Delivery
from bot.telegram.limiter import SlidingWindowLimiter
from bot.telegram.shared_limits import SharedSends
from bot.web import relay
from core.game import Phase
from core.match import Match
from tests.drivers import press_order
from tests.fakes.telegram import (
    FLOOD_METHODS,
    FakeBotAPI,
    FakeRequest,
    FakeTelegram,
    FloodLimits,
)
from tests.test_telegram import (
    Bot,
    awaiting,
    board_message,
    buttons,
    find,
    game_record,
    open_game,
)
from tests.test_telegram_flood import SCALE, scaled_rate_limiter, scaled_settings
from tests.test_telegram_limiter import VirtualTime, settle
from tests.test_telegram_outbox import TOKEN, _Service

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


async def test_a_board_edit_waiting_for_the_bots_turn_sends_the_newest_board_in_it():
    """The bot has used its thirty messages of the second: a group's board edit waits for
    its turn, notices to other groups queued behind it. A newer board of the same message
    comes meanwhile: one edit is made, in the first edit's turn (before the notices queued
    after it), showing the newest board; both versions are confirmed to the service.
    (Both boards were sent, the newer one behind the notices.) Virtual time; python-telegram-
    bot with the bot's rate limiter against the strict fake."""
    clock = VirtualTime()
    fake = FakeTelegram(flood=FloodLimits(), clock=clock)
    limiter = SlidingWindowLimiter(clock=clock, sleep=clock.sleep)
    app = ApplicationBuilder().token(TOKEN).request(FakeRequest(fake)).rate_limiter(limiter)
    service = _Service()
    async with app.build() as application:
        context = _BotContext(application.bot)
        group = fake.group(-500, "Kahvehane")
        first = await application.bot.send_message(group.id, "board 0")
        ref = MessageRef(first.message_id, chat_id=str(group.id), photo=False)
        delivery = Delivery(service)  # type: ignore[arg-type]
        delivery.limiter = limiter

        def board(version: int) -> View:
            return View([f"board {version}"], game_id=7, edit=True, version=version, message=ref)

        def notices(numbers: range) -> None:
            for n in numbers:
                chat = fake.group(-1000 - n).id
                delivery.hand_over([View([f"notice {n}"])], context, chat_id=chat)

        notices(range(29))  # with the first board: the bot's 30 of this second
        await settle()
        delivery.hand_over([board(1)], context, chat_id=group.id)
        notices(range(29, 40))
        await settle()
        delivery.hand_over([board(2)], context, chat_id=group.id)
        for _ in range(40):
            await clock.advance(0.1)
        await delivery.outbox.drain(5)
    made = [c.params["text"] for c in fake.calls if c.status == 200 and "text" in c.params]
    assert [text for text in made if text.startswith("board")] == ["board 0", "board 2"]
    assert made.index("board 2") < made.index("notice 29")  # in the first board's turn
    assert fake.message(group, first.message_id)["text"] == "board 2"
    assert 2 in service.shown
    assert fake.flood.refused == 0


async def test_a_chat_board_of_a_game_played_on_the_web_gives_way_to_boards_people_wait_for():
    """The bot has used its thirty messages of the second. A turn played on the web board
    by players who both follow the game on its page ends: its group's board is handed over
    first, then the boards of 40 chat games that ask a player to move, then a newer web
    turn. The chat games' boards go first; the web game's board goes once none waits, in one
    edit showing its newest turn. Its end, handed over as nobody follows the page any more,
    still reaches the group. (The web game's board took an urgent slot before the chats'.)
    Virtual time; python-telegram-bot with the bot's rate limiter against the strict fake."""
    clock = VirtualTime()
    fake = FakeTelegram(flood=FloodLimits(), clock=clock)
    limiter = SlidingWindowLimiter(clock=clock, sleep=clock.sleep)
    app = ApplicationBuilder().token(TOKEN).request(FakeRequest(fake)).rate_limiter(limiter)
    service = _Service()
    async with app.build() as application:
        context = _BotContext(application.bot)
        delivery = Delivery(service)  # type: ignore[arg-type]
        delivery.limiter = limiter

        async def relayed(views: list[View], chat_id: str) -> None:
            delivery.relayed(views, context, chat_id)

        async def board_of(chat: int, text: str) -> MessageRef:
            sent = await application.bot.send_message(chat, text)
            return MessageRef(sent.message_id, chat_id=str(chat), photo=False)

        def board(game: int, version: int, ref: MessageRef, text: str) -> View:
            roll = [[Button("Roll", A.encode(game, version, A.ROLL, ""))]]
            return View([text], game_id=game, edit=True, version=version, message=ref, buttons=roll)

        web_group = fake.group(-500, "Kahvehane")
        web_ref = await board_of(web_group.id, "web 0")
        chats = [fake.group(-2000 - n).id for n in range(40)]
        refs = []
        for n, chat in enumerate(chats):
            if n % 25 == 24:
                await clock.advance(1.1)  # the bot's 30 a second
            refs.append(await board_of(chat, f"chat {n} 0"))
        await clock.advance(60.0)  # a minute later: every group's window is free again
        for n in range(30):
            await application.bot.send_message(fake.group(-1000 - n).id, "elsewhere")
        relay.register("telegram", relayed, draws=True)
        try:

            async def drawn(view: View) -> View:  # (the adapter draws: not called)
                return view

            chat_id = str(web_group.id)
            await relay.deliver(
                "telegram", chat_id, [board(7, 1, web_ref, "web 1")], drawn, on_page=True
            )
            await settle()
            for n, (chat, ref) in enumerate(zip(chats, refs, strict=True)):
                delivery.hand_over([board(100 + n, 1, ref, f"chat {n} 1")], context, chat_id=chat)
            await relay.deliver(
                "telegram", chat_id, [board(7, 2, web_ref, "web 2")], drawn, on_page=True
            )
            for _ in range(40):
                await clock.advance(0.1)
            end = [board(7, 3, web_ref, "web over"), View(["🏆 Ali wins!"], game_id=7)]
            await relay.deliver("telegram", chat_id, end, drawn, on_page=False)
            for _ in range(20):
                await clock.advance(0.1)
            await delivery.outbox.drain(5)
        finally:
            relay.unregister("telegram")
    made = [c.params["text"] for c in fake.calls if c.status == 200 and "text" in c.params]
    edits = made[made.index("elsewhere") :]
    web = [text for text in edits if text.startswith("web")]
    assert web == ["web 2", "web over"]  # the newest turn's board in one edit, then the end
    assert all(edits.index(f"chat {n} 1") < edits.index("web 2") for n in range(40))
    assert fake.message(web_group, web_ref.message_id)["text"] == "web over"
    assert "🏆 Ali wins!" in made
    assert fake.flood.refused == 0


async def test_in_a_chat_behind_its_limit_a_turn_costs_one_board_showing_the_next_dice(tmp_path):
    """The group's twenty messages of the minute are used up: the chat is busy. The player
    to move plays their turn; the board that follows shows the other player's dice and asks
    them to move (no Roll press, no Confirm: one edit a press), says the chat is busy, and
    offers each player to roll themselves to keep the cube. The other's press of that button
    is only answered: no message. Telegram never refuses a call."""
    scale = 20.0  # a minute lasts three seconds
    async with FakeBotAPI(flood=FloodLimits(scale=scale)) as fake:
        limiter = scaled_rate_limiter(fake, scale)
        bot = Bot(
            fake, tmp_path / "busy.db", seed=11, settings=scaled_settings(), rate_limiter=limiter
        )
        await bot.start()
        try:
            ali, veli, group = await open_game(fake, bot, "3")
            users = {"11": ali, "22": veli}
            mover = await awaiting(bot, users)

            async def sent_elsewhere() -> bool:
                return True

            while limiter.backlog(group.id) < SLOW_CHAT_AFTER:  # the minute's messages
                await limiter.process_request(
                    sent_elsewhere, (), {}, "sendMessage", {"chat_id": group.id}, None
                )
            counted = len([c for c in fake.calls if c.method in FLOOD_METHODS])
            presses = 0
            while await awaiting(bot, users) is mover:
                board = board_message(fake, group)
                data = next(find(board, c) for c in press_order() if find(board, c))
                before = buttons(board)
                query = await fake.press(mover, group, board["message_id"], data)
                presses += 1
                await fake.wait_for(lambda q=query: q in fake.callback_answers, 10)
                await fake.wait_for(lambda b=before: buttons(board_message(fake, group)) != b, 10)
            board = board_message(fake, group)
            made = len([c for c in fake.calls if c.method in FLOOD_METHODS]) - counted
            other = veli if mover is ali else ali  # to move next
            keep = [d for d in buttons(board) if A.decode(d).code == A.OWN_ROLLS]
            record = await game_record(bot)
            game, shown = Match.from_dict(record.match).game, record.version
            seat = game.awaiting  # the other's
            mine = next(d for d in keep if A.decode(d).arg == str(seat))
            query = await fake.press(other, group, board["message_id"], mine)
            await fake.wait_for(lambda: query in fake.callback_answers, 10)
            after = len([c for c in fake.calls if c.method in FLOOD_METHODS]) - counted
            record = await game_record(bot)
        finally:
            await bot.stop()
    assert made == presses  # one board a press, none for a roll or a confirmation
    assert game.phase is Phase.MOVE  # the other's dice rolled, shown on the board
    assert A.decode(buttons(board)[0]).version == shown  # the board is current
    assert find(board, A.ROLL) is None
    assert any(translate(SLOW_CHAT, lang) in board["caption"] for lang in LANGUAGES)
    assert len(keep) == 2  # the cube is centred: either player may ask for it
    told = {translate(OWN_ROLLS, lang) for lang in LANGUAGES}
    assert fake.callback_answers[query]["text"] in told
    assert after == made  # only answered
    assert len(record.settings.own_rolls) == 1
    assert fake.flood.refused == 0


async def test_two_workers_share_a_groups_twenty_messages_a_minute(postgres_url):
    """Two workers of the bot send to one group, each through python-telegram-bot with its
    own rate limiter, against the strict fake (a minute lasts three seconds): fifteen each.
    The second hears of the first one's fifteen through the database, sends five and waits
    for the minute for the rest: Telegram never refuses one. (Each counted only its own:
    the second sent its fifteen at once and Telegram refused ten.)"""
    scale = 20.0
    fake = FakeTelegram(flood=FloodLimits(scale=scale))
    group = fake.group(-700, "Shared")
    limiters = [SlidingWindowLimiter(scale=scale, overall=15) for _ in range(2)]
    heard: list[str] = []
    listener = limiters[1].heard
    limiters[1].heard = lambda chat_id, at: (heard.append(chat_id), listener(chat_id, at))  # type: ignore[method-assign]
    workers = [SharedSends(limiter) for limiter in limiters]
    for worker in workers:
        await worker.start(postgres_url)
    try:
        first, second = (
            ApplicationBuilder().token(TOKEN).request(FakeRequest(fake)).rate_limiter(limiter)
            for limiter in limiters
        )
        async with first.build() as one, second.build() as two:
            for n in range(15):
                await one.bot.send_message(group.id, f"one {n}")
            for _ in range(500):  # the notifications on their way (no timing: a bound)
                if len(heard) >= 15:
                    break
                await asyncio.sleep(0.01)
            assert len(heard) == 15
            await asyncio.gather(*(two.bot.send_message(group.id, f"two {n}") for n in range(15)))
    finally:
        for worker in workers:
            await worker.close()
    assert fake.flood.refused == 0
    assert len(fake.messages(group)) == 30
