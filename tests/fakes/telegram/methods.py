"""Bot API methods on messages: send, edit, delete, answer queries, chat members, files."""

from __future__ import annotations

from typing import Any

from tests.fakes.telegram.records import QUERY_TOO_OLD, ApiError, UploadedFile, file_ids_of

_MEDIA_KEYS = ("photo", "document", "video", "animation", "audio")
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


class MessageMethods:
    """Bot API methods on messages and chats, part of :class:`FakeTelegram`."""

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
        elif not uploaded and kind in msg and file_ids_of(msg[kind]) & {stored.file_id}:
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
