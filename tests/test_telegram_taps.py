# ruff: noqa: F811  (the fake and bot fixtures come from tests/test_telegram.py)
"""Fewer taps end to end: the real python-telegram-bot application and the bot's
Telegram adapter against the local fake Bot API.

A whole Uzun Tavla game in a group where nobody presses Roll (there is no cube), picks that
change only the keyboard (``editMessageReplyMarkup``, no picture uploaded) and ``/settings``
in a private chat, edited in place.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.service import actions as A
from bot.service.keypad import KeypadLimits
from bot.storage.base import GameStatus, PlayerPrefs
from core.game import Phase
from core.match import Match
from tests.test_telegram import (  # noqa: F401  (bot and fake are fixtures)
    GROUP_ID,
    awaiting,
    board_message,
    bot,
    buttons,
    fake,
    find,
    game_record,
    open_game,
    press,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ORDER = (A.TAKE, A.CONFIRM, A.MOVE, A.SELECT, A.ROLL)


async def open_uzun(fake):
    ali = fake.user(11, "Ali", username="ali", language_code="tr")
    veli = fake.user(22, "Veli", username="veli", language_code="en")
    group = fake.group(GROUP_ID, "Kahvehane")
    await fake.send_text(ali, group, "/uzun 1")
    challenge = await fake.wait_for(
        lambda: next((m for m in fake.messages(group) if find(m, A.ACCEPT)), None), 10
    )
    await press(fake, veli, group, challenge, find(challenge, A.ACCEPT))
    await fake.wait_for(lambda: any(m.get("photo") for m in fake.messages(group)), 10)
    return ali, veli, group


async def test_an_uzun_game_needs_no_roll_press_and_picks_edit_only_the_keyboard(fake, bot):
    ali, veli, group = await open_uzun(fake)
    users = {"11": ali, "22": veli}
    # Checkers are picked first whenever a roll has more than a few plays (as when there are
    # too many moves to show), so picks happen in this game.
    bot.service.settings.keypad["telegram"] = KeypadLimits(plays=12, moves=0)
    picks = 0
    for _ in range(3000):
        record = await game_record(bot)
        if record.status is not GameStatus.ACTIVE:
            break
        message = board_message(fake, group)
        assert find(message, A.ROLL) is None  # no cube: the bot rolls
        actor = await awaiting(bot, users)
        code = next(c for c in ORDER if find(message, c))
        uploads = len(fake.calls_to("editMessageMedia")) + len(fake.calls_to("sendPhoto"))
        keyboards = len(fake.calls_to("editMessageReplyMarkup"))
        answer = await press(fake, actor, group, message, find(message, code))
        assert not answer.get("text"), answer
        if code == A.SELECT and find(board_message(fake, group), A.BACK):
            picks += 1
            # A pick changed the buttons alone: no picture drawn or uploaded for it.
            await fake.wait_for(
                lambda k=keyboards: len(fake.calls_to("editMessageReplyMarkup")) > k, 10
            )
            assert (
                len(fake.calls_to("editMessageMedia")) + len(fake.calls_to("sendPhoto")) == uploads
            )
    record = await game_record(bot)
    assert record.status is GameStatus.FINISHED
    assert not fake.calls_to("editMessageReplyMarkup", ok=False)
    assert picks > 0


async def test_settings_in_a_private_chat_are_edited_in_place(fake, bot):
    ali = fake.user(11, "Ali", username="ali", language_code="en")
    chat = fake.private_chat(ali)
    await fake.send_text(ali, None, "/settings")
    shown = await fake.wait_for(
        lambda: next((m for m in fake.messages(chat) if buttons(m)), None), 10
    )
    toggle = next(d for d in buttons(shown) if A.decode(d).arg == "r1")
    await press(fake, ali, chat, shown, toggle)
    edited = fake.message(chat, shown["message_id"])
    assert any(A.decode(d).arg == "r0" for d in buttons(edited))  # now on: offers off
    assert len([m for m in fake.messages(chat) if buttons(m)]) == 1  # no second message
    russian = next(d for d in buttons(edited) if A.decode(d).arg == "lru")
    await press(fake, ali, chat, edited, russian)
    assert "Русский" in fake.message(chat, shown["message_id"])["text"]
    user = await bot.storage.find_user("telegram", "11")
    assert user.prefs.auto_roll
    assert user.lang == "ru"


async def never_confirm_by_itself(bot) -> None:
    """Both players ask to confirm every move themselves (/settings)."""
    for uid in ("11", "22"):
        user = await bot.storage.find_user("telegram", uid)
        await bot.storage.set_user_prefs(user.id, PlayerPrefs(auto_confirm="never"))


async def test_confirm_by_itself_then_undo_my_move_in_a_group(fake, bot):
    """The default: with a centred cube the opponent must press Roll or Double anyway, so a
    finished move is handed over at once, and its mover may take it back until then."""
    ali, veli, group = await open_game(fake, bot, "3")
    users = {"11": ali, "22": veli}
    user = await bot.storage.find_user("telegram", "11")
    assert user.prefs == PlayerPrefs()  # nobody changed a setting
    for _ in range(200):  # play on until Ali has a roll to play
        record = await game_record(bot)
        game = Match.from_dict(record.match).game
        if record.seats[game.turn] == user.id and game.phase is Phase.MOVE:
            break
        message = board_message(fake, group)
        actor = await awaiting(bot, users)
        await press(
            fake, actor, group, message, find(message, next(c for c in ORDER if find(message, c)))
        )
    while game.phase is Phase.MOVE and record.seats[game.turn] == user.id:
        message = board_message(fake, group)
        assert find(message, A.CONFIRM) is None  # never asked to confirm
        code = next(c for c in (A.MOVE, A.SELECT) if find(message, c))
        await press(fake, ali, group, message, find(message, code))
        record = await game_record(bot)
        game = Match.from_dict(record.match).game
    # Confirmed by itself: Veli may roll or double, and Ali may still take the move back.
    message = board_message(fake, group)
    assert game.phase is Phase.ROLL
    assert find(message, A.ROLL)
    answer = await press(fake, ali, group, message, find(message, A.UNDO))
    assert not answer.get("text"), answer
    record = await game_record(bot)
    game = Match.from_dict(record.match).game
    assert game.phase is Phase.MOVE
    assert record.seats[game.turn] == user.id


async def shown_as_saved(bot) -> None:
    """Wait until the adapter has confirmed that the board shows the game as saved."""
    for _ in range(500):
        record = await game_record(bot)
        if record.shown_version >= record.version:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the board never caught up with the game")


async def waiting_for_confirm(fake, bot, users, group) -> dict:
    """Play on until the board asks for Confirm and shows the game as saved; that board."""
    for _ in range(200):
        message = board_message(fake, group)
        if find(message, A.CONFIRM):
            break
        actor = await awaiting(bot, users)
        code = next(c for c in ORDER if find(message, c))
        await press(fake, actor, group, message, find(message, code))
    await shown_as_saved(bot)
    return message


async def test_a_confirm_changes_the_caption_only_and_a_lost_board_comes_back_whole(fake, bot):
    ali, veli, group = await open_game(fake, bot, "3")
    users = {"11": ali, "22": veli}
    await never_confirm_by_itself(bot)
    message = await waiting_for_confirm(fake, bot, users, group)
    uploads = len(fake.calls_to("editMessageMedia")) + len(fake.calls_to("sendPhoto"))
    actor = await awaiting(bot, users)
    await press(fake, actor, group, message, find(message, A.CONFIRM))
    record = await game_record(bot)
    game = Match.from_dict(record.match).game
    assert game.phase is Phase.ROLL  # a cube to turn: the opponent rolls or doubles
    assert fake.calls_to("editMessageCaption", ok=True)
    assert len(fake.calls_to("editMessageMedia")) + len(fake.calls_to("sendPhoto")) == uploads
    assert find(board_message(fake, group), A.ROLL)
    # Once more, with the board deleted meanwhile: the caption can't be changed, so the
    # board is posted anew with its picture.
    message = await waiting_for_confirm(fake, bot, users, group)
    fake.fail_next("editMessageCaption", 400, description="Bad Request: message to edit not found")
    actor = await awaiting(bot, users)
    sent = len(fake.calls_to("sendPhoto"))
    await press(fake, actor, group, message, find(message, A.CONFIRM))
    await fake.wait_for(lambda: len(fake.calls_to("sendPhoto")) > sent, 10)
    assert find(board_message(fake, group), A.ROLL) or find(board_message(fake, group), A.MOVE)
