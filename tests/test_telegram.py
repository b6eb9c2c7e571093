"""The real python-telegram-bot application against a local fake Bot API server.

Two friends play in a group: challenge, accept, a whole match with buttons and typed moves,
a double, refused presses, a restart in the middle and a 429 storm. Nothing here touches the
network: the bot reaches the fake through ``TELEGRAM_BASE_URL`` (``base_url``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from telegram.ext import AIORateLimiter

from bot.config import Config
from bot.service import actions as A
from bot.service.commands import COMMANDS, Audience
from bot.service.service import ServiceSettings
from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from bot.telegram import run_telegram
from core.match import Match
from tests.drivers import press_order
from tests.factory import find_action, make_service
from tests.fakes.telegram import FLOOD_METHODS, FakeBotAPI, image_size
from tests.fakes.telegram.records import QUERY_TOO_OLD

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TOKEN = "123:ABC"


def config_for(fake: FakeBotAPI) -> Config:
    return Config(
        telegram_token=TOKEN,
        telegram_base_url=fake.base_url,
        telegram_base_file_url=fake.base_file_url,
        telegram_webhook_url=None,
        telegram_webhook_listen="127.0.0.1",
        telegram_webhook_port=0,
        telegram_max_rate=30,
        telegram_group_rate=20,
        discord_token=None,
        discord_guild_id=None,
        database_url=None,
        board_dir=Path("data/boards"),
        log_level="INFO",
    )


class Bot:
    """A running bot process: storage, service and the Telegram application."""

    def __init__(
        self,
        fake: FakeBotAPI,
        db: Path,
        seed: int,
        settings: ServiceSettings | None = None,
        rate_limiter: AIORateLimiter | None = None,
    ) -> None:
        self.fake = fake
        self.db = db
        self.seed = seed
        # The tutor not on by itself for new players: it would question the scripted moves.
        self.settings = settings or ServiceSettings(
            burst_actions=10**6, theme="classic", tutor_first_games=0
        )
        # None: no rate limiting (a whole match at full speed), only 429s retried.
        self.rate_limiter = rate_limiter

    async def start(self) -> None:
        self.storage = SqliteStorage(str(self.db))
        await self.storage.open()
        self.service = make_service(self.storage, self.settings, first_seed=self.seed)
        self.stop_event = asyncio.Event()
        before = len(self.fake.calls_to("getUpdates"))
        limiter = self.rate_limiter or AIORateLimiter(
            overall_max_rate=0, group_max_rate=0, max_retries=3
        )
        self.task = asyncio.create_task(
            run_telegram(
                config_for(self.fake),
                self.service,
                self.stop_event,
                rate_limiter=limiter,
                tick_seconds=3600,
            )
        )
        await self.fake.wait_for(lambda: len(self.fake.calls_to("getUpdates")) > before, 10)

    async def stop(self) -> None:
        self.stop_event.set()
        await asyncio.wait_for(self.task, 20)
        await self.storage.close()


@pytest.fixture
async def fake():
    # The bot's rate limiter is off in these tests (they play whole matches at full speed),
    # so Telegram's flood limits are off in the fake too: tests/test_telegram_flood.py plays
    # with both on.
    async with FakeBotAPI(flood=None) as server:
        yield server


@pytest.fixture
async def bot(fake, tmp_path):
    running = Bot(fake, tmp_path / "bot.db", seed=7)
    await running.start()
    yield running
    if not running.stop_event.is_set():
        await running.stop()


def buttons(message: dict) -> list[str]:
    markup = message.get("reply_markup") or {}
    return [
        b["callback_data"]
        for row in markup.get("inline_keyboard", [])
        for b in row
        if "callback_data" in b
    ]


def find(message: dict, code: str) -> str | None:
    return find_action(buttons(message), code)


def board_message(fake: FakeBotAPI, chat) -> dict:
    """The newest bot message with a picture and game buttons (the board)."""
    for message in reversed(fake.messages(chat)):
        if message.get("photo") and buttons(message):
            return message
    raise AssertionError(fake.summary())


def board_version(message: dict) -> int:
    """The game version a board's buttons carry (0 for a board without game buttons)."""
    versions = [a.version for d in buttons(message) if (a := A.decode(d)) and a.game_id]
    return max(versions, default=0)


async def current_board(fake: FakeBotAPI, chat, version: int, timeout: float = 5.0) -> dict:
    """The board once it shows ``version`` (a press's edit may land after its answer, and
    more so on a loaded machine); the newest board as it is if it never catches up (tests
    of boards left behind press their stale buttons on purpose)."""

    def caught_up() -> dict | None:
        message = board_message(fake, chat)
        return message if board_version(message) >= version else None

    try:
        return await fake.wait_for(caught_up, timeout)
    except TimeoutError:
        return board_message(fake, chat)


async def press(fake: FakeBotAPI, user, chat, message: dict, data: str) -> dict:
    """Press and wait until the bot answered the press and finished its reaction (a press
    answered without a text changes a message: its send or edit comes after the answer,
    from the chat's queue)."""
    before = len(fake.calls)
    query = await fake.press(user, chat, message["message_id"], data)
    await fake.wait_for(lambda: query in fake.callback_answers, 10)
    answer = fake.callback_answers[query]
    if not answer.get("text"):
        await fake.wait_for(
            lambda: any(c.ok and c.method in FLOOD_METHODS for c in fake.calls[before:]), 10
        )
    return answer


async def game_record(bot: Bot):
    games = await bot.storage.games_in_chat(
        "telegram", str(GROUP_ID), (GameStatus.ACTIVE, GameStatus.FINISHED)
    )
    return max(games, key=lambda g: g.id)


async def awaiting(bot: Bot, users: dict[str, object]):
    record = await game_record(bot)
    match = Match.from_dict(record.match)
    user = await bot.storage.get_user(record.seats[match.game.awaiting])
    return users[user.platform_id]


GROUP_ID = -100500


async def open_game(fake: FakeBotAPI, bot: Bot, args: str = "3"):
    ali = fake.user(11, "Ali", username="ali", language_code="tr")
    veli = fake.user(22, "Veli", username="veli", language_code="en")
    group = fake.group(GROUP_ID, "Kahvehane")
    await fake.send_text(ali, group, f"/tavla {args}")
    challenge = await fake.wait_for(
        lambda: next((m for m in fake.messages(group) if find(m, A.ACCEPT)), None), 10
    )
    await press(fake, veli, group, challenge, find(challenge, A.ACCEPT))
    await fake.wait_for(lambda: any(m.get("photo") for m in fake.messages(group)), 10)
    return ali, veli, group


async def step_once(fake, bot, users, group, *, double: bool = False) -> bool:
    """One sensible press by the player to act; False once the game is over."""
    record = await game_record(bot)
    if record.status is not GameStatus.ACTIVE:
        return False
    # Buttons stay valid across saves the board does not show (state_version).
    message = await current_board(fake, group, record.settings.state_version or record.version)
    actor = await awaiting(bot, users)
    for code in press_order(double=double):
        data = find(message, code)
        if data:
            answer = await press(fake, actor, group, message, data)
            assert not answer.get("text"), answer
            return True
    raise AssertionError(f"no button to press: {buttons(message)}")


async def test_a_whole_match_in_a_group(fake, bot):
    ali, veli, group = await open_game(fake, bot, "3")
    users = {"11": ali, "22": veli}
    assert fake.calls_to("setMyCommands")  # the menu is registered
    languages = {c.params.get("language_code") for c in fake.calls_to("setMyCommands")}
    assert {"tr", "ru"} <= languages
    doubled = False
    for n in range(3000):
        message = board_message(fake, group)
        want_double = not doubled and find(message, A.DOUBLE) is not None and n > 10
        if not await step_once(fake, bot, users, group, double=want_double):
            break
        doubled = doubled or want_double
    record = await game_record(bot)
    assert record.status is GameStatus.FINISHED
    assert doubled
    final = await fake.wait_for(
        lambda: next((m for m in fake.messages(group) if "🏆" in m.get("text", "")), None), 10
    )
    assert "/dice" in final["text"]
    assert fake.calls_to("editMessageMedia")  # boards are edited in place
    photo = fake.photo_bytes(group, board_message(fake, group)["message_id"])
    # Telegram gets JPEG (it re-encodes every photo as JPEG anyway), named as one.
    assert photo.startswith(b"\xff\xd8\xff")
    assert image_size(photo)[0] == 1000
    assert fake.files[board_message(fake, group)["photo"][-1]["file_id"]].file_name == "board.jpg"


async def test_typed_moves_stale_and_foreign_presses(fake, bot):
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    ayse = fake.user(33, "Ayşe", username="ayse", language_code="ru")
    old = board_message(fake, group)
    stale_button = old["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    # A third member's press is refused, in her language, and changes nothing.
    answer = await press(fake, ayse, group, old, stale_button)
    assert answer.get("show_alert") is not None
    assert answer["text"]
    # The player to act types the whole move instead of pressing.
    record = await game_record(bot)
    match = Match.from_dict(record.match)
    actor = await awaiting(bot, users)
    play = str(match.game.legal_plays()[0])
    before = record.version
    caption = board_message(fake, group)["caption"]
    await fake.send_text(actor, group, f"/move {play}")
    await fake.wait_for(lambda: board_message(fake, group)["caption"] != caption, 10)
    assert (await game_record(bot)).version > before
    # A plain reply to the board works as a move too (no /move needed).
    record = await game_record(bot)
    match = Match.from_dict(record.match)
    if match.game.phase.value == "roll":
        roller = await awaiting(bot, users)
        await press(
            fake,
            roller,
            group,
            board_message(fake, group),
            find(board_message(fake, group), A.ROLL),
        )
        record = await game_record(bot)
        match = Match.from_dict(record.match)
    if match.game.phase.value == "move":
        mover = await awaiting(bot, users)
        version = record.version
        caption = board_message(fake, group)["caption"]
        await fake.send_text(
            mover,
            group,
            str(match.game.legal_plays()[0]),
            reply_to=board_message(fake, group)["message_id"],
        )
        await fake.wait_for(lambda: board_message(fake, group)["caption"] != caption, 10)
        assert (await game_record(bot)).version > version
    # The old keyboard is stale now.
    message = board_message(fake, group)
    other_actor = await awaiting(bot, users)
    fake.check_buttons = False
    answer = await press(fake, other_actor, group, message, stale_button)
    # Pressed on the board message itself: the board is redrawn, never a dead end.
    assert "behind the game" in answer["text"] or "gerisinde" in answer["text"].lower()


async def test_restart_in_the_middle_loses_nothing(fake, tmp_path):
    first = Bot(fake, tmp_path / "restart.db", seed=3)
    await first.start()
    ali, veli, group = await open_game(fake, first, "1")
    users = {"11": ali, "22": veli}
    for _ in range(6):
        await step_once(fake, first, users, group)
    before = await game_record(first)
    await first.stop()
    second = Bot(fake, tmp_path / "restart.db", seed=99)
    await second.start()
    after = await game_record(second)
    assert after.version == before.version
    assert json.dumps(after.match, sort_keys=True) == json.dumps(before.match, sort_keys=True)
    for _ in range(3000):
        if not await step_once(fake, second, users, group):
            break
    assert (await game_record(second)).status is GameStatus.FINISHED
    await second.stop()


async def test_a_429_answer_is_retried(fake, bot):
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    fake.fail_next("editMessageMedia", 429, retry_after=0.2, times=1)
    fake.fail_next("answerCallbackQuery", 429, retry_after=0.2, times=1)
    for _ in range(4):
        await step_once(fake, bot, users, group)
    statuses = [c.status for c in fake.calls_to("editMessageMedia")]
    assert 429 in statuses
    assert statuses[-1] == 200


async def test_a_press_answered_too_late_still_moves_the_game_on(fake, bot, caplog):
    """Telegram refuses an answer to a press that is already answered (a retry whose first
    attempt got through) or too old (a bot far behind): the board is edited all the same and
    nothing is logged as a failed update."""
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    record = await game_record(bot)
    message = await current_board(fake, group, record.settings.state_version or record.version)
    actor = await awaiting(bot, users)
    data = next(d for code in press_order() if (d := find(message, code)))
    fake.fail_next("answerCallbackQuery", 400, description=QUERY_TOO_OLD, times=1)
    with caplog.at_level(logging.INFO):
        await fake.press(actor, group, message["message_id"], data)
        edited = await fake.wait_for(
            lambda: board_version(board_message(fake, group)) > board_version(message) or None,
            10,
        )
        assert edited
        # The refusal is read by the bot after the edit went out (both run together).
        await fake.wait_for(
            lambda: any("too late for Telegram" in r.getMessage() for r in caplog.records), 10
        )
    assert (await game_record(bot)).version > record.version
    assert [c.status for c in fake.calls_to("answerCallbackQuery")][-1] == 400
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_help_in_private_chat_and_unknown_command(fake, bot):
    veli = fake.user(22, "Veli", username="veli", language_code="ru")
    await fake.send_text(veli, None, "/help")
    reply = await fake.wait_for(lambda: fake.messages(fake.private_chat(veli)) or None, 10)
    assert "/tavla" in reply[-1]["text"]
    await fake.send_text(veli, None, "/bot")
    board = await fake.wait_for(
        lambda: next((m for m in fake.messages(fake.private_chat(veli)) if m.get("photo")), None),
        10,
    )
    assert board["caption"]


async def test_inline_mode_offers_challenge_cards(fake, bot):
    ali = fake.user(11, "Ali", username="ali", language_code="tr")
    query = await fake.inline_query(ali, "")
    answer = await fake.wait_for(lambda: fake.inline_answers.get(query), 10)
    results = answer["results"]
    if isinstance(results, str):
        results = json.loads(results)
    assert {r["id"] for r in results} == {"tavla", "uzun"}
    urls = [b["url"] for r in results for row in r["reply_markup"]["inline_keyboard"] for b in row]
    assert any("start=tavla" in u for u in urls)


async def test_webhook_mode(fake, tmp_path):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    storage = SqliteStorage(str(tmp_path / "hook.db"))
    await storage.open()
    service = make_service(storage, burst_actions=10**6, render_images=False)
    config = config_for(fake)
    config = Config(
        **{
            **config.__dict__,
            "telegram_webhook_url": f"http://127.0.0.1:{port}/telegram",
            "telegram_webhook_listen": "127.0.0.1",
            "telegram_webhook_port": port,
        }
    )
    stop = asyncio.Event()
    task = asyncio.create_task(run_telegram(config, service, stop, tick_seconds=3600))
    await fake.wait_calls("setWebhook", 1, 10)
    veli = fake.user(22, "Veli", username="veli", language_code="en")
    await fake.send_text(veli, None, "/help")
    reply = await fake.wait_for(lambda: fake.messages(fake.private_chat(veli)) or None, 10)
    assert "/tavla" in reply[-1]["text"]
    assert not fake.calls_to("getUpdates")
    stop.set()
    await asyncio.wait_for(task, 20)
    await storage.close()


async def test_the_token_never_reaches_the_logs(fake, bot, caplog):
    """Secrets never appear in logs, even at DEBUG level."""
    import logging

    caplog.set_level(logging.DEBUG)
    ali, veli, group = await open_game(fake, bot, "1")
    await step_once(fake, bot, {"11": ali, "22": veli}, group)
    assert caplog.records
    assert not [r for r in caplog.records if TOKEN in r.getMessage()]


def test_redacting_filter_hides_secrets():
    import logging

    from bot.logs import RedactSecrets

    record = logging.LogRecord("x", logging.INFO, __file__, 1, "url %s", ("bot123:ABC/x",), None)
    RedactSecrets(["123:ABC"]).filter(record)
    assert "123:ABC" not in record.getMessage()


async def test_network_errors_and_a_429_storm_are_retried(fake, bot):
    """Faults: dropped connections are retried by the adapter, 429s by the rate limiter."""
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    fake.fail_next("editMessageMedia", drop=True, times=1)
    fake.fail_next("answerCallbackQuery", 429, retry_after=0.1, times=2)
    for _ in range(3):
        await step_once(fake, bot, users, group)
    edits = [c.status for c in fake.calls_to("editMessageMedia")]
    assert 0 in edits  # the dropped one
    assert edits[-1] == 200
    answers = [c.status for c in fake.calls_to("answerCallbackQuery")]
    assert answers.count(429) == 2
    record = await game_record(bot)
    assert record.status in (GameStatus.ACTIVE, GameStatus.FINISHED)


async def test_only_admins_can_reset_the_leaderboard(fake, bot):
    """Hostile input: an admin-only command from a non-admin is refused."""
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    for _ in range(3000):
        if not await step_once(fake, bot, users, group):
            break
    await fake.wait_for(lambda: any("🏆" in m.get("text", "") for m in fake.messages(group)), 10)

    async def reply_to(user, text: str) -> str:
        count = len(fake.messages(group))
        await fake.send_text(user, group, text)
        messages = await fake.wait_for(
            lambda: fake.messages(group)[count:] if len(fake.messages(group)) > count else None,
            10,
        )
        return messages[-1].get("text", "")

    assert "Ali" in await reply_to(veli, "/top")
    refused = await reply_to(veli, "/resettop")
    assert "administrators" in refused
    assert "Ali" in await reply_to(veli, "/top")
    fake.admins[GROUP_ID] = {11}
    done = await reply_to(ali, "/resettop")
    assert "Ali" in done  # "Ali reset this chat's leaderboard", in Ali's language
    # The answer is the group's, in its language (Ali's Turkish: the first heard there,
    # and a tie between its two players keeps it), not Veli's English.
    assert "henüz puanlı" in await reply_to(veli, "/top")


async def test_telegram_menu_has_every_command(fake, bot):
    everyone = {c.name for c in COMMANDS if c.audience is not Audience.ADMIN}
    admins = {"type": "all_chat_administrators"}
    for lang in ("", "tr", "ru"):
        listed = {c["command"] for c in fake.commands(language_code=lang)}
        assert listed == everyone
        listed = {c["command"] for c in fake.commands(scope=admins, language_code=lang)}
        assert listed == {c.name for c in COMMANDS}
    # The admin menu is translated too.
    turkish = fake.commands(scope=admins, language_code="tr")
    english = fake.commands(scope=admins, language_code="")
    assert turkish[-1]["command"] == "resettop"
    assert turkish[-1]["description"] != english[-1]["description"]


async def test_a_board_shown_again_goes_by_its_file_id_not_uploaded_twice(fake, bot):
    """Telegram keeps every picture the bot sent: the same board shown again (/board, twice)
    is sent by the file id Telegram gave the first, with nothing uploaded."""
    ali, _veli, group = await open_game(fake, bot, "3")
    for _ in range(2):
        photos = len(fake.calls_to("sendPhoto"))
        await fake.send_text(ali, group, "/board")
        await fake.wait_for(lambda n=photos: len(fake.calls_to("sendPhoto")) > n, 10)
    opening, *again = fake.calls_to("sendPhoto")
    stored = opening.result["photo"][-1]["file_id"]
    assert opening.files
    assert [(call.params["photo"], call.files) for call in again] == [(stored, {})] * 2
    assert all(m["photo"][-1]["file_id"] == stored for m in fake.messages(group) if "photo" in m)
