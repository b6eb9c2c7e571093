"""The fake's state: the call record, chats, faults, waiting, and the entry point of both transports."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import re
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from tests.fakes.telegram.flood import FLOOD_METHODS, TELEGRAM_LIMITS, FloodGate, FloodLimits
from tests.fakes.telegram.records import (
    DEFAULT_BOT_ID,
    DEFAULT_DESCRIPTIONS,
    ApiError,
    Call,
    ChatState,
    FakeChat,
    FakeUser,
    Fault,
    Reply,
    StoredFile,
    UploadedFile,
    dumps,
    too_many_requests,
)

_API_PATH = re.compile(r"/bot(?P<token>[^/]+)/(?P<method>[A-Za-z]+)/?$")
_FILE_PATH = re.compile(r"/file/bot(?P<token>[^/]+)/(?P<path>.+)$")
_TRUE_METHODS = (
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


class TelegramState:
    """The fake's state and its entry point: every call is recorded, checked against the
    injected faults and handed to its ``_api_<method>`` handler (see :class:`FakeTelegram`)."""

    def __init__(
        self,
        *,
        bot_username: str = "tavla_test_bot",
        bot_first_name: str = "Tavla",
        bot_id: int | None = None,
        tokens: Iterable[str] | None = None,
        check_buttons: bool = True,
        flood: FloodLimits | None = TELEGRAM_LIMITS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.bot_username = bot_username
        self.bot_first_name = bot_first_name
        self.bot_id = bot_id
        self.valid_tokens = set(tokens) if tokens is not None else None
        self.check_buttons = check_buttons
        #: Telegram's flood limits, enforced on sends and edits (None: not enforced).
        self.flood = FloodGate(flood, clock) if flood is not None else None

        self.calls: list[Call] = []
        self.callback_answers: dict[str, dict[str, Any]] = {}
        self.inline_answers: dict[str, dict[str, Any]] = {}
        self.my_commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        #: The bot's profile texts: ("description" | "short_description", language) -> text.
        self.profile_texts: dict[tuple[str, str], str] = {}
        self.files: dict[str, StoredFile] = {}
        self.inline_messages: dict[str, dict[str, Any]] = {}
        self.deleted: list[tuple[int, int]] = []
        self.users: dict[int, FakeUser] = {}
        #: Administrators of each chat (chat id -> user ids), for getChatMember.
        self.admins: dict[int, set[int]] = {}
        self.blocked: set[int] = set()
        self.webhook: dict[str, Any] | None = None
        self.webhook_deliveries: list[dict[str, Any]] = []

        self._chats: dict[int, ChatState] = {}
        self._pending: list[dict[str, Any]] = []
        self._update_ids = itertools.count(100_000_001)
        self._file_ids = itertools.count(1)
        self._query_ids = itertools.count(4_242_000_000_000_000_001)
        self._inline_ids = itertools.count(1)
        self._faults: dict[str, list[Fault]] = {}
        self._held: dict[str, asyncio.Event] = {}
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
        held = self._held.get(canonical)
        if held is not None:
            await held.wait()
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
            flooding = self.flood is not None and canonical in FLOOD_METHODS
            if flooding:
                chat = self._flood_chat(call.params)
                self.flood.check(chat)
            result = handler(call.params, files)
            if inspect.isawaitable(result):
                result = await result
            if flooding:
                self.flood.record(chat)
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
            return Reply(200, dumps({"ok": True, "result": result}))
        finally:
            self._notify()

    def _flood_chat(self, params: Mapping[str, Any]) -> FakeChat | None:
        """The chat a send or edit counts against (None: an inline message, or a chat the
        method's handler will refuse anyway)."""
        chat_id = params.get("chat_id")
        if isinstance(chat_id, str) and chat_id.startswith("@"):
            return next(
                (s.chat for s in self._chats.values() if s.chat.username == chat_id[1:]), None
            )
        state = self._chats.get(chat_id) if isinstance(chat_id, int) else None
        return state.chat if state is not None else None

    @staticmethod
    def _error_reply(exc: ApiError) -> Reply:
        return Reply(exc.code, dumps(exc.payload()))

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
            Fault(
                status=status,
                description=description,
                retry_after=retry_after if status == 429 else None,
                drop=drop,
                remaining=times,
            )
        )

    def hold(self, *methods: str) -> None:
        """Keep calls of ``methods`` waiting, unanswered, until :meth:`release` (a Telegram
        slow to answer): they are recorded as made, and answered in order once released."""
        for method in methods:
            canonical = self._handlers.get(method.lower(), (method, None))[0]
            self._held.setdefault(canonical, asyncio.Event())

    def release(self, *methods: str) -> None:
        """Answer the calls held by :meth:`hold` (all held methods when none is named)."""
        names = [self._handlers.get(m.lower(), (m, None))[0] for m in methods] or list(self._held)
        for name in names:
            event = self._held.pop(name, None)
            if event is not None:
                event.set()

    def _take_fault(self, method: str) -> Fault | None:
        queue = self._faults.get(method)
        if not queue:
            return None
        fault = queue[0]
        fault.remaining -= 1
        if fault.remaining <= 0:
            queue.pop(0)
        return fault

    @staticmethod
    def _fault_error(fault: Fault) -> ApiError:
        if fault.status == 429:
            return too_many_requests(fault.retry_after or 1, fault.description)
        description = fault.description or DEFAULT_DESCRIPTIONS.get(
            fault.status, f"Error {fault.status}"
        )
        return ApiError(fault.status, description)

    # ---------------------------------------------------------------- waking waiters

    def _notify(self) -> None:
        """Wake every waiter: something in the fake changed."""
        for event in list(self._waiters):
            event.set()

    async def _wait_change(self, timeout: float | None) -> None:
        """Wait until something in the fake changes (or ``timeout`` seconds pass)."""
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

    # ---------------------------------------------------------------- internals: chats, files

    def _chat_state(self, chat: FakeChat) -> ChatState:
        state = self._chats.get(chat.id)
        if state is None:
            state = self._chats[chat.id] = ChatState(chat=chat)
        return state

    def _lookup_chat(self, chat_id: Any, *, sending: bool = False) -> ChatState:
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

    def _new_message(self, state: ChatState, sender: dict[str, Any]) -> dict[str, Any]:
        message_id = state.next_id
        state.next_id += 1
        return {
            "message_id": message_id,
            "from": sender,
            "chat": state.chat.to_dict(),
            "date": int(time.time()),
        }

    # ---------------------------------------------------------------- lifecycle

    async def aclose(self) -> None:
        """Wake every waiting getUpdates (they answer at once) and stop webhook delivery."""
        self._closing = True
        self.release()
        self._notify()
        task, self._webhook_task = self._webhook_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
