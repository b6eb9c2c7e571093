"""SIGTERM (a service manager or ``podman stop`` stopping the bot): ``python -m bot`` stops
taking updates, finishes the presses under way, edits their boards and exits within 10 s.
Presses sent meanwhile wait at Telegram and are answered after the restart: none is left
unanswered and no move is lost."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.service import actions as A
from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from core.match import Match
from tests.drivers import free_port, press_order
from tests.fakes.telegram import FakeBotAPI
from tests.test_telegram import board_version, buttons, find

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TOKEN = "123456:TEST-sigterm_token"
GAMES = 8
#: The contract (design.md): stopped within 10 s of SIGTERM.
STOP_WITHIN = 10.0


async def start_bot(
    fake: FakeBotAPI, db: Path, cwd: Path, **settings: str
) -> asyncio.subprocess.Process:
    """``python -m bot`` against the fake, once it polls (``settings``: more environment)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_"))}
    env.update(
        TELEGRAM_TOKEN=TOKEN,
        TELEGRAM_BASE_URL=fake.base_url,
        TELEGRAM_BASE_FILE_URL=fake.base_file_url,
        # The fake's flood limits are off: so are the bot's (group and overall).
        TELEGRAM_MAX_RATE="0",
        TELEGRAM_GROUP_RATE="0",
        DATABASE_URL=f"sqlite:///{db}",
        WEB_PORT=str(free_port()),
        LOG_LEVEL="INFO",
    )
    env.update(settings)
    polls = len(fake.calls_to("getUpdates"))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    await fake.wait_for(lambda: len(fake.calls_to("getUpdates")) > polls, 60)
    return proc


async def stop_bot(
    proc: asyncio.subprocess.Process, on_stopping: Callable[[], object] | None = None
) -> tuple[float, int, str]:
    """SIGTERM; the seconds it took to exit, its status and its log (``on_stopping`` is
    called once the bot has logged that it is stopping)."""
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    assert proc.stderr is not None
    lines = []
    async with asyncio.timeout(60):
        async for line in proc.stderr:
            lines.append(line)
            if on_stopping is not None and b"SIGTERM: stopping" in line:
                on_stopping()
                on_stopping = None
    status = await asyncio.wait_for(proc.wait(), 60)
    return time.monotonic() - started, status, b"".join(lines).decode()


def board(fake: FakeBotAPI, group) -> dict:
    for message in reversed(fake.messages(group)):
        if message.get("photo") and buttons(message):
            return message
    raise AssertionError(fake.summary())


async def press_round(fake, storage, tables) -> dict[str, tuple[int, int]]:
    """One press in every game by the player it waits for: {query id: (game id, version)}."""
    pressed = {}
    for group, players in tables:
        (record,) = await storage.games_in_chat("telegram", str(group.id), (GameStatus.ACTIVE,))
        awaiting = Match.from_dict(record.match).game.awaiting
        user = await storage.get_user(record.seats[awaiting])
        message = board(fake, group)
        data = next(d for code in press_order() if (d := find(message, code)))
        query = await fake.press(players[user.platform_id], group, message["message_id"], data)
        pressed[query] = (record.stored_id, record.version)
    return pressed


async def test_sigterm_under_load_answers_every_press_and_loses_no_move(tmp_path):
    db = tmp_path / "bot.db"
    async with FakeBotAPI(flood=None) as fake:
        proc = await start_bot(fake, db, tmp_path)
        try:
            tables = []
            for n in range(GAMES):
                ali = fake.user(100 + n, f"Ali{n}", language_code="tr")
                veli = fake.user(200 + n, f"Veli{n}", language_code="en")
                group = fake.group(-1000 - n, f"Kahve {n}")
                await fake.send_text(ali, group, "/tavla turkish")
                challenge = await fake.wait_for(
                    lambda g=group: next((m for m in fake.messages(g) if find(m, A.ACCEPT)), None),
                    20,
                )
                await fake.press(veli, group, challenge["message_id"], find(challenge, A.ACCEPT))
                tables.append((group, {str(ali.id): ali, str(veli.id): veli}))
            for group, _ in tables:
                await fake.wait_for(
                    lambda g=group: any(m.get("photo") for m in fake.messages(g)), 20
                )
            storage = SqliteStorage(str(db))
            await storage.open()
            try:
                # Telegram is slow to take the answers and boards of the first round, so
                # SIGTERM finds the bot working on every press, however quick the bot is; a
                # second round comes after it and waits at Telegram.
                fake.hold("answerCallbackQuery", "editMessageMedia", "editMessageCaption")
                first = await press_round(fake, storage, tables)
                await fake.wait_for(
                    lambda: (
                        not {
                            u["callback_query"]["id"]
                            for u in fake.pending_updates
                            if "callback_query" in u
                        }
                        & set(first)
                    ),
                    20,
                )
                assert not fake.callback_answers.keys() & first.keys()
                stopping = asyncio.create_task(stop_bot(proc, on_stopping=fake.release))
                late = await press_round(fake, storage, tables)
                elapsed, status, log = await stopping
                assert status == 0, log
                assert elapsed < STOP_WITHIN, log
                assert "Traceback" not in log
                # Every press the bot took is answered, and its move is saved and shown.
                for query, (game_id, version) in first.items():
                    answer = fake.callback_answers[query]
                    record = await storage.get_game(game_id)
                    if not answer.get("text"):
                        assert record.version > version
                    group = next(g for g, _ in tables if str(g.id) == record.chat_id)
                    assert board_version(board(fake, group)) == record.version
                    assert record.shown_version == record.version
                # The presses made after SIGTERM wait for the next start.
                waiting = {
                    u["callback_query"]["id"] for u in fake.pending_updates if "callback_query" in u
                }
                assert set(late) <= waiting | fake.callback_answers.keys()

                proc = await start_bot(fake, db, tmp_path)
                await fake.wait_for(lambda: set(late) <= fake.callback_answers.keys(), 30)
                for query, (game_id, version) in late.items():
                    record = await storage.get_game(game_id)
                    if not fake.callback_answers[query].get("text"):
                        assert record.version > version
            finally:
                await storage.close()
            elapsed, status, log = await stop_bot(proc)
            assert status == 0, log
            assert elapsed < STOP_WITHIN
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


async def test_sigterm_with_sends_held_by_the_flood_limit_still_stops_in_time(tmp_path):
    """Telegram's limit of 20 messages a minute in a group holds some answers back: the bot
    does not wait out the minute, it stops within 10 s and says what it left."""
    db = tmp_path / "bot.db"
    async with FakeBotAPI() as fake:  # Telegram's flood limits
        env_rates = {"TELEGRAM_MAX_RATE": "30", "TELEGRAM_GROUP_RATE": "20"}
        proc = await start_bot(fake, db, tmp_path, **env_rates)
        try:
            group = fake.group(-4242, "Kalabalık")
            people = [fake.user(300 + n, f"Oyuncu{n}", language_code="tr") for n in range(4)]
            for _ in range(7):
                for person in people:
                    await fake.send_text(person, group, "/help")
            await fake.wait_for(lambda: len(fake.calls_to("sendMessage", ok=True)) >= 20, 30)
            elapsed, status, log = await stop_bot(proc)
            assert status == 0, log
            assert elapsed < STOP_WITHIN, log
            assert "stopping with sends still queued" in log
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
