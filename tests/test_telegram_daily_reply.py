"""A group's puzzle of the day answered by a reply through python-telegram-bot against the
fake Bot API: a play typed in reply to the puzzle (or ``/move`` in reply to it) is that
player's one answer, as a press on its button is. Replies are answered in the replier's
language; a remark on the puzzle is not answered."""

from __future__ import annotations

import pytest

from bot.service import actions as A
from bot.service.daily import scope_of
from bot.service.zones import day_and_hour
from core.learn.puzzles import Puzzle
from tests.test_puzzle_typed import not_offered
from tests.test_telegram import fake, find, press
from tests.test_telegram_learning import bot, newest, puzzle_of_the_day_on

__all__ = ["bot", "fake"]  # the fixtures, imported for the tests below

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def reply(fake, user, group, to: dict, text: str) -> dict:
    """``user`` replies ``text`` to the message ``to``; the bot's reply to it."""
    sent = await fake.send_text(user, group, text, reply_to=to["message_id"])
    return await fake.wait_for(lambda: replying_to(fake, group, sent), 10)


def replying_to(fake, group, message: dict) -> dict | None:
    """The bot's message in reply to ``message``, if any."""
    return next(
        (
            m
            for m in fake.messages(group)
            if (m.get("reply_to_message") or {}).get("message_id") == message["message_id"]
        ),
        None,
    )


async def test_a_play_in_reply_to_the_puzzle_of_the_day(fake, bot) -> None:
    from telegram import Bot as Client

    from bot.service.runner import DeadlineRunner
    from bot.telegram import TelegramAdapter
    from tests.test_telegram import TOKEN

    clock = [1_800_000_000.0 + 3600]  # 09:00 UTC, the puzzle's hour
    bot.service.clock = lambda: clock[0]
    ali = fake.user(11, "Ali", username="ali")
    veli = fake.user(22, "Veli", username="veli", language_code="tr")
    ayse = fake.user(33, "Ayşe", username="ayse", language_code="ru")
    group = fake.group(-100900, "Kahvehane")
    await puzzle_of_the_day_on(fake, group, ali, fake.user(44, "Can", username="can"))
    runner = DeadlineRunner(bot.service)
    async with Client(TOKEN, base_url=fake.base_url, base_file_url=fake.base_file_url) as client:
        TelegramAdapter(bot.service).serve_deadlines(runner, client)
        await runner.round()
        posted = newest(fake, group, lambda m: find(m, A.PUZZLE))
        assert posted is not None
        pid = A.decode(find(posted, A.PUZZLE)).game_id
        puzzle = Puzzle.from_dict((await bot.storage.puzzles.get(pid)).data)
        best = puzzle.best.text
        wrong = next(c.text for n, c in enumerate(puzzle.candidates) if n != puzzle.answer)

        # A remark on the puzzle is the group's talk, not an answer.
        remark = await fake.send_text(veli, group, "zor bulmaca!", reply_to=posted["message_id"])
        # A play that is not among the choices spends no try and says how to answer.
        told = await reply(fake, veli, group, posted, not_offered(puzzle))
        assert "bu bulmacanın seçeneklerinden biri değil" in told["text"], told["text"]
        assert not find(told, A.PUZZLE)  # the choices stay on the puzzle: no second keyboard
        # The best play, as players write it: Veli's one answer, in Turkish.
        said = await reply(fake, veli, group, posted, best.replace("/", "-"))
        assert f"Cevabın alındı: {best}." in said["text"], said["text"]
        clock[0] += 60
        again = await reply(fake, veli, group, posted, wrong)
        assert "zaten yanıtladın" in again["text"]
        # /move in reply to it is an answer too (Ayşe's, in Russian).
        said = await reply(fake, ayse, group, posted, f"/move {wrong}")
        assert f"Ваш ответ принят: {wrong}." in said["text"], said["text"]
        clock[0] += 60
        # A press and a reply share the one try.
        toast = await press(fake, ali, group, posted, A.encode(pid, 0, A.PUZZLE, puzzle.answer))
        assert "Your answer is in" in toast["text"]
        again = await reply(fake, ali, group, posted, wrong)
        assert "You have answered this puzzle already" in again["text"]

        day, _ = day_and_hour(clock[0])
        tries = await bot.storage.puzzles.attempts(scope_of("telegram", str(group.id), day))
        users = {u: (await bot.storage.get_user(u)).name for u, _, _ in tries}
        assert [(users[u], chosen, solved) for u, chosen, solved in tries] == [
            ("Veli", puzzle.answer, True),
            ("Ayşe", next(n for n, c in enumerate(puzzle.candidates) if c.text == wrong), False),
            ("Ali", puzzle.answer, True),
        ]
        clock[0] += 11 * 3600  # 20:00: the answer
        await runner.round()
        answer = newest(fake, group, lambda m: "answer to today" in m.get("text", ""))
        assert "Found by Veli, Ali (2 of 3)" in answer["text"]
        # The answer is out: a reply to the puzzle is told it is closed.
        closed = await reply(fake, ayse, group, posted, best)
        assert "Эта задача закрыта" in closed["text"]
    assert replying_to(fake, group, remark) is None
