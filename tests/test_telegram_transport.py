"""The aiohttp transport under python-telegram-bot: the real PTB ``Bot`` against the fake."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from aiohttp import web
from hypothesis import given
from hypothesis import strategies as st
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message
from telegram.error import NetworkError, RetryAfter, TimedOut

from bot.config import Config
from bot.service.service import GameService
from bot.storage.sqlite import SqliteStorage
from bot.telegram import build_application
from bot.telegram.convert import CallbackKeyboard
from bot.telegram.transport import AiohttpRequest
from tests.fakes.telegram import FakeBotAPI, tiny_png

TOKEN = "1234:TRANSPORT"


def make_bot(fake: FakeBotAPI, request: AiohttpRequest) -> Bot:
    return Bot(
        TOKEN,
        base_url=fake.base_url,
        base_file_url=fake.base_file_url,
        request=request,
        get_updates_request=AiohttpRequest(1),
    )


async def test_plain_calls_and_uploads_reach_the_bot_api() -> None:
    async with FakeBotAPI() as fake:
        user = fake.user(7, "Ayşe")
        chat = fake.private_chat(user)
        async with make_bot(fake, AiohttpRequest(4)) as bot:
            sent = await bot.send_message(chat.id, "Merhaba, tavla?")
            photo = tiny_png(30, 20, (200, 10, 10))
            shown = await bot.send_photo(chat.id, photo, caption="Sıra sende — Ayşe")
        assert sent.text == "Merhaba, tavla?"
        assert shown.caption == "Sıra sende — Ayşe"
        # The picture arrived byte for byte, as a multipart upload with its caption.
        assert fake.photo_bytes(chat, shown.message_id) == photo
        upload = fake.last_call("sendPhoto")
        assert upload.params["caption"] == "Sıra sende — Ayşe"
        assert upload.files["photo"] == photo


async def test_requests_beyond_the_pool_wait_for_a_connection() -> None:
    # Twelve messages at once to one chat: a bare Bot, no rate limiter, so no flood limits.
    async with FakeBotAPI(flood=None) as fake:
        chat = fake.private_chat(fake.user(8, "Oleg"))
        async with make_bot(fake, AiohttpRequest(1)) as bot:
            sent = await asyncio.gather(*(bot.send_message(chat.id, f"#{n}") for n in range(12)))
        assert sorted(m.text for m in sent) == sorted(f"#{n}" for n in range(12))


async def test_a_dropped_connection_is_a_network_error_and_429_a_retry_after() -> None:
    async with FakeBotAPI() as fake:
        chat = fake.private_chat(fake.user(9, "Deniz"))
        async with make_bot(fake, AiohttpRequest(2)) as bot:
            fake.fail_next("sendMessage", drop=True)
            with pytest.raises(NetworkError):
                await bot.send_message(chat.id, "lost")
            fake.fail_next("sendMessage", 429, retry_after=3)
            with pytest.raises(RetryAfter):
                await bot.send_message(chat.id, "too fast")
            # The transport is still usable afterwards.
            assert (await bot.send_message(chat.id, "fine")).text == "fine"


async def test_a_server_slower_than_the_read_timeout_is_timed_out() -> None:
    release = asyncio.Event()

    async def slow(request: web.Request) -> web.Response:
        await release.wait()
        return web.json_response({"ok": True, "result": True})

    app = web.Application()
    app.router.add_post("/{tail:.*}", slow)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    request = AiohttpRequest(2, read_timeout=0.2)
    await request.initialize()
    try:
        with pytest.raises(TimedOut):
            await request.post(f"http://127.0.0.1:{port}/bot{TOKEN}/getMe")
    finally:
        release.set()
        await request.shutdown()
        await runner.cleanup()


async def test_an_unopened_transport_refuses_to_send() -> None:
    with pytest.raises(RuntimeError):
        await AiohttpRequest().do_request("http://127.0.0.1:9/x", "POST")


async def test_the_application_uses_it_for_calls_and_updates(tmp_path: Path) -> None:
    config = Config.from_env(env_file=None)
    config = Config(**{**config.__dict__, "telegram_token": TOKEN, "telegram_connections": 5})
    service = GameService(SqliteStorage(tmp_path / "t.db"))
    app, _ = build_application(config, service)
    assert isinstance(app.bot.request, AiohttpRequest)
    assert app.bot.request._connections == 5
    assert isinstance(app.bot._request[0], AiohttpRequest)  # getUpdates' own transport


async def test_the_proxy_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where Telegram is reached through a proxy, HTTPS_PROXY / HTTP_PROXY name it, as for
    PTB's default transport."""
    seen: list[str] = []

    async def proxy(request: web.Request) -> web.Response:
        seen.append(str(request.url))
        return web.json_response({"ok": True, "result": True})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", proxy)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = runner.addresses[0][1]
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("NO_PROXY", "")
    request = AiohttpRequest(2)
    await request.initialize()
    try:
        assert await request.post(f"http://api.telegram.invalid/bot{TOKEN}/getMe") is True
    finally:
        await request.shutdown()
        await runner.cleanup()
    assert seen == [f"http://api.telegram.invalid/bot{TOKEN}/getMe"]


async def test_no_proxy_is_honoured_and_calls_need_no_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """NO_PROXY sends the Bot API past a configured proxy; and a call runs on the event
    loop alone (aiohttp's ``trust_env`` would read ~/.netrc in a thread on every call)."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    async with FakeBotAPI() as fake:
        chat = fake.private_chat(fake.user(8, "Veli"))
        async with make_bot(fake, AiohttpRequest(2)) as bot:
            loop = asyncio.get_running_loop()

            def no_thread(*args: object) -> None:
                raise AssertionError("a Bot API call went through a thread")

            monkeypatch.setattr(loop, "run_in_executor", no_thread)
            sent = await bot.send_message(chat.id, "direct")
            await bot.send_photo(chat.id, tiny_png(30, 20), caption="direct too")
    assert sent.text == "direct"


async def test_answers_come_without_the_keyboards_the_bot_sent() -> None:
    """PTB reads Telegram's answers without the messages' inline keyboards (the bot never
    reads them back): not in an edit's answer, not in a pressed message; all else is kept."""
    async with FakeBotAPI() as fake:
        user = fake.user(7, "Ayşe", username="ayse")
        chat = fake.group(-70, "Oda")
        async with make_bot(fake, AiohttpRequest(2)) as bot:
            buttons = CallbackKeyboard([[("Roll", "1:1:r"), ("Double", "1:1:d")]])
            sent = await bot.send_photo(
                chat.id, tiny_png(30, 20), caption="B", reply_markup=buttons
            )
            edited = await bot.edit_message_caption(
                chat.id, sent.message_id, caption="Board", reply_markup=buttons
            )
            await fake.press(user, chat, sent.message_id, "1:1:d")
            (update,) = await bot.get_updates(timeout=5)
        # Telegram got the keyboard as PTB itself would have written it, and keeps it.
        plain = InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton("Roll", callback_data="1:1:r"),
                    InlineKeyboardButton("Double", callback_data="1:1:d"),
                ]
            ]
        )
        assert fake.last_call("editMessageCaption").params["reply_markup"] == plain.to_dict()
        assert fake.messages(chat)[-1]["reply_markup"] == plain.to_dict()
        assert sent.reply_markup is None
        assert edited.reply_markup is None
        assert (edited.message_id, edited.caption, edited.chat.id) == (
            sent.message_id,
            "Board",
            chat.id,
        )
        assert len(edited.photo) == len(sent.photo) > 0
        query = update.callback_query
        assert query is not None
        assert query.data == "1:1:d"
        assert query.from_user.username == "ayse"
        pressed = query.message
        assert isinstance(pressed, Message)
        assert pressed.reply_markup is None
        assert (pressed.message_id, pressed.chat.id, pressed.caption) == (
            sent.message_id,
            chat.id,
            "Board",
        )
        assert pressed.photo


def test_a_reply_and_its_replied_message_lose_only_their_keyboards() -> None:
    board = {
        "message_id": 5,
        "date": 1,
        "chat": {"id": -7, "type": "group"},
        "caption": "B",
        "reply_markup": {"inline_keyboard": [[{"text": "x", "callback_data": "y"}]]},
    }
    update = {
        "update_id": 1,
        "message": {
            "message_id": 6,
            "date": 2,
            "chat": {"id": -7, "type": "group"},
            "text": "/board",
            "reply_to_message": board,
        },
    }
    raw = json.dumps({"ok": True, "result": [update]}).encode()
    parsed = AiohttpRequest.parse_json_payload(raw)
    kept = parsed["result"][0]["message"]
    assert kept["text"] == "/board"
    assert kept["reply_to_message"]["caption"] == "B"
    assert "reply_markup" not in kept["reply_to_message"]
    # Answers without messages are read as they are.
    assert AiohttpRequest.parse_json_payload(b'{"ok":true,"result":true}') == {
        "ok": True,
        "result": True,
    }
    error = b'{"ok":false,"error_code":400,"description":"Bad Request: message is not modified"}'
    assert AiohttpRequest.parse_json_payload(error)["description"].endswith("not modified")


@given(
    st.lists(
        st.lists(
            st.tuples(st.text(min_size=1, max_size=12), st.text(min_size=1, max_size=64)),
            min_size=1,
            max_size=8,
        ),
        max_size=6,
    )
)
def test_a_callback_keyboard_is_ptbs_keyboard_written_faster(rows) -> None:
    ours = CallbackKeyboard(rows)
    plain = InlineKeyboardMarkup(
        [[InlineKeyboardButton(text, callback_data=data) for text, data in row] for row in rows]
    )
    assert ours == plain
    assert ours.to_dict() == InlineKeyboardMarkup.to_dict(ours) == plain.to_dict()
    assert json.loads(ours.to_json()) == json.loads(plain.to_json())


async def test_an_upload_goes_out_in_one_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    """A board picture's multipart request is written to the socket at once, not part by
    part (about twenty system calls, and as many packets, for one board before)."""
    writes: list[int] = []
    original = asyncio.selector_events._SelectorSocketTransport.write  # type: ignore[attr-defined]

    def counted(self, data):  # type: ignore[no-untyped-def]
        writes.append(len(data))
        return original(self, data)

    async with FakeBotAPI() as fake:
        chat = fake.private_chat(fake.user(7, "Ayşe"))
        async with make_bot(fake, AiohttpRequest(2)) as bot:
            photo = tiny_png(40, 30, (10, 200, 10))
            keys = CallbackKeyboard([[("Roll", "1:1:r"), ("Double", "1:1:d")]])
            monkeypatch.setattr(asyncio.selector_events._SelectorSocketTransport, "write", counted)  # type: ignore[attr-defined]
            shown = await bot.send_photo(chat.id, photo, caption="Sıra sende", reply_markup=keys)
            monkeypatch.undo()
        # One write of the request, one of the fake's answer (the fake runs in this process).
        assert len(writes) == 2
        assert fake.photo_bytes(chat, shown.message_id) == photo
        upload = fake.last_call("sendPhoto")
        assert upload.params["caption"] == "Sıra sende"
        assert upload.params["reply_markup"] == keys.to_dict()
