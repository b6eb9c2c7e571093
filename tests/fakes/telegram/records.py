"""Records of the fake Telegram: users, chats, files, calls, answers and errors."""

from __future__ import annotations

import copy
import html
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_BOT_ID = 123456789
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"

DEFAULT_DESCRIPTIONS = {
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


def too_many_requests(retry_after: float, description: str | None = None) -> ApiError:
    """Telegram's 429 answer; ``retry_after`` is a whole number of seconds in Telegram (a
    fraction here only when a test shortens time)."""
    retry: float = int(retry_after) if float(retry_after).is_integer() else retry_after
    return ApiError(
        429,
        description or f"Too Many Requests: retry after {retry}",
        {"retry_after": retry},
    )


@dataclass
class Fault:
    """An error injected with ``fail_next``, used ``remaining`` more times."""

    status: int
    description: str | None
    retry_after: float | None
    drop: bool
    remaining: int


@dataclass
class ChatState:
    """A chat as the fake keeps it: its messages and the bot's standing there."""

    chat: FakeChat
    next_id: int = 1
    messages: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: The bot's membership: "member", "kicked" (removed) or "restricted" (may not post).
    bot_status: str = "member"
    #: Set once the group became a supergroup: the old id answers every call with an error.
    migrated_to: int | None = None


# --------------------------------------------------------------------------------------------
# Small helpers


def dumps(value: Any) -> bytes:
    """JSON as Telegram answers it (UTF-8, not ASCII-escaped)."""
    return json.dumps(value, ensure_ascii=False).encode()


def bot_member(bot: dict[str, Any], status: str) -> dict[str, Any]:
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


def chat_id_of(chat: FakeChat | int) -> int:
    """The id of a chat given as a :class:`FakeChat` or an id."""
    return chat.id if isinstance(chat, FakeChat) else int(chat)


def scope_key(scope: Mapping[str, Any] | None, language_code: str) -> tuple[str, str]:
    """The key of a command list: its scope (default: ``default``) and language."""
    return json.dumps(dict(scope or {"type": "default"}), sort_keys=True), language_code


def quoted(msg: Mapping[str, Any]) -> dict[str, Any]:
    """A message as a reply quotes it (without the message it replied to itself)."""
    copied = copy.deepcopy(dict(msg))
    copied.pop("reply_to_message", None)
    return copied


def callback_datas(markup: Mapping[str, Any] | None) -> list[str]:
    """The ``callback_data`` of every button of an inline keyboard."""
    if not markup:
        return []
    return [
        button["callback_data"]
        for row in markup.get("inline_keyboard", [])
        for button in row
        if "callback_data" in button
    ]


def file_ids_of(media: Any) -> set[str]:
    """The file ids in a message's media field (a PhotoSize list or one file)."""
    items = media if isinstance(media, list) else [media]
    return {item["file_id"] for item in items if isinstance(item, dict) and "file_id" in item}
