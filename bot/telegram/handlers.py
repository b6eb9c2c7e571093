"""The update handlers: commands, typed moves, presses, chat changes, inline queries,
errors; each hands the update to the service and its views to :class:`Delivery`."""

from __future__ import annotations

import logging
from dataclasses import replace
from functools import partial

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
    MessageEntity,
    Update,
)
from telegram.ext import ContextTypes

from bot.i18n import normalize_language, t, translate
from bot.service.chat_settings import is_chat_setting
from bot.service.commands import find_command
from bot.service.views import MessageRef

from .api import answer_press
from .convert import PLATFORM, _text, actor_id, actor_of, place_of, reference
from .delivery import BOARD_LAGS, TELL_LAG_AFTER, Delivery

log = logging.getLogger(__name__)


class TelegramAdapter(Delivery):
    """Sends a service's views to Telegram; one per application."""

    # -- handlers --------------------------------------------------------------------------

    async def on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None or message.text is None or update.effective_user is None:
            return
        head, _, args = message.text.partition(" ")
        name = head[1:].split("@", 1)[0]
        mentions = [
            actor_of(entity.user)
            for entity in message.entities
            if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None
        ]
        replied = self._replied(message)
        game_id = await self._replied_game(replied)
        actor = actor_of(update.effective_user)
        spec = find_command(name)
        if spec is not None and spec.asks_admin and message.chat.type != "private":
            # Ask Telegram only when it matters: one call per admin command.
            member = await context.bot.get_chat_member(message.chat_id, actor_id(update))
            actor = replace(actor, admin=member.status in ("administrator", "creator"))
        views = await self.service.command(
            actor,
            place_of(message.chat),
            name,
            args.strip(),
            mentions=mentions,
            reply_to_game=game_id,
            replied_to=replied,
        )
        self.hand_over(views, context, chat_id=message.chat_id, reply_to=message, update=update)

    async def on_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None or message.text is None or update.effective_user is None:
            return
        replied = self._replied(message)
        views = await self.service.text(
            actor_of(update.effective_user),
            place_of(message.chat),
            message.text,
            reply_to_game=await self._replied_game(replied),
            replied_to=replied,
        )
        self.hand_over(views, context, chat_id=message.chat_id, reply_to=message, update=update)

    async def on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None or query.message is None:
            if query is not None:
                await query.answer()
            return
        chat = query.message.chat
        actor = actor_of(query.from_user)
        data = query.data or ""
        if chat.type != "private" and (
            self.service.tournaments.manages(data) or is_chat_setting(data)
        ):
            # A tournament's Start (the organiser's, or a chat admin's) or a chat's settings
            # (its admins'): Telegram says who administers the chat.
            member = await context.bot.get_chat_member(chat.id, query.from_user.id)
            actor = replace(actor, admin=member.status in ("administrator", "creator"))
        # The pictures are drawn when the board is sent, after the press is answered (an
        # answer is not limited by Telegram; a picture may wait for the drawing thread).
        views = await self.service.press(
            actor,
            place_of(chat),
            query.data or "",
            message=reference(chat.id, query.message.message_id),
            draw=False,
            busy=self.busy(chat.id),
        )
        notices = [v for v in views if v.notice]
        rest = [v for v in views if not v.notice]
        if notices:
            notice = notices[0]
            answer = answer_press(
                partial(query.answer, _text(notice, 200), show_alert=notice.alert)
            )
        elif rest and self.lag(chat.id) >= TELL_LAG_AFTER:
            # The new board will wait for Telegram's limits: the answer says the press
            # was taken, so the player does not press again on the old board.
            answer = answer_press(partial(query.answer, translate(BOARD_LAGS, rest[0].lang)))
        else:
            answer = answer_press(query.answer)
        # The new board goes to the chat's queue (it may wait for the chat's flood limit)
        # while the press is answered (which stops the button's spinner; answers are not
        # limited): the board arrives one Bot API round trip sooner than after the answer.
        # A message too old for the bot to see (InaccessibleMessage) can't be edited as such.
        pressed = query.message if isinstance(query.message, Message) else None
        self.hand_over(rest, context, chat_id=chat.id, pressed=pressed, update=update)
        await answer

    async def on_migrate(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group became a supergroup: its games, language and leaderboard move along, and
        the boards are posted in the new chat (messages of the old one can't be edited)."""
        message = update.effective_message
        if message is None:
            return
        if message.migrate_to_chat_id:
            old, new = message.chat_id, message.migrate_to_chat_id
        elif message.migrate_from_chat_id:
            old, new = message.migrate_from_chat_id, message.chat_id
        else:
            return
        views = await self.service.chat_moved(PLATFORM, str(old), str(new))
        self.hand_over(views, context, chat_id=new, update=update)

    async def on_my_member(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The bot was removed from a chat or muted there (its games wait), or may post
        there again (its games resume and their boards are shown)."""
        change = update.my_chat_member
        if change is None:
            return
        member = change.new_chat_member
        can_post = member.status in ("member", "administrator", "creator") or (
            member.status == "restricted" and getattr(member, "can_send_messages", False)
        )
        if not can_post:
            await self.service.chat_unreachable(PLATFORM, str(change.chat.id))
            return
        views = await self.service.chat_reachable(place_of(change.chat))
        self.hand_over(views, context, chat_id=change.chat.id, update=update)

    async def on_inline(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.inline_query
        if query is None:
            return
        lang = normalize_language(query.from_user.language_code) or "en"
        username = context.bot.username
        results = []
        for key, title in (("tavla", t("Tavla")), ("uzun", t("Uzun Tavla"))):
            text = translate(t("Let's play {game}! Tap below to start.", game=title), lang)
            buttons = InlineKeyboardMarkup(
                [
                    [
                        InlineKeyboardButton(
                            translate(t("Play with me"), lang),
                            url=f"https://t.me/{username}?start={key}",
                        ),
                        InlineKeyboardButton(
                            translate(t("Play in a group"), lang),
                            url=f"https://t.me/{username}?startgroup={key}",
                        ),
                    ]
                ]
            )
            results.append(
                InlineQueryResultArticle(
                    id=key,
                    title=translate(t("Challenge to {game}", game=title), lang),
                    input_message_content=InputTextMessageContent(text),
                    reply_markup=buttons,
                )
            )
        await query.answer(results, cache_time=300)

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Log every failure with its exception; tell the user, never show a traceback."""
        log.error("update failed", exc_info=context.error)
        if not isinstance(update, Update):
            return
        if update.callback_query is None and update.effective_chat is not None:
            # A message in the chat waits for its flood limit: in the chat's queue.
            chat = str(update.effective_chat.id)
            self.outbox.post(chat, partial(self.apologise, update, context.bot))
        else:
            await self.apologise(update, context.bot)

    @staticmethod
    def _replied(message: Message) -> MessageRef | None:
        """The bot's message that ``message`` replies to (None: no reply, or to a person)."""
        replied = message.reply_to_message
        if replied is None or replied.from_user is None or not replied.from_user.is_bot:
            return None
        return reference(replied.chat_id, replied.message_id)

    async def _replied_game(self, replied: MessageRef | None) -> int | None:
        """The game whose board is the message replied to."""
        if replied is None:
            return None
        return await self.service.game_of_message(PLATFORM, replied)
