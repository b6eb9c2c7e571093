"""Views to Telegram messages: sent, edited in place (newest board wins), or pointed to."""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import replace
from functools import partial
from typing import Any

from telegram import InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError
from telegram.ext import ContextTypes

from bot.i18n import normalize_language, t, translate
from bot.service.runner import DeadlineRunner
from bot.service.service import GameService
from bot.service.views import BOARD_HERE, MessageRef, View
from bot.web import relay
from bot.web.telegram import web_board_served, with_web_board

from .api import _BotContext, _unreachable, with_retries
from .busy import BUSY_FOR, SLOW_CHAT_AFTER, BusyChats
from .convert import CAPTION_LIMIT, PLATFORM, _entities, _text, keyboard, message_ref
from .edits import BoardEdits, edit_target
from .limiter import BACKGROUND, URGENT, SlidingWindowLimiter
from .outbox import Outbox
from .photos import Photos

log = logging.getLogger(__name__)

#: Telegram seconds a chat's new board would wait (its queue, Telegram's limits) from which
#: the answer to a press says that the board lags behind.
TELL_LAG_AFTER = 3.0
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
        #: Each chat's sends, in order, without holding up the update that made them.
        self.outbox = Outbox()
        #: Pictures Telegram has already, sent again by their file id.
        self.photos = Photos()
        #: The board messages' edits, newest board wins.
        self.edits = BoardEdits(self.photos, self._drawn)
        #: Chats that cannot keep up with Telegram's limits (see busy.py).
        self.busy_chats = BusyChats()

    @property
    def limiter(self) -> SlidingWindowLimiter | None:
        """The bot's rate limiter, when it is ours: it says how far behind a chat is, and
        board edits wait for their turn there before they pick the board to send."""
        return self.edits.limiter

    @limiter.setter
    def limiter(self, limiter: SlidingWindowLimiter | None) -> None:
        self.edits.limiter = limiter

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
        followed_elsewhere: bool = False,
    ) -> None:
        """Deliver ``views`` as :meth:`send` does, after the chat's sends handed over before,
        without waiting for them (see outbox.py). A failure is logged and the user told.

        The board versions edited are announced at once: an edit still queued behind the
        chat's flood limit is skipped when a newer board of that message comes after it.
        ``followed_elsewhere``: the game's players follow it on its web page, nobody waits
        for these sends in the chat: they take the bot's slots left over (``BACKGROUND``).
        """
        views = [view for view in views if not view.quiet]
        if not views:
            return
        claims = self.edits.claim(views, pressed)
        bot = context.bot
        urgent = not followed_elsewhere and any(asks_to_move(view) for view in views)
        if not followed_elsewhere and self.limiter is not None:
            # A board of a game played on the web, waiting in this chat's turn, must not
            # hold up what a person here waits for.
            self.limiter.hurry(chat_id, urgent)
        posted = time.monotonic()

        async def job() -> None:
            # A person waits for these sends: they go before others at the bot's limit;
            # nobody waits for a game followed on its page: they go after the others.
            token = URGENT.set(urgent)
            behind = BACKGROUND.set(followed_elsewhere)
            if not followed_elsewhere:  # (such sends wait by design: the chat is not slow)
                self._note_wait(chat_id, time.monotonic() - posted)
            try:
                await self.send(views, context, chat_id=chat_id, reply_to=reply_to, pressed=pressed)
            except Exception as exc:
                log.error("sending to chat %s failed", chat_id, exc_info=exc)
                await self.apologise(update, bot)
            finally:
                BACKGROUND.reset(behind)
                URGENT.reset(token)
                for key in claims:
                    self.edits.unclaim(key)

        self.outbox.post(str(chat_id), job)

    def relayed(
        self, views: list[View], context: ContextTypes.DEFAULT_TYPE | Any, chat_id: int | str
    ) -> None:
        """Deliver the views of a turn played on the web board: they join the chat's queue
        like a press's, where a newer board of the same message replaces one still queued
        (the newest state wins); when the players follow the game on its page, they go
        after what people in the chats wait for (see hand_over)."""
        self.hand_over(views, context, chat_id=chat_id, followed_elsewhere=relay.ON_PAGE.get())

    def busy(self, chat_id: int | str) -> bool:
        """Whether the chat cannot keep up with Telegram's limits: its boards say so (see
        _slow_caption), and its turns are played with fewer messages (the service's
        ``busy``)."""
        return chat_id in self.busy_chats or self.lag(chat_id) >= SLOW_CHAT_AFTER

    def _note_wait(self, chat_id: int | str, waited: float) -> None:
        """Remember a chat whose sends now wait so long that it cannot keep up: busy until
        a while after its backlog clears."""
        scale = self.limiter.scale if self.limiter is not None else 1.0
        lag = self.lag(chat_id)
        if max(waited * scale, lag) >= SLOW_CHAT_AFTER:
            self.busy_chats.mark(str(chat_id), (lag + BUSY_FOR) / scale)

    def _slow_caption(self, view: View, chat_id: int | str) -> View:
        """A board for a chat that cannot keep up says so, and offers the web board."""
        if chat_id not in self.busy_chats or not asks_to_move(view) or view.keyboard_only:
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

        def dress(view: View) -> tuple[View, InlineKeyboardMarkup | None]:
            view = self._slow_caption(view, chat_id)
            return view, with_web_board(keyboard(view), view, chat_id, bot)

        handed, (view, markup) = view, dress(view)
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
        target = edit_target(handed, pressed)
        if view.edit and not view.point and target is not None:
            # The board as handed over: a newer one of its message may be sent in its turn.
            shown = await self.edits.edit(bot, handed, target, dress)
            if shown is not None:  # else the message can't be edited: posted anew below
                await self._confirm_edit(shown, target)
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
            digest, photo = self.photos.photo(view.image)
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
            self.photos.stored(digest, sent)
        else:
            reply_id = reply_to.message_id if reply_to is not None and view.notice else None
            if view.reply_to is not None:  # a reply the service asks for (a day's answer)
                reply_id = view.reply_to.message_id
            sent = await with_retries(
                partial(
                    bot.send_message,
                    chat_id,
                    _text(view),
                    entities=_entities(view),
                    reply_markup=markup,
                    reply_to_message_id=reply_id,
                    # The message replied to may be gone: the view is posted all the same.
                    allow_sending_without_reply=True if reply_id is not None else None,
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

    async def _confirm_edit(self, shown: View, target: MessageRef) -> None:
        """Tell the service that the board message ``target`` shows ``shown`` now."""
        if shown.game_id is None or shown.version is None or shown.keyboard_only:
            return
        moved = shown.message is None or not target.same_message(shown.message)
        await self.service.board_shown(
            shown.game_id, shown.version, target if moved else None, shown_in=target
        )

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

    # -- background --------------------------------------------------------------------------

    def serve_deadlines(self, runner: DeadlineRunner, bot: Any) -> None:
        """Deliver the deadline runner's views of Telegram games through ``bot``."""

        async def deliver(view: View) -> None:
            assert view.chat is not None  # the runner hands over addressed views only
            await self.send([view], _BotContext(bot), chat_id=view.chat[1])

        runner.serve(PLATFORM, deliver, errors=(TelegramError,))
