"""A four-player knockout through the real python-telegram-bot against the fake Bot API:
from /tournament to the winner's card (TN-1, TN-2, TN-7), with the card's Join buttons, a
chat admin's Start, the pairings mentioning the players, and the matches played on their
own boards in the group; and a timed tournament run by the deadline rounds (the card's
countdown, the start, a reminder to a slow player).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from telegram import Bot

from bot.service import actions as A
from bot.service.runner import DeadlineRunner
from bot.storage.base import GameStatus, TournamentStatus
from bot.telegram import TelegramAdapter
from core.match import Match
from core.tournament import Stage, Tournament
from tests.fakes.telegram import FakeBotAPI
from tests.test_telegram import TOKEN, buttons, press
from tests.test_telegram import Bot as RunningBot
from tests.test_telegram import fake as fake

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

GROUP_ID = -100700


@pytest.fixture
async def bot(fake, tmp_path):
    running = RunningBot(fake, tmp_path / "bot.db", seed=11)
    await running.start()
    yield running
    if not running.stop_event.is_set():
        await running.stop()


async def active_games(bot: RunningBot) -> list:
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


async def play_out(fake: FakeBotAPI, bot: RunningBot, group, game, winner, loser) -> None:
    """The loser replies /resign to the match's board and confirms it ("Yes, resign" on
    the board); the winner presses Accept."""
    record = await bot.storage.get_game(game.id)
    board_id = record.message.message_id
    await fake.send_text(loser, group, "/resign", reply_to=board_id)

    def button(code):
        def found():
            message = fake.message(group, board_id)
            for data in buttons(message):
                action = A.decode(data)
                if action and action.code == code:
                    return data
            return None

        return found

    data = await fake.wait_for(button(A.RESIGN), 10)
    answer = await press(fake, loser, group, fake.message(group, board_id), data)
    assert not answer.get("text"), answer
    data = await fake.wait_for(button(A.RESIGN_ACCEPT), 10)
    answer = await press(fake, winner, group, fake.message(group, board_id), data)
    assert not answer.get("text"), answer


def mentions_of(message: dict) -> dict[int, str]:
    """The users a message mentions (text_mention entities): id → the text mentioned."""
    text = message.get("text") or message.get("caption") or ""
    units = text.encode("utf-16-le")
    found = {}
    for entity in message.get("entities") or message.get("caption_entities") or []:
        if entity["type"] == "text_mention":
            start, end = 2 * entity["offset"], 2 * (entity["offset"] + entity["length"])
            found[entity["user"]["id"]] = units[start:end].decode("utf-16-le")
    return found


async def test_four_player_knockout_from_tournament_to_the_winner(fake, bot):
    players = [
        fake.user(11, "Ali", username="ali", language_code="tr"),
        fake.user(22, "Veli", username="veli", language_code="en"),
        fake.user(33, "Ayşe", username="ayse", language_code="ru"),
        # A name Telegram's HTML would choke on: the mentions are entities, nothing escaped.
        fake.user(44, "Can <&> Co", language_code="en"),
    ]
    admin = fake.user(55, "Boss", username="boss")
    by_id = {str(p.id): p for p in players}
    group = fake.group(GROUP_ID, "Kahvehane")
    fake.admins[GROUP_ID] = {admin.id}
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

    start = next(d for d in buttons(edited) if d.endswith(":s"))
    refused = await press(fake, players[1], group, edited, start)
    assert "Only the organiser or a chat admin" in refused["text"]
    answer = await press(fake, admin, group, edited, start)  # not a player: a chat admin
    assert not answer.get("text"), answer
    await fake.wait_for(lambda: len([m for m in fake.messages(group) if m.get("photo")]) >= 3, 10)
    assert not buttons(fake.message(group, card["message_id"]))  # entries closed
    standings = next(m for m in fake.messages(group) if m.get("photo") and not buttons(m))

    async def player_of(user_id: int):
        user = await bot.storage.get_user(user_id)
        return by_id[user.platform_id]

    for expected in (2, 1):  # the semi-finals, then the final

        async def boards_posted(expected: int = expected) -> list:
            games = await active_games(bot)
            return games if len(games) == expected and all(g.message for g in games) else []

        games = await eventually(boards_posted)
        # The round's pairings name every player in it with a mention that notifies them.
        (pairings,) = [
            m for m in fake.messages(group) if f"Round {3 - expected}:" in (m.get("text") or "")
        ]
        seated = [
            by_id[(await bot.storage.get_user(s)).platform_id] for g in games for s in g.seats
        ]
        assert mentions_of(pairings) == {p.id: p.first_name for p in seated}
        for game in games:
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


async def test_a_timed_tournament_run_by_the_deadline_rounds(fake, bot):
    """TN-1: the card's countdown is edited in place by the deadline rounds, and at the set
    time the tournament starts by itself (the card closed, the pairings and the bye posted
    with mentions); a slow player's reminder mentions them (delivered, as in production, by
    a DeadlineRunner through the Telegram adapter)."""
    now = [time.time()]
    bot.service.clock = lambda: now[0]
    players = [
        fake.user(11, "Ali", username="ali"),
        fake.user(22, "Veli", username="veli"),
        fake.user(33, "Ayşe", username="ayse"),
    ]
    group = fake.group(GROUP_ID, "Kahvehane")
    await fake.send_text(players[0], group, "/tournament knockout fast in 20m")
    card = await fake.wait_for(
        lambda: next((m for m in fake.messages(group) if buttons(m)), None), 10
    )
    assert "It starts by itself in 20 minutes." in card["text"]
    assert "fast: 5 min per move" in card["text"]
    join = next(d for d in buttons(card) if d.endswith(":j"))
    for player in players[1:]:
        await press(fake, player, group, fake.message(group, card["message_id"]), join)

    runner = DeadlineRunner(bot.service)
    async with Bot(TOKEN, base_url=fake.base_url, base_file_url=fake.base_file_url) as client:
        TelegramAdapter(bot.service).serve_deadlines(runner, client)
        now[0] += 6 * 60
        await runner.round()
        shown = fake.message(group, card["message_id"])
        assert "It starts by itself in 14 minutes." in shown["text"]
        assert "(3/16)" in shown["text"]
        assert buttons(shown)

        now[0] += 15 * 60
        await runner.round()
        assert not buttons(fake.message(group, card["message_id"]))
        (pairings,) = [m for m in fake.messages(group) if "Round 1:" in (m.get("text") or "")]
        assert "has a bye" in pairings["text"]
        assert set(mentions_of(pairings)) == {11, 22, 33}  # both players and the bye
        (game,) = await active_games(bot)
        assert game.deadline == pytest.approx(now[0] + bot.service.settings.fast_turn_limit, 5)

        match = Match.from_dict(game.match)
        slow = await bot.storage.get_user(game.seats[match.game.awaiting])
        now[0] += bot.service.settings.fast_turn_limit * 0.8
        await runner.round()
        (reminder,) = [m for m in fake.messages(group) if "your move" in (m.get("text") or "")]
        assert mentions_of(reminder) == {int(slow.platform_id): slow.name}


async def test_a_chat_admin_may_cancel_by_command(fake, bot):
    """/tournament cancel: refused to a member, done for a chat admin (getChatMember)."""
    organiser = fake.user(11, "Ali", username="ali")
    member = fake.user(22, "Veli", username="veli")
    admin = fake.user(55, "Boss", username="boss")
    group = fake.group(GROUP_ID, "Kahvehane")
    fake.admins[GROUP_ID] = {admin.id}
    await fake.send_text(organiser, group, "/tournament roundrobin")
    card = await fake.wait_for(
        lambda: next((m for m in fake.messages(group) if buttons(m)), None), 10
    )
    await fake.send_text(member, group, "/tournament cancel")
    await fake.wait_for(
        lambda: any("Only the organiser" in (m.get("text") or "") for m in fake.messages(group)), 10
    )
    await fake.send_text(admin, group, "/tournament cancel")
    await fake.wait_for(lambda: not buttons(fake.message(group, card["message_id"])), 10)
    (stored,) = await bot.storage.tournaments_in_chat(
        "telegram", str(GROUP_ID), tuple(TournamentStatus)
    )
    assert stored.status is TournamentStatus.CANCELLED
    asked = [c.params.get("user_id") for c in fake.calls_to("getChatMember")]
    assert {member.id, admin.id} <= {int(u) for u in asked}
