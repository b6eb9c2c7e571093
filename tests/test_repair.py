"""No dead ends, through the service: boards that lag their game, presses at human speed,
and chats the bot can't reach (the same through the real clients in
tests/test_no_dead_ends.py)."""

from __future__ import annotations

import pytest

from bot.service import actions as A
from bot.service.keypad import KeypadLimits
from bot.service.service import GameService
from bot.service.views import MessageRef
from bot.storage.base import PlayerPrefs
from bot.storage.sqlite import SqliteStorage
from core.match import Match
from tests.factory import Clock, find, make_service, press
from tests.test_service import (
    ALI,
    AYSE,
    GROUP,
    VELI,
    awaiting_actor,
    board,
    start_game,
    text_of,
)


@pytest.fixture
async def make(tmp_path):
    """Services on one database with default settings (the real flood guard)."""
    storages = []

    async def build(**changes) -> tuple[GameService, Clock]:
        storage = SqliteStorage(str(tmp_path / "repair.db"))
        await storage.open()
        storages.append(storage)
        clock = Clock()
        service = make_service(storage, clock=clock, render_images=False, **changes)
        return service, clock

    yield build
    for storage in storages:
        await storage.close()


async def change(service: GameService, view):
    """Press what the player to act would until the game changes; the new board."""
    actor = await awaiting_actor(service, view.game_id)
    current = view
    while True:
        code = next(c for c in (A.CONFIRM, A.MOVE, A.SELECT, A.ROLL) if find(current, c))
        views = await press(service, actor, GROUP, current, code)
        current = board(views)
        if current.version != view.version:
            return current


async def shown(service: GameService, view) -> None:
    """What an adapter does once a board is on screen."""
    await service.board_shown(view.game_id, view.version, MessageRef(1))


async def test_a_doubles_turn_at_human_speed_is_never_slowed_down(make):
    """The longest turns the buttons can ask for (a doubles roll whose checkers are picked
    first, as when a roll has too many moves to show): Roll, pick and place four times,
    Confirm, at human speed (both players ask to confirm every move themselves)."""
    service, clock = await make()
    service.settings.keypad["test"] = KeypadLimits(plays=0, moves=0)
    for actor in (ALI, VELI):
        user = await service.storage.get_or_create_user("test", actor.user_id, actor.name)
        await service.storage.set_user_prefs(user.id, PlayerPrefs(auto_confirm="never"))
    views = await start_game(service)
    game_id = board(views).game_id
    for _ in range(40):  # whole turns, until a doubles roll is played out
        actor = await awaiting_actor(service, game_id)
        current = board(views)
        presses = 0
        while True:
            code = next(
                (c for c in (A.CONFIRM, A.MOVE, A.SELECT, A.ROLL) if find(current, c)), None
            )
            if code is None:
                break
            views = await press(service, actor, GROUP, current, code)
            clock.now += 0.3
            presses += 1
            assert not any("Not so fast" in text_of([v]) for v in views)
            current = board(views)
            if code == A.CONFIRM or await awaiting_actor(service, game_id) != actor:
                break
        if presses >= 9:
            return
    pytest.fail("no long turn in 40 turns")


async def test_presses_that_change_nothing_leave_the_players_allowance(make):
    # An allowance of five: one went on the challenge or its acceptance.
    service, _ = await make(burst_actions=5, idle_actions=30)
    service.settings.keypad["test"] = KeypadLimits(plays=0, moves=0)  # picks first
    views = await start_game(service)
    current = board(views)
    actor = await awaiting_actor(service, current.game_id)
    other = VELI if actor is ALI else ALI
    data = current.buttons[0][0].action
    for _ in range(20):  # the wrong player and a stranger press away
        assert (await service.press(other, GROUP, data))[0].notice
        assert (await service.press(AYSE, GROUP, data))[0].notice
    # The player to move still has their whole allowance of four presses.
    for _ in range(4):
        current = board(views)
        code = next(c for c in (A.BACK, A.SELECT, A.ROLL, A.MOVE, A.CONFIRM) if find(current, c))
        views = await press(service, actor, GROUP, current, code)
        assert not views[0].notice, text_of(views)
    # A machine-speed flood of idle presses is refused, politely, as a toast.
    for _ in range(15):
        answer = await service.press(other, GROUP, data)
    assert answer[0].notice
    assert "Not so fast" in text_of(answer)


async def test_a_board_left_behind_is_repaired_by_the_deadline_round(make):
    service, clock = await make(repair_after=90.0)
    views = await start_game(service)
    first = board(views)
    await shown(service, first)
    lost = await change(service, first)  # this edit never reaches the chat: unconfirmed
    assert await service.tick() == []  # within the grace: the edit may still be on its way
    clock.now += 91
    [repair] = await service.tick()
    assert repair.version == lost.version
    assert repair.edit
    assert repair.chat == (GROUP.platform, GROUP.chat_id)
    await shown(service, repair)
    assert await service.tick() == []  # repaired once


async def test_a_reminder_keeps_the_boards_buttons_valid(make):
    service, clock = await make()
    views = await start_game(service)
    current = board(views)
    await shown(service, current)
    clock.now += 0.8 * service.settings.turn_limit
    reminders = await service.tick()
    assert any("minutes left" in text_of([v]) for v in reminders)
    assert not [v for v in reminders if v.version is not None]  # no board is redrawn
    actor = await awaiting_actor(service, current.game_id)
    pressed = await service.press(actor, GROUP, current.buttons[0][0].action)
    assert not pressed[0].notice, text_of(pressed)


async def test_stale_press_on_the_board_redraws_it_and_on_an_old_message_points(make):
    service, clock = await make()
    views = await start_game(service)
    first = board(views)
    await service.board_shown(first.game_id, first.version, MessageRef(10))
    rolled = await change(service, first)
    await service.board_shown(rolled.game_id, rolled.version)
    clock.now += 5
    stale = first.buttons[0][0].action
    repaired = await service.press(VELI, GROUP, stale, message=MessageRef(10))
    assert "behind the game" in text_of(repaired[:1])
    assert repaired[1].edit
    assert not repaired[1].point
    assert repaired[1].version == rolled.version
    pointed = await service.press(VELI, GROUP, stale, message=MessageRef(7))
    assert "old board" in text_of(pointed[:1])
    assert pointed[1].point
    assert pointed[1].message == MessageRef(10)


async def test_paused_chat_stops_its_clocks_and_resumes(make):
    service, clock = await make()
    views = await start_game(service)
    current = board(views)
    await shown(service, current)
    record = await service.storage.get_game(current.game_id)
    left = record.deadline - clock.now
    await service.chat_unreachable(GROUP.platform, GROUP.chat_id)
    clock.now += 3 * service.settings.turn_limit
    assert await service.tick() == []  # no reminder, no claim, no repair into the void
    back = await service.chat_reachable(GROUP)
    assert [v.game_id for v in back] == [current.game_id]
    record = await service.storage.get_game(current.game_id)
    assert record.deadline - clock.now == pytest.approx(left)
    actor = await awaiting_actor(service, current.game_id)
    match = Match.from_dict(record.match)
    assert match.game is not None
    assert not (await service.press(actor, GROUP, back[0].buttons[0][0].action))[0].notice
