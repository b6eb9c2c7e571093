"""A chat that cannot keep up with its platform's limits (the adapter says it is busy): every
turn costs it one board, the one that shows the player their dice and asks them to move.

The bot rolls for the players (also where they could double) and a finished move needs no
Confirm; a player who wants the cube asks once a game to roll themselves (T-8: a player may
double only before rolling, so the choice must come before the roll). Through the service.
"""

from __future__ import annotations

import pytest

from bot.i18n import translate
from bot.service import actions as A
from bot.service.play import OWN_ROLLS
from bot.service.views import View
from bot.storage.base import GameStatus
from core.game import Phase
from tests.test_fewer_taps import PRESS_ORDER, codes, game_of
from tests.test_service import (
    ALI,
    GROUP,
    VELI,
    awaiting_actor,
    board,
    find,
    service_at,
    start_game,
    text_of,
)


@pytest.fixture
async def service_env(tmp_path):
    async with service_at(tmp_path / "busy.db") as pair:
        yield pair


def own_roll_seats(view: View) -> set[int]:
    return {
        int(a.arg)
        for row in view.buttons
        for b in row
        if (a := A.decode(b.action)) and a.code == A.OWN_ROLLS
    }


async def busy_press(service, current: View) -> View:
    """The awaiting player's usual press, in a busy chat."""
    actor = await awaiting_actor(service, current.game_id)
    code = next(c for c in (find(current, k) for k in PRESS_ORDER) if c)
    views = await service.press(actor, GROUP, code, busy=True)
    assert not any(v.notice for v in views), text_of(views)
    return board(views)


async def test_a_busy_chats_boards_all_ask_to_move_with_the_dice_rolled_T8(service_env):
    """Ten turns of a 3-point match with the cube centred: no board asks to roll or to
    confirm; each shows the dice of the player it asks to move, and offers both players to
    roll themselves."""
    service, _ = service_env
    current = board(await start_game(service, "3"))
    turns = 0
    while turns < 10:
        record, game = await game_of(service, current)
        assert record.status is GameStatus.ACTIVE
        before = game.turn
        current = await busy_press(service, current)
        _, game = await game_of(service, current)
        assert A.ROLL not in codes(current)
        assert A.CONFIRM not in codes(current)
        assert game.phase is Phase.MOVE
        assert game.dice  # the dice it asks to play
        assert own_roll_seats(current) == {0, 1}  # the cube stays centred: nobody doubled
        turns += game.turn != before


async def test_a_player_who_asks_rolls_themselves_and_may_double_T8(service_env):
    """Veli asks to roll himself: only answered (no board: it would cost the busy chat a
    message). From then on Veli is asked Roll or Double before his rolls; Ali's rolls are
    still made for him. Ali may not press Veli's button."""
    service, _ = service_env
    current = await busy_press(service, board(await start_game(service, "3")))
    veli_button = next(
        b.action
        for row in current.buttons
        for b in row
        if (a := A.decode(b.action)) and a.code == A.OWN_ROLLS and a.arg == "1"
    )
    refused = await service.press(ALI, GROUP, veli_button, busy=True)
    assert [v.notice for v in refused] == [True]
    assert translate(OWN_ROLLS, "en") not in text_of(refused)
    views = await service.press(VELI, GROUP, veli_button, busy=True)
    assert [v.notice for v in views] == [True]
    assert translate(OWN_ROLLS, "en") in text_of(views)
    record, _ = await game_of(service, current)
    assert record.settings.own_rolls == (1,)
    asked = 0
    for _ in range(60):
        current = await busy_press(service, current)
        record, game = await game_of(service, current)
        if record.status is not GameStatus.ACTIVE:
            break
        assert own_roll_seats(current) <= {0}
        if game.phase is Phase.ROLL:
            assert game.turn == 1  # only Veli is asked
            assert find(current, A.ROLL)
            assert find(current, A.DOUBLE)
            asked += 1
    assert asked >= 3
