"""What a test does as a Telegram user: write, press, query inline, and change chats."""

from __future__ import annotations

import copy
import time
from typing import Any

from tests.fakes.telegram.records import (
    FakeChat,
    FakeUser,
    bot_member,
    callback_datas,
    chat_id_of,
    quoted,
)
from tests.fakes.telegram.text import user_text_entities


class UserActions:
    """Helpers a test uses to act as users, part of :class:`FakeTelegram`."""

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
                "old_chat_member": bot_member(self.bot_user(), old),
                "new_chat_member": bot_member(self.bot_user(), status),
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
            msg["reply_to_message"] = quoted(state.messages[reply_to])
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
        state = self._chats.get(chat_id_of(chat))
        if state is None or message_id not in state.messages:
            raise LookupError(f"no message {message_id} in chat {chat_id_of(chat)} to press on")
        msg = state.messages[message_id]
        if (self.check_buttons if check_button is None else check_button) and (
            callback_data not in callback_datas(msg.get("reply_markup"))
        ):
            raise LookupError(
                f"message {message_id} has no button {callback_data!r}; "
                f"it has {callback_datas(msg.get('reply_markup'))}"
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
        if self.check_buttons and callback_data not in callback_datas(content.get("reply_markup")):
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
