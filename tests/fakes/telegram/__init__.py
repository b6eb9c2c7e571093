"""A local fake of the Telegram Bot API, for tests.

One implementation, two transports:

* :class:`FakeTelegram` holds the state and answers Bot API calls (``dispatch``). It keeps a
  record of every call, a message store per chat, the uploaded files, the queue of updates and
  the injected faults, and it has the helpers a test uses to act as a user.
* :class:`FakeRequest` is a ``telegram.request.BaseRequest`` that answers in-process from a
  ``FakeTelegram`` (no sockets): ``Bot(token, request=FakeRequest(fake),
  get_updates_request=FakeRequest(fake))``.
* :class:`FakeBotAPI` is a ``FakeTelegram`` that also serves HTTP on 127.0.0.1 (aiohttp), for
  end-to-end tests: ``ApplicationBuilder().base_url(fake.base_url)
  .base_file_url(fake.base_file_url)``.

Both transports feed the same decoder the same strings (PTB's ``RequestData.json_parameters``
and multipart parts), so a call is recorded the same way whichever transport carried it.

The answers have Telegram's JSON shapes, so PTB's ``de_json`` parses them, and the fake behaves
like Telegram where it cheaply can: per-chat ``message_id`` counters; edits that omit
``reply_markup`` remove the inline keyboard; "message is not modified" when an edit changes
nothing; HTML ``parse_mode`` is parsed into plain text plus entities (and bad markup gives
"can't parse entities"); callback data over 64 bytes is refused; unknown chats, messages and
query ids are refused with Telegram's error texts; ``getUpdates`` long-polls, honours
``offset`` and answers 409 while a webhook is set or when a newer ``getUpdates`` supersedes it;
a webhook, when set, receives the updates by POST. Markdown parse modes are stored verbatim,
and photos are not re-encoded (every size of a photo refers to the uploaded bytes).

Flood limits are on by default, as strict as Telegram's published ones (``flood.py``): in one
group at most 20 sends or edits in any 60 seconds, in a private chat 3 in any 3 seconds, 30 a
second in all; ``answerCallbackQuery`` does not count. A call over a limit is answered 429
with ``parameters.retry_after``. A test whose bot runs without its rate limiter (to play at
full speed) opts out explicitly with ``flood=None``; a test of flood behaviour scales time
instead (``flood=FloodLimits(scale=10)``: a minute lasts six seconds) and gives the bot's
``AIORateLimiter`` the same scale, or injects a ``clock``. Other errors, 429s included, can be
injected with :meth:`FakeTelegram.fail_next`.

Modules, by concern: ``records`` (users, chats, files, calls, errors), ``flood`` (the flood
limits), ``text`` (form parameters and HTML entities), ``images``, ``state`` (the call record,
chats, faults, the entry point), ``reading`` (what a test reads and waits for), ``actors``
(what a test does as a user), ``content`` (files, captions, keyboards), ``methods`` and
``updates`` (the Bot API methods), ``fake`` (:class:`FakeTelegram`, all of them in one class)
and ``transports`` (:class:`FakeRequest`, :class:`FakeBotAPI`).
"""

from tests.fakes.telegram.fake import FakeTelegram
from tests.fakes.telegram.flood import FLOOD_METHODS, TELEGRAM_LIMITS, FloodLimits
from tests.fakes.telegram.images import image_size, tiny_png
from tests.fakes.telegram.records import (
    ApiError,
    Call,
    FakeChat,
    FakeUser,
    Reply,
    StoredFile,
    UploadedFile,
)
from tests.fakes.telegram.text import decode_params, parse_html, utf16_len
from tests.fakes.telegram.transports import FakeBotAPI, FakeRequest

__all__ = [
    "FLOOD_METHODS",
    "TELEGRAM_LIMITS",
    "ApiError",
    "Call",
    "FakeBotAPI",
    "FakeChat",
    "FakeRequest",
    "FakeTelegram",
    "FakeUser",
    "FloodLimits",
    "Reply",
    "StoredFile",
    "UploadedFile",
    "decode_params",
    "image_size",
    "parse_html",
    "tiny_png",
    "utf16_len",
]
