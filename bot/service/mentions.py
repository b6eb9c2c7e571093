"""Mentions: a player named in a message so that the platform notifies them.

A :class:`Mention` is passed as an argument of a message (``t("{name}, your move",
name=Mention(...))``). Everywhere it reads as the player's name (it formats as the name),
so the console, logs and tests need nothing special; an adapter that can notify turns the
message into pieces with :func:`pieces` and writes each mention its platform's way
(Telegram: a ``text_mention`` entity; Discord: ``<@id>`` with allowed mentions limited to
those users).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.i18n import Text, translate_lines

# Private-use characters stand for a mention while the message is translated; they are taken
# out of names first, so a name can never forge one.
_OPEN, _CLOSE = "\ue000", "\ue001"
_TOKEN = re.compile(f"{_OPEN}(\\d+){_CLOSE}")


@dataclass(frozen=True)
class Mention:
    """A player to notify: their platform, their id there and the name to show."""

    platform: str
    user_id: str
    name: str

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec)


def mentions_in(lines: list[Text | str]) -> list[Mention]:
    """Every mention in ``lines``, in order, each once."""
    found: list[Mention] = []

    def walk(value: Any) -> None:
        if isinstance(value, Mention):
            if value not in found:
                found.append(value)
        elif isinstance(value, Text):
            for arg in value.args.values():
                walk(arg)

    for line in lines:
        walk(line)
    return found


def pieces(lines: list[Text | str], lang: str | None) -> list[str | Mention]:
    """``lines`` translated into ``lang`` (one per line, as ``translate_lines``), as plain
    text pieces and the mentions between them."""
    table: list[Mention] = []

    def hide(value: Any) -> Any:
        if isinstance(value, Mention):
            table.append(value)
            return f"{_OPEN}{len(table) - 1}{_CLOSE}"
        if isinstance(value, Text):
            return value.with_args({k: hide(v) for k, v in value.args.items()})
        if isinstance(value, str):
            return value.replace(_OPEN, "").replace(_CLOSE, "")
        return value

    text = translate_lines([hide(line) for line in lines], lang)
    out: list[str | Mention] = []
    at = 0
    for found in _TOKEN.finditer(text):
        if found.start() > at:
            out.append(text[at : found.start()])
        out.append(table[int(found[1])])
        at = found.end()
    if at < len(text):
        out.append(text[at:])
    return out


__all__ = ["Mention", "mentions_in", "pieces"]
