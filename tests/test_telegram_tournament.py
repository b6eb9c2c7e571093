"""A four-player knockout through the real python-telegram-bot against the fake Bot API:
from /tournament to the winner's card (TN-1, TN-2, TN-7), with the card's Join buttons and
the matches played on their own boards in the group.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.service import actions as A
from bot.storage.base import GameStatus, TournamentStatus
from core.tournament import Stage, Tournament
from tests.fakes.telegram import FakeBotAPI
from tests.test_telegram import Bot, buttons, press
from tests.test_telegram import fake as fake

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

GROUP_ID = -100700


@pytest.fixture
async def bot(fake, tmp_path):
    running = Bot(fake, tmp_path / "bot.db", seed=11)
    await running.start()
    yield running
    if not running.stop_event.is_set():
        await running.stop()


async def active_games(bot: Bot) -> list:
    return await bot.storage.games_in_chat("telegram", str(GROUP_ID), (GameStatus.ACTIVE,))


async def eventually(check: Callable[[], Awaitable[Any]], timeout: float = 10.0) -> Any:
    """Poll an async condition on the bot's database until it holds (the bot stores where
    it posted a board right after Telegram answers, a moment after the fake sees it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (value := await check()):
        if loop.time() > deadline:
            raise TimeoutError("condition not met")
        await asyncio.sleep(0.02)
    return value


async def play_out(fake: FakeBotAPI, bot: Bot, group, game, winner, loser) -> None:
    """The loser replies /resign to the match's board; the winner presses Accept."""
    record = await bot.storage.get_game(game.id)
    board_id = record.message["message_id"]
    await fake.send_text(loser, group, "/resign", reply_to=board_id)

    def accept_button():
        message = fake.message(group, board_id)
        for data in buttons(message):
            action = A.decode(data)
            if action and action.code == A.RESIGN_ACCEPT:
                return data
        return None

    data = await fake.wait_for(accept_button, 10)
    answer = await press(fake, winner, group, fake.message(group, board_id), data)
    assert not answer.get("text"), answer


async def test_four_player_knockout_from_tournament_to_the_winner(fake, bot):
    players = [
        fake.user(11, "Ali", username="ali", language_code="tr"),
        fake.user(22, "Veli", username="veli", language_code="en"),
        fake.user(33, "Ayşe", username="ayse", language_code="ru"),
        fake.user(44, "Can", username="can", language_code="en"),
    ]
    by_id = {str(p.id): p for p in players}
    group = fake.group(GROUP_ID, "Kahvehane")
    await fake.send_text(players[0], group, "/tournament knockout 1")
    card = await fake.wait_for(
        lambda: next(
            (m for m in fake.messages(group) if any(d.startswith("tn:") for d in buttons(m))),
            None,
        ),
        10,
    )
    join = next(d for d in buttons(card) if d.endswith(":j"))
    for player in players[1:]:
        await press(fake, player, group, fake.message(group, card["message_id"]), join)
    edited = fake.message(group, card["message_id"])
    assert "(4/16)" in edited["text"]  # the card was edited in place
    assert all(p.first_name in edited["text"] for p in players)

    await fake.send_text(players[0], group, "/tournament start")
    await fake.wait_for(lambda: len([m for m in fake.messages(group) if m.get("photo")]) >= 3, 10)
    standings = next(m for m in fake.messages(group) if m.get("photo") and not buttons(m))

    async def player_of(user_id: int):
        user = await bot.storage.get_user(user_id)
        return by_id[user.platform_id]

    for expected in (2, 1):  # the semi-finals, then the final

        async def boards_posted(expected: int = expected) -> list:
            games = await active_games(bot)
            return games if len(games) == expected and all(g.message for g in games) else []

        for game in await eventually(boards_posted):
            winner_id, loser_id = min(game.seats), max(game.seats)  # who joined first wins
            await play_out(
                fake, bot, group, game, await player_of(winner_id), await player_of(loser_id)
            )

    final_card = await fake.wait_for(
        lambda: next(
            (m for m in fake.messages(group) if "🏆 Ali" in (m.get("caption") or "")), None
        ),
        10,
    )
    assert final_card.get("photo")  # the bracket picture with the winner
    # The standings posted at the start were edited in place after the results.
    edits = fake.calls_to("editMessageMedia", ok=True)
    assert any(c.params.get("message_id") == standings["message_id"] for c in edits)
    assert final_card["message_id"] != standings["message_id"]
    (stored,) = await bot.storage.tournaments_in_chat(
        "telegram", str(GROUP_ID), tuple(TournamentStatus)
    )
    tourney = Tournament.from_dict(stored.state)
    assert tourney.stage is Stage.FINISHED
    assert (await bot.storage.get_user(tourney.winner)).name == "Ali"
    assert any(
        c.params.get("commands") and "tournament" in str(c.params["commands"])
        for c in fake.calls_to("setMyCommands")
    )
