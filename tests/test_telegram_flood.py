"""Telegram's per-group flood limit, end to end.

Telegram lets a bot send or edit about twenty messages a minute in one group (edits share the
limit with sends; answers to button presses do not count). Here the fake enforces that limit
and the bot runs with its production rate limiter, both ten times faster than real time, while
two players press the board's buttons at human speed for several turns: no error may reach a
player, every press is answered, and the board in the chat ends at the game's current version.

The fake reads the limit strictly, as a sliding window, and so does the bot's limiter
(bot/telegram/limiter.py): the fake never has to answer 429. (PTB's AIORateLimiter, a leaky
bucket, let the 21st edit after a burst through early; the fake answered 429 and PTB paused
every call of the bot: boards came up to 23 Telegram seconds after a press.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from dataclasses import fields, replace

import pytest

from bot.config import Config
from bot.i18n import LANGUAGES, t, translate
from bot.service import actions as A
from bot.service.service import SLOW_DOWN, ServiceSettings
from bot.storage.base import GameStatus
from bot.telegram.delivery import BOARD_LAGS, SLOW_CHAT
from bot.telegram.limiter import SlidingWindowLimiter, limiter_for
from tests.drivers import press_order
from tests.fakes.telegram import FakeBotAPI, FloodLimits
from tests.test_telegram import (
    Bot,
    awaiting,
    board_message,
    buttons,
    config_for,
    find,
    game_record,
    open_game,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore::DeprecationWarning",
    "ignore:.*retry_after:telegram.warnings.PTBDeprecationWarning",
)

#: Time runs this many times faster than in Telegram: a minute lasts six seconds.
SCALE = 10.0
#: A player looks at the new board this long before pressing (Telegram seconds).
THINK = (1.0, 2.5)
#: Turns played (a turn ends when the other player is to act).
TURNS = 6
#: How long a player waits for the bot's answer or the new board before giving up
#: (Telegram seconds): longer than a whole flood window.
PATIENCE = 150.0


#: What a player would read if something went wrong, in every language: the error handler's
#: apology (an update failed, e.g. on a 429 the rate limiter gave up on), the service's flood
#: guard, a board repair (a board left behind). Named by their catalogue ids, which stay put
#: while the modules that use them move.
TROUBLE = {
    translate(text, lang)
    for text in (
        t("Sorry, something went wrong. Your game is safe; please try again."),
        t("Not so fast, please: wait a few seconds and try again."),
        t("That board was behind the game: it now shows the game as it stands."),
    )
    for lang in LANGUAGES
}


def scaled_rate_limiter(fake: FakeBotAPI, scale: float = SCALE) -> SlidingWindowLimiter:
    """The production rate limiter (bot/telegram build_application with bot/config.py's
    default rates), its periods scaled."""
    rates = {f.name: f.default for f in fields(Config) if f.name.endswith("_rate")}
    return limiter_for(replace(config_for(fake), **rates), scale=scale)


def scaled_settings() -> ServiceSettings:
    """The players' defaults, with every period the service measures scaled too."""
    defaults = ServiceSettings()
    return ServiceSettings(
        theme="classic",
        burst_window=defaults.burst_window / SCALE,
        idle_window=defaults.idle_window / SCALE,
        double_press=defaults.double_press / SCALE,
        repair_after=defaults.repair_after / SCALE,
    )


def shown_version(message: dict) -> int:
    return A.decode(buttons(message)[0]).version


@pytest.fixture
async def flood_fake():
    async with FakeBotAPI(flood=FloodLimits(scale=SCALE)) as server:
        yield server


async def test_two_quick_players_in_a_group_never_see_a_flood_error(flood_fake, tmp_path, caplog):
    fake = flood_fake
    bot = Bot(
        fake,
        tmp_path / "flood.db",
        seed=11,
        settings=scaled_settings(),
        rate_limiter=scaled_rate_limiter(fake),
    )
    caplog.set_level(logging.INFO)
    await bot.start()
    try:
        ali, veli, group = await open_game(fake, bot, "3")
        users = {"11": ali, "22": veli}
        rng = random.Random(13)
        queries: list[str] = []
        board_waits: list[float] = []  # press to new board, in Telegram seconds
        loop = asyncio.get_running_loop()
        turns, last_actor = 0, None
        while turns < TURNS and (await game_record(bot)).status is GameStatus.ACTIVE:
            await asyncio.sleep(rng.uniform(*THINK) / SCALE)  # the player looks at the board
            message = board_message(fake, group)
            actor = await awaiting(bot, users)
            if last_actor is not None and actor is not last_actor:
                turns += 1
            last_actor = actor
            data = next(find(message, code) for code in press_order() if find(message, code))
            before = buttons(message)
            pressed_at = loop.time()
            query = await fake.press(actor, group, message["message_id"], data)
            queries.append(query)
            await fake.wait_for(lambda q=query: q in fake.callback_answers, PATIENCE / SCALE)
            # The player waits for the board the press changed before the next press.
            await fake.wait_for(
                lambda b=before: buttons(board_message(fake, group)) != b, PATIENCE / SCALE
            )
            board_waits.append((loop.time() - pressed_at) * SCALE)
        record = await game_record(bot)
    finally:
        await bot.stop()

    refused = [f"{c.method}: {c.error}" for c in fake.calls if c.status == 429]
    print(
        f"flood: presses={len(queries)} answered_429={len(refused)} "
        f"worst_board_wait={max(board_waits):.1f} mean_board_wait="
        f"{sum(board_waits) / len(board_waits):.1f} (Telegram seconds)"
    )
    assert turns >= TURNS or record.status is GameStatus.FINISHED
    # The limiter kept within the fake's windows: Telegram never had to refuse a call.
    assert not refused, refused
    # No board came later than a whole window after its press.
    assert max(board_waits) < 60, board_waits
    # Every press was answered, never with an error, a "slow down" or a board repair.
    answers = [fake.callback_answers[query].get("text") or "" for query in queries]
    assert not set(answers) & TROUBLE, answers
    assert not [m for m in fake.messages(group) if m.get("text") in TROUBLE]
    # The board in the chat shows the game as it stands.
    assert shown_version(board_message(fake, group)) == record.version
    failures = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert not failures  # no 429 got past the rate limiter to the update's error handler


#: /help messages one user sends at machine speed in a private chat (Telegram delivers the
#: bot's replies there about one a second).
FLOOD = 300
#: How soon another user's command in another chat must be answered meanwhile (seconds).
PROMPT = 1.0


async def test_one_users_flood_never_holds_up_another_chat(flood_fake, tmp_path, caplog):
    """One user floods a private chat with 300 /help; then another user sends /help in
    theirs. The flood guard answers the first commands and says "Not so fast" once, then
    nothing; the answers queue behind the flooded chat's limit without holding up the bot.
    (Each reply waiting there held one of python-telegram-bot's 256 update slots: the other
    user's answer came after the flood's queue, about 45 replies later.)"""
    fake = flood_fake
    bot = Bot(
        fake,
        tmp_path / "busy.db",
        seed=5,
        settings=ServiceSettings(theme="classic"),  # the players' flood guard
        rate_limiter=scaled_rate_limiter(fake),
    )
    caplog.set_level(logging.INFO)
    loop = asyncio.get_running_loop()
    flooder = fake.user(31, "Flo", language_code="en")
    calm = fake.user(32, "Cem", language_code="en")
    flooded, other = fake.private_chat(flooder), fake.private_chat(calm)
    await bot.start()
    try:
        for _ in range(FLOOD):
            await fake.send_text(flooder, flooded, "/help")
        sent_at = loop.time()
        await fake.send_text(calm, other, "/help")
        with contextlib.suppress(TimeoutError):
            await fake.wait_for(lambda: fake.messages(other), 10 * PROMPT)
        waited = loop.time() - sent_at
        print(f"busy chat: another chat's answer after {waited:.3f} s")
        answer = fake.messages(other)
        assert answer, "the other user was not answered"
        assert "/tavla" in answer[0]["text"]
        assert waited < PROMPT
    finally:
        await bot.stop()  # the flooded chat's queue is delivered first

    slow_down = translate(SLOW_DOWN, "en")
    replies = [m.get("text") or "" for m in fake.messages(flooded)]
    notices = [text for text in replies if text == slow_down]
    helps = [text for text in replies if "/tavla" in text]
    print(f"busy chat: {len(helps)} answers and {len(notices)} notices for {FLOOD} commands")
    # One polite notice, then silence: not a reply for each refused command.
    assert 1 <= len(notices) <= 2, len(notices)
    assert len(replies) == len(helps) + len(notices)
    # Every command the flood guard let through was answered (nothing dropped).
    assert len(helps) >= ServiceSettings().burst_actions
    assert not [c for c in fake.calls if c.status == 429]
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_press_in_a_chat_behind_its_limit_is_answered_at_once_and_the_board_says_so(
    tmp_path,
):
    """The group's twenty messages of the minute are used up when a player presses Roll:
    the press is answered at once, saying that the board lags (so the player does not press
    again on the old board); the new board comes when the window has room, its caption
    saying the chat is busy. Telegram never refuses a call."""
    scale = 20.0  # a minute lasts three seconds
    async with FakeBotAPI(flood=FloodLimits(scale=scale)) as fake:
        limiter = scaled_rate_limiter(fake, scale)
        bot = Bot(
            fake, tmp_path / "lag.db", seed=11, settings=scaled_settings(), rate_limiter=limiter
        )
        await bot.start()
        try:
            ali, veli, group = await open_game(fake, bot, "3")
            actor = await awaiting(bot, {"11": ali, "22": veli})
            board = board_message(fake, group)
            data = next(find(board, c) for c in press_order() if find(board, c))

            async def sent_elsewhere() -> bool:
                return True

            while not limiter.backlog(group.id):  # the bot's other messages this minute
                await limiter.process_request(
                    sent_elsewhere, (), {}, "sendMessage", {"chat_id": group.id}, None
                )
            before = buttons(board)
            query = await fake.press(actor, group, board["message_id"], data)
            await fake.wait_for(lambda: query in fake.callback_answers, 1.0)
            edits_when_answered = len(fake.calls_to("editMessageMedia"))
            await fake.wait_for(lambda: buttons(board_message(fake, group)) != before, 10)
        finally:
            await bot.stop()
    answer = fake.callback_answers[query].get("text")
    assert answer in {translate(BOARD_LAGS, lang) for lang in LANGUAGES}
    assert edits_when_answered == 0  # the answer did not wait for the board
    caption = board_message(fake, group)["caption"]
    assert any(translate(SLOW_CHAT, lang) in caption for lang in LANGUAGES), caption
    assert fake.flood.refused == 0
