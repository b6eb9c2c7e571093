"""A Telegram player against a Discord player, found through the pool: the real
python-telegram-bot against the fake Bot API and the real discord.py against the fake
Discord, in one process on one database, as ``python -m bot`` runs with both tokens.

Ali writes /play to the bot in a private Telegram chat; Veli asks in a Discord DM. They are
paired, each plays on the board in their own chat (pressing only their own buttons), and
after every press both boards show the game as it stands. Nothing of Veli's id, handle or
channel reaches Ali's chat, and nothing of Ali's reaches Veli's.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from telegram.ext import AIORateLimiter

from bot.config import Config
from bot.discord import run_discord
from bot.discord.buttons import PREFIX
from bot.service import actions as A
from bot.service.runner import DeadlineRunner
from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from bot.telegram import run_telegram
from core.match import Match
from tests.drivers import press_order
from tests.factory import Clock, find_action, make_service
from tests.fakes.discord import FakeDiscord
from tests.fakes.telegram import FakeBotAPI
from tests.test_telegram import config_for

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DM = 990033  # Veli's direct-message channel with the bot


def config(fake: FakeBotAPI) -> Config:
    """Both adapters in one process: Telegram on the fake Bot API, Discord on its fake."""
    return replace(config_for(fake), discord_token="discord-test-token")


def tg_buttons(message: dict[str, Any]) -> list[str]:
    markup = message.get("reply_markup") or {}
    return [
        b["callback_data"]
        for row in markup.get("inline_keyboard", [])
        for b in row
        if "callback_data" in b
    ]


def dc_buttons(message: dict[str, Any]) -> list[str]:
    return [
        c["custom_id"]
        for row in message.get("components", [])
        for c in row.get("components", [])
        if "custom_id" in c
    ]


def version_of(ids: list[str]) -> int:
    versions = [a.version for d in ids if (a := A.decode(d.removeprefix(PREFIX))) and a.game_id]
    return max(versions, default=0)


@pytest.fixture
async def world(tmp_path: Path):
    discord_fake = FakeDiscord()
    with discord_fake.patch():
        async with FakeBotAPI(flood=None) as telegram_fake:
            storage = SqliteStorage(str(tmp_path / "bot.db"))
            await storage.open()
            service = make_service(storage, first_seed=11, burst_actions=10**6, theme="classic")
            stop = asyncio.Event()
            rounds = DeadlineRunner(service)
            limiter = AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3)
            before = len(telegram_fake.calls_to("getUpdates"))
            tasks = [
                asyncio.create_task(
                    run_telegram(
                        config(telegram_fake), service, stop, rate_limiter=limiter, runner=rounds
                    )
                ),
                asyncio.create_task(
                    run_discord(config(telegram_fake), service, stop, runner=rounds)
                ),
            ]
            client = await asyncio.wait_for(discord_fake.wait_client(1), 10)
            await telegram_fake.wait_for(
                lambda: len(telegram_fake.calls_to("getUpdates")) > before, 10
            )
            yield telegram_fake, discord_fake, client, service, storage, rounds
            stop.set()
            await asyncio.wait_for(asyncio.gather(*tasks), 20)
            await storage.close()


async def test_a_telegram_player_and_a_discord_player_play_a_whole_game(world) -> None:
    tg, dc, client, service, storage, _rounds = world
    ali = tg.user(770011, "Ali", username="alihandle", language_code="tr")
    ali_chat = tg.private_chat(ali)
    veli = dc.user(550022, "Veli", locale="en-US")
    dm = dc.channel(DM, None, "dm")

    await tg.send_text(ali, ali_chat, "/play")
    waiting = await tg.wait_for(
        lambda: next((m for m in tg.messages(ali_chat) if tg_buttons(m)), None), 10
    )
    assert find_action(tg_buttons(waiting), A.POOL)
    await dc.slash(client, veli, dm, "play")

    def tg_board() -> dict[str, Any] | None:
        for m in reversed(tg.messages(ali_chat)):
            if m.get("photo") and version_of(tg_buttons(m)):
                return m
        return None

    def dc_board() -> dict[str, Any] | None:
        for m in reversed(dc.channel_messages(dm)):
            if m["attachments"] and version_of(dc_buttons(m)):
                return m
        return None

    await tg.wait_for(tg_board, 10)
    assert dc_board() is not None

    games = await storage.games_of_user((await storage.find_user("telegram", "770011")).id)
    record = games[-1]
    assert record.settings.scope == "pool"
    users = {record.seats[0]: "tg", record.seats[1]: "dc"}

    for _ in range(3000):
        record = await storage.get_game(record.stored_id)
        if record.status is not GameStatus.ACTIVE:
            break
        want = record.settings.state_version or record.version
        # Both boards in step with the game before anyone presses again.
        await tg.wait_for(
            lambda want=want: ((b := tg_board()) and version_of(tg_buttons(b)) >= want) or None,
            10,
        )
        # Discord's copy went out through its outlet, which the service has waited for.
        board = dc_board()
        assert board is not None
        assert version_of(dc_buttons(board)) >= want
        match = Match.from_dict(record.match)
        side = users[record.seats[match.game.awaiting]]
        if side == "tg":
            board = tg_board()
            ids = tg_buttons(board)
            data = next(d for code in press_order() if (d := find_action(ids, code)))
            query = await tg.press(ali, ali_chat, board["message_id"], data)
            await tg.wait_for(lambda query=query: query in tg.callback_answers, 10)
        else:
            board = dc_board()
            ids = dc_buttons(board)
            cid = next(d for code in press_order() if (d := find_action(ids, code, prefix=PREFIX)))
            exchange = await dc.press(client, veli, board, cid)
            assert exchange.acks == 1
        await service.settle()
    else:
        raise AssertionError("the game never ended")
    assert record.status is GameStatus.FINISHED

    # Nothing identifying crossed over, in any message either player received.
    ali_seen = json.dumps(tg.messages(ali_chat), ensure_ascii=False)
    for secret in ("550022", str(DM)):
        assert secret not in ali_seen.replace(str(ali_chat.id), "")
    veli_seen = json.dumps(dc.channel_messages(dm), ensure_ascii=False)
    for secret in ("alihandle", str(ali.id)):
        assert secret not in veli_seen

    # Veli blocks Ali: both look for the same game again and are never paired.
    await dc.slash(client, veli, dm, "block")
    await service.settle()
    assert any("blocked" in (m.get("content") or "") for m in dc.channel_messages(dm))
    before = len(tg.messages(ali_chat))
    await tg.send_text(ali, ali_chat, "/play")
    # (The game's last messages may still be on their way: one a second in a private chat.)
    looking = await tg.wait_for(
        lambda: next(
            (
                n
                for n, m in enumerate(tg.messages(ali_chat))
                if n >= before and "Rakip aranıyor" in (m.get("text") or "")
            ),
            None,
        ),
        10,
    )
    await dc.slash(client, veli, dm, "play")
    await service.settle()
    assert not any(m.get("photo") for m in tg.messages(ali_chat)[looking:])  # no board
    assert "Looking for an opponent" in (dc.channel_messages(dm)[-1].get("content") or "")
    entries = await storage.pool.entries(record.updated)
    assert len(entries) == 2  # both wait

    # The other way round: Veli waits on Discord, a Telegram newcomer comes; Veli's waiting
    # message says who came and his board is posted in his DM by the Discord adapter.
    await dc.slash(client, veli, dm, "play", variant="uzun")
    await service.settle()
    waiting_id = dc.channel_messages(dm)[-1]["id"]
    ayse = tg.user(880033, "Ayşe", username="aysehandle", language_code="ru")
    ayse_chat = tg.private_chat(ayse)
    await tg.send_text(ayse, ayse_chat, "/play uzun")
    await tg.wait_for(lambda: next((m for m in tg.messages(ayse_chat) if m.get("photo")), None), 10)
    await service.settle()
    edited = next(m for m in dc.channel_messages(dm) if m["id"] == waiting_id)
    assert "Opponent found: Ayşe" in edited["content"]
    board = dc_board()
    assert board is not None
    assert board["id"] != waiting_id
    assert "aysehandle" not in json.dumps(dc.channel_messages(dm), ensure_ascii=False)


def strangers(world):
    """Ali on Telegram (Turkish) and Veli in a Discord DM (English), on a clock that
    stands still until the test moves it."""
    tg, dc, _client, service, _storage, _rounds = world
    clock = Clock(time.time())
    service.clock = clock
    ali = tg.user(770011, "Ali", username="alihandle", language_code="tr")
    ali_chat = tg.private_chat(ali)
    veli = dc.user(550022, "Veli", locale="en-US")
    dm = dc.channel(DM, None, "dm")
    return clock, ali, ali_chat, veli, dm


async def test_the_reminder_and_the_claim_each_reach_one_chat(world) -> None:
    """A pool game's reminder is posted in the slow player's chat alone, in their language;
    the claim, once their time is up, in the opponent's alone, in theirs."""
    tg, dc, client, service, storage, rounds = world
    clock, ali, ali_chat, veli, dm = strangers(world)
    await tg.send_text(ali, ali_chat, "/play")
    await tg.wait_for(lambda: next((m for m in tg.messages(ali_chat) if tg_buttons(m)), None), 10)
    await dc.slash(client, veli, dm, "play")
    await tg.wait_for(lambda: next((m for m in tg.messages(ali_chat) if m.get("photo")), None), 10)
    await service.settle()
    record = (await storage.games_of_user((await storage.find_user("telegram", "770011")).id))[0]
    slow = "tg" if Match.from_dict(record.match).game.awaiting == 0 else "dc"

    def said() -> dict[str, str]:
        return {
            "tg": json.dumps(tg.messages(ali_chat), ensure_ascii=False),
            "dc": json.dumps(dc.channel_messages(dm), ensure_ascii=False),
        }

    reminder = {"tg": "sıra sende", "dc": "it is your move"}
    claim = {"tg": "oyunu alabilir", "dc": "may claim the game"}
    clock.now += 300 * 0.75 + 1
    await rounds.round()
    await service.settle()
    seen = said()
    other = "dc" if slow == "tg" else "tg"
    assert reminder[slow] in seen[slow]
    assert reminder[other] not in seen[other]
    clock.now += 300
    await rounds.round()
    await service.settle()
    seen = said()
    assert claim[other] in seen[other]
    assert claim[slow] not in seen[slow]
    tg_claims = [m for m in tg.messages(ali_chat) if find_action(tg_buttons(m), A.CLAIM)]
    dc_claims = [
        m for m in dc.channel_messages(dm) if find_action(dc_buttons(m), A.CLAIM, prefix=PREFIX)
    ]
    assert (len(tg_claims), len(dc_claims)) == ((0, 1) if slow == "tg" else (1, 0))


async def test_a_player_playing_the_computer_is_asked_when_an_opponent_comes(world) -> None:
    """Ali waits on Telegram and takes the offer to play the computer meanwhile; when Veli
    comes on Discord, Ali is asked in a new message (in Turkish) and starts the pool game
    with "Start now": both boards appear, and no game started before he answered."""
    tg, dc, client, service, storage, rounds = world
    clock, ali, ali_chat, veli, dm = strangers(world)

    def pool_press(arg: str) -> tuple[dict[str, Any], str] | None:
        for m in reversed(tg.messages(ali_chat)):
            for data in tg_buttons(m):
                action = A.decode(data)
                if action and action.code == A.POOL and action.arg == arg:
                    return m, data
        return None

    await tg.send_text(ali, ali_chat, "/play")
    await tg.wait_for(lambda: pool_press("c"), 10)
    clock.now += 61
    await rounds.round()
    message, data = await tg.wait_for(lambda: pool_press("b"), 10)
    query = await tg.press(ali, ali_chat, message["message_id"], data)
    await tg.wait_for(lambda: query in tg.callback_answers, 10)
    await tg.wait_for(lambda: next((m for m in tg.messages(ali_chat) if m.get("photo")), None), 10)
    ali_id = (await storage.find_user("telegram", "770011")).id
    (computer_game,) = await storage.games_of_user(ali_id)

    await dc.slash(client, veli, dm, "play")
    await service.settle()
    asked = dc.channel_messages(dm)[-1]["content"]
    assert "Ali is playing the computer and is asked" in asked
    message, data = await tg.wait_for(lambda: pool_press("n"), 10)
    assert "Bilgisayarla oynuyorsun" in message["text"]
    assert "Veli" in message["text"]
    assert [g.id for g in await storage.games_of_user(ali_id)] == [computer_game.id]
    query = await tg.press(ali, ali_chat, message["message_id"], data)
    await tg.wait_for(lambda: query in tg.callback_answers, 10)
    await service.settle()
    games = await storage.games_of_user(ali_id)
    (pool_game,) = [g for g in games if g.settings.scope == "pool"]
    await tg.wait_for(
        lambda: next(
            (
                m
                for m in tg.messages(ali_chat)
                if m.get("photo") and any(f"{pool_game.id}:" in d for d in tg_buttons(m))
            ),
            None,
        ),
        10,
    )
    dc_boards = [
        m
        for m in dc.channel_messages(dm)
        if m["attachments"]
        and any(d.removeprefix(PREFIX).startswith(f"{pool_game.id}:") for d in dc_buttons(m))
    ]
    assert dc_boards
    assert (await storage.get_game(computer_game.id)).status is GameStatus.ACTIVE


async def test_the_waiting_count_is_edited_as_players_come_and_go(world) -> None:
    """Ali's waiting message on Telegram is edited when a player comes (at once) and goes,
    and a crowd arriving within a second is one edit, not one each."""
    tg, dc, client, service, _storage, _rounds = world
    clock, ali, ali_chat, veli, dm = strangers(world)
    gate = asyncio.Event()
    gate.set()

    async def sleep(seconds: float) -> None:  # the pause between edits, on the test's clock
        await gate.wait()
        clock.now += seconds

    service.pool.counts.sleep = sleep
    await tg.send_text(ali, ali_chat, "/play uzun 3")
    waiting = await tg.wait_for(
        lambda: next((m for m in tg.messages(ali_chat) if "Havuzda: 1" in m.get("text", "")), None),
        10,
    )

    def edits() -> list[str]:
        return [
            call.params["text"]
            for call in tg.calls_to("editMessageText", ok=True)
            if int(call.params.get("message_id", 0)) == waiting["message_id"]
            and int(call.params.get("chat_id", 0)) == ali_chat.id
        ]

    await dc.slash(client, veli, dm, "play", variant="turkish")
    await tg.wait_for(lambda: (edits() and "Havuzda: 2" in edits()[-1]) or None, 10)
    # Two Telegram newcomers within the second: one edit when it is over.
    gate.clear()
    for user_id, name, wish in ((880033, "Ayşe", "/play tavla 5"), (880044, "Cem", "/play 7")):
        newcomer = tg.user(user_id, name, language_code="tr")
        chat = tg.private_chat(newcomer)
        await tg.send_text(newcomer, chat, wish)
        await tg.wait_for(lambda chat=chat: tg.messages(chat) or None, 10)
    gate.set()
    await tg.wait_for(lambda: "Havuzda: 4" in edits()[-1] or None, 10)
    await service.settle()
    assert len(edits()) == 2, edits()
    # Veli cancels in his DM: Ali's count goes down.
    mine = next(m for m in reversed(dc.channel_messages(dm)) if dc_buttons(m))
    cancel = next(d for d in dc_buttons(mine) if d.endswith(":plc"))
    exchange = await dc.press(client, veli, mine, cancel)
    assert exchange.acks == 1
    await tg.wait_for(lambda: "Havuzda: 3" in edits()[-1] or None, 10)


async def test_games_has_a_button_a_game_that_posts_its_board(world) -> None:
    """``/games`` on Telegram lists Ali's two daily games, each with a button; pressed, the
    game's board is posted anew in his chat (his opponent's chat gets nothing)."""
    tg, dc, client, service, storage, _rounds = world
    _clock, ali, ali_chat, veli, dm = strangers(world)
    ayse = tg.user(880033, "Ayşe", username="aysehandle", language_code="ru")
    ayse_chat = tg.private_chat(ayse)

    def photos(chat) -> list[dict[str, Any]]:
        return [m for m in tg.messages(chat) if m.get("photo")]

    await tg.send_text(ali, ali_chat, "/play daily")
    await tg.wait_for(lambda: tg.messages(ali_chat) or None, 10)
    await dc.slash(client, veli, dm, "play", pace="daily")
    await tg.wait_for(lambda: photos(ali_chat) or None, 10)
    await tg.send_text(ayse, ayse_chat, "/play uzun daily")
    await tg.wait_for(lambda: tg.messages(ayse_chat) or None, 10)
    await tg.send_text(ali, ali_chat, "/play uzun daily")
    await tg.wait_for(lambda: len(photos(ali_chat)) == 2 or None, 10)
    await service.settle()
    ali_id = (await storage.find_user("telegram", "770011")).id
    first = min(g.id for g in await storage.games_of_user(ali_id))
    dc_before = len(dc.channel_messages(dm))

    await tg.send_text(ali, ali_chat, "/games")
    listing = await tg.wait_for(
        lambda: next((m for m in tg.messages(ali_chat) if f"#{first}" in m.get("text", "")), None),
        10,
    )
    opens = [d for d in tg_buttons(listing) if d.endswith(":plo")]
    assert len(opens) == 2, tg_buttons(listing)
    data = next(d for d in opens if d.startswith(f"{first}:"))
    query = await tg.press(ali, ali_chat, listing["message_id"], data)
    await tg.wait_for(lambda: query in tg.callback_answers, 10)
    board = await tg.wait_for(lambda: len(photos(ali_chat)) == 3 or None, 10)
    assert board
    newest = photos(ali_chat)[-1]
    assert any(d.startswith(f"{first}:") for d in tg_buttons(newest)), tg_buttons(newest)
    await service.settle()
    assert len(dc.channel_messages(dm)) == dc_before


async def test_a_chat_left_behind_by_a_crash_has_its_board_redrawn(world) -> None:
    """Ali presses on Telegram; the bot stops before Veli's Discord board is edited. The
    rounds redraw Veli's board (his side, his language) and leave Ali's alone."""
    tg, dc, client, service, storage, rounds = world
    clock, ali, ali_chat, veli, dm = strangers(world)
    await tg.send_text(ali, ali_chat, "/play")
    await tg.wait_for(lambda: tg.messages(ali_chat) or None, 10)
    await dc.slash(client, veli, dm, "play")

    def tg_board() -> dict[str, Any] | None:
        return next((m for m in reversed(tg.messages(ali_chat)) if m.get("photo")), None)

    def dc_board() -> dict[str, Any] | None:
        return next((m for m in reversed(dc.channel_messages(dm)) if m["attachments"]), None)

    await tg.wait_for(tg_board, 10)
    await service.settle()
    ali_id = (await storage.find_user("telegram", "770011")).id
    (record,) = await storage.games_of_user(ali_id)
    assert Match.from_dict(record.match).game.awaiting == 0  # Ali's turn (seed 11)
    stale = version_of(dc_buttons(dc_board()))
    delivered = service.outlets["discord"]

    async def lost(view) -> None:  # the bot stopped before Veli's edit went out
        return None

    service.outlets["discord"] = lost
    confirmed: list[int] = []
    board_shown = service.board_shown

    async def confirm(game_id, version, message=None, **where) -> None:
        await board_shown(game_id, version, message, **where)
        confirmed.append(version)

    service.board_shown = confirm
    board = tg_board()
    data = next(d for code in press_order() if (d := find_action(tg_buttons(board), code)))
    query = await tg.press(ali, ali_chat, board["message_id"], data)
    await tg.wait_for(lambda: query in tg.callback_answers, 10)
    await service.settle()
    service.outlets["discord"] = delivered
    record = await storage.get_game(record.stored_id)
    want = record.settings.state_version or record.version
    assert version_of(dc_buttons(dc_board())) == stale < want
    # Ali's board is edited and confirmed (the Telegram adapter sends edits in turn).
    await tg.wait_for(lambda: confirmed and max(confirmed) >= want, 10)
    tg_calls = len(tg.calls)

    clock.now += service.settings.repair_after + 1
    await rounds.round()
    await service.settle()
    board = dc_board()
    assert version_of(dc_buttons(board)) >= want
    assert "Ali to play" in board["content"] or "Veli" in board["content"]
    assert [c.method for c in tg.calls[tg_calls:] if c.method.startswith(("edit", "send"))] == []


async def test_two_discord_players_in_one_server_channel_play_each_other(world) -> None:
    """Two members of one Discord server ask in the same channel and are paired: each gets
    their own board there, from their side and in their language, presses it, and after
    every press both boards show the game as it stands, to the end."""
    _tg, dc, client, service, storage, _rounds = world
    ali = dc.user(550011, "Ali", locale="tr")
    veli = dc.user(550022, "Veli", locale="en-US")
    channel = dc.channel(7001, 8001, "tavla")
    await dc.slash(client, ali, channel, "play")
    await service.settle()
    assert "Rakip aranıyor" in dc.channel_messages(channel)[-1]["content"]
    await dc.slash(client, veli, channel, "play")
    await service.settle()
    ali_id = (await storage.find_user("discord", "550011")).id
    (record,) = await storage.games_of_user(ali_id)
    assert record.settings.scope == "pool"
    players = {record.seats[0]: ali, record.seats[1]: veli}

    async def boards() -> dict[int, dict[str, Any]]:
        """Each seat's board message, as the server channel shows it."""
        chairs = await storage.pool.seat_chats(record.stored_id)
        by_id = {int(m["id"]): m for m in dc.channel_messages(channel)}
        return {c.seat: by_id[int(c.message.message_id)] for c in chairs}

    first = await boards()
    assert first[0]["id"] != first[1]["id"]
    assert first[0]["attachments"]
    assert first[1]["attachments"]
    assert "Ali oynuyor" in first[0]["content"] or "Pip" in first[0]["content"]
    assert "Pips" in first[1]["content"]  # Veli's board, in English
    # Each presses their own board: Veli's press on Ali's is refused, privately.
    ids = dc_buttons(first[0])
    cid = next(d for code in press_order() if (d := find_action(ids, code, prefix=PREFIX)))
    exchange = await dc.press(client, veli, first[0], cid)
    assert any("your opponent's" in said for said in exchange.ephemeral()), exchange.kinds()
    assert (await storage.get_game(record.stored_id)).version == record.version

    for _ in range(3000):
        record = await storage.get_game(record.stored_id)
        if record.status is not GameStatus.ACTIVE:
            break
        want = record.settings.state_version or record.version
        shown = await boards()
        assert all(version_of(dc_buttons(m)) >= want for m in shown.values()), want
        seat = Match.from_dict(record.match).game.awaiting
        board = shown[seat]
        ids = dc_buttons(board)
        cid = next(d for code in press_order() if (d := find_action(ids, code, prefix=PREFIX)))
        exchange = await dc.press(client, players[record.seats[seat]], board, cid)
        assert exchange.acks == 1
        await service.settle()
    else:
        raise AssertionError("the game never ended")
    assert record.status is GameStatus.FINISHED
    final = await boards()
    assert version_of(dc_buttons(final[0])) == version_of(dc_buttons(final[1]))
