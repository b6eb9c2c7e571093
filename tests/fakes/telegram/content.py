"""Building a message's content: files and photo sizes, text and captions, keyboards."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping
from typing import Any

from tests.fakes.telegram.images import image_size
from tests.fakes.telegram.records import (
    NOT_MODIFIED,
    ApiError,
    ChatState,
    StoredFile,
    UploadedFile,
    quoted,
)
from tests.fakes.telegram.text import check_entities, parse_html, utf16_len

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


class ContentHelpers:
    """Validating and building message content, part of :class:`FakeTelegram`."""

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
            plain, found = text, check_entities(text, entities)
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

    def _reply_to(self, state: ChatState, params: Mapping[str, Any]) -> dict[str, Any] | None:
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
        return quoted(msg)

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

    def _edit_target(self, params: Mapping[str, Any]) -> tuple[ChatState | None, dict]:
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
        state: ChatState | None, msg: dict[str, Any], changes: Mapping[str, Any]
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
