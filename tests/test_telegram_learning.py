"""Hints and puzzles in Telegram through the real python-telegram-bot against the fake Bot
API: the 💡 button under a board against the computer, and /puzzle answered right and wrong."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from bot.service import actions as A
from bot.service.settings import ServiceSettings
from bot.storage.base import GameStatus
from tests.test_telegram import Bot, buttons, fake, find, press

__all__ = ["fake"]  # the fixture, imported for the tests below

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
SHOTS = os.environ.get("TAVLA_LEARN_SCREENSHOTS")


@pytest.fixture
async def bot(fake, tmp_path):
    """The bot with the service's own defaults: the tutor on for a new player's first games
    against the computer."""
    settings = ServiceSettings(burst_actions=10**6, theme="classic", tutor_wait=60.0)
    running = Bot(fake, tmp_path / "bot.db", seed=7, settings=settings)
    await running.start()
    yield running
    if not running.stop_event.is_set():
        await running.stop()


def newest(fake, chat, test) -> dict | None:
    return next((m for m in reversed(fake.messages(chat)) if test(m)), None)


async def test_the_hint_button_against_the_computer(fake, bot) -> None:
    ali = fake.user(11, "Ali", username="ali", language_code="tr")
    chat = fake.private_chat(ali)
    await fake.send_text(ali, None, "/bot")
    board = await fake.wait_for(lambda: newest(fake, chat, lambda m: m.get("photo")), 10)
    for _ in range(6):
        if find(board, A.HINT):
            break
        await press(fake, ali, chat, board, find(board, A.ROLL))
        board = newest(fake, chat, lambda m: m.get("photo") and buttons(m))
    hint = find(board, A.HINT)
    assert hint is not None
    count = len(fake.messages(chat))
    await press(fake, ali, chat, board, hint)
    said = await fake.wait_for(
        lambda: next(
            (m for m in fake.messages(chat)[count:] if "💡" in m.get("caption", "")), None
        ),
        10,
    )
    assert "en iyi" in said["caption"]  # Ali's Turkish
    if SHOTS:
        Path(SHOTS, "telegram-hint.png").write_bytes(fake.photo_bytes(chat, said["message_id"]))


async def test_a_puzzle_right_then_wrong(fake, bot) -> None:
    veli = fake.user(22, "Veli", username="veli", language_code="ru")
    chat = fake.private_chat(veli)
    await fake.send_text(veli, None, "/puzzle")
    first = await fake.wait_for(lambda: newest(fake, chat, lambda m: find(m, A.PUZZLE)), 10)
    assert "Задача" in first["caption"]
    if SHOTS:
        Path(SHOTS, "telegram-puzzle.png").write_bytes(fake.photo_bytes(chat, first["message_id"]))
    pid = A.decode(find(first, A.PUZZLE)).game_id
    answer = (await bot.storage.puzzles.get(pid)).data["answer"]
    count = len(fake.messages(chat))
    await press(fake, veli, chat, first, A.encode(pid, 0, A.PUZZLE, answer))
    right = await fake.wait_for(
        lambda: next((m for m in fake.messages(chat)[count:] if "✅" in m.get("text", "")), None),
        10,
    )
    assert "серия 1" in right["text"]
    # One try: a second press is answered with a toast, nothing posted.
    again = await press(fake, veli, chat, first, A.encode(pid, 0, A.PUZZLE, answer))
    assert "уже" in again["text"]
    count = len(fake.messages(chat))
    await press(fake, veli, chat, right, find(right, A.PUZZLE))
    second = await fake.wait_for(
        lambda: next((m for m in fake.messages(chat)[count:] if find(m, A.PUZZLE)), None), 10
    )
    other = A.decode(find(second, A.PUZZLE)).game_id
    assert other != pid
    data = (await bot.storage.puzzles.get(other)).data
    wrong = next(n for n in range(len(data["candidates"])) if n != data["answer"])
    count = len(fake.messages(chat))
    await press(fake, veli, chat, second, A.encode(other, 0, A.PUZZLE, wrong))
    missed = await fake.wait_for(
        lambda: next((m for m in fake.messages(chat)[count:] if "❌" in m.get("text", "")), None),
        10,
    )
    assert "серия 0" in missed["text"]


async def test_a_typed_play_answers_the_open_puzzle(fake, bot) -> None:
    """/puzzle, then the play typed ("24-18 13-11" as players write it): the puzzle's answer,
    as its button gives (it was "You have no game here"); a play not among its choices is
    told how to answer, with the choices again, in the player's language."""
    ayse = fake.user(33, "Ayşe", username="ayse", language_code="ru")
    chat = fake.private_chat(ayse)
    await fake.send_text(ayse, None, "/puzzle")
    shown = await fake.wait_for(lambda: newest(fake, chat, lambda m: find(m, A.PUZZLE)), 10)
    assert "напишите" in shown["caption"]  # the puzzle says a play may be typed
    pid = A.decode(find(shown, A.PUZZLE)).game_id
    data = (await bot.storage.puzzles.get(pid)).data
    count = len(fake.messages(chat))
    await fake.send_text(ayse, None, "hello")
    told = await fake.wait_for(
        lambda: next((m for m in fake.messages(chat)[count:] if find(m, A.PUZZLE)), None), 10
    )
    assert "Чтобы ответить на задачу" in told["text"]
    assert "нет партии" not in told["text"]
    best = data["candidates"][data["answer"]]["text"]
    count = len(fake.messages(chat))
    await fake.send_text(ayse, None, best.replace("/", "-"))
    right = await fake.wait_for(
        lambda: next((m for m in fake.messages(chat)[count:] if "✅" in m.get("text", "")), None),
        10,
    )
    assert "серия 1" in right["text"]


def now(fake, chat, message: dict) -> dict:
    """The message as it is now (after edits)."""
    return next(m for m in fake.messages(chat) if m["message_id"] == message["message_id"])


async def worst_play_made(fake, bot):
    """Ali against the computer (Turkish tavla) has made, checker by checker, a play the
    tutor warns about, still to confirm: Ali, the chat, the board, the game, the advice."""
    from tests.test_service_learning import worst_play

    ali = fake.user(11, "Ali", username="ali", language_code="tr")
    chat = fake.private_chat(ali)
    await fake.send_text(ali, None, "/bot turkish")
    board = await fake.wait_for(lambda: newest(fake, chat, lambda m: m.get("photo")), 10)
    for _ in range(6):
        if find(board, A.HINT):
            break
        await press(fake, ali, chat, board, find(board, A.ROLL))
        board = newest(fake, chat, lambda m: m.get("photo") and buttons(m))
    games = await bot.storage.games_in_chat("telegram", str(chat.id))
    record = max(games, key=lambda g: g.id)
    steps, advice = worst_play(record)
    for step in steps.split("."):  # checker by checker, as a player presses them
        current = now(fake, chat, board)
        data = next(b for b in buttons(current) if b.endswith(f":m{step}"))
        await press(fake, ali, chat, current, data)
    return ali, chat, board, record, advice


async def test_the_tutors_question_and_both_answers(fake, bot) -> None:
    ali, chat, board, record, advice = await worst_play_made(fake, bot)
    moved = now(fake, chat, board)
    version = (await bot.storage.get_game(record.id)).version
    await press(fake, ali, chat, moved, find(moved, A.CONFIRM))
    asked = await fake.wait_for(
        lambda: (m := now(fake, chat, board)) and "kaybettirir" in m.get("caption", "") and m,
        10,
    )
    assert f"%{advice.percent}" in asked["caption"]
    await press(fake, ali, chat, asked, find(asked, A.TUTOR_BACK))
    back = await fake.wait_for(
        lambda: (m := now(fake, chat, board)) and "kaybettirir" not in m["caption"] and m, 10
    )
    assert find(back, A.UNDO)
    assert (await bot.storage.get_game(record.id)).version == version
    await press(fake, ali, chat, back, find(back, A.CONFIRM))
    asked = await fake.wait_for(
        lambda: (m := now(fake, chat, board)) and find(m, A.TUTOR_OK) and m, 10
    )
    await press(fake, ali, chat, asked, find(asked, A.TUTOR_OK))
    assert (await bot.storage.get_game(record.id)).version > version


async def test_a_busy_tutor_lets_the_play_pass_unasked(fake, tmp_path) -> None:
    """The advice worker is busy (a crowd of games against the computer asks it for more
    verdicts than it gives): the Confirm of a play the tutor would question is answered and
    the game goes on at once, without the question, instead of waiting for the worker.
    (The press waited for the worker, as long as it was busy.)"""
    settings = ServiceSettings(burst_actions=10**6, theme="classic", advice_processes=0)
    running = Bot(fake, tmp_path / "busy.db", seed=7, settings=settings)
    await running.start()
    gate = threading.Event()
    try:
        ali, chat, board, record, _advice = await worst_play_made(fake, running)
        moved = now(fake, chat, board)
        version = (await running.storage.get_game(record.id)).version
        advisor = running.service.advisor
        held = [asyncio.ensure_future(advisor.run(gate.wait, 30)) for _ in range(2)]
        await press(fake, ali, chat, moved, find(moved, A.CONFIRM))
        played = await fake.wait_for(
            lambda: (m := now(fake, chat, board)) and not find(m, A.CONFIRM) and m, 5
        )
        assert "kaybettirir" not in played["caption"]
        assert not find(played, A.TUTOR_OK)
        assert (await running.storage.get_game(record.id)).version > version
    finally:
        gate.set()
        await running.stop()
    await asyncio.gather(*held)


async def test_a_groups_puzzle_of_the_day_in_telegram(fake, bot) -> None:
    """An admin turns the puzzle of the day on; the deadline rounds post it at its hour
    (through a DeadlineRunner and the Telegram adapter, as in production); a press is
    answered with a toast to the presser alone; the evening's answer names who found it."""
    from telegram import Bot as Client

    from bot.service.runner import DeadlineRunner
    from bot.telegram import TelegramAdapter
    from tests.test_telegram import TOKEN

    clock = [1_800_000_000.0]  # 08:00 UTC
    bot.service.clock = lambda: clock[0]
    ali = fake.user(11, "Ali", username="ali")
    veli = fake.user(22, "Veli", username="veli")
    group = fake.group(-100800, "Kahvehane")
    await puzzle_of_the_day_on(fake, group, ali, veli)

    runner = DeadlineRunner(bot.service)
    async with Client(TOKEN, base_url=fake.base_url, base_file_url=fake.base_file_url) as client:
        TelegramAdapter(bot.service).serve_deadlines(runner, client)
        await runner.round()
        assert newest(fake, group, lambda m: find(m, A.PUZZLE)) is None  # 08:00: not yet
        clock[0] += 3600  # 09:00
        await runner.round()
        posted = newest(fake, group, lambda m: find(m, A.PUZZLE))
        assert posted is not None
        assert posted.get("photo")
        assert "Puzzle of the day" in posted["caption"]
        pid = A.decode(find(posted, A.PUZZLE)).game_id
        answer = (await bot.storage.puzzles.get(pid)).data["answer"]
        count = len(fake.messages(group))
        toast = await press(fake, ali, group, posted, A.encode(pid, 0, A.PUZZLE, answer))
        assert "Your answer is in" in toast["text"]
        again = await press(fake, ali, group, posted, A.encode(pid, 0, A.PUZZLE, answer))
        assert "already" in again["text"]
        assert len(fake.messages(group)) == count  # answers are toasts: nothing posted
        clock[0] += 11 * 3600  # 20:00
        await runner.round()
        said = newest(fake, group, lambda m: "answer to today" in m.get("text", ""))
        assert said is not None
        assert said["reply_to_message"]["message_id"] == posted["message_id"]  # in reply
        assert "Found by Ali (1 of 1)" in said["text"]
        assert "1. Ali — 1" in said["text"]


async def puzzle_of_the_day_on(fake, group, admin, other) -> None:
    """``admin`` (made the group's administrator) turns the puzzle of the day on in the
    group's /settings; ``other``'s press on the switch is refused."""
    fake.admins[group.id] = {admin.id}
    await fake.send_text(admin, group, "/settings")
    shown = await fake.wait_for(
        lambda: newest(fake, group, lambda m: "Puzzle of the day" in m.get("text", "")), 10
    )
    switch = next(d for d in buttons(shown) if d.endswith("gp1"))
    refused = await press(fake, other, group, shown, switch)
    assert "administrators" in refused["text"]
    await press(fake, admin, group, shown, switch)
    assert "Puzzle of the day: ✅" in now(fake, group, shown)["text"]


async def test_a_whole_guided_first_game_in_telegram(fake, bot) -> None:
    """/learn in a private chat through python-telegram-bot: the welcome before the board, a
    note before the board at the first move, the board's buttons pressed to the end (the
    tutor answered "Play it anyway"), every note in the player's Turkish, and the last
    message says what to try next."""
    ali = fake.user(11, "Ali", username="ali", language_code="tr")
    chat = fake.private_chat(ali)
    await fake.send_text(ali, None, "/learn")
    board = await fake.wait_for(lambda: newest(fake, chat, lambda m: m.get("photo")), 10)
    texts = [m.get("text", "") for m in fake.messages(chat)]
    assert texts[0].startswith("📘 Adım adım ilk Tavla oyunun")
    assert "Evin 1–6. hanelerdir (sağ altta)" in texts[0]
    assert any("Zar at" in t or "Zarın:" in t for t in texts[1:])  # the first roll or move
    games = await bot.storage.games_in_chat("telegram", str(chat.id))
    game_id = max(g.id for g in games)
    for _ in range(600):
        record = await bot.storage.get_game(game_id)
        if record.status is not GameStatus.ACTIVE:
            break
        board = await current_board_of(fake, chat, record)
        code = next(
            c for c in (A.TUTOR_OK, A.TAKE, A.CONFIRM, A.MOVE, A.SELECT, A.ROLL) if find(board, c)
        )
        answer = await press(fake, ali, chat, board, find(board, code))
        assert not answer.get("text"), answer
    record = await bot.storage.get_game(game_id)
    assert record.status is GameStatus.FINISHED
    assert not record.rated
    last = await fake.wait_for(lambda: newest(fake, chat, lambda m: "🎓" in m.get("text", "")), 10)
    assert "/puzzle" in last["text"]
    assert "/play" in last["text"]
    said = "\n".join(m.get("text", "") for m in fake.messages(chat))
    assert "Your" not in said
    assert "You " not in said
    assert said.count("🎓") == 1


async def current_board_of(fake, chat, record) -> dict:
    """The game's board message once it shows the stored game (its edit may come after the
    press's answer)."""
    version = record.settings.state_version or record.version

    def shown() -> dict | None:
        board = newest(fake, chat, lambda m: m.get("photo") and buttons(m))
        if board is None:
            return None
        versions = [a.version for d in buttons(board) if (a := A.decode(d)) and a.game_id]
        return board if max(versions, default=0) >= version else None

    # As long as the tutor may take (tutor_wait): its verdicts are worked out below the bot's
    # priority, slow on a loaded machine.
    return await fake.wait_for(shown, 60)


async def test_hints_by_consent_in_a_group_game(fake, bot) -> None:
    """An unrated challenge in a group through python-telegram-bot: the player to act
    presses 💡, the opponent is asked in the group and presses "Allow hints"; the question
    is answered in place and the hint is posted saying who used it."""
    ali = fake.user(11, "Ali", username="ali", language_code="en")
    veli = fake.user(22, "Veli", username="veli", language_code="en")
    group = fake.group(-100600, "Kahvehane")
    users = {"11": ali, "22": veli}
    await fake.send_text(ali, group, "/tavla unrated")
    challenge = await fake.wait_for(lambda: newest(fake, group, lambda m: find(m, A.ACCEPT)), 10)
    assert "Unrated" in challenge["text"]
    await press(fake, veli, group, challenge, find(challenge, A.ACCEPT))
    await fake.wait_for(lambda: newest(fake, group, lambda m: m.get("photo")), 10)
    record = await game_record_in(bot, group.id)
    assert not record.rated
    for _ in range(8):
        board = await current_board_of(fake, group, await bot.storage.get_game(record.id))
        asker = await acting(bot, record.id, users)
        if find(board, A.HINT):
            break
        await press(fake, asker, group, board, find(board, A.ROLL))
    other = veli if asker is ali else ali
    await press(fake, asker, group, board, find(board, A.HINT))
    question = await fake.wait_for(lambda: newest(fake, group, lambda m: find(m, A.HINT_YES)), 10)
    assert "asks to use hints" in question["text"]
    count = len(fake.messages(group))
    await press(fake, other, group, question, find(question, A.HINT_YES))
    answered = now(fake, group, question)
    assert "allowed hints in this game" in answered["text"]
    assert not buttons(answered)
    hinted = await fake.wait_for(
        lambda: next(
            (m for m in fake.messages(group)[count:] if "used a hint" in m.get("caption", "")),
            None,
        ),
        10,
    )
    assert hinted["caption"].startswith(f"💡 {asker.first_name} used a hint.")


async def game_record_in(bot, chat_id: int):
    games = await bot.storage.games_in_chat("telegram", str(chat_id))
    return max(games, key=lambda g: g.id)


async def acting(bot, game_id: int, users: dict):
    from core.match import Match

    record = await bot.storage.get_game(game_id)
    user = await bot.storage.get_user(record.seats[Match.from_dict(record.match).game.awaiting])
    return users[user.platform_id]
