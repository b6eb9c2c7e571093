"""What a test reads from the fake and waits for: calls, messages, files, commands."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tests.fakes.telegram.records import Call, FakeChat, chat_id_of, scope_key

Predicate = Callable[[], Any]


class Observations:
    """Reading the fake's record and waiting on it, part of :class:`FakeTelegram`."""

    # ---------------------------------------------------------------- waiting

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
        return self._answered_for_chat.get(str(chat_id_of(chat)), 0)

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
        return [copy.deepcopy(msg) for msg in self._stored_messages(chat, from_bot)]

    def newest_message(
        self,
        chat: FakeChat | int,
        where: Callable[[dict], Any],
        *,
        from_bot: bool | None = True,
    ) -> dict | None:
        """A copy of the chat's newest message (deleted ones left out) that ``where``
        accepts, or None. Only the message found is copied, so a load generator can look
        for its board on every press; ``where`` sees the stored message and must not
        change it."""
        for msg in reversed(self._stored_messages(chat, from_bot)):
            if where(msg):
                return copy.deepcopy(msg)
        return None

    def _stored_messages(self, chat: FakeChat | int, from_bot: bool | None) -> list[dict]:
        """The chat's stored messages themselves (not copies), oldest first, filtered as
        :meth:`messages` says."""
        state = self._chats.get(chat_id_of(chat))
        if state is None:
            return []
        bot_id = self.bot_user()["id"]
        return [
            msg
            for msg in state.messages.values()
            if from_bot is None or (msg.get("from", {}).get("id") == bot_id) == from_bot
        ]

    def last_message(self, chat: FakeChat | int, *, from_bot: bool | None = True) -> dict:
        found = self.messages(chat, from_bot=from_bot)
        if not found:
            raise LookupError(f"no message in chat {chat_id_of(chat)}; calls: {self.summary()}")
        return found[-1]

    def message(self, chat: FakeChat | int, message_id: int) -> dict:
        state = self._chats.get(chat_id_of(chat))
        if state is None or message_id not in state.messages:
            raise LookupError(f"no message {message_id} in chat {chat_id_of(chat)}")
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
        return copy.deepcopy(self.my_commands.get(scope_key(scope, language_code), []))

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates queued and not yet confirmed by the bot."""
        return copy.deepcopy(self._pending)
