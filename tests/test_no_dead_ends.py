# ruff: noqa: F811  (the fake and bot fixtures come from tests/test_telegram.py)
"""No dead ends on Telegram: every game can always go on.

The real python-telegram-bot application against the fake Bot API: a board left behind by a
bot that stopped between saving a move and editing the message, a press on an old board, a
board an admin deleted, a flood of presses, the bot removed from the group or muted there,
and the group becoming a supergroup. After each fault the players finish the game.
"""

from __future__ import annotations

import logging

import pytest

from bot.service import actions as A
from bot.service.service import ServiceSettings
from bot.storage.base import GameStatus
from tests.test_telegram import (  # noqa: F401  (fixtures)
    GROUP_ID,
    Bot,
    awaiting,
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

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def quick(**changes) -> ServiceSettings:
    """Settings of a test bot: no flood guard, boards repaired as soon as they lag."""
    return ServiceSettings(
        **{"burst_actions": 10**6, "theme": "classic", "repair_after": 0.0, **changes}
    )


async def play_to_the_end(fake, bot, users, group) -> None:
    for _ in range(3000):
        if not await step_once(fake, bot, users, group):
            break
    assert (await game_record(bot)).status is GameStatus.FINISHED


async def lose_the_next_board_edit(fake, bot, users, group) -> int:
    """One press whose move is saved but whose board edit never reaches Telegram (every
    attempt's connection drops), as when the bot dies between the save and the edit.
    Returns the saved version, which the board in the chat does not show."""
    record = await game_record(bot)
    message = board_message(fake, group)
    actor = await awaiting(bot, users)
    fake.fail_next("editMessageMedia", drop=True, times=3)
    code = next(c for c in (A.CONFIRM, A.MOVE, A.SELECT, A.ROLL) if find(message, c))
    query = await fake.press(actor, group, message["message_id"], find(message, code))
    await fake.wait_for(lambda: query in fake.callback_answers, 20)
    saved = await game_record(bot)
    assert saved.version > record.version
    assert A.decode(buttons(board_message(fake, group))[0]).version < saved.version
    return saved.version


async def test_board_left_behind_by_a_crash_is_redrawn_at_start_up(fake, tmp_path):
    """design.md: boards that lag their game are repaired at start-up."""
    first = Bot(fake, tmp_path / "crash.db", seed=5, settings=quick())
    await first.start()
    ali, veli, group = await open_game(fake, first, "1")
    users = {"11": ali, "22": veli}
    for _ in range(3):
        await step_once(fake, first, users, group)
    version = await lose_the_next_board_edit(fake, first, users, group)
    await first.stop()  # the process is gone; the board in the chat is behind
    second = Bot(fake, tmp_path / "crash.db", seed=6, settings=quick())
    await second.start()
    # The start-up round redraws the only board there is, with live buttons.
    await fake.wait_for(
        lambda: A.decode(buttons(board_message(fake, group))[0]).version == version, 10
    )
    await eventually(lambda: game_record(second), lambda r: r.shown_version == version)
    await play_to_the_end(fake, second, users, group)
    await second.stop()


async def test_press_on_a_board_behind_its_game_redraws_it(fake, tmp_path):
    bot = Bot(
        fake,
        tmp_path / "behind.db",
        seed=5,
        settings=quick(repair_after=float("inf"), double_press=0.0),
    )
    await bot.start()
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    await step_once(fake, bot, users, group)
    version = await lose_the_next_board_edit(fake, bot, users, group)
    stale = board_message(fake, group)
    player = await awaiting(bot, users)
    other = ali if player is veli else veli
    # Whoever presses the stale board (even the player not to move) gets it redrawn.
    answer = await press(fake, other, group, stale, buttons(stale)[0])
    assert "behind the game" in answer["text"] or "gerisinde" in answer["text"]
    await fake.wait_for(
        lambda: A.decode(buttons(board_message(fake, group))[0]).version == version, 10
    )
    assert board_message(fake, group)["message_id"] == stale["message_id"]
    # No message was added to the group for it.
    assert not [c for c in fake.calls_to("sendMessage") if "behind" in str(c.params)]
    await play_to_the_end(fake, bot, users, group)
    await bot.stop()


async def test_old_board_points_to_the_current_one_or_posts_it_again(fake, bot):
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    await step_once(fake, bot, users, group)
    old = board_message(fake, group)
    await fake.send_text(ali, group, "/board")
    await fake.wait_for(lambda: board_message(fake, group)["message_id"] != old["message_id"], 10)
    current = board_message(fake, group)
    # A press on the old board: a toast, and a reply to the current board to find it by.
    answer = await press(fake, veli, group, old, buttons(old)[0])
    assert "old board" in answer["text"]
    reply = await fake.wait_for(
        lambda: next(
            (
                m
                for m in fake.messages(group)
                if (m.get("reply_to_message") or {}).get("message_id") == current["message_id"]
            ),
            None,
        ),
        10,
    )
    assert reply["text"].startswith("⬆️")
    # An admin deletes the current board: a press on the old one posts the board anew.
    fake.delete_by_admin(group, current["message_id"])
    await press(fake, veli, group, old, buttons(old)[0])
    await fake.wait_for(
        lambda: board_message(fake, group)["message_id"] > current["message_id"], 10
    )
    newest = board_message(fake, group)["message_id"]
    await eventually(lambda: game_record(bot), lambda r: r.message.message_id == newest)
    await play_to_the_end(fake, bot, users, group)


async def test_deleted_board_is_posted_again_after_a_move(fake, bot):
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    await step_once(fake, bot, users, group)
    while (await _phase(bot)) != "move":
        await step_once(fake, bot, users, group)
    board = board_message(fake, group)
    player = await awaiting(bot, users)
    fake.delete_by_admin(group, board["message_id"])
    await fake.send_text(player, group, f"/move {await _a_legal_play(bot)}")
    await fake.wait_for(
        lambda: any(
            m.get("photo") and buttons(m) and m["message_id"] > board["message_id"]
            for m in fake.messages(group)
        ),
        10,
    )
    await play_to_the_end(fake, bot, users, group)


async def _phase(bot) -> str:
    from core.match import Match

    return Match.from_dict((await game_record(bot)).match).game.phase.value


async def _a_legal_play(bot) -> str:
    """A legal rest of the turn being played (buttons may have made part of it)."""
    from core.match import Match
    from core.notation import format_steps

    turn = Match.from_dict((await game_record(bot)).match).game.current_turn
    rest = turn.completions()[0]
    return format_steps(((s.source, s.dest, s.hit) for s, _ in rest), turn.all_dice)


async def test_flood_is_answered_by_toasts_never_by_group_messages(fake, tmp_path):
    bot = Bot(
        fake,
        tmp_path / "flood.db",
        seed=5,
        settings=quick(burst_actions=3, burst_window=60.0, idle_actions=3, idle_window=60.0),
    )
    await bot.start()
    ali, veli, group = await open_game(fake, bot, "1")
    sent = len(fake.calls_to("sendMessage"))
    board = board_message(fake, group)
    fake.check_buttons = False  # a client repeating the same old callback data
    answers = []
    for _ in range(8):  # a machine-speed flood on the board by the wrong player and a stranger
        for who in (ali, veli):
            answers.append(await press(fake, who, group, board, buttons(board)[0]))
    assert any("Not so fast" in (a.get("text") or "") for a in answers)
    assert len(fake.calls_to("sendMessage")) == sent  # nothing was posted in the group
    await bot.stop()


async def test_bot_removed_then_added_back_finishes_the_game(fake, tmp_path, caplog):
    bot = Bot(fake, tmp_path / "kicked.db", seed=5, settings=quick())
    await bot.start()
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    await step_once(fake, bot, users, group)
    caplog.set_level(logging.WARNING)
    fake.set_bot_status(group, "kicked", ali)
    chat = await _wait_paused(bot, True)
    assert chat.paused is not None
    # Deadline and repair rounds leave the chat alone, however late it gets.
    bot.service.clock = lambda: 10**10
    for _ in range(3):
        assert not [v for v in await bot.service.tick() if v.chat == ("telegram", str(GROUP_ID))]
    bot.service.clock = __import__("time").time
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    # Added back: the game resumes where it stood and is finished.
    fake.set_bot_status(group, "member", ali)
    await _wait_paused(bot, False)
    await play_to_the_end(fake, bot, users, group)
    await bot.stop()


async def test_muted_bot_pauses_the_game_then_resumes(fake, tmp_path):
    bot = Bot(fake, tmp_path / "muted.db", seed=5, settings=quick(repair_after=float("inf")))
    await bot.start()
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    await step_once(fake, bot, users, group)
    # Muted without the bot noticing (no update): the next /board can't be posted.
    fake._chats[GROUP_ID].bot_status = "restricted"
    await fake.send_text(ali, group, "/board")
    await _wait_paused(bot, True)
    fake.set_bot_status(group, "member", ali)
    await _wait_paused(bot, False)
    await play_to_the_end(fake, bot, users, group)
    await bot.stop()


async def test_group_becoming_a_supergroup_moves_the_game(fake, bot):
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    await step_once(fake, bot, users, group)
    await fake.send_text(ali, group, "/lang tr")
    await fake.wait_for(lambda: "Türkçe" in str(fake.messages(group)[-1:]), 10)
    supergroup = fake.migrate(group, -1001234, ali)
    board = await fake.wait_for(
        lambda: next((m for m in fake.messages(supergroup) if m.get("photo") and buttons(m)), None),
        10,
    )
    record = await eventually(
        lambda: game_record_in(bot, supergroup.id),
        lambda r: r.message is not None and r.message.message_id == board["message_id"],
    )
    assert record.settings.scope == f"telegram:{supergroup.id}"
    assert (await bot.storage.get_chat("telegram", str(supergroup.id))).lang == "tr"
    await play_to_the_end_in(fake, bot, users, supergroup)


async def game_record_in(bot, chat_id: int):
    games = await bot.storage.games_in_chat(
        "telegram", str(chat_id), (GameStatus.ACTIVE, GameStatus.FINISHED)
    )
    return max(games, key=lambda g: g.id)


async def play_to_the_end_in(fake, bot, users, chat) -> None:
    from tests.drivers import press_order

    for _ in range(3000):
        record = await game_record_in(bot, chat.id)
        if record.status is not GameStatus.ACTIVE:
            return
        from core.match import Match

        match = Match.from_dict(record.match)
        seated = await bot.storage.get_user(record.seats[match.game.awaiting])
        actor = users[seated.platform_id]
        message = board_message(fake, chat)
        for code in press_order():
            data = find(message, code)
            if data:
                answer = await press(fake, actor, chat, message, data)
                assert not answer.get("text"), answer
                break
        else:
            raise AssertionError(buttons(message))
    raise AssertionError("the game did not end")


async def eventually(read, check, timeout: float = 10.0):
    """Poll an async read until ``check`` holds (the adapter confirms after Telegram
    answered, so the database lags what the fake already shows by a moment)."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await read()
        if check(value):
            return value
        if loop.time() > deadline:
            raise AssertionError(f"never held: {value!r}")
        await asyncio.sleep(0.02)


async def _wait_paused(bot, paused: bool):
    return await eventually(
        lambda: bot.storage.get_chat("telegram", str(GROUP_ID)),
        lambda chat: (chat.paused is not None) == paused,
    )
