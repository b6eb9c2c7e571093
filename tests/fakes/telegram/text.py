"""Decoding what PTB sends: form parameters, and HTML parse mode into Telegram's entities."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from html.parser import HTMLParser
from typing import Any

from tests.fakes.telegram.records import ApiError, FakeUser

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
# Entities given explicitly (``entities`` / ``caption_entities``): checked as Telegram does.

_ENTITY_TYPES = frozenset(
    {
        "mention",
        "hashtag",
        "cashtag",
        "bot_command",
        "url",
        "email",
        "phone_number",
        "bold",
        "italic",
        "underline",
        "strikethrough",
        "spoiler",
        "blockquote",
        "expandable_blockquote",
        "code",
        "pre",
        "text_link",
        "text_mention",
        "custom_emoji",
    }
)


def check_entities(text: str, entities: Any) -> list[dict[str, Any]]:
    """Explicit entities of ``text``, refused like Telegram refuses bad ones: an unknown
    type, a range outside the text or splitting a character, a ``text_mention`` without a
    user (or with a user that is not a plain object with an integer id), a ``text_link``
    without a URL."""

    def fail(message: str) -> ApiError:
        return ApiError(400, f"Bad Request: can't parse entities: {message}")

    if not isinstance(entities, list):
        raise fail("entities must be an array")
    encoded = text.encode("utf-16-le")
    size = len(encoded) // 2
    checked = []
    for number, entity in enumerate(entities):
        if not isinstance(entity, dict):
            raise fail(f"entity {number} is not an object")
        kind, offset, length = entity.get("type"), entity.get("offset"), entity.get("length")
        if kind not in _ENTITY_TYPES:
            raise fail(f"unsupported entity type {kind!r}")
        if not isinstance(offset, int) or not isinstance(length, int):
            raise fail(f"entity {number} needs integer offset and length")
        if offset < 0 or length <= 0 or offset + length > size:
            raise fail(f"entity {number} is outside the text")
        for edge in (offset, offset + length):
            if (
                edge < size
                and 0xDC00 <= int.from_bytes(encoded[2 * edge : 2 * edge + 2], "little") <= 0xDFFF
            ):
                raise fail(f"entity {number} splits a character")
        if kind == "text_mention":
            user = entity.get("user")
            if not isinstance(user, dict) or not isinstance(user.get("id"), int):
                raise fail("text_mention needs a user with an id")
            if not user.get("first_name") or not isinstance(user.get("is_bot"), bool):
                raise fail("text_mention's user needs first_name and is_bot")
        if kind == "text_link" and not entity.get("url"):
            raise fail("text_link needs a url")
        checked.append(entity)
    return sorted(checked, key=lambda e: (e["offset"], -e["length"]))
