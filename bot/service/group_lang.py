"""A group's one language: what the bot posts in a group is in the group's language, whoever
acted last.

It is the language set with ``/lang`` in the group; until one is set, the language most of
the group's players use, kept with the chat (:attr:`Chat.group_lang`): at first the
language of the first person the bot hears there, then, when a contest starts, the one most
of the group's players speak (a tie keeps the language the group has). Private answers
(toasts, private messages) stay in each person's own language.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from bot.i18n import normalize_language
from bot.storage.base import OPEN_STATUSES, Chat, Storage, User

#: The players counted: the leaders of each game's board in the group, and everyone in a game
#: or challenge there now.
PLAYERS_COUNTED = 50
KINDS = ("tavla", "turkish", "uzun")


def user_lang(user: User) -> str | None:
    """The language a person uses with the bot: chosen with /lang, else their app's."""
    return user.lang or normalize_language(user.platform_lang)


def majority(langs: Iterable[str | None], current: str | None) -> str | None:
    """The language most often in ``langs``; ``current`` unless another is used by more."""
    counts = Counter(lang for lang in langs if lang)
    if not counts:
        return current
    best, count = counts.most_common(1)[0]
    if current is not None and counts[current] >= count:
        return current
    return best


async def first_speaker(storage: Storage, chat: Chat, user: User) -> Chat:
    """A group with no language yet takes the language of the first person heard there."""
    if chat.lang or chat.group_lang:
        return chat
    lang = user_lang(user)
    if lang is None:
        return chat
    return await _keep(storage, chat, lang)


async def settle(storage: Storage, chat: Chat, also: Iterable[int] = ()) -> Chat:
    """After a contest starts in a group (or someone joins its tournament, ``also`` its
    entrants): its language becomes the one most of its players use, unless set with /lang."""
    if chat.lang:
        return chat
    users: dict[int, User] = {}
    for kind in KINDS:
        for user, _ in await storage.top(chat.scope, kind, PLAYERS_COUNTED):
            users[user.id] = user
    seated = {
        seat
        for record in await storage.games_in_chat(chat.platform, chat.chat_id, OPEN_STATUSES)
        for seat in record.seats
        if seat is not None
    } | set(also)
    seated -= set(users)
    if seated:
        users.update(await storage.get_users(seated))
    chosen = majority((user_lang(u) for u in users.values() if not u.is_bot), chat.group_lang)
    if chosen is None or chosen == chat.group_lang:
        return chat
    return await _keep(storage, chat, chosen)


async def _keep(storage: Storage, chat: Chat, lang: str) -> Chat:
    await storage.set_chat_group_lang(chat.platform, chat.chat_id, lang)
    chat.group_lang = lang
    return chat
