"""The web board with the players' own settings and what the bot does by itself (issues 13
and 14): the roll made by itself, a move confirmed by itself and taken back from the page
until the opponent acts, a forced rest played by itself, and the board drawn in the
player's own theme and home side (spectators get the bot's default)."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage.base import PlayerPrefs
from bot.web import relay
from tests.test_web_api import auth, init_data, post, web
from tests.web_helpers import set_position

__all__ = ["web"]  # the API fixture, shared with test_web_api

RACE = [11, 0, 0, 0, 1, 1, 2] + [0] * 19  # 4 checkers left: on the 6 (two), 5 and 4


@pytest.fixture
async def chat():
    """The views the web server hands to the Telegram chat (its board edits)."""
    arrived: asyncio.Queue = asyncio.Queue()

    async def deliver(views, chat_id):
        await arrived.put((chat_id, views))

    relay.register("telegram", deliver)
    yield arrived
    relay.unregister("telegram")


async def prefs_of(service, game_id: int, seat: int, **prefs) -> None:
    record = await service.storage.get_game(game_id)
    await service.storage.set_user_prefs(record.seats[seat], PlayerPrefs(**prefs))


async def get(client, game_id: int, header: dict) -> dict:
    return await (await client.get(f"/api/game/{game_id}", headers=header)).json()


async def play_out(client, game_id: int, header: dict, state: dict) -> dict:
    """Play the dice of ``state`` checker by checker, as the page sends them."""
    while state["my_turn"] and state["legal"]:
        source = max(int(s) for s in state["legal"])
        dest = min(state["legal"][str(source)])
        answer = await post(
            client, game_id, header, state["version"], action="move", to=dest, **{"from": source}
        )
        assert answer["ok"], answer
        state = answer["state"]
    return state


async def edited(chat: asyncio.Queue, game_id: int) -> None:
    """The chat's board of the game was edited (the relay got its board view)."""
    chat_id, views = await asyncio.wait_for(chat.get(), 5)
    assert chat_id == "-1001"
    assert any(v.edit and v.game_id == game_id and v.text_board for v in views)


async def test_the_roll_made_by_itself_reaches_the_page_ready_to_play(web, chat):
    """The opponent asked to roll by themselves even when they could double (auto_roll;
    rules T-8, the cube is centred): after my turn their page shows their dice, no Roll."""
    client, service, _signer, game_id, players = web
    await prefs_of(service, game_id, 1, auto_roll=True)
    me, them = (auth(init_data(int(players[s]), "P")) for s in (0, 1))
    state = await get(client, game_id, me)
    state = (await post(client, game_id, me, state["version"], action="roll"))["state"]
    state = await play_out(client, game_id, me, state)
    assert state["buttons"] == ["undo", "confirm"]
    assert chat.empty()  # the roll and the steps of a turn leave the chat alone
    answer = await post(client, game_id, me, state["version"], action="confirm")
    assert answer["ok"], answer
    await edited(chat, game_id)
    other = await get(client, game_id, them)
    assert other["my_turn"] is True
    assert "roll" not in other["buttons"]
    assert other["board"]["dice"]
    assert other["board"]["dice_color"] == other["board"]["bottom"]
    assert other["legal"]  # their dice are there to be played


async def test_a_move_confirmed_by_itself_can_be_taken_back_until_the_opponent_acts(web, chat):
    client, service, _signer, game_id, players = web
    await prefs_of(service, game_id, 0, auto_confirm="always")
    me, them = (auth(init_data(int(players[s]), "P")) for s in (0, 1))
    state = await get(client, game_id, me)
    state = (await post(client, game_id, me, state["version"], action="roll"))["state"]
    dice = state["board"]["dice"]
    before = state["board"]["points"]
    state = await play_out(client, game_id, me, state)
    # The last checker's move ended the turn by itself: the chat's board follows at once,
    # and my page offers to take the move back while the opponent has not rolled.
    await edited(chat, game_id)
    assert state["my_turn"] is False
    assert state["buttons"] == ["take_back"]
    other = await get(client, game_id, them)
    assert "roll" in other["buttons"]
    assert "undo" not in other["buttons"]
    assert "take_back" not in other["buttons"]
    answer = await post(client, game_id, me, state["version"], action="take_back")
    assert answer["ok"], answer
    state = answer["state"]
    await edited(chat, game_id)  # the group sees the move taken back
    assert state["my_turn"] is True
    assert state["board"]["dice"] == dice
    assert state["board"]["points"] == before
    assert state["legal"]
    # Played again; once the opponent rolls, it can no longer be taken back.
    state = await play_out(client, game_id, me, state)
    await edited(chat, game_id)
    assert state["buttons"] == ["take_back"]
    other = await get(client, game_id, them)
    assert (await post(client, game_id, them, other["version"], action="roll"))["ok"]
    mine = await get(client, game_id, me)
    assert mine["buttons"] == []
    late = await post(client, game_id, me, mine["version"], action="take_back")
    assert late["ok"] is False
    assert late["message"]


async def test_a_forced_rest_is_played_by_itself(web, chat):
    """After 6/off with 6-1, the 1 can only be played 5/4: the page's one drop plays both."""
    client, service, _signer, game_id, players = web
    mine = [13, 0, 0, 0, 0, 1, 1] + [0] * 19  # checkers on my 5 and 6 points
    await set_position(service, game_id, [mine, RACE], turn=0, dice=(6, 1))
    await prefs_of(service, game_id, 0, auto_confirm="never")  # the move waits for Confirm
    me = auth(init_data(int(players[0]), "P"))
    state = await get(client, game_id, me)
    assert sorted(state["legal"]) == ["5", "6"]  # a choice: 6/off 5/4 or 6/5/off
    answer = await post(client, game_id, me, state["version"], action="move", to=0, **{"from": 6})
    assert answer["ok"], answer
    state = answer["state"]
    board = state["board"]
    assert state["legal"] == {}
    assert board["points"][4] == {"color": board["bottom"], "count": 1}
    assert board["points"][5] is None
    assert board["points"][6] is None
    assert board["dice_used"] == [True, True]
    assert state["buttons"] == ["undo", "confirm"]
    assert chat.empty()  # not confirmed yet: still the middle of the turn


async def test_the_board_is_drawn_in_the_player_s_own_style_spectators_get_the_default(web):
    client, service, signer, game_id, players = web
    await prefs_of(service, game_id, 0, theme="contrast", home="left")
    record = await service.storage.get_game(game_id)
    await service.storage.set_user_lang(record.seats[0], "ru")
    default = service.settings.theme
    mine = await get(client, game_id, auth(init_data(int(players[0]), "P")))
    assert mine["style"] == {"theme": "contrast", "home": "left", "default_theme": default}
    assert mine["lang"] == "ru"  # chosen in /settings, over Telegram's "en"
    theirs = await get(client, game_id, auth(init_data(int(players[1]), "P")))
    assert theirs["style"] == {"theme": None, "home": "right", "default_theme": default}
    assert theirs["lang"] == "en"
    link = "link " + signer.seat_token(game_id, 0, record.seats[0], now=1_800_000_000.0)
    by_link = await get(client, game_id, auth(link))
    assert by_link["style"]["home"] == "left"
    assert by_link["lang"] == "ru"
    watch = await get(client, game_id, auth("watch " + signer.watch_token(game_id)))
    assert watch["style"] == {"theme": None, "home": "right", "default_theme": default}
    # Both home sides are laid out: the left one is the mirror image of the right one.
    layout = await (await client.get("/api/layout")).json()
    width = layout["width"]
    for p in ("1", "12", "13", "24"):
        right = layout["homes"]["right"]["points"][p]["column"]
        left = layout["homes"]["left"]["points"][p]["column"]
        assert left[0] == pytest.approx(width - right[2], abs=0.02)
    assert layout["homes"]["left"]["home_field"] == layout["homes"]["left"]["left_field"]
