"""The real discord.py client against a local fake of Discord (tests/fakes/discord.py).

Two members of a server play: challenge with a typed member option, accept, a whole game with
buttons and /move, a double and take, a refused press by a third member, a stale button and a
restart in the middle (a new client on the same SQLite file answers the old buttons). The HTTP
layer and the gateway are patched; nothing touches the network and nothing waits on a clock.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.config import Config
from bot.discord import run_discord
from bot.discord.buttons import PREFIX, layout
from bot.service import actions as A
from bot.service.commands import COMMANDS
from bot.service.views import Button
from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from core.match import Match
from tests.drivers import press_order
from tests.factory import find_action, make_service
from tests.fakes.discord import FakeDiscord, FakeUser

GUILD = 7001
CHANNEL = 7002


def config(guild_id: int | None = GUILD) -> Config:
    return Config(
        telegram_token=None,
        telegram_base_url="http://127.0.0.1:9/bot",
        telegram_base_file_url="http://127.0.0.1:9/file/bot",
        telegram_webhook_url=None,
        telegram_webhook_listen="127.0.0.1",
        telegram_webhook_port=0,
        discord_token="discord-test-token",
        discord_guild_id=guild_id,
        database_url=None,
        board_dir=Path("data/boards"),
        log_level="INFO",
    )


class Bot:
    """A running bot process: storage, service and the Discord client (via run_discord)."""

    def __init__(self, fake: FakeDiscord, db: Path, seed: int, *, defer_after: float = 60.0):
        self.now = 1_700_000_000.0
        self.fake = fake
        self.db = db
        self.seed = seed
        self.defer_after = defer_after

    async def start(self, guild_id: int | None = GUILD) -> Bot:
        self.storage = SqliteStorage(str(self.db))
        await self.storage.open()
        self.service = make_service(
            self.storage,
            first_seed=self.seed,
            clock=lambda: self.now,
            burst_actions=10**6,
            theme="classic",
        )
        self.stop_event = asyncio.Event()
        count = len(self.fake.clients) + 1
        self.task = asyncio.create_task(
            run_discord(
                config(guild_id),
                self.service,
                self.stop_event,
                tick_seconds=3600,
                defer_after=self.defer_after,
            )
        )
        self.client = await asyncio.wait_for(self.fake.wait_client(count), 10)
        return self

    async def stop(self) -> None:
        self.stop_event.set()
        await asyncio.wait_for(self.task, 10)
        await self.storage.close()


@pytest.fixture
def fake():
    world = FakeDiscord()
    with world.patch():
        yield world


@pytest.fixture
async def bot(fake, tmp_path):
    running = await Bot(fake, tmp_path / "bot.db", seed=7).start()
    yield running
    if not running.stop_event.is_set():
        await running.stop()


# -- helpers ------------------------------------------------------------------------------


def custom_ids(message: dict[str, Any]) -> list[str]:
    return [
        c["custom_id"]
        for row in message.get("components", [])
        for c in row.get("components", [])
        if "custom_id" in c
    ]


def find(message: dict[str, Any], code: str) -> str | None:
    return find_action(custom_ids(message), code, prefix=PREFIX)


def board_message(fake: FakeDiscord) -> dict[str, Any]:
    """The newest public message with a picture and game buttons (the board)."""
    for message in reversed(fake.channel_messages(CHANNEL)):
        if message["attachments"] and custom_ids(message):
            return message
    raise AssertionError("no board")


async def game_record(bot: Bot):
    games = await bot.storage.games_in_chat(
        "discord", str(GUILD), (GameStatus.ACTIVE, GameStatus.FINISHED)
    )
    return max(games, key=lambda g: g.id)


async def awaiting(bot: Bot, users: dict[str, FakeUser]) -> FakeUser:
    record = await game_record(bot)
    match = Match.from_dict(record.match)
    user = await bot.storage.get_user(record.seats[match.game.awaiting])
    return users[user.platform_id]


async def open_game(fake: FakeDiscord, bot: Bot, points: int = 1):
    ali = fake.user(11, "Ali", locale="tr")
    veli = fake.user(22, "Veli", locale="en-US")
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    challenge = await fake.slash(bot.client, ali, channel, "tavla", opponent=veli, points=points)
    assert challenge.acks == 1
    assert challenge.callback_types() == [4]  # answered at once, publicly
    message = next(m for m in fake.channel_messages(channel) if find(m, A.ACCEPT))
    accepted = await fake.press(bot.client, veli, message, find(message, A.ACCEPT))
    assert accepted.acks == 1
    assert accepted.ephemeral() == []
    return ali, veli, channel


async def step_once(fake, bot, users, *, double: bool = False) -> bool:
    """One sensible press by the player to act; False once the game is over."""
    record = await game_record(bot)
    if record.status is not GameStatus.ACTIVE:
        return False
    message = board_message(fake)
    actor = await awaiting(bot, users)
    for code in press_order(double=double):
        cid = find(message, code)
        if cid:
            exchange = await fake.press(bot.client, actor, message, cid)
            assert exchange.acks == 1, exchange.kinds()
            assert exchange.ephemeral() == [], exchange.ephemeral()
            return True
    raise AssertionError(f"no button to press: {custom_ids(message)}")


# -- tests --------------------------------------------------------------------------------


async def test_commands_are_synced_to_the_test_guild_with_translations(fake, bot):
    synced = fake.calls_to("sync_guild")
    assert len(synced) == 1
    assert str(GUILD) in synced[0].path
    commands = {c["name"]: c for c in synced[0].payload}
    expected = {"tavla", "uzun", "nardy", "bot", "move", "top", "stats", "export", "dice"}
    expected |= {"lang", "help", "rules", "resign", "abort", "claim", "board"}
    assert expected <= set(commands)
    tavla = commands["tavla"]
    assert {"tr", "ru"} <= set(tavla["description_localizations"])
    assert tavla["description_localizations"]["tr"] != tavla["description"]
    options = {o["name"]: o for o in tavla["options"]}
    assert options["opponent"]["type"] == 6  # a member
    assert options["points"]["type"] == 4
    assert options["points"]["max_value"] == 25
    assert {c["value"] for c in options["variant"]["choices"]} == {"tavla", "turkish"}
    assert {c["value"] for c in commands["bot"]["options"][2]["choices"]} >= {"random", "expert"}
    intents = bot.client.intents
    assert not intents.message_content
    assert not intents.members
    assert not intents.presences


async def test_global_sync_without_a_guild(fake, tmp_path):
    running = await Bot(fake, tmp_path / "g.db", seed=1).start(guild_id=None)
    assert fake.calls_to("sync_global")
    assert not fake.calls_to("sync_guild")
    await running.stop()


async def test_a_whole_game_with_buttons_move_and_a_double(fake, bot):
    ali, veli, channel = await open_game(fake, bot, points=3)
    users = {"11": ali, "22": veli}
    # Accepting turned the challenge into the game's first line and posted the board.
    first = fake.channel_messages(channel)[0]
    assert "SHA-256" in first["content"]
    assert not custom_ids(first)
    board = board_message(fake)
    assert fake.attachment_bytes(board).startswith(b"\x89PNG")
    # The player to act types a whole move with /move once the dice are rolled.
    typed = False
    doubled = False
    for n in range(3000):
        record = await game_record(bot)
        if record.status is not GameStatus.ACTIVE:
            break
        match = Match.from_dict(record.match)
        game = match.game
        if not typed and game.current_turn is not None and not game.current_turn.done:
            plays = game.legal_plays()
            if plays and str(plays[0]):
                actor = await awaiting(bot, users)
                before = record.version
                board_id = board_message(fake)["id"]
                exchange = await fake.slash(bot.client, actor, channel, "move", play=str(plays[0]))
                assert exchange.acks == 1
                assert (await game_record(bot)).version > before
                # The board was edited in place through the channel, with a new picture.
                edits = [c for c in exchange.calls if c.kind == "edit_message"]
                assert edits
                assert board_id in edits[0].path
                assert edits[0].files
                typed = True
                continue
        message = board_message(fake)
        want_double = not doubled and find(message, A.DOUBLE) is not None and n > 10
        assert await step_once(fake, bot, users, double=want_double)
        if want_double:
            doubled = True
            # The opponent now sees Take / Pass on the same board, edited in place.
            assert find(board_message(fake), A.TAKE)
    record = await game_record(bot)
    assert record.status is GameStatus.FINISHED
    assert typed
    assert doubled
    match = Match.from_dict(record.match)
    assert match.game is None or match.game.cube_value >= 2 or match.score != [0, 0]
    final = next(m for m in fake.channel_messages(channel) if "🏆" in m["content"])
    assert "/dice" in final["content"]
    # Presses edit the board message in place with the picture attached.
    updates = [c for c in fake.calls_to("callback") if c.payload["type"] == 7]
    assert updates
    assert all(c.files for c in updates if c.payload["data"].get("attachments"))
    # /top is per server.
    top = await fake.slash(bot.client, ali, channel, "top")
    assert top.acks == 1
    text = fake.calls_to("callback")[-1].payload["data"]["content"]
    assert "Ali" in text or "Veli" in text


async def test_refused_press_and_stale_button_are_ephemeral(fake, bot):
    ali, veli, _channel = await open_game(fake, bot)
    users = {"11": ali, "22": veli}
    ayse = fake.user(33, "Ayşe", locale="ru")
    old = copy.deepcopy(board_message(fake))  # what a slow client still shows
    stale = custom_ids(old)[0]
    # A third member's press is refused, privately, in her language; nothing changes.
    before = (await game_record(bot)).version
    refused = await fake.press(bot.client, ayse, old, stale)
    assert refused.acks == 1
    assert refused.callback_types() == [4]
    [text] = refused.ephemeral()
    assert text
    assert any("а" <= ch <= "я" for ch in text.lower())
    assert (await game_record(bot)).version == before
    # The player not to move gets an ephemeral "not your turn" as well.
    waiting = veli if (await awaiting(bot, users)) is ali else ali
    assert (await fake.press(bot.client, waiting, old, stale)).ephemeral()
    # Play on; the first board's buttons are now out of date.
    while (await game_record(bot)).version == before:
        await step_once(fake, bot, users)
    actor = await awaiting(bot, users)
    answer = await fake.press(bot.client, actor, old, stale)
    assert answer.acks == 1, answer.kinds()
    [text] = answer.ephemeral()
    # Pressed on the board message itself: it is redrawn to the game as it stands.
    assert "behind the game" in text or "gerisinde" in text.lower()
    assert custom_ids(board_message(fake)) != custom_ids(old)


async def test_slow_answers_are_deferred_then_followed_up(fake, tmp_path):
    running = await Bot(fake, tmp_path / "slow.db", seed=5, defer_after=0).start()
    service = running.service
    for name in ("command", "press"):
        quick = getattr(service, name)

        async def slow(*args: Any, _quick: Any = quick, **kwargs: Any) -> Any:
            # Work that takes a while (a picture drawn, the computer thinking).
            await asyncio.sleep(0.05)
            return await _quick(*args, **kwargs)

        setattr(service, name, slow)
    ali = fake.user(11, "Ali", locale="tr")
    veli = fake.user(22, "Veli")
    channel = fake.channel(CHANNEL, GUILD)
    challenge = await fake.slash(running.client, ali, channel, "tavla", opponent=veli)
    assert challenge.callback_types() == [5]  # "thinking…" first
    assert challenge.kinds()[-1] == "edit_original"  # the thinking message becomes it
    message = next(m for m in fake.channel_messages(channel) if find(m, A.ACCEPT))
    assert not int(message["flags"]) & 128  # the follow-up replaced the thinking message
    accepted = await fake.press(running.client, veli, message, find(message, A.ACCEPT))
    assert accepted.callback_types() == [6]  # a silent deferral, then edits and follow-ups
    board = board_message(fake)
    users = {"11": ali, "22": veli}
    actor = await awaiting(running, users)
    pressed = await fake.press(running.client, actor, board, custom_ids(board)[0])
    assert pressed.callback_types() == [6]
    assert "edit_original" in pressed.kinds()
    # An error after deferring: still one private answer (the thinking message is removed).
    nobody = fake.user(44, "Nobody", locale="tr")
    refused = await fake.slash(running.client, nobody, channel, "move", play="13/8 6/5")
    assert refused.callback_types() == [5]
    assert "delete_original" in refused.kinds()
    assert refused.ephemeral()
    await running.stop()


async def test_restart_keeps_old_buttons_working(fake, tmp_path):
    first = await Bot(fake, tmp_path / "restart.db", seed=3).start()
    ali, veli, _channel = await open_game(fake, first)
    users = {"11": ali, "22": veli}
    for _ in range(5):
        await step_once(fake, first, users)
    before = await game_record(first)
    board = board_message(fake)
    await first.stop()
    second = await Bot(fake, tmp_path / "restart.db", seed=99).start()
    assert second.client is not first.client
    after = await game_record(second)
    assert after.version == before.version
    assert after.match == before.match
    # The board drawn by the first process is answered by the new registration.
    assert board_message(fake)["id"] == board["id"]
    for _ in range(3000):
        if not await step_once(fake, second, users):
            break
    assert (await game_record(second)).status is GameStatus.FINISHED
    await second.stop()


async def test_errors_are_logged_and_answered_politely(fake, bot, caplog, monkeypatch):
    ali = fake.user(11, "Ali", locale="tr")
    channel = fake.channel(CHANNEL, GUILD)

    async def broken(*args, **kwargs):
        raise RuntimeError("database on fire")

    monkeypatch.setattr(bot.service, "command", broken)
    with caplog.at_level(logging.ERROR):
        exchange = await fake.slash(bot.client, ali, channel, "help")
    [text] = exchange.ephemeral()
    assert "Traceback" not in text
    assert "database" not in text
    assert any(r.exc_info and "database on fire" in str(r.exc_info[1]) for r in caplog.records)
    # A button failing the same way.
    monkeypatch.setattr(bot.service, "press", broken)
    message = {"id": "1", "channel_id": str(CHANNEL)}
    fake.messages[1] = {
        **message,
        "author": {**fake.bot_user.payload(), "bot": True},
        "content": "x",
        "timestamp": "2024-01-01T00:00:00+00:00",
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": [],
        "embeds": [],
        "pinned": False,
        "type": 0,
        "flags": 0,
        "components": [
            {
                "type": 1,
                "components": [{"type": 2, "style": 1, "label": "x", "custom_id": "tv:1:0:r"}],
            }
        ],
    }
    exchange = await fake.press(bot.client, ali, fake.messages[1], "tv:1:0:r")
    assert exchange.acks == 1
    assert exchange.ephemeral()


async def test_help_and_a_computer_game_in_a_direct_message(fake, tmp_path):
    # Commands synced globally reach direct messages too (a test guild's do not).
    bot = await Bot(fake, tmp_path / "dm.db", seed=2).start(guild_id=None)
    veli = fake.user(22, "Veli", locale="ru")
    dm = fake.channel(9001, None)
    exchange = await fake.slash(bot.client, veli, dm, "help")
    content = fake.calls_to("callback")[-1].payload["data"]["content"]
    assert exchange.acks == 1
    assert "/tavla" in content
    played = await fake.slash(bot.client, veli, dm, "bot", variant="uzun")
    assert played.acks == 1
    boards = [m for m in fake.channel_messages(dm) if m["attachments"]]
    assert boards
    assert custom_ids(boards[-1])
    await bot.stop()


async def test_deadlines_edit_the_challenge_and_remind_in_its_channel(fake, bot):
    ali = fake.user(11, "Ali")
    channel = fake.channel(CHANNEL, GUILD)
    await fake.slash(bot.client, ali, channel, "tavla")
    challenge = next(m for m in fake.channel_messages(channel) if find(m, A.ACCEPT))
    bot.now += bot.service.settings.challenge_ttl + 1
    await bot.client.adapter.tick()
    [edit] = fake.calls_to("edit_message")
    assert challenge["id"] in edit.path
    assert not custom_ids(fake.messages[int(challenge["id"])])  # no Accept button any more
    # A game whose player is slow gets a reminder in the board's channel.
    await open_game(fake, bot)
    sent = len(fake.calls_to("send_message"))
    bot.now += bot.service.settings.turn_limit * 0.9
    await bot.client.adapter.tick()
    assert len(fake.calls_to("send_message")) == sent + 1
    assert fake.calls_to("send_message")[-1].path == f"/channels/{CHANNEL}/messages"


def test_layout_keeps_to_discords_limits():
    rows = [[Button(str(i), f"1:1:s{i}") for i in range(j, j + 6)] for j in range(0, 18, 6)]
    rows.append([Button("u", "1:1:u"), Button("c", "1:1:c")])
    out = layout(rows)
    assert len(out) <= 5
    assert all(len(r) <= 5 for r in out)
    assert sum(len(r) for r in out) <= 25


def test_shards_split_over_processes():
    """Several workers: each process runs its own shards; only shard 0's process syncs."""
    from dataclasses import replace

    from bot.discord import build_client

    config = Config.from_env(env_file=None)
    second = replace(config, discord_shard_count=4, discord_shard_ids=(2, 3))
    client = build_client(second, service=None)  # type: ignore[arg-type]
    assert client.shard_count == 4
    assert client.shard_ids == [2, 3]
    assert not client.sync_commands
    first = build_client(replace(second, discord_shard_ids=(0, 1)), service=None)  # type: ignore[arg-type]
    assert first.sync_commands


async def test_board_left_behind_is_repaired_after_a_restart(fake, tmp_path):
    """No dead ends: the bot saved a move but its board edit never reached
    Discord; after a restart the deadline round redraws the only board, which plays on."""
    first = await Bot(fake, tmp_path / "behind.db", seed=3).start()
    ali, veli, _channel = await open_game(fake, first)
    users = {"11": ali, "22": veli}
    while not find(board_message(fake), A.MOVE):
        await step_once(fake, first, users)
    board = board_message(fake)
    before = await game_record(first)
    fake.fail_next("callback", 500)
    await fake.press(first.client, await awaiting(first, users), board, find(board, A.MOVE))
    saved = await game_record(first)
    assert saved.version > before.version
    assert saved.shown_version < saved.version  # the board in the channel is behind
    await first.stop()
    second = Bot(fake, tmp_path / "behind.db", seed=99)
    second.now = first.now + second_round_after(first)
    await second.start()
    await second.client.adapter.tick()  # the round that runs at start-up
    repaired = await game_record(second)
    assert repaired.shown_version == repaired.version == saved.version
    [cid, *_] = custom_ids(board_message(fake))
    assert A.decode(cid.removeprefix(PREFIX)).version == saved.version
    assert board_message(fake)["id"] == board["id"]
    for _ in range(3000):
        if not await step_once(fake, second, users):
            break
    assert (await game_record(second)).status is GameStatus.FINISHED
    await second.stop()


def second_round_after(bot: Bot) -> float:
    """Long enough for a lagging board to count as left behind rather than on its way."""
    return bot.service.settings.repair_after + 1


async def test_removed_from_a_server_the_games_wait_then_resume(fake, bot):
    ali, veli, _channel = await open_game(fake, bot)
    users = {"11": ali, "22": veli}
    await step_once(fake, bot, users)
    record = await game_record(bot)
    await bot.client.on_guild_remove(SimpleNamespace(id=GUILD, name="Kahvehane"))
    assert (await bot.storage.get_chat("discord", str(GUILD))).paused is not None
    bot.now += 3 * bot.service.settings.turn_limit
    sent = len(fake.calls)
    await bot.client.adapter.tick()
    assert len(fake.calls) == sent  # nothing is sent to a server the bot has left
    await bot.client.on_guild_join(SimpleNamespace(id=GUILD, name="Kahvehane"))
    resumed = await game_record(bot)
    assert resumed.deadline - bot.now == pytest.approx(record.deadline - record.updated, abs=1)
    for _ in range(3000):
        if not await step_once(fake, bot, users):
            break
    assert (await game_record(bot)).status is GameStatus.FINISHED


async def test_an_old_board_links_to_the_current_one(fake, bot):
    """No dead ends: after /board, a press on the previous board answers
    privately with a link to the current one, and changes nothing."""
    ali, veli, channel = await open_game(fake, bot)
    users = {"11": ali, "22": veli}
    await step_once(fake, bot, users)
    old = copy.deepcopy(board_message(fake))
    before = await game_record(bot)
    await fake.slash(bot.client, ali, channel, "board")
    current = board_message(fake)
    assert current["id"] != old["id"]
    answer = await fake.press(bot.client, veli, old, custom_ids(old)[0])
    assert answer.acks == 1
    texts = answer.ephemeral()
    assert any("old board" in t or "eski" in t.lower() for t in texts)
    [link] = [t for t in texts if f"/channels/{GUILD}/{CHANNEL}/{current['id']}" in t]
    assert "current board" in link  # in Veli's language (English), not the game's
    assert (await game_record(bot)).version == before.version


async def test_deleted_channel_stops_the_repairs_and_board_goes_on_elsewhere(fake, bot, caplog):
    """No dead ends: the board's channel is deleted. The repair round tries once
    (no error loop), and /board in another channel of the server brings the game back."""
    ali, veli, _channel = await open_game(fake, bot)
    users = {"11": ali, "22": veli}
    while not find(board_message(fake), A.MOVE):
        await step_once(fake, bot, users)
    board = board_message(fake)
    fake.fail_next("callback", 500)  # the move is saved; its board never shows
    await fake.press(bot.client, await awaiting(bot, users), board, find(board, A.MOVE))
    for message in fake.channel_messages(CHANNEL):
        message["_deleted"] = True  # the channel is gone, and with it every call to it
    fake.fail_next("edit_message", 404, 10003, times=10)
    fake.fail_next("send_message", 404, 10003, times=10)
    bot.now += bot.service.settings.repair_after + 1
    caplog.set_level(logging.WARNING)
    caplog.clear()  # the injected failure of the press above was logged as it should be
    await bot.client.adapter.tick()
    tried = len(fake.calls)
    await bot.client.adapter.tick()
    assert len(fake.calls) == tried  # tried once, then left alone
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    fake._fail.clear()
    elsewhere = fake.channel(CHANNEL + 1, GUILD, "salon")
    await fake.slash(bot.client, ali, elsewhere, "board")
    for _ in range(3000):
        record = await game_record(bot)
        if record.status is not GameStatus.ACTIVE:
            break
        message = next(
            m
            for m in reversed(fake.channel_messages(elsewhere))
            if m["attachments"] and custom_ids(m)
        )
        actor = await awaiting(bot, users)
        cid = next(find(message, c) for c in press_order() if find(message, c))
        exchange = await fake.press(bot.client, actor, message, cid)
        assert exchange.ephemeral() == [], exchange.ephemeral()
    assert (await game_record(bot)).status is GameStatus.FINISHED


async def test_discord_tree_has_every_command(fake, bot):
    (synced,) = fake.calls_to("sync_guild")
    commands = {c["name"]: c for c in synced.payload}
    assert set(commands) == {c.name for c in COMMANDS}
    resettop = commands["resettop"]
    assert resettop["dm_permission"] is False
    assert int(resettop["default_member_permissions"]) == 32  # manage the server
    assert {"tr", "ru"} <= set(resettop["description_localizations"])
    # The command reaches the service, which refuses a member who is no admin.
    ali = fake.user(11, "Ali")
    channel = fake.channel(9001, GUILD)
    exchange = await fake.slash(bot.client, ali, channel, "resettop")
    [text] = exchange.ephemeral()
    assert "administrators" in text
