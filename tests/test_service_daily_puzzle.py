"""A group's puzzle of the day through the service over a day of the test clock: an
administrator turns it on and sets its hour in /settings; the deadline rounds post it once
at that hour; everyone answers once by the buttons, acknowledged to them alone; the answer,
who found it and the group's leaderboard come in the evening; the next day brings another."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.service import actions as A
from bot.service.zones import day_and_hour
from tests.test_service import ALI, AYSE, GROUP, VELI, service_at, text_of

ADMIN = replace(ALI, admin=True)
HOUR = 3600.0


@pytest.fixture
async def env(tmp_path):
    async with service_at(tmp_path / "t.db") as pair:
        yield pair


def setting(arg: str) -> str:
    return A.encode(0, 0, A.SETTING, "g" + arg)


def puzzles_in(views) -> list:
    return [v for v in views if v.chat == ("test", "-1") and "Puzzle of the day" in text_of([v])]


def posts_of(views) -> list:
    """Every group's puzzle of the day among ``views``."""
    return [v for v in views if "Puzzle of the day" in text_of([v])]


async def test_a_groups_puzzle_of_the_day(env) -> None:
    service, clock = env
    assert day_and_hour(clock.now) == ("2027-01-15", 8)
    (shown,) = await service.command(ADMIN, GROUP, "settings", "")
    assert "Puzzle of the day: ⬜" in text_of([shown])
    refused = await service.press(VELI, GROUP, setting("p1"))  # not an administrator
    assert refused[0].notice
    assert "administrators" in text_of(refused)
    await service.press(ADMIN, GROUP, setting("p1"))
    (shown,) = await service.press(ADMIN, GROUP, setting("h12"))
    assert "Puzzle of the day: ✅" in text_of([shown])
    assert "every day at 12:00" in text_of([shown])
    assert "The group's time: UTC." in text_of([shown])
    assert "Günün bulmacası" in text_of([shown], "tr")
    assert "Задача дня" in text_of([shown], "ru")

    assert puzzles_in(await service.tick()) == []  # 08:00: not yet
    clock.now += 4 * HOUR  # 12:00
    (posted,) = puzzles_in(await service.tick())
    assert puzzles_in(await service.tick()) == []  # posted once
    assert "the answer comes at 20:00 (UTC)" in text_of([posted])
    pid = A.decode(posted.buttons[0][0].action).game_id
    stored = await service.storage.puzzles.get(pid)
    right = stored.data["answer"]
    wrong = next(n for n in range(len(stored.data["candidates"])) if n != right)

    ack = await service.press(ALI, GROUP, A.encode(pid, 0, A.PUZZLE, right))
    assert len(ack) == 1
    assert ack[0].notice  # a toast for Ali alone
    assert "Your answer is in" in text_of(ack)
    assert "Right" not in text_of(ack)  # nobody is told the answer before the evening
    again = await service.press(ALI, GROUP, A.encode(pid, 0, A.PUZZLE, wrong))
    assert again[0].notice
    assert "already" in text_of(again)
    assert (await service.press(VELI, GROUP, A.encode(pid, 0, A.PUZZLE, wrong)))[0].notice
    assert (await service.press(AYSE, GROUP, A.encode(pid, 0, A.PUZZLE, right)))[0].notice

    clock.now += 7 * HOUR  # 19:00: still open
    assert not [v for v in await service.tick() if "answer to today" in text_of([v])]
    clock.now += HOUR  # 20:00
    (answer,) = [v for v in await service.tick() if "answer to today" in text_of([v])]
    assert answer.chat == ("test", "-1")
    text = text_of([answer])
    best = stored.data["candidates"][right]["text"]
    assert f"The answer to today's puzzle: {best}." in text
    assert "Found by Ali, Ayşe (2 of 3)" in text
    assert "1. Ali — 1" in text
    assert "2. Ayşe — 1" in text
    assert not [v for v in await service.tick() if "answer to today" in text_of([v])]
    late = await service.press(VELI, GROUP, A.encode(pid, 0, A.PUZZLE, right))
    assert "closed" in text_of(late)
    # Group answers are not rated: the puzzle rating is for /puzzle in private.
    ali = await service.storage.find_user("test", "100")
    assert (await service.storage.puzzles.player(ali.id)).attempts == 0

    clock.now += 16 * HOUR  # the next day, 12:00: another puzzle
    (tomorrow,) = puzzles_in(await service.tick())
    assert A.decode(tomorrow.buttons[0][0].action).game_id != pid


async def test_no_puzzle_of_the_day_unless_turned_on(env) -> None:
    service, clock = env
    await service.command(ALI, GROUP, "tavla", "")  # the group is known, its setting off
    for _ in range(24):
        clock.now += HOUR
        assert puzzles_in(await service.tick()) == []


async def test_the_groups_own_time_and_the_answer_in_reply(env) -> None:
    """The hours are the group's: Istanbul (UTC+3), posted at 9:00 and answered at 18:00
    there, the answer a reply to the morning's post; the group's day starts at its midnight.
    An offset is chosen an hour at a time."""
    from bot.service.views import MessageRef

    service, clock = env
    clock.now -= 3 * HOUR  # 05:00 UTC, 08:00 in Istanbul
    await service.press(ADMIN, GROUP, setting("p1"))
    await service.press(ADMIN, GROUP, setting("z0"))
    await service.press(ADMIN, GROUP, setting("h9"))
    (shown,) = await service.press(ADMIN, GROUP, setting("r18"))
    said = text_of([shown])
    assert "every day at 9:00" in said
    assert "come at 18:00, in reply to it" in said
    assert "The group's time: Istanbul (UTC+3)." in said
    assert "İstanbul (UTC+3)" in text_of([shown], "tr")
    assert "Стамбул (UTC+3)" in text_of([shown], "ru")
    assert puzzles_in(await service.tick()) == []  # 08:00 there
    clock.now += HOUR  # 06:00 UTC, 09:00 there
    (posted,) = puzzles_in(await service.tick())
    assert "the answer comes at 18:00 (Istanbul (UTC+3))" in text_of([posted])
    await posted.posted(MessageRef(4242, chat_id="-1"))  # where the adapter posted it
    clock.now += 8 * HOUR  # 17:00 there
    assert not [v for v in await service.tick() if "answer to today" in text_of([v])]
    clock.now += HOUR  # 18:00 there
    (answer,) = [v for v in await service.tick() if "answer to today" in text_of([v])]
    assert answer.reply_to is not None
    assert answer.reply_to.message_id == 4242
    clock.now += 6 * HOUR  # 00:00 the next day there (21:00 UTC): a new day, not its hour
    assert puzzles_in(await service.tick()) == []
    clock.now += 8 * HOUR  # 08:00 there
    assert puzzles_in(await service.tick()) == []
    clock.now += HOUR  # 09:00 there
    assert len(puzzles_in(await service.tick())) == 1
    # An hour less, then another: UTC+2, UTC+1; the buttons offer the next steps.
    (shown,) = await service.press(ADMIN, GROUP, setting("op2"))
    assert "The group's time: UTC+2." in text_of([shown])
    labels = [str(b.label) for row in shown.buttons for b in row]
    assert "UTC+1" in labels
    assert "UTC+3" in labels
    chat = await service.storage.get_chat("test", "-1")
    assert chat.prefs.timezone == "UTC+2"


async def test_puzzles_take_turns_over_games_and_groups(env) -> None:
    """The three games take turns, and two groups on the same day get different puzzles
    (the one shown least recently first), not both the oldest."""
    from bot.service.views import Place

    service, clock = env
    other = Place("test", "-2", private=False, title="Çay bahçesi")
    for place in (GROUP, other):
        await service.press(ADMIN, place, setting("p1"))
    clock.now += HOUR  # 09:00 UTC
    posted = {v.chat: v for v in await service.tick() if "Puzzle of the day" in text_of([v])}
    ids = {chat: A.decode(v.buttons[0][0].action).game_id for chat, v in posted.items()}
    assert set(ids) == {("test", "-1"), ("test", "-2")}
    assert ids[("test", "-1")] != ids[("test", "-2")]
    games = []
    today = posted[GROUP_CHAT]
    for _ in range(4):
        stored = await service.storage.puzzles.get(A.decode(today.buttons[0][0].action).game_id)
        games.append(stored.variant)
        clock.now += 24 * HOUR
        (today,) = [v for v in posts_of(await service.tick()) if v.chat == GROUP_CHAT]
    assert games == ["tavla", "turkish", "uzun", "tavla"]


GROUP_CHAT = ("test", "-1")


async def test_a_reply_to_the_puzzle_is_an_answer_and_other_talk_is_not_answered(env) -> None:
    """Only a play in reply to the group's puzzle of the day is an answer: a remark on it, a
    reply to another message and a play sent without a reply are the group's talk (not
    answered); a play it cannot take, or /move with one, is told why and spends no try."""
    from bot.service.views import MessageRef
    from core.learn.puzzles import Puzzle
    from tests.test_puzzle_typed import not_offered

    service, clock = env
    await service.press(ADMIN, GROUP, setting("p1"))
    clock.now += HOUR  # 09:00, the puzzle's hour
    (posted,) = puzzles_in(await service.tick())
    here = MessageRef(4242, chat_id="-1")
    await posted.posted(here)
    pid = A.decode(posted.buttons[0][0].action).game_id
    puzzle = Puzzle.from_dict((await service.storage.puzzles.get(pid)).data)
    best = puzzle.best.text
    for text, replied_to in (
        ("what a puzzle", here),
        (best, MessageRef(4243, chat_id="-1")),  # another message of the bot
        (best, None),
    ):
        assert await service.text(VELI, GROUP, text, replied_to=replied_to) == []
    scope = f"daily:test:-1:{day_and_hour(clock.now)[0]}"
    assert await service.storage.puzzles.attempts(scope) == []
    (told,) = await service.command(VELI, GROUP, "move", "hello", replied_to=here)
    assert told.notice
    assert "To answer the puzzle of the day, press one of its plays" in text_of([told])
    (told,) = await service.text(VELI, GROUP, not_offered(puzzle), replied_to=here)
    assert "is not one of this puzzle's choices" in text_of([told])
    assert "Чтобы ответить на задачу дня" in text_of([told], "ru")
    assert "Günün bulmacasını cevaplamak için" in text_of([told], "tr")
    assert await service.storage.puzzles.attempts(scope) == []
    (said,) = await service.text(VELI, GROUP, best, replied_to=here)
    assert said.notice
    assert f"Your answer is in: {best}." in text_of([said])
    assert [
        (chosen, solved) for _, chosen, solved in await service.storage.puzzles.attempts(scope)
    ] == [(puzzle.answer, True)]
