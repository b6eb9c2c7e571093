"""Views to Telegram messages: sent, edited in place (newest board wins), or pointed to."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import Any

from telegram import InlineKeyboardMarkup, InputMediaPhoto, Message, Update
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError
from telegram.ext import ContextTypes

from bot.i18n import normalize_language, t, translate
from bot.service.runner import DeadlineRunner
from bot.service.service import GameService
from bot.service.views import BOARD_HERE, MessageRef, View
from bot.web.telegram import web_board_served, with_web_board

from .api import _BotContext, _unreachable, with_retries
from .convert import CAPTION_LIMIT, PLATFORM, _entities, _text, keyboard, message_ref
from .limiter import URGENT, SlidingWindowLimiter
from .outbox import Outbox

log = logging.getLogger(__name__)

EDITED_MEMORY = 10_000  # board messages whose newest edited version is remembered
#: Pictures whose Telegram file id is remembered (by their bytes' digest): a picture sent
#: again (the board shown again by /board, a repaired board, the same opening board) goes by
#: its file id instead of being uploaded again.
PHOTO_MEMORY = 4096
#: Telegram seconds a chat's new board would wait (its queue, Telegram's limits) from which
#: the answer to a press says that the board lags behind.
TELL_LAG_AFTER = 3.0
#: Telegram seconds a board waited before it was sent from which the chat cannot keep up:
#: its caption says so (and points to the web board where it is served).
SLOW_CHAT_AFTER = 10.0
BOARD_LAGS = t(
    "Done. The board in this chat is running behind Telegram's limits; it will catch up."
)
SLOW_CHAT = t("⏳ This chat is busy: its board lags behind.")
SLOW_CHAT_WEB = t(
    "⏳ This chat is busy: its board lags behind. 🎯 Open the board to play at full speed."
)


def asks_to_move(view: View) -> bool:
    """Whether a person waits for this view: a live board with buttons to press."""
    return view.game_id is not None and view.version is not None and bool(view.buttons)


class Delivery:
    """Sends a service's views to Telegram (the half of the adapter that writes)."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        # The newest game version each board message was edited to (a bounded memory):
        # an edit that was delayed (retried after a network error, held by the rate
        # limiter) never puts an older board back over a newer one.
        self._edited: OrderedDict[tuple[str, int], int] = OrderedDict()
        # Per board message while edits of it are under way (see _one_edit_at_a_time).
        self._edit_locks: dict[tuple[str, int], asyncio.Lock] = {}
        self._edit_waiters: dict[tuple[str, int], int] = {}
        self._wanted: dict[tuple[str, int], int] = {}
        #: Each chat's sends, in order, without holding up the update that made them.
        self.outbox = Outbox()
        #: The bot's rate limiter, when it is ours: it says how far behind a chat is.
        self.limiter: SlidingWindowLimiter | None = None
        # Chats whose last board waited SLOW_CHAT_AFTER or longer (see _slow_caption).
        self._slow: set[str] = set()
        # Telegram's file id of each picture already sent, by its digest (see PHOTO_MEMORY).
        self._photos: OrderedDict[bytes, str] = OrderedDict()

    def _photo(self, image: bytes) -> tuple[bytes, bytes | str]:
        """The picture's digest, and what to send: its file id if Telegram has it already,
        else its bytes (the digest is worked out once a picture: it costs 0.1 ms)."""
        digest = hashlib.sha1(image, usedforsecurity=False).digest()
        file_id = self._photos.get(digest)
        if file_id is None:
            return digest, image
        self._photos.move_to_end(digest)
        return digest, file_id

    def _stored(self, digest: bytes, message: object) -> None:
        """Remember the file id Telegram gave the picture of ``digest`` in ``message`` (a
        sent or edited message; an inline message's edit answers True and tells none)."""
        photo = getattr(message, "photo", None)
        if not photo:
            return
        self._photos[digest] = photo[-1].file_id
        self._photos.move_to_end(digest)
        if len(self._photos) > PHOTO_MEMORY:
            self._photos.popitem(last=False)

    async def _drawn(self, view: View) -> View:
        """``view`` with its picture drawn, if the service left it due (see on_press)."""
        if view.picture_due is None:
            return view
        return await self.service.drawn(view)

    def lag(self, chat_id: int | str) -> float:
        """About how many Telegram seconds a board handed over now would wait to be sent."""
        if self.limiter is None:
            return 0.0
        return self.limiter.backlog(chat_id, self.outbox.waiting(str(chat_id)))

    # -- views to messages -------------------------------------------------------------------

    def hand_over(
        self,
        views: list[View],
        context: ContextTypes.DEFAULT_TYPE | Any,
        *,
        chat_id: int | str,
        reply_to: Message | None = None,
        pressed: Message | None = None,
        update: object = None,
    ) -> None:
        """Deliver ``views`` as :meth:`send` does, after the chat's sends handed over before,
        without waiting for them (see outbox.py). A failure is logged and the user told.

        The board versions edited are announced at once: an edit still queued behind the
        chat's flood limit is skipped when a newer board of that message comes after it."""
        views = [view for view in views if not view.quiet]
        if not views:
            return
        claims = self._claim_edits(views, pressed)
        bot = context.bot
        urgent = any(asks_to_move(view) for view in views)
        posted = time.monotonic()

        async def job() -> None:
            # A person waits for these sends: they go before others at the bot's limit.
            token = URGENT.set(urgent)
            self._note_wait(chat_id, time.monotonic() - posted)
            try:
                await self.send(views, context, chat_id=chat_id, reply_to=reply_to, pressed=pressed)
            except Exception as exc:
                log.error("sending to chat %s failed", chat_id, exc_info=exc)
                await self.apologise(update, bot)
            finally:
                URGENT.reset(token)
                for key in claims:
                    self._unclaim(key)

        self.outbox.post(str(chat_id), job)

    def _note_wait(self, chat_id: int | str, waited: float) -> None:
        """Remember whether the chat's sends now wait so long that it cannot keep up."""
        scale = self.limiter.scale if self.limiter is not None else 1.0
        slow = max(waited * scale, self.lag(chat_id)) >= SLOW_CHAT_AFTER
        if slow:
            self._slow.add(str(chat_id))
        else:
            self._slow.discard(str(chat_id))

    def _slow_caption(self, view: View, chat_id: int | str) -> View:
        """A board for a chat that cannot keep up says so, and offers the web board."""
        if str(chat_id) not in self._slow or not asks_to_move(view) or view.keyboard_only:
            return view
        line = SLOW_CHAT_WEB if web_board_served() else SLOW_CHAT
        return replace(view, lines=[*view.lines, "", line])

    async def apologise(self, update: object, bot: Any) -> None:
        """Tell the user of a failed update that something went wrong (never a traceback)."""
        if not isinstance(update, Update):
            return
        lang = "en"
        if update.effective_user is not None:
            lang = normalize_language(update.effective_user.language_code) or "en"
        text = translate(
            t("Sorry, something went wrong. Your game is safe; please try again."), lang
        )
        with contextlib.suppress(TelegramError):
            if update.callback_query is not None:
                await update.callback_query.answer(text, show_alert=True)
            elif update.effective_chat is not None:
                await bot.send_message(update.effective_chat.id, text)

    async def send(
        self,
        views: list[View],
        context: ContextTypes.DEFAULT_TYPE | Any,
        *,
        chat_id: int | str,
        reply_to: Message | None = None,
        pressed: Message | None = None,
    ) -> None:
        """Deliver views in order to ``chat_id``.

        When the chat turns out to be unreachable (the bot removed or muted, the chat gone)
        its games are paused and the rest is dropped; when it became a supergroup, the games
        move there and the views follow them."""
        for view in views:
            if view.quiet:
                continue  # shown only where an answer is due anyway (a press's)
            try:
                await self._send_one(view, context, chat_id, reply_to, pressed)
            except ChatMigrated as exc:
                moved = await self.service.chat_moved(PLATFORM, str(chat_id), str(exc.new_chat_id))
                await self.send(moved, context, chat_id=exc.new_chat_id)
                return
            except (Forbidden, BadRequest) as exc:
                if isinstance(exc, BadRequest) and not _unreachable(exc):
                    raise
                log.info("chat %s is unreachable: %s", chat_id, exc)
                await self.service.chat_unreachable(PLATFORM, str(chat_id))
                return

    async def _send_one(
        self,
        view: View,
        context: ContextTypes.DEFAULT_TYPE | Any,
        chat_id: int | str,
        reply_to: Message | None,
        pressed: Message | None,
    ) -> None:
        bot = context.bot
        view = self._slow_caption(view, chat_id)
        markup = with_web_board(keyboard(view), view, chat_id, bot)
        if view.document is not None:
            name, data = view.document
            await with_retries(
                partial(
                    bot.send_document,
                    chat_id,
                    data,
                    filename=name,
                    caption=_text(view, CAPTION_LIMIT),
                )
            )
            return
        if view.point and view.message is not None and await self._point(bot, view, chat_id):
            return
        target = self._edit_target(view, pressed)
        if (
            view.edit
            and not view.point
            and target is not None
            and await self._edit(bot, view, target, markup)
        ):
            if view.game_id is not None and view.version is not None and not view.keyboard_only:
                moved = view.message is None or not target.same_message(view.message)
                await self.service.board_shown(
                    view.game_id, view.version, target if moved else None
                )
            return
        if view.edit_only:
            return  # an old message that is gone: nothing to post in its place
        if (view.caption_only or view.keyboard_only) and view.game_id is not None:
            # The board to change is gone: post it anew, picture and all.
            full = await self.service.full_board(view.game_id)
            if full is not None:
                await self._send_one(full, context, chat_id, reply_to, None)
            return
        view = await self._drawn(view)
        if view.image is not None:
            digest, photo = self._photo(view.image)
            sent = await with_retries(
                partial(
                    bot.send_photo,
                    chat_id,
                    photo,
                    filename=view.image_name,
                    caption=_text(view, CAPTION_LIMIT),
                    caption_entities=_entities(view, CAPTION_LIMIT),
                    reply_markup=markup,
                )
            )
            self._stored(digest, sent)
        else:
            reply_id = reply_to.message_id if reply_to is not None and view.notice else None
            sent = await with_retries(
                partial(
                    bot.send_message,
                    chat_id,
                    _text(view),
                    entities=_entities(view),
                    reply_markup=markup,
                    reply_to_message_id=reply_id,
                )
            )
        ref = message_ref(sent)
        if view.posted is not None:  # the service edits this message later (standings)
            await view.posted(ref)
        if view.game_id is not None and (markup is not None or view.image is not None):
            if view.version is not None:
                await self.service.board_shown(view.game_id, view.version, ref)
            else:
                await self.service.bind_message(view.game_id, ref)

    async def _point(self, bot: Any, view: View, chat_id: int | str) -> bool:
        """Point to the current board with a reply to it; False when it is gone."""
        assert view.message is not None
        try:
            await with_retries(
                partial(
                    bot.send_message,
                    chat_id,
                    translate(BOARD_HERE, view.lang),
                    reply_to_message_id=view.message.message_id,
                )
            )
        except BadRequest as exc:
            if _unreachable(exc):
                raise
            log.info("the board to point to is gone (%s): posting it anew", exc)
            return False
        return True

    @staticmethod
    def _edit_target(view: View, pressed: Message | None) -> MessageRef | None:
        if pressed is not None and view.game_id is not None:
            return message_ref(pressed)
        return view.message

    async def _edit(
        self, bot: Any, view: View, target: MessageRef, markup: InlineKeyboardMarkup | None
    ) -> bool:
        """Edit the board in place; False when it can't be edited (then a new one is sent)."""
        chat_id, message_id = target.chat_id, target.message_id
        if chat_id is None:
            return False
        # A board whose kind was not recorded (stored by older versions) is a picture.
        photo = target.photo is not False
        digest: bytes | None = None  # the new picture's digest, if one is sent
        edit: Callable[[], Awaitable[Any]]
        if view.keyboard_only:
            async with self._one_edit_at_a_time((chat_id, message_id), view.version) as wanted:
                if wanted:
                    await self._edit_keyboard(bot, chat_id, message_id, markup)
            return True
        if view.caption_only and photo:
            # The picture stays: only its caption and buttons change.
            edit = partial(
                bot.edit_message_caption,
                chat_id=chat_id,
                message_id=message_id,
                caption=_text(view, CAPTION_LIMIT),
                reply_markup=markup,
            )
        elif (view.image is not None or view.picture_due is not None) and photo:

            async def edit_media() -> Any:
                # Drawn only now that it is sent: a board that a newer one replaced while
                # it waited (see _one_edit_at_a_time) is never drawn.
                nonlocal digest
                drawn = await self._drawn(view)
                assert drawn.image is not None
                digest, picture = self._photo(drawn.image)
                media = InputMediaPhoto(
                    picture, caption=_text(drawn, CAPTION_LIMIT), filename=drawn.image_name
                )
                return await bot.edit_message_media(
                    media, chat_id=chat_id, message_id=message_id, reply_markup=markup
                )

            edit = edit_media

        elif view.image is None and view.picture_due is None:
            edit = partial(
                bot.edit_message_text,
                _text(view),
                chat_id=chat_id,
                message_id=message_id,
                reply_markup=markup,
            )
        else:
            return False
        key = (chat_id, message_id)

        async def unless_outdated() -> None:
            if view.version is not None and self._edited.get(key, -1) > view.version:
                return  # a newer board is on screen already
            edited = await edit()
            if digest is not None:
                self._stored(digest, edited)
            if view.version is not None:
                self._edited[key] = max(view.version, self._edited.pop(key, -1))
                if len(self._edited) > EDITED_MEMORY:
                    self._edited.popitem(last=False)

        try:
            async with self._one_edit_at_a_time(key, view.version) as wanted:
                if wanted:
                    await with_retries(unless_outdated)
        except BadRequest as exc:
            if "not modified" in str(exc).lower():
                return True
            log.info("could not edit message %s: %s", message_id, exc)
            return False
        return True

    @contextlib.asynccontextmanager
    async def _one_edit_at_a_time(
        self, key: tuple[str, int], version: int | None
    ) -> AsyncIterator[bool]:
        """Edits of one message are made one at a time, newest wins: while an edit waits for
        Telegram's per-group limit, the boards pressed meanwhile queue here, and only the
        newest of them is sent (yields False for one that a newer board makes useless).
        At human speed under the limit, this drops the in-between boards, not the game."""
        self._claim(key, version)
        lock = self._edit_locks.setdefault(key, asyncio.Lock())
        try:
            async with lock:
                yield version is None or self._wanted.get(key, -1) <= version
        finally:
            self._unclaim(key)

    def _claim(self, key: tuple[str, int], version: int | None) -> None:
        """An edit of message ``key`` to ``version`` is coming (under way, or queued)."""
        if version is not None:
            self._wanted[key] = max(version, self._wanted.get(key, -1))
        self._edit_waiters[key] = self._edit_waiters.get(key, 0) + 1

    def _unclaim(self, key: tuple[str, int]) -> None:
        """That edit is done (or was skipped); the last one forgets the message."""
        self._edit_waiters[key] -= 1
        if not self._edit_waiters[key]:
            del self._edit_waiters[key]
            self._edit_locks.pop(key, None)
            self._wanted.pop(key, None)

    def _claim_edits(self, views: list[View], pressed: Message | None) -> list[tuple[str, int]]:
        """Claim the board edits among ``views`` (as :meth:`_send_one` would make them)."""
        keys = []
        for view in views:
            if not view.edit or view.point or view.version is None:
                continue
            target = self._edit_target(view, pressed)
            if target is not None and target.chat_id is not None:
                key = (target.chat_id, target.message_id)
                self._claim(key, view.version)
                keys.append(key)
        return keys

    @staticmethod
    async def _edit_keyboard(
        bot: Any, chat_id: str, message_id: int, markup: InlineKeyboardMarkup | None
    ) -> bool:
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
        return True

    # -- background --------------------------------------------------------------------------

    def serve_deadlines(self, runner: DeadlineRunner, bot: Any) -> None:
        """Deliver the deadline runner's views of Telegram games through ``bot``."""

        async def deliver(view: View) -> None:
            assert view.chat is not None  # the runner hands over addressed views only
            await self.send([view], _BotContext(bot), chat_id=view.chat[1])

        runner.serve(PLATFORM, deliver, errors=(TelegramError,))
