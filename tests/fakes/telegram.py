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
photos are not re-encoded (every size of a photo refers to the uploaded bytes) and no rate
limit is enforced unless injected with :meth:`FakeTelegram.fail_next`.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import html
import inspect
import itertools
import json
import re
import struct
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote, urlsplit

import aiohttp
from aiohttp import web
from telegram.request import BaseRequest, RequestData

__all__ = [
    "ApiError",
    "Call",
    "FakeBotAPI",
    "FakeChat",
    "FakeRequest",
    "FakeTelegram",
    "FakeUser",
    "Reply",
    "StoredFile",
    "UploadedFile",
    "decode_params",
    "image_size",
    "parse_html",
    "tiny_png",
    "utf16_len",
]

DEFAULT_BOT_ID = 123456789
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"


# --------------------------------------------------------------------------------------------
# Values


@dataclass
class FakeUser:
    """A Telegram user, as a test builds it with :meth:`FakeTelegram.user`."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = "en"
    last_name: str | None = None
    is_bot: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data

    @property
    def mention_html(self) -> str:
        return f'<a href="tg://user?id={self.id}">{html.escape(self.first_name)}</a>'


@dataclass
class FakeChat:
    """A chat: ``type`` is ``private``, ``group``, ``supergroup`` or ``channel``."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        for key in ("title", "username", "first_name", "last_name"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data


@dataclass
class UploadedFile:
    """One multipart part of a request."""

    filename: str | None
    data: bytes
    content_type: str | None = None


@dataclass
class StoredFile:
    """A file the fake knows: uploaded by the bot (or named by URL)."""

    file_id: str
    file_unique_id: str
    data: bytes
    file_path: str
    kind: str
    file_name: str | None = None
    mime_type: str | None = None
    url: str | None = None
    width: int = 0
    height: int = 0
    photo: list[dict[str, Any]] | None = None  # the whole PhotoSize array this file is part of

    def file_dict(self) -> dict[str, Any]:
        return {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "file_size": len(self.data),
            "file_path": self.file_path,
        }


@dataclass(eq=False)
class Call:
    """One Bot API call as the fake received it. Unpacks as ``method, params, files``.

    ``params`` are decoded (JSON values parsed, string parameters kept as sent); ``files`` maps
    multipart part names to bytes (``uploads`` keeps file names and content types). ``status``
    is the HTTP status answered (``None`` while pending, ``0`` for a dropped connection);
    ``result`` the ``result`` answered on success, ``error`` the description otherwise.
    """

    method: str
    params: dict[str, Any]
    files: dict[str, bytes]
    uploads: dict[str, UploadedFile] = field(default_factory=dict, repr=False)
    token: str = ""
    status: int | None = None
    result: Any = field(default=None, repr=False)
    error: str | None = None

    def __iter__(self):
        return iter((self.method, self.params, self.files))

    @property
    def ok(self) -> bool:
        return self.status == 200


@dataclass
class Reply:
    """What a transport answers: HTTP status and body, or a dropped connection."""

    status: int
    body: bytes
    content_type: str = "application/json"
    drop: bool = False


class ApiError(Exception):
    """An error answer of the Bot API (``{"ok": false, "error_code": ..., ...}``)."""

    def __init__(self, code: int, description: str, parameters: dict[str, Any] | None = None):
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ok": False,
            "error_code": self.code,
            "description": self.description,
        }
        if self.parameters:
            data["parameters"] = self.parameters
        return data


@dataclass
class _Fault:
    status: int
    description: str | None
    retry_after: float | None
    drop: bool
    remaining: int


@dataclass
class _ChatState:
    chat: FakeChat
    next_id: int = 1
    messages: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: The bot's membership: "member", "kicked" (removed) or "restricted" (may not post).
    bot_status: str = "member"
    #: Set once the group became a supergroup: the old id answers every call with an error.
    migrated_to: int | None = None


# --------------------------------------------------------------------------------------------
# Parameters: PTB sends every parameter as a form field, strings as they are and everything
# else JSON-encoded. Telegram decodes by its schema; the fake keeps the string-typed ones as
# sent and JSON-decodes the others when they parse.

_STRING_PARAMS = frozenset(
    {
        "action",
        "address",
        "business_connection_id",
        "callback_query_id",
        "caption",
        "certificate",
        "currency",
        "custom_title",
        "description",
        "emoji",
        "explanation",
        "file_id",
        "first_name",
        "game_short_name",
        "inline_message_id",
        "inline_query_id",
        "invite_link",
        "ip_address",
        "language_code",
        "last_name",
        "message_effect_id",
        "name",
        "next_offset",
        "parse_mode",
        "payload",
        "phone_number",
        "provider_token",
        "query",
        "question",
        "secret_token",
        "short_description",
        "start_parameter",
        "switch_pm_parameter",
        "switch_pm_text",
        "text",
        "title",
        "url",
        # media given as file_id, URL or attach://name
        "animation",
        "audio",
        "document",
        "photo",
        "sticker",
        "thumbnail",
        "video",
        "video_note",
        "voice",
    }
)


def decode_params(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Decode form parameters as sent by PTB into Python values."""
    params: dict[str, Any] = {}
    for key, value in raw.items():
        if isinstance(value, str) and key not in _STRING_PARAMS:
            try:
                params[key] = json.loads(value)
            except ValueError:
                params[key] = value
        else:
            params[key] = value
    return params


# --------------------------------------------------------------------------------------------
# Text: entities (offsets and lengths in UTF-16 code units, as Telegram counts them)


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


_HTML_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}


class _HTMLEntities(HTMLParser):
    def __init__(self, text: str, users: Mapping[int, FakeUser]):
        super().__init__(convert_charrefs=True)
        self.text = text
        self.users = users
        self.parts: list[str] = []
        self.length = 0
        self.stack: list[tuple[str, dict[str, Any], int]] = []
        self.entities: list[dict[str, Any]] = []
        self.line_starts = [0]
        for match in re.finditer("\n", text):
            self.line_starts.append(match.end())

    def _byte_offset(self) -> int:
        line, column = self.getpos()
        return len(self.text[: self.line_starts[line - 1] + column].encode())

    @staticmethod
    def fail(message: str) -> ApiError:
        return ApiError(400, f"Bad Request: can't parse entities: {message}")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)
        self.length += utf16_len(data)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raise self.fail(f'Unsupported start tag "{tag}" at byte offset {self._byte_offset()}')

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag not in _HTML_TAGS or (tag == "span" and attributes.get("class") != "tg-spoiler"):
            raise self.fail(f'Unsupported start tag "{tag}" at byte offset {self._byte_offset()}')
        self.stack.append((tag, attributes, self.length))

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1][0] != tag:
            expected = f'expected "</{self.stack[-1][0]}>", ' if self.stack else ""
            raise self.fail(
                f"Unmatched end tag at byte offset {self._byte_offset()}, "
                f'{expected}found "</{tag}>"'
            )
        tag, attrs, start = self.stack.pop()
        length = self.length - start
        css_class = attrs.get("class") or ""
        inside_pre = bool(self.stack) and self.stack[-1][0] == "pre"
        if tag == "code" and inside_pre and css_class.startswith("language-"):
            self.stack[-1][1]["_language"] = css_class.removeprefix("language-")
            return
        if length == 0:
            return
        entity: dict[str, Any] = {"type": _HTML_TAGS[tag], "offset": start, "length": length}
        if tag == "a":
            href = attrs.get("href") or ""
            mention = re.fullmatch(r"tg://user\?id=(\d+)", href)
            if mention:
                user_id = int(mention.group(1))
                known = self.users.get(user_id)
                entity["type"] = "text_mention"
                entity["user"] = (
                    known.to_dict()
                    if known
                    else {"id": user_id, "is_bot": False, "first_name": str(user_id)}
                )
            else:
                entity["url"] = href
        elif tag == "pre" and "_language" in attrs:
            entity["language"] = attrs["_language"]
        elif tag == "blockquote" and "expandable" in attrs:
            entity["type"] = "expandable_blockquote"
        elif tag == "tg-emoji":
            entity["custom_emoji_id"] = attrs.get("emoji-id") or ""
        self.entities.append(entity)


def parse_html(text: str, users: Mapping[int, FakeUser] | None = None) -> tuple[str, list[dict]]:
    """Parse Telegram's HTML parse mode into ``(plain text, entities)`` or raise ``ApiError``."""
    bare = re.search(r"<(?![A-Za-z/])", text)
    if bare:
        raise _HTMLEntities.fail(
            f"Unexpected end of name token at byte offset {len(text[: bare.start()].encode())}"
        )
    parser = _HTMLEntities(text, users or {})
    parser.feed(text)
    parser.close()
    if parser.stack:
        raise parser.fail(f'Can\'t find end tag corresponding to start tag "{parser.stack[-1][0]}"')
    entities = sorted(parser.entities, key=lambda e: (e["offset"], -e["length"]))
    return "".join(parser.parts), entities


_COMMAND_RE = re.compile(r"(?<!\S)/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![A-Za-z0-9_])")
_MENTION_RE = re.compile(r"(?<![\w@/])@[A-Za-z0-9_]{3,32}(?![A-Za-z0-9_])")


def user_text_entities(text: str) -> list[dict[str, Any]]:
    """The entities Telegram adds to a user's plain text: bot commands and @mentions."""
    found = [("bot_command", m) for m in _COMMAND_RE.finditer(text)]
    found += [("mention", m) for m in _MENTION_RE.finditer(text)]
    entities = [
        {
            "type": kind,
            "offset": utf16_len(text[: m.start()]),
            "length": utf16_len(m.group()),
        }
        for kind, m in found
    ]
    return sorted(entities, key=lambda e: e["offset"])


# --------------------------------------------------------------------------------------------
# Images


def image_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG or JPEG (other formats through Pillow if present), or (0, 0)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return struct.unpack(">II", data[16:24])
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 <= len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                height, width = struct.unpack(">HH", data[i + 5 : i + 9])
                return width, height
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                i += 1 if marker == 0xFF else 2
                continue
            i += 2 + struct.unpack(">H", data[i + 2 : i + 4])[0]
    try:
        import io

        from PIL import Image

        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except Exception:
        return 0, 0


def tiny_png(width: int = 2, height: int = 2, rgb: tuple[int, int, int] = (0, 0, 0)) -> bytes:
    """A valid PNG of one colour, made without Pillow."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    row = b"\x00" + bytes(rgb) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


# --------------------------------------------------------------------------------------------
# The fake

_API_PATH = re.compile(r"/bot(?P<token>[^/]+)/(?P<method>[A-Za-z]+)/?$")
_FILE_PATH = re.compile(r"/file/bot(?P<token>[^/]+)/(?P<path>.+)$")
_MEDIA_KEYS = ("photo", "document", "video", "animation", "audio")
_BUTTON_ACTIONS = (
    "callback_data",
    "url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "login_url",
    "web_app",
    "callback_game",
    "pay",
    "copy_text",
)
_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
_TRUE_METHODS = (
    "setMyDescription",
    "setMyShortDescription",
    "setMyName",
    "setChatMenuButton",
    "setMyDefaultAdministratorRights",
    "setMessageReaction",
    "pinChatMessage",
    "unpinChatMessage",
    "unpinAllChatMessages",
    "leaveChat",
    "logOut",
    "close",
)
_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request: injected failure",
    401: "Unauthorized",
    403: "Forbidden: bot was blocked by the user",
    404: "Not Found",
    409: "Conflict: terminated by other getUpdates request; "
    "make sure that only one bot instance is running",
    500: "Internal Server Error",
    502: "Bad Gateway",
}

Predicate = Callable[[], Any]


class FakeTelegram:
    """State and logic of the fake Bot API, shared by both transports.

    Test-facing attributes: ``calls`` (every :class:`Call`, in arrival order),
    ``callback_answers`` / ``inline_answers`` (answer params by query id), ``files``
    (file_id → :class:`StoredFile`), ``inline_messages`` (inline_message_id → content),
    ``deleted`` ((chat_id, message_id) pairs), ``webhook`` (the settings or None),
    ``webhook_deliveries`` (updates a webhook accepted), ``blocked`` (user ids).
    """

    def __init__(
        self,
        *,
        bot_username: str = "tavla_test_bot",
        bot_first_name: str = "Tavla",
        bot_id: int | None = None,
        tokens: Iterable[str] | None = None,
        check_buttons: bool = True,
    ):
        self.bot_username = bot_username
        self.bot_first_name = bot_first_name
        self.bot_id = bot_id
        self.valid_tokens = set(tokens) if tokens is not None else None
        self.check_buttons = check_buttons

        self.calls: list[Call] = []
        self.callback_answers: dict[str, dict[str, Any]] = {}
        self.inline_answers: dict[str, dict[str, Any]] = {}
        self.my_commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.files: dict[str, StoredFile] = {}
        self.inline_messages: dict[str, dict[str, Any]] = {}
        self.deleted: list[tuple[int, int]] = []
        self.users: dict[int, FakeUser] = {}
        #: Administrators of each chat (chat id -> user ids), for getChatMember.
        self.admins: dict[int, set[int]] = {}
        self.blocked: set[int] = set()
        self.webhook: dict[str, Any] | None = None
        self.webhook_deliveries: list[dict[str, Any]] = []

        self._chats: dict[int, _ChatState] = {}
        self._pending: list[dict[str, Any]] = []
        self._update_ids = itertools.count(100_000_001)
        self._file_ids = itertools.count(1)
        self._query_ids = itertools.count(4_242_000_000_000_000_001)
        self._inline_ids = itertools.count(1)
        self._faults: dict[str, list[_Fault]] = {}
        self._open_callbacks: dict[str, dict[str, Any]] = {}
        self._open_inline: dict[str, dict[str, Any]] = {}
        self._answered_inline: dict[str, dict[str, Any]] = {}
        self._allowed_updates: set[str] | None = None
        self._poll_generation = 0
        self._closing = False
        self._waiters: set[asyncio.Event] = set()
        self._answered_for_chat: dict[str, int] = {}
        self._webhook_task: asyncio.Task[None] | None = None
        self._webhook_error: tuple[int, str] | None = None

        self._handlers: dict[str, tuple[str, Callable[..., Any]]] = {}
        for name in dir(self):
            if name.startswith("_api_"):
                method = name.removeprefix("_api_")
                self._handlers[method.lower()] = (method, getattr(self, name))
        for method in _TRUE_METHODS:
            self._handlers[method.lower()] = (method, self._answer_true)

    # ---------------------------------------------------------------- the bot

    def bot_user(self) -> dict[str, Any]:
        return {
            "id": self.bot_id or DEFAULT_BOT_ID,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": True,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    # ---------------------------------------------------------------- transports' entry

    async def handle_url(
        self,
        http_method: str,
        url_or_path: str,
        params: Mapping[str, Any],
        files: Mapping[str, UploadedFile] | None = None,
    ) -> Reply:
        """Answer one HTTP request by path: a Bot API call or a file download."""
        path = unquote(urlsplit(url_or_path).path)
        download = _FILE_PATH.search(path)
        if download:
            return self._download(download.group("token"), download.group("path"))
        call = _API_PATH.search(path)
        if not call:
            return self._error_reply(ApiError(404, "Not Found"))
        return await self.dispatch(call.group("token"), call.group("method"), params, files)

    async def dispatch(
        self,
        token: str,
        method: str,
        params: Mapping[str, Any],
        files: Mapping[str, UploadedFile] | None = None,
    ) -> Reply:
        """Answer one Bot API call (``params`` already decoded, see :func:`decode_params`)."""
        files = dict(files or {})
        canonical, handler = self._handlers.get(method.lower(), (method, None))
        call = Call(
            method=canonical,
            params=dict(params),
            files={name: upload.data for name, upload in files.items()},
            uploads=files,
            token=token,
        )
        self.calls.append(call)
        if self.bot_id is None:
            head = token.split(":", 1)[0]
            self.bot_id = int(head) if head.isdigit() else DEFAULT_BOT_ID
        try:
            fault = self._take_fault(canonical)
            if fault is not None and fault.drop:
                call.status = 0
                call.error = "connection dropped"
                return Reply(status=0, body=b"", drop=True)
            if fault is not None:
                raise self._fault_error(fault)
            if self.valid_tokens is not None and token not in self.valid_tokens:
                raise ApiError(401, "Unauthorized")
            if handler is None:
                raise ApiError(404, "Not Found")
            result = handler(call.params, files)
            if inspect.isawaitable(result):
                result = await result
        except ApiError as exc:
            call.status = exc.code
            call.error = exc.description
            return self._error_reply(exc)
        else:
            call.status = 200
            call.result = result
            if "chat_id" in call.params:
                key = str(call.params["chat_id"])
                self._answered_for_chat[key] = self._answered_for_chat.get(key, 0) + 1
            return Reply(200, _dumps({"ok": True, "result": result}))
        finally:
            self._notify()

    @staticmethod
    def _error_reply(exc: ApiError) -> Reply:
        return Reply(exc.code, _dumps(exc.payload()))

    def _download(self, token: str, file_path: str) -> Reply:
        for stored in self.files.values():
            if stored.file_path == file_path:
                return Reply(200, stored.data, content_type=stored.mime_type or "")
        return self._error_reply(ApiError(404, "Not Found"))

    # ---------------------------------------------------------------- fault injection

    def fail_next(
        self,
        method: str,
        status: int = 429,
        *,
        retry_after: float | None = 1,
        times: int = 1,
        description: str | None = None,
        drop: bool = False,
    ) -> None:
        """Answer the next ``times`` calls of ``method`` with an error instead of the result.

        429 answers carry ``parameters.retry_after`` (an int in real Telegram; a float here
        shortens tests); other statuses carry a Telegram-like description (or ``description``).
        ``drop=True`` closes the connection without an answer (PTB raises ``NetworkError``).
        Faults for one method are used in the order they were added.
        """
        canonical = self._handlers.get(method.lower(), (method, None))[0]
        self._faults.setdefault(canonical, []).append(
            _Fault(
                status=status,
                description=description,
                retry_after=retry_after if status == 429 else None,
                drop=drop,
                remaining=times,
            )
        )

    def _take_fault(self, method: str) -> _Fault | None:
        queue = self._faults.get(method)
        if not queue:
            return None
        fault = queue[0]
        fault.remaining -= 1
        if fault.remaining <= 0:
            queue.pop(0)
        return fault

    @staticmethod
    def _fault_error(fault: _Fault) -> ApiError:
        if fault.status == 429:
            retry = fault.retry_after or 1
            retry = int(retry) if float(retry).is_integer() else retry
            return ApiError(
                429,
                fault.description or f"Too Many Requests: retry after {retry}",
                {"retry_after": retry},
            )
        description = fault.description or _DEFAULT_DESCRIPTIONS.get(
            fault.status, f"Error {fault.status}"
        )
        return ApiError(fault.status, description)

    # ---------------------------------------------------------------- waiting

    def _notify(self) -> None:
        for event in list(self._waiters):
            event.set()

    async def _wait_change(self, timeout: float | None) -> None:
        event = asyncio.Event()
        self._waiters.add(event)
        try:
            if timeout is None:
                await event.wait()
            else:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        await event.wait()
        finally:
            self._waiters.discard(event)

    async def wait_for(
        self, predicate: Predicate, timeout: float = 5.0, *, poll: float = 0.01
    ) -> Any:
        """Wait until ``predicate()`` is truthy and return its value; raise ``TimeoutError``
        after ``timeout`` seconds. The predicate is re-checked whenever the fake's state
        changes, and every ``poll`` seconds for predicates on state outside the fake."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(
                    f"condition not met within {timeout} s; recent calls: {self.summary()}"
                )
            await self._wait_change(min(remaining, poll))

    async def wait_calls(
        self, method: str, count: int = 1, timeout: float = 5.0, *, ok: bool | None = True
    ) -> list[Call]:
        """Wait until ``count`` calls of ``method`` were answered (by default: successfully)
        and return them all."""

        def enough() -> list[Call] | None:
            calls = self.calls_to(method, ok=ok)
            return calls if len(calls) >= count else None

        try:
            return await self.wait_for(enough, timeout)
        except TimeoutError:
            got = len(self.calls_to(method, ok=ok))
            raise TimeoutError(
                f"expected {count} {method} call(s), got {got} within {timeout} s; "
                f"recent calls: {self.summary()}"
            ) from None

    # ---------------------------------------------------------------- record

    def answered_for_chat(self, chat: FakeChat | int) -> int:
        """How many calls naming ``chat`` (by ``chat_id``) were answered successfully: a
        cheap way to see that the bot did something in a chat, without copying messages."""
        return self._answered_for_chat.get(str(_chat_id(chat)), 0)

    def calls_to(self, method: str, *, ok: bool | None = None) -> list[Call]:
        """Calls of ``method``: all (``ok=None``), answered successfully, or failed."""
        return [
            call
            for call in self.calls
            if call.method.lower() == method.lower()
            and (ok is None or (call.status is not None and call.ok == ok))
        ]

    def last_call(self, method: str) -> Call:
        calls = self.calls_to(method)
        if not calls:
            raise LookupError(f"no {method} call; calls: {self.summary()}")
        return calls[-1]

    def methods(self, *, exclude: Iterable[str] = ("getUpdates",)) -> list[str]:
        """The methods called, in order (getUpdates left out by default)."""
        skip = set(exclude)
        return [call.method for call in self.calls if call.method not in skip]

    def summary(self, last: int = 12) -> str:
        shown = [f"{c.method}({c.status})" for c in self.calls if c.method != "getUpdates"]
        return ", ".join(shown[-last:]) or "none"

    # ---------------------------------------------------------------- message store (read)

    def messages(self, chat: FakeChat | int, *, from_bot: bool | None = True) -> list[dict]:
        """Current state of a chat's messages (deleted ones left out), oldest first: the bot's
        by default, the users' with ``from_bot=False``, all with ``None``."""
        state = self._chats.get(_chat_id(chat))
        if state is None:
            return []
        bot_id = self.bot_user()["id"]
        return [
            copy.deepcopy(msg)
            for msg in state.messages.values()
            if from_bot is None or (msg.get("from", {}).get("id") == bot_id) == from_bot
        ]

    def last_message(self, chat: FakeChat | int, *, from_bot: bool | None = True) -> dict:
        found = self.messages(chat, from_bot=from_bot)
        if not found:
            raise LookupError(f"no message in chat {_chat_id(chat)}; calls: {self.summary()}")
        return found[-1]

    def message(self, chat: FakeChat | int, message_id: int) -> dict:
        state = self._chats.get(_chat_id(chat))
        if state is None or message_id not in state.messages:
            raise LookupError(f"no message {message_id} in chat {_chat_id(chat)}")
        return copy.deepcopy(state.messages[message_id])

    def file_bytes(self, file_id: str) -> bytes:
        return self.files[file_id].data

    def photo_bytes(self, chat: FakeChat | int, message_id: int | None = None) -> bytes:
        """The uploaded bytes of a message's photo (default: the bot's last message)."""
        msg = self.last_message(chat) if message_id is None else self.message(chat, message_id)
        if "photo" not in msg:
            raise LookupError(f"message {msg['message_id']} has no photo")
        return self.file_bytes(msg["photo"][-1]["file_id"])

    def commands(
        self, *, scope: Mapping[str, Any] | None = None, language_code: str = ""
    ) -> list[dict]:
        """The commands set with setMyCommands for a scope and language."""
        return copy.deepcopy(self.my_commands.get(_scope_key(scope, language_code), []))

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates queued and not yet confirmed by the bot."""
        return copy.deepcopy(self._pending)

    # ---------------------------------------------------------------- acting as users

    def user(
        self,
        id: int,
        first_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
        *,
        last_name: str | None = None,
    ) -> FakeUser:
        user = FakeUser(
            id=id,
            first_name=first_name or f"User{id}",
            username=username,
            language_code=language_code,
            last_name=last_name,
        )
        self.users[id] = user
        return user

    def private_chat(self, user: FakeUser) -> FakeChat:
        """The user's private chat with the bot (the bot may write to it from now on)."""
        chat = FakeChat(
            id=user.id,
            type="private",
            username=user.username,
            first_name=user.first_name,
            last_name=user.last_name,
        )
        self._chat_state(chat)
        return chat

    def group(
        self,
        id: int,
        title: str = "Tavla group",
        *,
        type: str = "group",
        username: str | None = None,
    ) -> FakeChat:
        """A group (``type="supergroup"`` for a supergroup) the bot is a member of."""
        if id >= 0:
            raise ValueError("group chat ids are negative")
        chat = FakeChat(id=id, type=type, title=title, username=username)
        self._chat_state(chat)
        return chat

    def block(self, user: FakeUser | int) -> None:
        """The user blocks the bot: sending to their private chat answers 403."""
        self.blocked.add(user if isinstance(user, int) else user.id)

    def unblock(self, user: FakeUser | int) -> None:
        self.blocked.discard(user if isinstance(user, int) else user.id)

    def set_bot_status(self, chat: FakeChat, status: str, by: FakeUser) -> dict[str, Any]:
        """An admin removes the bot ("kicked"), takes its right to post ("restricted") or
        brings it back ("member"); the bot gets a ``my_chat_member`` update as in Telegram."""
        state = self._chat_state(chat)
        old = state.bot_status
        state.bot_status = status
        return self.queue_update(
            "my_chat_member",
            {
                "chat": chat.to_dict(),
                "from": by.to_dict(),
                "date": int(time.time()),
                "old_chat_member": _bot_member(self.bot_user(), old),
                "new_chat_member": _bot_member(self.bot_user(), status),
            },
        )

    def migrate(self, chat: FakeChat, new_id: int, by: FakeUser) -> FakeChat:
        """The group becomes a supergroup with a new id. As in Telegram, the old chat gets a
        service message with ``migrate_to_chat_id`` and the new one a message with
        ``migrate_from_chat_id``; the old id answers every later call with an error that
        carries the new id."""
        old = self._chat_state(chat)
        new_chat = self.group(new_id, chat.title or "", type="supergroup")
        new = self._chat_state(new_chat)
        leaving = self._new_message(old, by.to_dict())
        leaving["migrate_to_chat_id"] = new_id
        old.messages[leaving["message_id"]] = leaving
        old.migrated_to = new_id
        arriving = self._new_message(new, by.to_dict())
        arriving["migrate_from_chat_id"] = chat.id
        new.messages[arriving["message_id"]] = arriving
        self.queue_update("message", copy.deepcopy(leaving))
        self.queue_update("message", copy.deepcopy(arriving))
        return new_chat

    def delete_by_admin(self, chat: FakeChat, message_id: int) -> None:
        """A chat admin deletes a message (the bot is not told)."""
        state = self._chat_state(chat)
        if state.messages.pop(message_id, None) is None:
            raise LookupError(f"no message {message_id} in chat {chat.id}")
        self.deleted.append((chat.id, message_id))

    def queue_update(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Queue a raw update ``{"update_id": ..., kind: payload}`` and wake the bot."""
        update = {"update_id": next(self._update_ids), kind: payload}
        self._pending.append(update)
        self._notify()
        return copy.deepcopy(update)

    async def send_text(
        self,
        user: FakeUser,
        chat: FakeChat | None,
        text: str,
        *,
        reply_to: int | None = None,
        entities: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """The user writes ``text`` in ``chat`` (None: their private chat). Commands get a
        ``bot_command`` entity and @names a ``mention`` (unless ``entities`` is given).
        Returns the message."""
        chat = chat or self.private_chat(user)
        self.users.setdefault(user.id, user)
        state = self._chat_state(chat)
        msg = self._new_message(state, user.to_dict())
        if reply_to is not None:
            if reply_to not in state.messages:
                raise LookupError(f"no message {reply_to} in chat {chat.id} to reply to")
            msg["reply_to_message"] = _quoted(state.messages[reply_to])
        msg["text"] = text
        found = user_text_entities(text) if entities is None else entities
        if found:
            msg["entities"] = found
        state.messages[msg["message_id"]] = msg
        self.queue_update("message", copy.deepcopy(msg))
        return copy.deepcopy(msg)

    async def press(
        self,
        user: FakeUser,
        chat: FakeChat | int,
        message_id: int,
        callback_data: str,
        *,
        check_button: bool | None = None,
    ) -> str:
        """The user presses an inline button of a message; returns the callback query id.
        By default the message must carry a button with this ``callback_data``."""
        state = self._chats.get(_chat_id(chat))
        if state is None or message_id not in state.messages:
            raise LookupError(f"no message {message_id} in chat {_chat_id(chat)} to press on")
        msg = state.messages[message_id]
        if (self.check_buttons if check_button is None else check_button) and (
            callback_data not in _callback_datas(msg.get("reply_markup"))
        ):
            raise LookupError(
                f"message {message_id} has no button {callback_data!r}; "
                f"it has {_callback_datas(msg.get('reply_markup'))}"
            )
        self.users.setdefault(user.id, user)
        query = {
            "id": str(next(self._query_ids)),
            "from": user.to_dict(),
            "message": copy.deepcopy(msg),
            "chat_instance": str(abs(state.chat.id) * 1_000_003 + 17),
            "data": callback_data,
        }
        self._open_callbacks[query["id"]] = query
        self.queue_update("callback_query", query)
        return query["id"]

    async def press_inline(self, user: FakeUser, inline_message_id: str, callback_data: str) -> str:
        """The user presses a button of an inline message; returns the callback query id."""
        if inline_message_id not in self.inline_messages:
            raise LookupError(f"no inline message {inline_message_id}")
        content = self.inline_messages[inline_message_id]
        if self.check_buttons and callback_data not in _callback_datas(content.get("reply_markup")):
            raise LookupError(f"inline message {inline_message_id} has no {callback_data!r}")
        query = {
            "id": str(next(self._query_ids)),
            "from": user.to_dict(),
            "inline_message_id": inline_message_id,
            "chat_instance": str(hash(inline_message_id) & 0xFFFFFFFFFFFF),
            "data": callback_data,
        }
        self._open_callbacks[query["id"]] = query
        self.queue_update("callback_query", query)
        return query["id"]

    async def inline_query(
        self, user: FakeUser, query: str = "", *, offset: str = "", chat_type: str = "sender"
    ) -> str:
        """The user types ``@bot query``; returns the inline query id (answers land in
        ``inline_answers[id]``)."""
        self.users.setdefault(user.id, user)
        inline = {
            "id": str(next(self._query_ids)),
            "from": user.to_dict(),
            "query": query,
            "offset": offset,
            "chat_type": chat_type,
        }
        self._open_inline[inline["id"]] = inline
        self.queue_update("inline_query", inline)
        return inline["id"]

    async def choose_inline_result(
        self, user: FakeUser, inline_query_id: str, result_id: str
    ) -> str | None:
        """The user picks a result the bot answered: an inline message is created (with an
        ``inline_message_id`` when the result has an inline keyboard, which is returned) and a
        ``chosen_inline_result`` update is queued."""
        answer = self.inline_answers.get(inline_query_id)
        if answer is None:
            raise LookupError(f"inline query {inline_query_id} was not answered")
        result = next((r for r in answer.get("results", []) if r.get("id") == result_id), None)
        if result is None:
            raise LookupError(f"no result {result_id!r} in the answer")
        chosen: dict[str, Any] = {
            "result_id": result_id,
            "from": user.to_dict(),
            "query": self._answered_inline[inline_query_id]["query"],
        }
        inline_message_id = None
        if result.get("reply_markup"):
            inline_message_id = f"fake-inline-{next(self._inline_ids)}"
            content: dict[str, Any] = {"reply_markup": result["reply_markup"]}
            message_content = result.get("input_message_content") or {}
            if "message_text" in message_content:
                content["text"] = message_content["message_text"]
            elif result.get("type") == "photo":
                content["photo"] = result.get("photo_file_id") or result.get("photo_url")
                content["caption"] = result.get("caption")
            self.inline_messages[inline_message_id] = content
            chosen["inline_message_id"] = inline_message_id
        self.queue_update("chosen_inline_result", chosen)
        return inline_message_id

    # ---------------------------------------------------------------- internals: chats, files

    def _chat_state(self, chat: FakeChat) -> _ChatState:
        state = self._chats.get(chat.id)
        if state is None:
            state = self._chats[chat.id] = _ChatState(chat=chat)
        return state

    def _lookup_chat(self, chat_id: Any, *, sending: bool = False) -> _ChatState:
        state = None
        if isinstance(chat_id, int):
            state = self._chats.get(chat_id)
        elif isinstance(chat_id, str) and chat_id.startswith("@"):
            state = next((s for s in self._chats.values() if s.chat.username == chat_id[1:]), None)
        if state is None:
            raise ApiError(400, "Bad Request: chat not found")
        if state.migrated_to is not None:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": state.migrated_to},
            )
        if state.bot_status == "kicked":
            kind = "supergroup" if state.chat.type == "supergroup" else "group"
            raise ApiError(403, f"Forbidden: bot was kicked from the {kind} chat")
        if sending and state.bot_status == "restricted":
            raise ApiError(400, "Bad Request: not enough rights to send text messages to the chat")
        if sending and state.chat.type == "private" and state.chat.id in self.blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        return state

    def _new_message(self, state: _ChatState, sender: dict[str, Any]) -> dict[str, Any]:
        message_id = state.next_id
        state.next_id += 1
        return {
            "message_id": message_id,
            "from": sender,
            "chat": state.chat.to_dict(),
            "date": int(time.time()),
        }

    def _store_file(
        self,
        kind: str,
        data: bytes,
        *,
        filename: str | None = None,
        mime_type: str | None = None,
        url: str | None = None,
    ) -> StoredFile:
        number = next(self._file_ids)
        suffix = ".jpg"  # Telegram stores every photo as JPEG
        if kind != "photo":
            suffix = filename[filename.rindex(".") :] if filename and "." in filename else ""
        stored = StoredFile(
            file_id=f"fake-{kind}-{number}",
            file_unique_id=f"fake-unique-{number}",
            data=data,
            file_path=f"{kind}s/file_{number}{suffix}",
            kind=kind,
            file_name=filename,
            mime_type=mime_type,
            url=url,
        )
        self.files[stored.file_id] = stored
        return stored

    def _input_file(
        self, value: Any, files: Mapping[str, UploadedFile], key: str, kind: str
    ) -> tuple[StoredFile, bool]:
        """Resolve a media parameter: (the file, whether it was uploaded by this call)."""
        upload = None
        if isinstance(value, str) and value.startswith("attach://"):
            name = value.removeprefix("attach://")
            upload = files.get(name)
            if upload is None:
                raise ApiError(400, f'Bad Request: can\'t find attached file "{name}"')
        elif value is None:
            upload = files.get(key)
            if upload is None:
                raise ApiError(400, f"Bad Request: there is no {key} in the request")
        elif isinstance(value, str) and value.startswith(("http://", "https://")):
            name = value.rsplit("/", 1)[-1] or None
            return self._store_file(kind, b"", filename=name, url=value), False
        elif isinstance(value, str):
            stored = self.files.get(value)
            if stored is None:
                raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
            return stored, False
        else:
            raise ApiError(400, f"Bad Request: wrong {key} specified")
        if not upload.data:
            raise ApiError(400, "Bad Request: file must be non-empty")
        if kind == "photo" and image_size(upload.data) == (0, 0):
            # Telegram decodes every uploaded photo (to re-encode it as JPEG).
            raise ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED")
        stored = self._store_file(
            kind, upload.data, filename=upload.filename, mime_type=upload.content_type
        )
        return stored, True

    def _photo_sizes(self, stored: StoredFile) -> list[dict[str, Any]]:
        if stored.photo is not None:
            return copy.deepcopy(stored.photo)
        width, height = image_size(stored.data) if stored.data else (0, 0)
        biggest = max(width, height)
        dims = [
            (max(1, round(width * limit / biggest)), max(1, round(height * limit / biggest)))
            for limit in (90, 320, 800)
            if biggest > limit
        ]
        if biggest > 1280:
            dims.append((round(width * 1280 / biggest), round(height * 1280 / biggest)))
        else:
            dims.append((width, height))
        sizes: list[dict[str, Any]] = []
        members: list[StoredFile] = []
        for index, (w, h) in enumerate(dims):
            last = index == len(dims) - 1
            member = stored if last else self._store_file("photo", stored.data)
            member.width, member.height = w, h
            area = (w * h) / (width * height) if width and height else 1
            sizes.append(
                {
                    "file_id": member.file_id,
                    "file_unique_id": member.file_unique_id,
                    "file_size": len(stored.data) if last else max(1, int(len(stored.data) * area)),
                    "width": w,
                    "height": h,
                }
            )
            members.append(member)
        for member in members:
            member.photo = sizes
        return copy.deepcopy(sizes)

    @staticmethod
    def _document(stored: StoredFile) -> dict[str, Any]:
        document: dict[str, Any] = {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": len(stored.data),
        }
        if stored.file_name:
            document["file_name"] = stored.file_name
        if stored.mime_type:
            document["mime_type"] = stored.mime_type
        return document

    def _media_content(self, kind: str, stored: StoredFile) -> dict[str, Any]:
        if kind == "photo":
            return {"photo": self._photo_sizes(stored)}
        return {kind: self._document(stored)}

    # ---------------------------------------------------------------- internals: content

    def _format(
        self, text: Any, parse_mode: Any, entities: Any, *, caption: bool = False
    ) -> tuple[str, list[dict[str, Any]] | None]:
        text = "" if text is None else str(text)
        if entities is not None:
            plain, found = text, list(entities)
        elif isinstance(parse_mode, str) and parse_mode.lower() == "html":
            plain, found = parse_html(text, self.users)
        else:
            plain, found = text, []
        if caption:
            if utf16_len(plain) > 1024:
                raise ApiError(400, "Bad Request: message caption is too long")
        else:
            if not plain.strip():
                raise ApiError(400, "Bad Request: message text is empty")
            if utf16_len(plain) > 4096:
                raise ApiError(400, "Bad Request: message is too long")
        return plain, found or None

    def _text_fields(self, params: Mapping[str, Any]) -> dict[str, Any]:
        text, entities = self._format(
            params.get("text"), params.get("parse_mode"), params.get("entities")
        )
        return {"text": text, "entities": entities}

    def _caption_fields(self, source: Mapping[str, Any]) -> dict[str, Any]:
        if not source.get("caption"):
            return {"caption": None, "caption_entities": None}
        caption, entities = self._format(
            source.get("caption"),
            source.get("parse_mode"),
            source.get("caption_entities"),
            caption=True,
        )
        return {"caption": caption or None, "caption_entities": entities}

    def _inline_markup(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        markup = params.get("reply_markup")
        if not isinstance(markup, dict) or "inline_keyboard" not in markup:
            return None
        rows = markup["inline_keyboard"]
        for row in rows:
            for button in row:
                if not button.get("text"):
                    raise ApiError(
                        400, "Bad Request: can't parse inline keyboard button: Text is empty"
                    )
                actions = [action for action in _BUTTON_ACTIONS if action in button]
                if len(actions) != 1:
                    raise ApiError(
                        400,
                        "Bad Request: can't parse inline keyboard button: "
                        "Text buttons are unallowed in the inline keyboard",
                    )
                data = button.get("callback_data")
                if "callback_data" in button and (
                    not isinstance(data, str) or not 1 <= len(data.encode()) <= 64
                ):
                    raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
        if not any(rows):
            return None
        return copy.deepcopy(markup)

    def _reply_to(self, state: _ChatState, params: Mapping[str, Any]) -> dict[str, Any] | None:
        reply = params.get("reply_parameters")
        if not isinstance(reply, dict):
            if "reply_to_message_id" not in params:
                return None
            reply = {
                "message_id": params["reply_to_message_id"],
                "allow_sending_without_reply": params.get("allow_sending_without_reply"),
            }
        target = state
        if reply.get("chat_id") not in (None, state.chat.id):
            target = self._lookup_chat(reply["chat_id"])
        msg = target.messages.get(reply.get("message_id"))
        if msg is None:
            if reply.get("allow_sending_without_reply"):
                return None
            raise ApiError(400, "Bad Request: message to be replied not found")
        return _quoted(msg)

    def _send(
        self, params: Mapping[str, Any], build: Callable[[], dict[str, Any]]
    ) -> dict[str, Any]:
        """Common part of the send* methods: validate, then allocate and store the message."""
        state = self._lookup_chat(params.get("chat_id"), sending=True)
        markup = self._inline_markup(params)
        reply = self._reply_to(state, params)
        content = build()
        msg = self._new_message(state, self.bot_user())
        if reply is not None:
            msg["reply_to_message"] = reply
        msg.update({key: value for key, value in content.items() if value is not None})
        if markup is not None:
            msg["reply_markup"] = markup
        state.messages[msg["message_id"]] = msg
        return copy.deepcopy(msg)

    def _edit_target(self, params: Mapping[str, Any]) -> tuple[_ChatState | None, dict]:
        if params.get("inline_message_id"):
            content = self.inline_messages.get(params["inline_message_id"])
            if content is None:
                raise ApiError(400, "Bad Request: MESSAGE_ID_INVALID")
            return None, content
        if "chat_id" not in params:
            raise ApiError(400, "Bad Request: chat_id is empty")
        if "message_id" not in params:
            raise ApiError(400, "Bad Request: message identifier is not specified")
        state = self._lookup_chat(params["chat_id"])
        msg = state.messages.get(params["message_id"])
        if msg is None:
            raise ApiError(400, "Bad Request: message to edit not found")
        if msg.get("from", {}).get("id") != self.bot_user()["id"]:
            raise ApiError(400, "Bad Request: message can't be edited")
        return state, msg

    @staticmethod
    def _apply_edit(
        state: _ChatState | None, msg: dict[str, Any], changes: Mapping[str, Any]
    ) -> dict[str, Any] | bool:
        if all(msg.get(key) == value for key, value in changes.items()):
            raise ApiError(400, NOT_MODIFIED)
        for key, value in changes.items():
            if value is None:
                msg.pop(key, None)
            else:
                msg[key] = copy.deepcopy(value)
        if state is None:
            return True
        msg["edit_date"] = int(time.time())
        return copy.deepcopy(msg)

    # ---------------------------------------------------------------- API methods

    def _answer_true(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        return True

    def _api_getMe(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> dict:
        return self.bot_user()

    async def _api_getUpdates(
        self, params: dict[str, Any], files: dict[str, UploadedFile]
    ) -> list[dict]:
        if self.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = params.get("offset")
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        timeout = float(params.get("timeout") or 0)
        if params.get("allowed_updates") is not None:
            self._allowed_updates = set(params["allowed_updates"]) or None
        if isinstance(offset, int):
            if offset < 0:
                self._pending = self._pending[offset:]
            else:
                self._pending = [u for u in self._pending if u["update_id"] >= offset]
        self._pending = [u for u in self._pending if self._allowed(u)]
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # a newer getUpdates terminates a waiting one
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(409, _DEFAULT_DESCRIPTIONS[409])
            ready = [u for u in self._pending if self._allowed(u)][:limit]
            remaining = deadline - loop.time()
            if ready or remaining <= 0 or self._closing:
                return copy.deepcopy(ready)
            await self._wait_change(remaining)

    def _allowed(self, update: Mapping[str, Any]) -> bool:
        if self._allowed_updates is None:
            return True
        return any(key in self._allowed_updates for key in update if key != "update_id")

    def _api_deleteWebhook(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        if params.get("drop_pending_updates"):
            self._pending.clear()
        self.webhook = None
        self._webhook_error = None
        self._notify()
        return True

    def _api_setWebhook(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        url = params.get("url") or ""
        if not url:
            return self._api_deleteWebhook(params, files)
        if not url.startswith(("http://", "https://")):
            raise ApiError(
                400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"
            )
        if params.get("drop_pending_updates"):
            self._pending.clear()
        if params.get("allowed_updates") is not None:
            self._allowed_updates = set(params["allowed_updates"]) or None
        self.webhook = {
            "url": url,
            "secret_token": params.get("secret_token"),
            "max_connections": params.get("max_connections", 40),
            "ip_address": params.get("ip_address"),
            "has_custom_certificate": "certificate" in params or "certificate" in files,
        }
        self._webhook_error = None
        if self._webhook_task is None or self._webhook_task.done():
            self._webhook_task = asyncio.get_running_loop().create_task(self._deliver_webhooks())
        self._notify()
        return True

    def _api_getWebhookInfo(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> dict:
        hook = self.webhook or {}
        info: dict[str, Any] = {
            "url": hook.get("url", ""),
            "has_custom_certificate": bool(hook.get("has_custom_certificate")),
            "pending_update_count": len(self._pending),
        }
        if hook:
            info["max_connections"] = hook["max_connections"]
            if hook.get("ip_address"):
                info["ip_address"] = hook["ip_address"]
            if self._allowed_updates is not None:
                info["allowed_updates"] = sorted(self._allowed_updates)
        if self._webhook_error is not None:
            info["last_error_date"], info["last_error_message"] = self._webhook_error
        return info

    async def _deliver_webhooks(self) -> None:
        async with aiohttp.ClientSession() as session:
            while self.webhook is not None and not self._closing:
                ready = [u for u in self._pending if self._allowed(u)]
                if not ready:
                    await self._wait_change(None)
                    continue
                update, hook = ready[0], self.webhook
                headers = {"Content-Type": "application/json"}
                if hook.get("secret_token"):
                    headers["X-Telegram-Bot-Api-Secret-Token"] = hook["secret_token"]
                try:
                    async with session.post(
                        hook["url"],
                        data=_dumps(update),
                        headers=headers,
                        timeout=aiohttp.ClientTimeout(total=10),
                    ) as response:
                        await response.read()
                        error = None
                        if not 200 <= response.status < 300:
                            error = f"Wrong response from the webhook: {response.status}"
                except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                    error = f"Connection failed: {exc!r}"
                if error is None:
                    if update in self._pending:
                        self._pending.remove(update)
                    self.webhook_deliveries.append(update)
                    self._notify()
                else:
                    self._webhook_error = (int(time.time()), error)
                    await self._wait_change(0.05)  # retry soon, as Telegram retries later

    def _api_setMyCommands(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise ApiError(400, "Bad Request: commands must be an array of at most 100 commands")
        for command in commands:
            name = command.get("command", "") if isinstance(command, dict) else ""
            if not re.fullmatch(r"[a-z0-9_]{1,32}", name):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(command.get("description", "")) <= 256:
                raise ApiError(400, "Bad Request: command description must be non-empty")
        key = _scope_key(params.get("scope"), params.get("language_code") or "")
        self.my_commands[key] = copy.deepcopy(commands)
        return True

    def _api_getMyCommands(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> list:
        return self.commands(
            scope=params.get("scope"), language_code=params.get("language_code") or ""
        )

    def _api_deleteMyCommands(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        self.my_commands.pop(
            _scope_key(params.get("scope"), params.get("language_code") or ""), None
        )
        return True

    def _api_sendMessage(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> dict:
        return self._send(params, lambda: self._text_fields(params))

    def _api_sendPhoto(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> dict:
        def build() -> dict[str, Any]:
            caption = self._caption_fields(params)
            stored, _ = self._input_file(params.get("photo"), files, "photo", "photo")
            content = {**self._media_content("photo", stored), **caption}
            if params.get("has_spoiler"):
                content["has_media_spoiler"] = True
            return content

        return self._send(params, build)

    def _api_sendDocument(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> dict:
        def build() -> dict[str, Any]:
            caption = self._caption_fields(params)
            stored, _ = self._input_file(params.get("document"), files, "document", "document")
            return {**self._media_content("document", stored), **caption}

        return self._send(params, build)

    def _api_editMessageText(
        self, params: dict[str, Any], files: dict[str, UploadedFile]
    ) -> dict | bool:
        state, msg = self._edit_target(params)
        changes = self._text_fields(params)
        changes["reply_markup"] = self._inline_markup(params)
        if "text" not in msg:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        return self._apply_edit(state, msg, changes)

    def _api_editMessageCaption(
        self, params: dict[str, Any], files: dict[str, UploadedFile]
    ) -> dict | bool:
        state, msg = self._edit_target(params)
        changes = self._caption_fields(params)
        changes["reply_markup"] = self._inline_markup(params)
        if not any(key in msg for key in _MEDIA_KEYS):
            raise ApiError(400, "Bad Request: there is no caption in the message to edit")
        return self._apply_edit(state, msg, changes)

    def _api_editMessageMedia(
        self, params: dict[str, Any], files: dict[str, UploadedFile]
    ) -> dict | bool:
        state, msg = self._edit_target(params)
        media = params.get("media")
        if not isinstance(media, dict) or media.get("type") not in _MEDIA_KEYS:
            raise ApiError(400, "Bad Request: can't parse InputMedia: media type is invalid")
        kind = media["type"]
        if state is None and (
            str(media.get("media", "")).startswith("attach://") or "media" not in media
        ):
            raise ApiError(400, "Bad Request: can't upload file for inline message")
        if state is not None and not any(key in msg for key in _MEDIA_KEYS):
            # (an inline text message may become media; a chat's text message may not)
            raise ApiError(400, "Bad Request: there is no media in the message to edit")
        if state is None:
            changes: dict[str, Any] = {"text": None, "entities": None}
        else:
            changes = {}
        stored, uploaded = self._input_file(media.get("media"), files, "media", kind)
        changes.update(dict.fromkeys(_MEDIA_KEYS))
        changes.update(self._caption_fields(media))
        changes["reply_markup"] = self._inline_markup(params)
        if state is None:
            changes[kind] = stored.file_id
        elif not uploaded and kind in msg and _file_ids(msg[kind]) & {stored.file_id}:
            changes[kind] = msg[kind]  # the same file again: not a change
        else:
            changes.update(self._media_content(kind, stored))
        return self._apply_edit(state, msg, changes)

    def _api_editMessageReplyMarkup(
        self, params: dict[str, Any], files: dict[str, UploadedFile]
    ) -> dict | bool:
        state, msg = self._edit_target(params)
        return self._apply_edit(state, msg, {"reply_markup": self._inline_markup(params)})

    def _api_answerCallbackQuery(
        self, params: dict[str, Any], files: dict[str, UploadedFile]
    ) -> bool:
        query_id = str(params.get("callback_query_id", ""))
        if self._open_callbacks.pop(query_id, None) is None:
            raise ApiError(400, QUERY_TOO_OLD)
        if len(str(params.get("text") or "")) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        self.callback_answers[query_id] = dict(params)
        return True

    def _api_answerInlineQuery(
        self, params: dict[str, Any], files: dict[str, UploadedFile]
    ) -> bool:
        query_id = str(params.get("inline_query_id", ""))
        query = self._open_inline.pop(query_id, None)
        if query is None:
            raise ApiError(400, QUERY_TOO_OLD)
        results = params.get("results")
        if not isinstance(results, list) or len(results) > 50:
            raise ApiError(400, "Bad Request: RESULTS_TOO_MUCH")
        ids = [result.get("id") for result in results]
        if len(set(ids)) != len(ids):
            raise ApiError(400, "Bad Request: RESULT_ID_DUPLICATE")
        for result in results:
            self._inline_markup(result)
        self.inline_answers[query_id] = dict(params)
        self._answered_inline[query_id] = query
        return True

    def _api_deleteMessage(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        state = self._lookup_chat(params.get("chat_id"))
        message_id = params.get("message_id")
        if state.messages.pop(message_id, None) is None:
            raise ApiError(400, "Bad Request: message to delete not found")
        self.deleted.append((state.chat.id, message_id))
        return True

    def _api_getChatMember(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> dict:
        state = self._lookup_chat(params.get("chat_id"))
        user_id = int(params.get("user_id"))
        user = self.users.get(user_id)
        if user is None:
            raise ApiError(400, "Bad Request: user not found")
        status = "administrator" if user_id in self.admins.get(state.chat.id, set()) else "member"
        member: dict[str, Any] = {"status": status, "user": user.to_dict()}
        if status == "administrator":
            member.update(
                {
                    "can_be_edited": False,
                    "is_anonymous": False,
                    "can_manage_chat": True,
                    "can_delete_messages": True,
                    "can_manage_video_chats": True,
                    "can_restrict_members": True,
                    "can_promote_members": False,
                    "can_change_info": True,
                    "can_invite_users": True,
                    "can_post_stories": False,
                    "can_edit_stories": False,
                    "can_delete_stories": False,
                }
            )
        return member

    def _api_deleteMessages(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        state = self._lookup_chat(params.get("chat_id"))
        for message_id in params.get("message_ids") or []:
            if state.messages.pop(message_id, None) is not None:
                self.deleted.append((state.chat.id, message_id))
        return True

    def _api_sendChatAction(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        self._lookup_chat(params.get("chat_id"), sending=True)
        if params.get("action") not in _CHAT_ACTIONS:
            raise ApiError(400, "Bad Request: wrong parameter action in request")
        return True

    def _api_getFile(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> dict:
        stored = self.files.get(str(params.get("file_id", "")))
        if stored is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        return stored.file_dict()

    # ---------------------------------------------------------------- lifecycle

    async def aclose(self) -> None:
        """Wake every waiting getUpdates (they answer at once) and stop webhook delivery."""
        self._closing = True
        self._notify()
        task, self._webhook_task = self._webhook_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class FakeRequest(BaseRequest):
    """A ``BaseRequest`` answering in-process from a :class:`FakeTelegram` (no sockets).

    Works with the default ``base_url`` (``https://api.telegram.org/bot``) or any other."""

    def __init__(self, fake: FakeTelegram | None = None, *, read_timeout: float | None = 5.0):
        self.fake = fake if fake is not None else FakeTelegram()
        self._read_timeout = read_timeout

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        params = decode_params(request_data.json_parameters) if request_data else {}
        files: dict[str, UploadedFile] = {}
        if request_data is not None:
            for name, (filename, content, content_type) in request_data.multipart_data.items():
                if isinstance(content, bytes):
                    data = content
                else:  # a file handle: read it, and rewind it for a retry of the request
                    start = content.tell() if content.seekable() else None
                    data = content.read()
                    if start is not None:
                        content.seek(start)
                files[name] = UploadedFile(filename, data, content_type)
        reply = await self.fake.handle_url(method, url, params, files)
        if reply.drop:
            raise ConnectionResetError("fake Bot API dropped the connection")
        return reply.status, reply.body


class FakeBotAPI(FakeTelegram):
    """The fake served over HTTP on 127.0.0.1 (a free port), for end-to-end tests.

    ``async with FakeBotAPI() as fake:`` (or ``await fake.start()`` / ``await fake.stop()``),
    then ``ApplicationBuilder().token(...).base_url(fake.base_url)
    .base_file_url(fake.base_file_url)``."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, **kwargs: Any):
        super().__init__(**kwargs)
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        if self._runner is None:
            raise RuntimeError("FakeBotAPI is not started")
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        return f"{self.url}/file/bot"

    async def start(self) -> FakeBotAPI:
        self._closing = False
        app = web.Application(client_max_size=60 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        self._runner = runner
        self.port = runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        await self.aclose()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def __aenter__(self) -> FakeBotAPI:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        params = decode_params(request.query)
        files: dict[str, UploadedFile] = {}
        if request.can_read_body:
            if request.content_type == "application/json":
                body = await request.json()
                if isinstance(body, dict):
                    params.update(body)
            else:
                form = await request.post()
                raw: dict[str, str] = {}
                for name, value in form.items():
                    if isinstance(value, web.FileField):
                        files[name] = UploadedFile(
                            value.filename, value.file.read(), value.content_type
                        )
                    else:
                        raw[name] = str(value)
                params.update(decode_params(raw))
        reply = await self.handle_url(request.method, request.path, params, files)
        if reply.drop and request.transport is not None:
            request.transport.abort()  # the client sees the connection closed, no answer
        return web.Response(status=reply.status, body=reply.body, content_type=reply.content_type)


# --------------------------------------------------------------------------------------------
# Small helpers


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def _bot_member(bot: dict[str, Any], status: str) -> dict[str, Any]:
    """The bot as a ChatMember of ``status`` (all rights withheld when restricted)."""
    member: dict[str, Any] = {"user": bot, "status": status}
    if status == "kicked":
        member["until_date"] = 0
    if status == "restricted":
        member.update(
            {
                "is_member": True,
                "until_date": 0,
                **dict.fromkeys(
                    (
                        "can_send_messages",
                        "can_send_audios",
                        "can_send_documents",
                        "can_send_photos",
                        "can_send_videos",
                        "can_send_video_notes",
                        "can_send_voice_notes",
                        "can_send_polls",
                        "can_send_other_messages",
                        "can_add_web_page_previews",
                        "can_change_info",
                        "can_invite_users",
                        "can_pin_messages",
                        "can_manage_topics",
                        "can_edit_tag",
                        "can_react_to_messages",
                    ),
                    False,
                ),
            }
        )
    return member


def _chat_id(chat: FakeChat | int) -> int:
    return chat.id if isinstance(chat, FakeChat) else int(chat)


def _scope_key(scope: Mapping[str, Any] | None, language_code: str) -> tuple[str, str]:
    return json.dumps(dict(scope or {"type": "default"}), sort_keys=True), language_code


def _quoted(msg: Mapping[str, Any]) -> dict[str, Any]:
    quoted = copy.deepcopy(dict(msg))
    quoted.pop("reply_to_message", None)
    return quoted


def _callback_datas(markup: Mapping[str, Any] | None) -> list[str]:
    if not markup:
        return []
    return [
        button["callback_data"]
        for row in markup.get("inline_keyboard", [])
        for button in row
        if "callback_data" in button
    ]


def _file_ids(media: Any) -> set[str]:
    items = media if isinstance(media, list) else [media]
    return {item["file_id"] for item in items if isinstance(item, dict) and "file_id" in item}
