"""Board edits: each board message goes to its newest board, the boards in between dropped.

Under Telegram's limits an edit waits: for its chat's twenty messages a minute, then for its
turn at the bot's thirty a second (bot/telegram/limiter.py). Boards of the same message handed
over meanwhile are not sent one after another:

* queued behind it in the chat's queue (bot/telegram/outbox.py), only the newest of them is
  sent (:meth:`BoardEdits._one_at_a_time`);
* once an edit's turn has come, it sends the newest whole board of its message handed over by
  then (which so keeps the older edit's place in the bot's queue); that board's own edit then
  finds it shown and sends nothing.

A delayed edit never puts an older board back over a newer one. A picture due is drawn only
for the board that is sent (``View.picture_due``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any

from telegram import InlineKeyboardMarkup, InputMediaPhoto, Message
from telegram.error import BadRequest

from bot.service.views import MessageRef, View

from .api import _unreachable, with_retries
from .convert import CAPTION_LIMIT, _text, message_ref
from .limiter import SlidingWindowLimiter
from .photos import Photos

log = logging.getLogger(__name__)

EDITED_MEMORY = 10_000  # board messages whose newest edited version is remembered

Key = tuple[str, int]  # (chat id, message id) of a board message
Markup = InlineKeyboardMarkup | None
#: A view as the chat gets it (its caption, say, telling that the chat is busy) with its
#: buttons.
Dress = Callable[[View], tuple[View, Markup]]


def edit_target(view: View, pressed: Message | None) -> MessageRef | None:
    """The message a board view edits: the one pressed on, else the game's board."""
    if pressed is not None and view.game_id is not None:
        return message_ref(pressed)
    return view.message


def _whole(view: View) -> bool:
    """A whole board (picture or text board, caption and buttons), not a part of one."""
    return not (view.caption_only or view.keyboard_only)


def _editable(view: View, photo: bool) -> bool:
    """Whether a message of this kind (a picture or text) can be edited to ``view``."""
    drawn = view.image is not None or view.picture_due is not None
    return (view.caption_only and photo) or (drawn and photo) or not drawn


class BoardEdits:
    """Edits of the board messages, newest board wins (see the module's docstring)."""

    def __init__(self, photos: Photos, draw: Callable[[View], Awaitable[View]]) -> None:
        self.photos = photos
        #: Draws a view's due picture (the service's :meth:`GameService.drawn`).
        self.draw = draw
        #: The bot's rate limiter, when it is ours: an edit waits for its turn there before
        #: it decides which board to send.
        self.limiter: SlidingWindowLimiter | None = None
        # The newest game version each board message was edited to (a bounded memory).
        self._edited: OrderedDict[Key, int] = OrderedDict()
        # Per board message while edits of it are coming (handed over, or under way).
        self._locks: dict[Key, asyncio.Lock] = {}
        self._waiters: dict[Key, int] = {}
        self._wanted: dict[Key, int] = {}
        self._newest: dict[Key, View] = {}  # the newest whole board handed over
        self._sent_early: dict[int, Key] = {}  # boards sent in an older edit's turn, by id

    def claim(self, views: list[View], pressed: Message | None) -> list[Key]:
        """Announce the board edits among ``views`` as they are handed over (an edit still
        queued is skipped, or sends this board instead, when a newer one comes)."""
        keys = []
        for view in views:
            if not view.edit or view.point or view.version is None:
                continue
            target = edit_target(view, pressed)
            if target is None or target.chat_id is None:
                continue
            key = (target.chat_id, target.message_id)
            self._claim(key, view.version)
            newest = self._newest.get(key)
            if _whole(view) and (newest is None or (newest.version or 0) < view.version):
                self._newest[key] = view
            keys.append(key)
        return keys

    def unclaim(self, key: Key) -> None:
        """An edit of ``key`` is done (or was skipped); the last one forgets the message."""
        self._waiters[key] -= 1
        if not self._waiters[key]:
            del self._waiters[key]
            self._locks.pop(key, None)
            self._wanted.pop(key, None)
            self._newest.pop(key, None)
            for early in [n for n, k in self._sent_early.items() if k == key]:
                del self._sent_early[early]

    def _claim(self, key: Key, version: int | None) -> None:
        if version is not None:
            self._wanted[key] = max(version, self._wanted.get(key, -1))
        self._waiters[key] = self._waiters.get(key, 0) + 1

    async def edit(self, bot: Any, view: View, target: MessageRef, dress: Dress) -> View | None:
        """Edit the board message ``target`` to ``view``. Returns the board now on screen
        (``view``, or a newer board of the message sent in its turn), or None when the
        message can't be edited (then a new one is sent)."""
        chat_id, message_id = target.chat_id, target.message_id
        if chat_id is None:
            return None
        key = (chat_id, message_id)
        if view.keyboard_only:
            async with self._one_at_a_time(key, view.version) as wanted:
                if wanted:
                    await self._edit_keyboard(bot, chat_id, message_id, dress(view)[1])
            return view
        # A board whose kind was not recorded (stored by older versions) is a picture.
        photo = target.photo is not False
        if not _editable(view, photo):
            return None
        if self._sent_early.pop(id(view), None) is not None:
            return view  # sent already, in the turn of an older edit of its message
        async with self._one_at_a_time(key, view.version) as wanted:
            if not wanted:
                return view
            view = await self.draw(view)  # before its turn: drawing holds no slot
            async with self._turn(chat_id):
                newer = self._newest.get(key)
                early = (
                    newer is not None
                    and (newer.version or 0) > (view.version or 0)
                    and _editable(newer, photo)
                )
                if early:
                    assert newer is not None
                    view = await self.draw(newer)
                try:
                    await with_retries(partial(self._edit_once, bot, key, *dress(view), photo))
                except BadRequest as exc:
                    if "not modified" not in str(exc).lower():
                        log.info("could not edit message %s: %s", message_id, exc)
                        return None
            if early:  # its own edit, queued behind this one, has nothing left to do
                self._sent_early[id(newer)] = key
        return view

    def _turn(self, chat_id: str) -> contextlib.AbstractAsyncContextManager[None]:
        """Wait for this chat's turn at the rate limiter, and keep it for the edit."""
        if self.limiter is None:
            return contextlib.nullcontext()
        return self.limiter.reserved(chat_id)

    async def _edit_once(self, bot: Any, key: Key, view: View, markup: Markup, photo: bool) -> None:
        """One Bot API call editing message ``key`` to ``view``, unless a newer board is on
        screen already (an edit delayed by a retry)."""
        if view.version is not None and self._edited.get(key, -1) > view.version:
            return
        chat_id, message_id = key
        if view.caption_only and photo:
            # The picture stays: only its caption and buttons change.
            await bot.edit_message_caption(
                chat_id=chat_id,
                message_id=message_id,
                caption=_text(view, CAPTION_LIMIT),
                reply_markup=markup,
            )
        elif view.image is not None and photo:
            digest, picture = self.photos.photo(view.image)
            media = InputMediaPhoto(
                picture, caption=_text(view, CAPTION_LIMIT), filename=view.image_name
            )
            edited = await bot.edit_message_media(
                media, chat_id=chat_id, message_id=message_id, reply_markup=markup
            )
            self.photos.stored(digest, edited)
        else:
            await bot.edit_message_text(
                _text(view), chat_id=chat_id, message_id=message_id, reply_markup=markup
            )
        if view.version is not None:
            self._edited[key] = max(view.version, self._edited.pop(key, -1))
            if len(self._edited) > EDITED_MEMORY:
                self._edited.popitem(last=False)

    @contextlib.asynccontextmanager
    async def _one_at_a_time(self, key: Key, version: int | None) -> AsyncIterator[bool]:
        """Edits of one message are made one at a time, newest wins: while an edit waits for
        Telegram's per-group limit, the boards pressed meanwhile queue here, and only the
        newest of them is sent (yields False for one that a newer board makes useless).
        At human speed under the limit, this drops the in-between boards, not the game."""
        self._claim(key, version)
        lock = self._locks.setdefault(key, asyncio.Lock())
        try:
            async with lock:
                yield version is None or self._wanted.get(key, -1) <= version
        finally:
            self.unclaim(key)

    @staticmethod
    async def _edit_keyboard(bot: Any, chat_id: str, message_id: int, markup: Markup) -> None:
        """Change the board's buttons alone (a picked checker): no picture is uploaded. A
        failure is not worth a new message: the board still shows the game's state."""
        try:
            await with_retries(
                partial(
                    bot.edit_message_reply_markup,
                    chat_id=chat_id,
                    message_id=message_id,
                    reply_markup=markup,
                )
            )
        except BadRequest as exc:
            if _unreachable(exc):
                raise
            log.info("could not change the buttons of message %s: %s", message_id, exc)
