"""What the service tells adapters so that they never read storage: whose turn it is, where
a game's board is, which answers replace the message pressed on, and the stored game with
its players for the web board's page. (That no adapter imports or reads storage is checked
with every other layer rule in test_layers.py.)"""

from __future__ import annotations

import pytest

from bot.service import actions as A
from bot.service.service import Actor, Place
from bot.service.views import MessageRef
from bot.storage.sqlite import SqliteStorage
from tests.factory import find, make_service, press

ALI = Actor("test", "100", "Ali")
VELI = Actor("test", "200", "Veli")
GROUP = Place("test", "-1", private=False)


@pytest.fixture
async def service(tmp_path):
    storage = SqliteStorage(str(tmp_path / "a.db"))
    await storage.open()
    yield make_service(storage, render_images=False, burst_actions=10**6)
    await storage.close()


async def test_whose_turn_follows_the_game(service):
    challenge = await service.command(ALI, GROUP, "tavla", "")
    game_id = challenge[-1].game_id
    assert await service.player_to_act(game_id) is None  # a challenge waits for nobody
    views = await press(service, VELI, GROUP, challenge[-1], A.ACCEPT)
    board = views[-1]
    first = await service.player_to_act(game_id)
    assert first in ("100", "200")
    mover = ALI if first == "100" else VELI
    other = VELI if mover is ALI else ALI
    # The other player's press is refused; the mover's play passes the turn on.
    assert (await service.press(other, GROUP, board.buttons[0][0].action))[0].notice
    while await service.player_to_act(game_id) == first:
        for code in (A.CONFIRM, A.MOVE, A.SELECT, A.ROLL):
            if find(board, code):
                board = (await press(service, mover, GROUP, board, code))[-1]
                break
        else:
            raise AssertionError("no button to press")
    assert await service.player_to_act(game_id) == ("200" if first == "100" else "100")
    await service.command(ALI, GROUP, "abort", "")
    await service.command(VELI, GROUP, "abort", "")
    assert await service.player_to_act(game_id) is None  # called off: nobody's turn
    assert await service.player_to_act(10**6) is None


async def test_where_the_board_is(service):
    challenge = await service.command(ALI, GROUP, "tavla", "")
    game_id = challenge[-1].game_id
    assert await service.board_message(game_id) is None
    await service.bind_message(game_id, MessageRef(7, chat_id="-1"))
    assert await service.board_message(game_id) == MessageRef(7, chat_id="-1")
    assert await service.board_message(10**6) is None


async def test_the_stored_game_and_who_sits_in_it(service):
    challenge = await service.command(ALI, GROUP, "tavla", "")
    game_id = challenge[-1].game_id
    record = await service.game_record(game_id)
    assert record is not None
    assert record.id == game_id
    # An open challenge: only the challenger is seated.
    assert [(seat, user.name) for seat, user in await service.seated(record)] == [(0, "Ali")]
    await press(service, VELI, GROUP, challenge[-1], A.ACCEPT)
    record = await service.game_record(game_id)
    seated = await service.seated(record)
    assert sorted(user.platform_id for _, user in seated) == ["100", "200"]
    assert sorted(seat for seat, _ in seated) == [0, 1]
    for seat, user in seated:
        assert record.seats[seat] == user.id
        assert await service.user_record(user.id) == user
    assert await service.game_record(10**6) is None
    assert await service.user_record(10**6) is None


async def test_accepted_and_declined_challenges_replace_the_pressed_message(service):
    accepted = await press(
        service, VELI, GROUP, (await service.command(ALI, GROUP, "tavla", ""))[-1], A.ACCEPT
    )
    assert [v.replace_pressed for v in accepted] == [True, False]  # the intro, not the board
    declined = await press(  # an open challenge withdrawn
        service, ALI, GROUP, (await service.command(ALI, GROUP, "uzun", ""))[-1], A.DECLINE
    )
    assert [v.replace_pressed for v in declined] == [True]
    against_computer = await service.command(ALI, GROUP, "bot", "")
    assert not any(v.replace_pressed for v in against_computer)
