"""/tournament on Discord: the slash command, the card's Join and Start buttons (persistent
buttons with a tournament's custom id) and the first round's boards, through the real
discord.py client against the fake (tests/fakes/discord.py)."""

from __future__ import annotations

import pytest

from bot.discord.buttons import PREFIX
from bot.service import actions as A
from bot.storage.base import GameStatus, TournamentStatus
from core.match import Match
from core.tournament import Stage, Tournament
from tests.fakes.discord import FakeDiscord
from tests.test_discord import CHANNEL, GUILD, Bot, custom_ids
from tests.test_discord import fake as fake


@pytest.fixture
async def bot(fake, tmp_path):
    running = await Bot(fake, tmp_path / "bot.db", seed=5).start()
    yield running
    if not running.stop_event.is_set():
        await running.stop()


def card_button(fake: FakeDiscord, code: str) -> tuple[dict, str]:
    for message in reversed(fake.channel_messages(CHANNEL)):
        for cid in custom_ids(message):
            if cid.startswith(PREFIX + "tn:") and cid.endswith(":" + code):
                return message, cid
    raise AssertionError("no tournament card")


async def test_open_join_and_start_a_knockout_on_discord(fake, bot):
    players = [
        fake.user(11, "Ali", locale="tr"),
        fake.user(22, "Veli"),
        fake.user(33, "Ayşe", locale="ru"),
        fake.user(44, "Can"),
    ]
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    opened = await fake.slash(bot.client, players[0], channel, "tournament", what="knockout uzun")
    assert opened.acks == 1
    for player in players[1:]:
        message, join = card_button(fake, "j")
        pressed = await fake.press(bot.client, player, message, join)
        assert pressed.acks == 1
        assert pressed.ephemeral() == []
    message, start = card_button(fake, "s")
    refused = await fake.press(bot.client, players[1], message, start)
    assert refused.ephemeral()  # only the organiser may start, said privately
    started = await fake.press(bot.client, players[0], message, start)
    assert started.acks == 1
    games = await bot.storage.games_in_chat("discord", str(GUILD), (GameStatus.ACTIVE,))
    assert len(games) == 2
    assert all(g.variant == "uzun" for g in games)
    boards = [m for m in fake.channel_messages(channel) if m["attachments"] and custom_ids(m)]
    assert len(boards) >= 2
    (stored,) = await bot.storage.tournaments_in_chat("discord", str(GUILD))
    assert stored.status is TournamentStatus.RUNNING
    assert Tournament.from_dict(stored.state).stage is Stage.RUNNING


def standings_messages(fake: FakeDiscord) -> list[dict]:
    """The standings pictures: the tournament's title, a picture and no buttons."""
    return [
        m
        for m in fake.channel_messages(CHANNEL)
        if m["content"].startswith("🏆") and m["attachments"] and not custom_ids(m)
    ]


async def resign_and_accept(fake: FakeDiscord, bot: Bot, channel, game, loser, winner) -> None:
    """The loser resigns with /resign and confirms it ("Yes, resign" on the match's board);
    the winner presses Accept there."""
    await fake.slash(bot.client, loser, channel, "resign", game=game.id)
    record = await bot.storage.get_game(game.id)
    board = fake.messages[int(record.message.message_id)]

    def button(code):
        return next(
            cid
            for cid in custom_ids(board)
            if (action := A.decode(cid.removeprefix(PREFIX))) and action.code == code
        )

    pressed = await fake.press(bot.client, loser, board, button(A.RESIGN))
    assert pressed.ephemeral() == []
    pressed = await fake.press(bot.client, winner, board, button(A.RESIGN_ACCEPT))
    assert pressed.ephemeral() == []


async def test_a_timed_knockout_on_discord_mentions_players_and_edits_its_standings(fake, bot):
    """TN-1 at the start time from the deadline rounds: the card's countdown is edited in
    place, the card is closed, the pairings mention the players (only they are notified),
    the boards are posted in the tournament's channel, and the standings picture is posted
    once and edited in place after a result (TN-7)."""
    players = [
        fake.user(11, "Ali"),
        fake.user(22, "Veli"),
        fake.user(33, "Ayşe"),
        fake.user(44, "Can"),
    ]
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    await fake.slash(bot.client, players[0], channel, "tournament", what="knockout in 30m")
    for player in players[1:]:
        message, join = card_button(fake, "j")
        await fake.press(bot.client, player, message, join)
    card, _ = card_button(fake, "j")
    assert "It starts by itself in 30 minutes." in card["content"]

    bot.now += 6 * 60
    await bot.client.adapter.tick()
    card = fake.messages[int(card["id"])]
    assert "It starts by itself in 24 minutes." in card["content"]  # edited, not posted anew
    assert card["edited_timestamp"] is not None
    assert len([m for m in fake.channel_messages(CHANNEL) if custom_ids(m)]) == 1

    bot.now += 25 * 60
    await bot.client.adapter.tick()
    card = fake.messages[int(card["id"])]
    assert custom_ids(card) == []  # closed: no Join any more
    assert "Entries are closed" in card["content"]
    (standings,) = standings_messages(fake)
    assert "The tournament begins: 4 players, 2 rounds." in standings["content"]
    first_picture = standings["attachments"][0]["id"]
    (pairings,) = [m for m in fake.channel_messages(CHANNEL) if "Round 1:" in m["content"]]
    mentioned = {int(u["id"]) for u in pairings["mentions"]}
    assert mentioned == {11, 22, 33, 44}
    assert {user for message, user in fake.notified if message == int(pairings["id"])} == mentioned
    sent = next(c for c in fake.calls_to("send_message") if "Round 1:" in c.payload["content"])
    assert sent.payload["allowed_mentions"]["parse"] == []  # no @everyone, no roles
    games = await bot.storage.games_in_chat("discord", str(GUILD), (GameStatus.ACTIVE,))
    assert len(games) == 2
    assert all(g.message and g.message.channel_id == str(CHANNEL) for g in games)

    by_id = {str(p.id): p for p in players}
    game = games[0]
    seats = [by_id[(await bot.storage.get_user(s)).platform_id] for s in game.seats]
    await resign_and_accept(fake, bot, channel, game, seats[1], seats[0])
    (again,) = standings_messages(fake)  # one standings picture, edited in place
    assert again["id"] == standings["id"]
    assert again["edited_timestamp"] is not None
    assert again["attachments"][0]["id"] != first_picture  # the picture redrawn


async def test_a_server_admin_may_start_and_the_reminder_mentions_the_slow_player(fake, bot):
    """TN-1: a server admin (Manage Server) who is not the organiser starts it; a plain
    member may not. The reminder to a slow player mentions them alone."""
    players = [fake.user(11, "Ali"), fake.user(22, "Veli")]
    admin = fake.user(99, "Boss", admin=True)
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    await fake.slash(bot.client, players[0], channel, "tournament", what="knockout fast")
    message, join = card_button(fake, "j")
    await fake.press(bot.client, players[1], message, join)
    message, start = card_button(fake, "s")
    refused = await fake.press(bot.client, players[1], message, start)
    assert any("Only the organiser" in text for text in refused.ephemeral())
    started = await fake.press(bot.client, admin, message, start)
    assert started.ephemeral() == []
    (game,) = await bot.storage.games_in_chat("discord", str(GUILD), (GameStatus.ACTIVE,))
    assert game.settings.fast

    match = Match.from_dict(game.match)
    slow = await bot.storage.get_user(game.seats[match.game.awaiting])
    bot.now += bot.service.settings.fast_turn_limit * 0.8
    await bot.client.adapter.tick()
    (reminder,) = [m for m in fake.channel_messages(CHANNEL) if "it is your move" in m["content"]]
    assert reminder["content"].startswith(f"<@{slow.platform_id}>")
    assert [int(u["id"]) for u in reminder["mentions"]] == [int(slow.platform_id)]


async def test_only_the_organiser_or_a_server_admin_may_cancel(fake, bot):
    organiser, member = fake.user(11, "Ali"), fake.user(22, "Veli")
    admin = fake.user(99, "Boss", admin=True)
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    await fake.slash(bot.client, organiser, channel, "tournament", what="swiss 3")
    refused = await fake.slash(bot.client, member, channel, "tournament", what="cancel")
    assert any("Only the organiser or a chat admin" in text for text in refused.ephemeral())
    await fake.slash(bot.client, admin, channel, "tournament", what="cancel")
    (stored,) = await bot.storage.tournaments_in_chat(
        "discord", str(GUILD), tuple(TournamentStatus)
    )
    assert stored.status is TournamentStatus.CANCELLED
    card = next(m for m in fake.channel_messages(CHANNEL) if "Players (1/16)" in m["content"])
    assert custom_ids(card) == []  # the card closed in place


def live_cards(fake: FakeDiscord) -> list[dict]:
    """The channel's messages with a tournament card's buttons."""
    return [
        m
        for m in fake.channel_messages(CHANNEL)
        if any(cid.startswith(PREFIX + "tn:") for cid in custom_ids(m))
    ]


async def test_one_live_card_in_the_servers_language_on_discord(fake, bot):
    """Joined by the card's button and by /tournament join, by members of three languages:
    one card with buttons is left, an earlier one posted again points to the current one
    without buttons, and what the bot posts in the server is in the server's language (the
    one most of its players use), whoever pressed last."""
    ali = fake.user(11, "Ali", locale="tr")
    veli = fake.user(22, "Veli")
    olga = fake.user(33, "Olga", locale="ru")
    ivan = fake.user(44, "Ivan", locale="ru")
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    await fake.slash(bot.client, ali, channel, "tournament", what="knockout")
    (first,) = live_cards(fake)
    assert "Turnuva" in first["content"]  # the first speaker's language
    message, join = card_button(fake, "j")
    await fake.press(bot.client, veli, message, join)
    await fake.slash(bot.client, olga, channel, "tournament", what="join")
    await fake.slash(bot.client, ivan, channel, "tournament", what="join")
    (card,) = live_cards(fake)
    assert card["id"] == first["id"]  # edited, never posted again
    assert "Ivan" in card["content"]
    assert "Турнир" in card["content"]  # two of four speak Russian, one Turkish, one English
    await fake.slash(bot.client, veli, channel, "tournament")
    (current,) = live_cards(fake)
    assert current["id"] != first["id"]
    old = fake.messages[int(first["id"])]
    assert not custom_ids(old)
    assert old["content"].startswith("⬇️")
