"""Analysis in a Telegram group through the real python-telegram-bot against the fake Bot API:
the Analyse button under a finished board, the "working…" message edited when the
card is ready, play answered meanwhile, and the chat's automatic analysis switched on by an
administrator (Telegram says who is one: getChatMember)."""

from __future__ import annotations

import asyncio

import pytest

from bot.i18n import Text, translate
from bot.service import actions as A
from bot.service.analysis import READY, WORKING
from bot.storage.base import ChatPrefs
from tests.test_service_analysis import hold_analyses
from tests.test_telegram import (
    GROUP_ID,
    board_message,
    bot,
    buttons,
    fake,
    find,
    game_record,
    open_game,
    press,
    step_once,
)

__all__ = ["bot", "fake"]  # the fixtures, imported for the tests below

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def play_to_the_end(fake, bot, users, group) -> int:
    for _ in range(3000):
        if not await step_once(fake, bot, users, group):
            break
    record = await game_record(bot)
    await fake.wait_for(lambda: any("🏆" in m.get("text", "") for m in fake.messages(group)), 10)
    return record.id


def now(fake, group, message: dict) -> dict:
    """The message as it is now (after edits)."""
    return next(m for m in fake.messages(group) if m["message_id"] == message["message_id"])


def texts(fake, group) -> list[str]:
    return [m.get("text") or m.get("caption") or "" for m in fake.messages(group)]


async def test_the_analyse_button_says_working_then_posts_the_card(fake, bot, monkeypatch):
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    game_id = await play_to_the_end(fake, bot, users, group)
    finished = board_message(fake, group)
    analyse = find(finished, A.ANALYSE)
    assert analyse is not None
    assert find(finished, A.REMATCH) is not None
    # The analysis is held until the test lets it go, to show play is answered meanwhile.
    entered, release = hold_analyses(monkeypatch)
    await press(fake, veli, group, finished, analyse)
    # Posted in the group's language (Ali's Turkish, the first heard there), whoever pressed.
    lang = (await bot.storage.get_chat("telegram", str(group.id))).group_lang
    assert lang == "tr"
    said = translate(Text(WORKING.msgid, {"id": game_id}), lang)
    working = await fake.wait_for(
        lambda: next((m for m in fake.messages(group) if m.get("text") == said), None),
        10,
    )
    await asyncio.wait_for(entered.wait(), 10)
    # A new game in the same group goes on while the analysis runs.
    count = len(fake.messages(group))
    await fake.send_text(ali, group, "/tavla 1")
    challenge = await fake.wait_for(
        lambda: next((m for m in fake.messages(group)[count:] if find(m, A.ACCEPT)), None), 10
    )
    await press(fake, veli, group, challenge, find(challenge, A.ACCEPT))
    await fake.wait_for(
        lambda: any(m.get("photo") and buttons(m) for m in fake.messages(group)[count:]), 10
    )
    assert await step_once(fake, bot, users, group)
    done = translate(Text(READY.msgid, {"id": game_id}), lang)
    assert done not in texts(fake, group)
    release.set()
    await bot.service.settle()
    ready = now(fake, group, working)
    assert ready["text"] == done
    card = fake.messages(group)[-1]
    assert card.get("photo")
    assert f"/analyse {game_id}" in card["caption"]


async def test_an_admin_switches_on_the_analysis_of_every_rated_match(fake, bot):
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    fake.admins[GROUP_ID] = {11}

    async def reply_to(user, text: str) -> dict:
        count = len(fake.messages(group))
        await fake.send_text(user, group, text)
        return (await fake.wait_for(lambda: fake.messages(group)[count:] or None, 10))[-1]

    # A member is pointed to their own settings; an admin gets the chat's.
    assert "private" in (await reply_to(veli, "/settings"))["text"]
    shown = await reply_to(ali, "/settings")
    assert "⬜" in shown["text"]
    # The analysis switch (the puzzle of the day and its hours are the other buttons).
    (switch,) = [b for b in buttons(shown) if b.endswith("ga1")]
    answer = await press(fake, veli, group, shown, switch)
    assert "yönetici" not in answer["text"]  # Veli's language: English
    assert "administrators" in answer["text"]
    chat = await bot.storage.get_chat("telegram", str(GROUP_ID))
    assert chat.prefs == ChatPrefs()
    await press(fake, ali, group, shown, switch)
    edited = now(fake, group, shown)
    assert "✅" in edited["text"]
    assert fake.calls_to("getChatMember")  # Telegram was asked who administers the group
    chat = await bot.storage.get_chat("telegram", str(GROUP_ID))
    assert chat.prefs == ChatPrefs(auto_analysis=True)
    # The match in play ends: its analysis follows by itself.
    game_id = await play_to_the_end(fake, bot, users, group)
    await bot.service.settle()
    ready = [t for t in texts(fake, group) if "analizi hazır" in t or "is ready" in t]
    assert ready, texts(fake, group)
    card = fake.messages(group)[-1]
    assert card.get("photo")
    assert f"/analyse {game_id}" in card["caption"]
