"""The fake Telegram Bot API (tests/fakes/telegram/) driven by the real python-telegram-bot."""

import asyncio
import contextlib
import io
import socket

import aiohttp
import pytest
from PIL import Image
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputMediaPhoto,
    InputTextMessageContent,
    MessageEntity,
    Update,
    User,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, Conflict, Forbidden, NetworkError, RetryAfter
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
)

from tests.fakes.telegram import (
    TELEGRAM_LIMITS,
    FakeBotAPI,
    FakeRequest,
    FakeTelegram,
    FloodLimits,
    image_size,
    parse_html,
    tiny_png,
)

# PTB itself reads RetryAfter.retry_after, which warns about its coming type change.
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*retry_after:telegram.warnings.PTBDeprecationWarning"
)

TOKEN = "123:ABC"
BOARD = tiny_png(40, 30, (200, 0, 0))
ROLLED = tiny_png(40, 30, (0, 0, 200))


def keyboard(*buttons: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(t, callback_data=d) for t, d in buttons]])


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await update.message.reply_photo(
        BOARD,
        caption="Your <b>board</b>",
        parse_mode=ParseMode.HTML,
        reply_markup=keyboard(("Roll", "roll:1")),
    )


async def roll(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    await query.answer("Rolled 6-5")
    await query.edit_message_media(
        InputMediaPhoto(ROLLED, caption="6-5"), reply_markup=keyboard(("13/7 13/8", "play:2"))
    )


async def inline(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await update.inline_query.answer(
        [
            InlineQueryResultArticle(
                "challenge",
                "Challenge",
                InputTextMessageContent("Who plays?"),
                reply_markup=keyboard(("Accept", "accept:7")),
            )
        ],
        cache_time=0,
    )


def build_app(fake: FakeBotAPI) -> Application:
    app = (
        ApplicationBuilder()
        .token(TOKEN)
        .base_url(fake.base_url)
        .base_file_url(fake.base_file_url)
        .rate_limiter(AIORateLimiter(max_retries=3))
        .build()
    )
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CallbackQueryHandler(roll))
    app.add_handler(InlineQueryHandler(inline))
    app.add_error_handler(record_error)
    return app


async def record_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    context.bot_data.setdefault("errors", []).append(context.error)


@contextlib.asynccontextmanager
async def polling(app: Application):
    async with app:
        await app.start()
        await app.updater.start_polling(poll_interval=0)
        try:
            yield app
        finally:
            await app.updater.stop()
            await app.stop()


@pytest.fixture
async def fake():
    async with FakeBotAPI() as api:
        yield api


@pytest.fixture
def state():
    # These tests call one method after another at full speed to check each answer; the
    # flood limits are tested on a clock of their own (below).
    return FakeTelegram(flood=None)


@pytest.fixture
async def bot(state):
    """A bare Bot answered in-process by a FakeTelegram (no sockets)."""
    async with Bot(TOKEN, request=FakeRequest(state), get_updates_request=FakeRequest(state)) as b:
        yield b


# --------------------------------------------------------------------------------------------
# End to end: a real Application polling the HTTP fake


async def test_application_end_to_end(fake):
    ali = fake.user(1001, "Ali", "ali", "tr")
    chat = fake.private_chat(ali)
    async with polling(build_app(fake)):
        command = await fake.send_text(ali, chat, "/start")
        [send] = await fake.wait_calls("sendPhoto")
        board = fake.last_message(chat)
        query_id = await fake.press(ali, chat, board["message_id"], "roll:1")
        await fake.wait_calls("editMessageMedia")

    assert command["entities"] == [{"type": "bot_command", "offset": 0, "length": 6}]
    assert send.params["chat_id"] == chat.id
    assert send.files == {"photo": BOARD}
    assert board["message_id"] == command["message_id"] + 1
    assert board["caption"] == "Your board"
    assert board["caption_entities"] == [{"type": "bold", "offset": 5, "length": 5}]
    assert board["reply_markup"] == {
        "inline_keyboard": [[{"text": "Roll", "callback_data": "roll:1"}]]
    }
    assert [size["width"] for size in board["photo"]] == [40]

    assert fake.callback_answers[query_id]["text"] == "Rolled 6-5"
    edit = fake.last_call("editMessageMedia")
    assert edit.params["media"]["media"].startswith("attach://")
    assert edit.files == {edit.params["media"]["media"].removeprefix("attach://"): ROLLED}
    edited = fake.message(chat, board["message_id"])
    assert fake.photo_bytes(chat, board["message_id"]) == ROLLED
    assert edited["caption"] == "6-5"
    assert edited["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "play:2"
    assert "edit_date" in edited

    assert fake.methods() == [
        "getMe",
        "deleteWebhook",
        "sendPhoto",
        "answerCallbackQuery",
        "editMessageMedia",
    ]
    assert all(call.ok for call in fake.calls_to("getUpdates") if call.status != 409)
    assert fake.pending_updates == []  # the last getUpdates confirmed both updates


async def test_flood_error_on_send_photo_is_retried_by_the_rate_limiter(fake):
    ali = fake.user(1001, "Ali")
    chat = fake.private_chat(ali)
    fake.fail_next("sendPhoto", 429, retry_after=1)
    async with polling(build_app(fake)):
        await fake.send_text(ali, chat, "/start")
        await fake.wait_calls("sendPhoto", timeout=5)

    first, second = fake.calls_to("sendPhoto")
    assert (first.status, second.status) == (429, 200)
    assert first.error == "Too Many Requests: retry after 1"
    assert first.params == second.params
    assert first.files == second.files == {"photo": BOARD}
    assert len(fake.messages(chat)) == 1
    assert fake.photo_bytes(chat) == BOARD


async def test_group_command_inline_query_and_inline_message(fake):
    ali, bob = fake.user(1001, "Ali", "ali"), fake.user(1002, "Bob", "bobby")
    group = fake.group(-1001, "Tavla club", type="supergroup")
    async with polling(build_app(fake)) as app:
        hello = await fake.send_text(bob, group, "hello")
        await fake.send_text(ali, group, "/start@tavla_test_bot", reply_to=hello["message_id"])
        await fake.wait_calls("sendPhoto")

        query_id = await fake.inline_query(ali, "challenge")
        await fake.wait_calls("answerInlineQuery")
        inline_id = await fake.choose_inline_result(ali, query_id, "challenge")
        assert fake.inline_messages[inline_id]["text"] == "Who plays?"
        assert await app.bot.edit_message_text(
            "Ali vs Bob", inline_message_id=inline_id, reply_markup=keyboard(("Roll", "roll:1"))
        )
        press_id = await fake.press_inline(bob, inline_id, "roll:1")
        await fake.wait_calls("editMessageMedia", ok=False)
        await fake.wait_for(lambda: app.bot_data.get("errors"))

    board = fake.last_message(group)
    assert board["chat"] == {"id": -1001, "type": "supergroup", "title": "Tavla club"}
    assert [m["text"] for m in fake.messages(group, from_bot=False)] == [
        "hello",
        "/start@tavla_test_bot",
    ]
    answer = fake.inline_answers[query_id]
    assert answer["results"][0]["id"] == "challenge"
    assert fake.inline_messages[inline_id]["text"] == "Ali vs Bob"
    assert fake.callback_answers[press_id]["text"] == "Rolled 6-5"
    # editMessageMedia cannot upload a file for an inline message, as on Telegram
    failed = fake.last_call("editMessageMedia")
    assert failed.status == 400
    assert "inline message" in failed.error
    [error] = app.bot_data["errors"]
    assert isinstance(error, BadRequest)


async def test_webhook_delivery(fake):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ali = fake.user(1001, "Ali")
    chat = fake.private_chat(ali)
    app = build_app(fake)
    async with app:
        await app.start()
        await app.updater.start_webhook(
            listen="127.0.0.1",
            port=port,
            url_path="hook",
            webhook_url=f"http://127.0.0.1:{port}/hook",
            secret_token="s3cret",
        )
        await fake.send_text(ali, chat, "/start")
        await fake.wait_calls("sendPhoto")
        await fake.wait_for(lambda: fake.webhook_deliveries)
        info = await app.bot.get_webhook_info()
        with pytest.raises(Conflict):
            await app.bot.get_updates()
        await app.updater.stop()
        await app.stop()

    assert fake.webhook["secret_token"] == "s3cret"
    assert info.url == f"http://127.0.0.1:{port}/hook"
    assert info.pending_update_count == 0
    assert [u["message"]["text"] for u in fake.webhook_deliveries] == ["/start"]


async def test_network_drop_over_http(fake):
    fake.private_chat(fake.user(5, "Eve"))
    async with Bot(TOKEN, base_url=fake.base_url, base_file_url=fake.base_file_url) as bare:
        fake.fail_next("sendMessage", drop=True)
        with pytest.raises(NetworkError):
            await bare.send_message(5, "lost")
        sent = await bare.send_message(5, "kept")
        photo = await bare.send_photo(5, BOARD)
        file = await bare.get_file(photo.photo[-1].file_id)
        assert await file.download_as_bytearray() == BOARD
    assert sent.message_id == 1
    assert [c.status for c in fake.calls_to("sendMessage")] == [0, 200]


# --------------------------------------------------------------------------------------------
# In-process: FakeRequest with a bare Bot


async def test_fake_request_sends_and_edits(bot, state):
    fake = state
    ali = fake.user(7, "Ali", "ali")
    chat = fake.private_chat(ali)

    me = await bot.get_me()
    assert (me.id, me.username, me.supports_inline_queries) == (123, "tavla_test_bot", True)

    text = await bot.send_message(chat.id, "<b>Pul</b> &amp; kapı", parse_mode=ParseMode.HTML)
    assert text.text == "Pul & kapı"
    assert text.entities == (MessageEntity(MessageEntity.BOLD, 0, 3),)

    big = tiny_png(1000, 500)
    photo = await bot.send_photo(chat.id, big, caption="board", reply_markup=keyboard(("A", "a")))
    assert [(s.width, s.height) for s in photo.photo] == [
        (90, 45),
        (320, 160),
        (800, 400),
        (1000, 500),
    ]
    assert fake.photo_bytes(chat) == big
    file = await bot.get_file(photo.photo[0].file_id)
    assert await file.download_as_bytearray() == big

    again = await bot.send_photo(chat.id, photo.photo[-1].file_id)
    assert again.photo == photo.photo

    caption = await bot.edit_message_caption(
        chat.id, photo.message_id, caption="new", reply_markup=keyboard(("A", "a"))
    )
    assert caption.caption == "new"
    assert caption.reply_markup == keyboard(("A", "a"))
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_caption(
            chat.id, photo.message_id, caption="new", reply_markup=keyboard(("A", "a"))
        )
    no_keyboard = await bot.edit_message_caption(chat.id, photo.message_id, caption="new")
    assert no_keyboard.reply_markup is None  # an edit without reply_markup drops the keyboard

    media = await bot.edit_message_media(
        InputMediaPhoto(ROLLED, caption="rolled"), chat.id, photo.message_id
    )
    assert image_size(fake.photo_bytes(chat, media.message_id)) == (40, 30)
    with pytest.raises(BadRequest, match=r"(?i)not modified"):
        await bot.edit_message_media(
            InputMediaPhoto(media.photo[-1].file_id, caption="rolled"), chat.id, photo.message_id
        )

    edited = await bot.edit_message_text("Pul", chat.id, text.message_id)
    assert (edited.text, edited.entities) == ("Pul", ())
    markup = await bot.edit_message_reply_markup(
        chat.id, text.message_id, reply_markup=keyboard(("B", "b"))
    )
    assert markup.reply_markup == keyboard(("B", "b"))

    reply = await bot.send_message(chat.id, "reply", reply_to_message_id=text.message_id)
    assert reply.reply_to_message.message_id == text.message_id

    assert await bot.send_chat_action(chat.id, "upload_photo")
    assert await bot.delete_message(chat.id, text.message_id)
    assert fake.deleted == [(chat.id, text.message_id)]
    with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
        await bot.delete_message(chat.id, text.message_id)
    assert [m["message_id"] for m in fake.messages(chat)] == [2, 3, 4]

    # The newest message a predicate accepts, copied; deleted ones and others' left out.
    found = fake.newest_message(chat, lambda m: m.get("text"))
    assert found is not None
    assert found["message_id"] == 4
    assert found == fake.message(chat, 4)
    found["text"] = "changed"
    assert fake.message(chat, 4)["text"] == "reply"  # a copy, the record unchanged
    photos = [m for m in fake.messages(chat) if m.get("photo")]
    assert photos
    assert fake.newest_message(chat, lambda m: m.get("photo")) == photos[-1]
    assert fake.newest_message(chat, lambda m: m.get("photo"), from_bot=False) is None
    assert fake.newest_message(chat, lambda m: m.get("message_id") == text.message_id) is None


async def test_fake_accepts_jpeg_photos_and_refuses_unreadable_ones(bot, state):
    fake = state
    chat = fake.private_chat(fake.user(8, "Veli"))

    def jpeg(rgb: tuple[int, int, int]) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (1000, 842), rgb).save(out, format="JPEG", quality=90)
        return out.getvalue()

    first, second = jpeg((120, 60, 30)), jpeg((30, 60, 120))
    photo = await bot.send_photo(chat.id, first, filename="board.jpg")
    assert (photo.photo[-1].width, photo.photo[-1].height) == (1000, 842)
    assert fake.photo_bytes(chat) == first
    media = await bot.edit_message_media(
        InputMediaPhoto(second, filename="board.jpg"), chat.id, photo.message_id
    )
    assert fake.photo_bytes(chat, media.message_id) == second
    # Telegram decodes every photo: bytes that are no picture are refused.
    with pytest.raises(BadRequest, match=r"(?i)image_process_failed"):
        await bot.send_photo(chat.id, b"not a picture")


async def test_fake_request_errors(bot, state):
    fake = state
    ali = fake.user(7, "Ali")
    chat = fake.private_chat(ali)
    with pytest.raises(BadRequest, match=r"(?i)chat not found"):
        await bot.send_message(99, "hi")
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(chat.id, "<b>open", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(chat.id, "1 < 2", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match=r"(?i)BUTTON_DATA_INVALID"):
        await bot.send_message(chat.id, "x", reply_markup=keyboard(("long", "x" * 65)))
    with pytest.raises(BadRequest, match=r"(?i)message text is empty"):
        await bot.send_message(chat.id, " ")
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await bot.answer_callback_query("12345")
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await bot.edit_message_text("x", chat.id, 42)

    fake.block(ali)
    with pytest.raises(Forbidden, match=r"(?i)blocked"):
        await bot.send_message(chat.id, "hi")
    fake.unblock(ali)

    fake.fail_next("sendMessage", 429, retry_after=3)
    with pytest.raises(RetryAfter, match=r"(?i)Retry in 3 seconds"):
        await bot.send_message(chat.id, "hi")
    fake.fail_next("sendMessage", 400, description="Bad Request: injected", times=2)
    for _ in range(2):
        with pytest.raises(BadRequest, match=r"(?i)injected"):
            await bot.send_message(chat.id, "hi")
    fake.fail_next("sendMessage", 502)
    with pytest.raises(NetworkError, match=r"(?i)Bad Gateway"):
        await bot.send_message(chat.id, "hi")
    fake.fail_next("sendMessage", drop=True)
    with pytest.raises(NetworkError):
        await bot.send_message(chat.id, "hi")
    assert (await bot.send_message(chat.id, "at last")).message_id == 1
    assert [c.status for c in fake.calls_to("sendMessage")][-7:] == [
        403,
        429,
        400,
        400,
        502,
        0,
        200,
    ]


async def test_held_calls_wait_unanswered_until_released(bot, state):
    fake = state
    ali = fake.user(7, "Ali")
    chat = fake.private_chat(ali)
    fake.hold("sendMessage")
    first = asyncio.create_task(bot.send_message(chat.id, "one"))
    second = asyncio.create_task(bot.send_message(chat.id, "two"))
    await fake.wait_for(lambda: len(fake.calls_to("sendMessage")) == 2, 5)
    # Made, not answered: nothing in the chat yet, other methods unaffected.
    assert not first.done()
    assert not second.done()
    assert not fake.messages(chat)
    assert (await bot.get_me()).id == 123
    fake.release()
    assert [(await first).text, (await second).text] == ["one", "two"]
    assert [m["text"] for m in fake.messages(chat)] == ["one", "two"]
    assert (await bot.send_message(chat.id, "three")).text == "three"


async def test_get_updates_long_poll_offset_and_conflicts(bot, state):
    fake = state
    ali = fake.user(7, "Ali")

    waiting = asyncio.create_task(bot.get_updates(timeout=30))
    await fake.wait_calls("getUpdates", ok=None)  # the long poll has arrived and waits
    assert not waiting.done()
    message = await fake.send_text(ali, None, "/tavla @bobby 5")
    [update] = await asyncio.wait_for(waiting, 5)  # woken by the update, long before 30 s
    assert update.message.text == "/tavla @bobby 5"
    assert [e.type for e in update.message.entities] == ["bot_command", "mention"]
    assert update.message.message_id == message["message_id"]

    assert len(await bot.get_updates()) == 1  # not confirmed yet
    assert await bot.get_updates(offset=update.update_id + 1) == ()
    assert fake.pending_updates == []

    first = asyncio.create_task(bot.get_updates(timeout=30))
    await fake.wait_calls("getUpdates", 4, ok=None)
    second = asyncio.create_task(bot.get_updates(timeout=30))
    with pytest.raises(Conflict, match=r"(?i)terminated by other getUpdates"):
        await asyncio.wait_for(first, 5)
    await fake.press(ali, fake.private_chat(ali), 1, "x", check_button=False)
    [press] = await asyncio.wait_for(second, 5)
    assert press.callback_query.data == "x"

    assert await bot.set_webhook("https://127.0.0.1:9/hook")
    with pytest.raises(Conflict, match=r"(?i)webhook is active"):
        await bot.get_updates()
    assert await bot.delete_webhook(drop_pending_updates=True)
    assert await bot.get_updates() == ()
    await fake.aclose()


async def test_commands_per_scope_and_language(bot, state):
    fake = state
    english = [BotCommand("tavla", "Challenge someone"), BotCommand("help", "All commands")]
    turkish = [BotCommand("tavla", "Birine meydan oku")]
    assert await bot.set_my_commands(english)
    assert await bot.set_my_commands(turkish, language_code="tr")
    assert await bot.set_my_commands(english[:1], scope=BotCommandScopeAllGroupChats())

    assert await bot.get_my_commands() == tuple(english)
    assert await bot.get_my_commands(language_code="tr") == tuple(turkish)
    assert await bot.get_my_commands(language_code="ru") == ()
    assert fake.commands(language_code="tr") == [
        {"command": "tavla", "description": "Birine meydan oku"}
    ]
    assert fake.commands(scope={"type": "all_group_chats"})[0]["command"] == "tavla"
    with pytest.raises(BadRequest, match=r"(?i)BOT_COMMAND_INVALID"):
        await bot.set_my_commands([BotCommand("Tavla", "capital letters are refused")])


async def test_application_in_process_with_fake_request():
    """A whole Application with FakeRequest: no sockets at all."""
    fake = FakeTelegram()
    app = (
        ApplicationBuilder()
        .token(TOKEN)
        .request(FakeRequest(fake))
        .get_updates_request(FakeRequest(fake))
        .build()
    )
    app.add_handler(CommandHandler("start", start))
    ali = fake.user(1001, "Ali")
    async with polling(app):
        await fake.send_text(ali, None, "/start")
        await fake.wait_calls("sendPhoto")
    assert fake.photo_bytes(ali.id) == BOARD


def test_html_parsing_counts_utf16():
    text, entities = parse_html(
        '🎲 <b>düşeş</b> <a href="tg://user?id=5">Ali</a> <code>13/7</code>'
    )
    assert text == "🎲 düşeş Ali 13/7"
    assert entities[0] == {"type": "bold", "offset": 3, "length": 5}
    assert entities[1]["type"] == "text_mention"
    assert entities[1]["user"]["id"] == 5
    assert entities[2] == {"type": "code", "offset": 13, "length": 4}


# --------------------------------------------------------------------------------------------
# Flood limits (tests/fakes/telegram/flood.py), on a clock the test moves


class Clock:
    """A clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@contextlib.asynccontextmanager
async def flood_bot(clock: Clock, limits: FloodLimits = TELEGRAM_LIMITS):
    """A bare Bot (no rate limiter of its own) and its fake, which enforces ``limits``."""
    fake = FakeTelegram(flood=limits, clock=clock)
    async with Bot(TOKEN, request=FakeRequest(fake), get_updates_request=FakeRequest(fake)) as b:
        yield fake, b


async def test_flood_limits_are_on_by_default():
    assert FakeTelegram().flood.limits == TELEGRAM_LIMITS
    assert TELEGRAM_LIMITS.window("group") == (20, 60.0)
    assert FakeTelegram(flood=None).flood is None


async def test_a_group_takes_twenty_sends_or_edits_a_minute(clock):
    async with flood_bot(clock) as (fake, bot):
        group = fake.group(-100, "Tavla")
        ali = fake.user(1, "Ali")
        board = await bot.send_photo(group.id, BOARD, reply_markup=keyboard(("Roll", "r:1")))
        for n in range(19):  # edits share the limit with sends
            clock.now += 1
            if n % 2:
                await bot.send_message(group.id, f"note {n}")
            else:
                await board.edit_reply_markup(keyboard(("Roll", f"r:{n + 2}")))
        clock.now += 1  # 20 s after the first send
        with pytest.raises(RetryAfter) as refused:
            await bot.send_message(group.id, "the 21st")
        # Pressing a button and answering it is not limited.
        for _ in range(5):
            query = await fake.press(ali, group, board.message_id, "r:20")
            assert await bot.answer_callback_query(query, "ok")

    assert refused.value.retry_after == 40  # the first send leaves the window then
    refusal = fake.calls_to("sendMessage")[-1]
    assert (refusal.status, refusal.error) == (429, "Too Many Requests: retry after 40")
    assert fake.messages(group)[-1]["text"] == "note 17"


async def test_a_group_takes_the_next_message_when_the_oldest_leaves_the_window(clock):
    async with flood_bot(clock) as (fake, bot):
        group = fake.group(-100, "Tavla")
        for n in range(20):
            await bot.send_message(group.id, f"m{n}")
            clock.now += 0.5
        clock.now = 1000.0 + 59.5
        with pytest.raises(RetryAfter) as refused:
            await bot.send_message(group.id, "too soon")
        clock.now = 1000.0 + 60.0  # the first message is a minute old
        await bot.send_message(group.id, "now")
        with pytest.raises(RetryAfter):  # only one left the window
            await bot.send_message(group.id, "and again")
        clock.now += 0.5
        await bot.send_message(group.id, "the second left too")

    assert refused.value.retry_after == 1  # whole seconds, rounded up, as Telegram answers
    assert [m["text"] for m in fake.messages(group)][-2:] == ["now", "the second left too"]


async def test_a_flooded_group_leaves_other_chats_alone(clock):
    async with flood_bot(clock) as (fake, bot):
        flooded, other = fake.group(-100, "One"), fake.group(-200, "Two")
        ali = fake.user(1, "Ali")
        for n in range(20):
            await bot.send_message(flooded.id, f"m{n}")
            clock.now += 0.1
        with pytest.raises(RetryAfter):
            await bot.send_message(flooded.id, "over")
        assert await bot.send_message(other.id, "fine")
        assert await bot.send_message(fake.private_chat(ali).id, "fine")


async def test_refused_and_failed_calls_do_not_count(clock):
    async with flood_bot(clock) as (fake, bot):
        group = fake.group(-100, "Tavla")
        for _ in range(20):
            with pytest.raises(BadRequest):  # an empty text: refused, not sent
                await bot.send_message(group.id, " ")
        for n in range(20):
            await bot.send_message(group.id, f"m{n}")
        for _ in range(3):
            with pytest.raises(RetryAfter):
                await bot.send_message(group.id, "over")
        clock.now += 60
        assert await bot.send_message(group.id, "a minute later")


async def test_a_private_chat_takes_a_short_burst_and_one_a_second(clock):
    async with flood_bot(clock) as (fake, bot):
        ali = fake.user(1, "Ali")
        chat = fake.private_chat(ali)
        for n in range(3):
            await bot.send_message(chat.id, f"burst {n}")
        with pytest.raises(RetryAfter) as refused:
            await bot.send_message(chat.id, "a fourth at once")
        clock.now += 2.0
        for n in range(10):
            clock.now += 1.0
            await bot.send_message(chat.id, f"steady {n}")

    assert refused.value.retry_after == 3
    assert len(fake.messages(chat)) == 13


async def test_thirty_messages_a_second_in_all(clock):
    async with flood_bot(clock) as (fake, bot):
        chats = [fake.private_chat(fake.user(n, f"U{n}")) for n in range(1, 32)]
        for chat in chats[:30]:
            await bot.send_message(chat.id, "news")
        with pytest.raises(RetryAfter) as refused:
            await bot.send_message(chats[30].id, "the 31st")
        clock.now += 1
        assert await bot.send_message(chats[30].id, "a second later")
    assert refused.value.retry_after == 1


async def test_every_kind_of_edit_counts_as_a_send_and_answers_never_count(clock):
    """Telegram counts edits of text, caption, picture and buttons alike with sends, per
    group (tdlib/td issue 2592); answers to presses, reads and deletions are not counted,
    not even with the bot's whole second used (tdlib/telegram-bot-api issue 648)."""
    async with flood_bot(clock) as (fake, bot):
        group = fake.group(-100, "Tavla")
        ali = fake.user(1, "Ali")
        board = await bot.send_photo(
            group.id, BOARD, caption="0", reply_markup=keyboard(("R", "r"))
        )
        note = await bot.send_message(group.id, "note")
        edits = [
            lambda n: board.edit_caption(f"caption {n}", reply_markup=keyboard(("R", "r"))),
            lambda n: board.edit_media(
                InputMediaPhoto(ROLLED if n % 2 else BOARD), reply_markup=keyboard(("R", "r"))
            ),
            lambda n: board.edit_reply_markup(keyboard(("R", f"r{n}"))),
            lambda n: note.edit_text(f"note {n}"),
        ]
        for n in range(18):
            await edits[n % 4](n)
        for n, edit in enumerate(edits):
            with pytest.raises(RetryAfter):  # the 21st call of any kind
                await edit(100 + n)
        clock.now += 1  # a new second: the bot's whole second used up in private chats
        for n in range(2, 32):
            await bot.send_message(fake.private_chat(fake.user(n, f"U{n}")).id, "hi")
        with pytest.raises(RetryAfter):
            await bot.send_message(fake.private_chat(ali).id, "the 31st this second")
        for _ in range(40):
            query = await fake.press(ali, group, board.message_id, "r")
            assert await bot.answer_callback_query(query, "ok")
        assert await bot.delete_message(group.id, note.message_id)

    assert fake.flood.accepted == 50
    assert fake.flood.refused == 5
    assert [call.status for call in fake.calls_to("answerCallbackQuery")] == [200] * 40


async def test_a_429_has_telegrams_json_with_retry_after_in_whole_seconds():
    """Over HTTP, as Telegram answers: status 429, ``Too Many Requests: retry after N``,
    and ``parameters.retry_after`` a whole number of seconds (rounded up)."""
    clock = Clock()
    async with FakeBotAPI(clock=clock) as fake:
        group = fake.group(-100, "Tavla")
        url = f"{fake.base_url}{TOKEN}/sendMessage"
        async with aiohttp.ClientSession() as http:
            for n in range(20):
                async with http.post(url, json={"chat_id": group.id, "text": f"m{n}"}) as reply:
                    assert reply.status == 200
                clock.now += 0.7  # 20 sends in 14 s
            async with http.post(url, json={"chat_id": group.id, "text": "over"}) as reply:
                status, body = reply.status, await reply.json()
    assert status == 429
    # The first message leaves the window 60 s after it was sent: 46 s from now.
    assert body == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 46",
        "parameters": {"retry_after": 46},
    }


async def test_scaled_limits_run_faster_and_answer_scaled_retry_after(clock):
    ten_times = FloodLimits(scale=10)
    async with flood_bot(clock, ten_times) as (fake, bot):
        group = fake.group(-100, "Tavla")
        for n in range(20):
            await bot.send_message(group.id, f"m{n}")
        clock.now += 1.0  # ten Telegram seconds
        with pytest.raises(RetryAfter) as refused:
            await bot.send_message(group.id, "over")
        clock.now += 5.0  # a Telegram minute after the first
        assert await bot.send_message(group.id, "a scaled minute later")

    assert ten_times.window("group") == (20, 6.0)
    assert refused.value.retry_after == 5.0  # 50 Telegram seconds
    assert fake.calls_to("sendMessage")[20].error == "Too Many Requests: retry after 5"


async def test_a_burst_over_the_group_limit_arrives_whole_through_ptbs_rate_limiter():
    """PTB's AIORateLimiter, given the fake's scale, delivers a burst of 25 late but whole.
    (Its leaky bucket lets the 21st through before the window has room, so the fake answers
    429 and the limiter waits and retries.)"""
    fake = FakeTelegram(flood=FloodLimits(scale=20))  # a minute lasts three seconds
    limiter = AIORateLimiter(
        overall_max_rate=30, group_max_rate=20, group_time_period=60 / 20, max_retries=5
    )
    app = ApplicationBuilder().token(TOKEN).request(FakeRequest(fake)).rate_limiter(limiter)
    async with app.build() as application:
        group = fake.group(-100, "Tavla")
        sent = await asyncio.gather(
            *(application.bot.send_message(group.id, f"m{n}") for n in range(25))
        )
    assert len(sent) == len(fake.messages(group)) == 25


async def test_fake_checks_explicit_entities_as_telegram_does(bot, state):
    """Mentions sent as entities: a text_mention needs a user, and every entity must lie
    inside the text, counted in UTF-16 units, without splitting a character."""
    fake = state
    ali = fake.user(7, "Ali")
    group = fake.group(-5, "Kahve")
    text = "🎲 Ali – Veli"  # the die is two UTF-16 units
    ali_user = User(7, "Ali", is_bot=False)
    sent = await bot.send_message(
        group.id, text, entities=[MessageEntity(MessageEntity.TEXT_MENTION, 3, 3, user=ali_user)]
    )
    (entity,) = fake.message(group, sent.message_id)["entities"]
    assert entity["user"]["id"] == ali.id
    bad = [
        MessageEntity(MessageEntity.TEXT_MENTION, 3, 3),  # no user
        MessageEntity(MessageEntity.TEXT_MENTION, 12, 3, user=ali_user),  # past the end
        MessageEntity(MessageEntity.BOLD, 1, 2),  # starts inside the die
        MessageEntity(MessageEntity.BOLD, 3, 0),  # empty
        MessageEntity("sparkle", 3, 3),  # no such type
    ]
    for entity in bad:
        with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
            await bot.send_message(group.id, text, entities=[entity])
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_photo(
            group.id, BOARD, caption="Ali", caption_entities=[MessageEntity("bold", 0, 9)]
        )
