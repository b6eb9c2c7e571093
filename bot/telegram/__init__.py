"""The Telegram adapter (python-telegram-bot v22): updates in, service views out.

Small async handlers in the style of python-telegram-bot's examples: every button press is
answered, one error handler logs with the exception and apologises to the user. No game state
lives here (no ``user_data``, no conversation state): each update goes to the game service,
which loads the game from the database, and each view it returns becomes a message, an edit of
the board, or the answer to a button press.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import Any, TypeVar

from telegram import (
    BotCommand,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputMediaPhoto,
    InputTextMessageContent,
    Message,
    MessageEntity,
    Update,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.ext import (
    Application,
    ApplicationBuilder,
    BaseRateLimiter,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

from bot.config import Config
from bot.i18n import LANGUAGES, Text, normalize_language, t, translate, translate_lines
from bot.logs import quiet_http_clients
from bot.service.chat_settings import is_chat_setting
from bot.service.runner import ROUND_SECONDS, DeadlineRunner
from bot.service.service import GameService
from bot.service.views import BOARD_HERE, Actor, Place, View
from bot.telegram.limiter import limiter_for
from bot.telegram.transport import AiohttpRequest
from bot.web.telegram import enable_web_board, with_web_board

log = logging.getLogger(__name__)

PLATFORM = "telegram"
NETWORK_ATTEMPTS = 3
NETWORK_BACKOFF = 0.5  # seconds, times the attempt number
T = TypeVar("T")
CAPTION_LIMIT = 1024
TICK_SECONDS = ROUND_SECONDS
EDITED_MEMORY = 10_000  # board messages whose newest edited version is remembered
#: Refusals that mean the bot cannot post in the chat at all (any other BadRequest is about
#: one message). Telegram words them like this; Forbidden is always such a refusal.
_UNREACHABLE = (
    "chat not found",
    "not enough rights",
    "have no rights",
    "chat_write_forbidden",
    "bot is not a member",
    "bot was kicked",
    "group chat was deactivated",
)

COMMANDS: dict[str, Text] = {
    "tavla": t("Challenge to tavla (backgammon)"),
    "uzun": t("Challenge to Uzun Tavla (long nardy)"),
    "nardy": t("Challenge to long nardy"),
    "bot": t("Play the computer"),
    "move": t("Type a move, e.g. /move 13/8 6/5"),
    "board": t("Show your game's board again"),
    "resign": t("Resign the game"),
    "abort": t("Call the game off by agreement"),
    "claim": t("Claim a game your opponent let run out of time"),
    "top": t("This chat's leaderboard"),
    "tournament": t("A tournament in this group"),
    "stats": t("Your statistics and rating"),
    "export": t("The game for GNU Backgammon"),
    "analyse": t("Analyse your last finished game"),
    "dice": t("Check the fairness of the dice"),
    "lang": t("Language: tr, en, ru"),
    "settings": t("Your own settings (in private)"),
    "rules": t("The rules"),
    "help": t("All commands"),
}


ADMIN_COMMANDS = ("resettop",)
#: Commands where a chat admin may do what only the organiser could (a tournament's start,
#: cancel and award), or more (a group's /settings): the adapter asks Telegram whether the
#: sender is an admin.
ADMIN_AWARE_COMMANDS = ("tournament", "settings")


def actor_id(update: Update) -> int:
    assert update.effective_user is not None
    return update.effective_user.id


def actor_of(user: Any) -> Actor:
    """The service's actor for a Telegram user."""
    return Actor(
        PLATFORM,
        str(user.id),
        user.full_name or user.username or str(user.id),
        user.username,
        user.language_code,
    )


def place_of(chat: Any) -> Place:
    """The service's place for a Telegram chat."""
    return Place(PLATFORM, str(chat.id), private=chat.type == "private", title=chat.title)


def keyboard(view: View) -> InlineKeyboardMarkup | None:
    """The view's buttons as an inline keyboard."""
    if not view.buttons:
        return None
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(translate(b.label, view.lang), callback_data=b.action)
                for b in row
            ]
            for row in view.buttons
        ]
    )


def _text(view: View, limit: int = 4096) -> str:
    text = translate_lines(view.lines, view.lang)
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def with_retries(call: Callable[[], Awaitable[T]], attempts: int = NETWORK_ATTEMPTS) -> T:
    """Run a Bot API call, again after a network failure (a 429 is the rate limiter's job).

    A Telegram refusal (BadRequest, Forbidden) is final and raised at once.
    """
    for attempt in range(1, attempts + 1):
        try:
            return await call()
        except (BadRequest, Forbidden, RetryAfter):
            raise
        except NetworkError:
            if attempt == attempts:
                raise
            log.info("network error talking to Telegram; retry %d of %d", attempt, attempts - 1)
            await asyncio.sleep(NETWORK_BACKOFF * attempt)
    raise AssertionError("unreachable")


class TelegramAdapter:
    """Sends a service's views to Telegram; one per application."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        # The newest game version each board message was edited to (a bounded memory):
        # an edit that was delayed (retried after a network error, held by the rate
        # limiter) never puts an older board back over a newer one.
        self._edited: OrderedDict[tuple[Any, Any], int] = OrderedDict()
        # Per board message while edits of it are under way (see _one_edit_at_a_time).
        self._edit_locks: dict[tuple[str, Any], asyncio.Lock] = {}
        self._edit_waiters: dict[tuple[str, Any], int] = {}
        self._wanted: dict[tuple[str, Any], int] = {}

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
        game_id = await self._replied_game(message)
        actor = actor_of(update.effective_user)
        if name in (*ADMIN_COMMANDS, *ADMIN_AWARE_COMMANDS) and message.chat.type != "private":
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
        )
        await self.send(views, context, chat_id=message.chat_id, reply_to=message)

    async def on_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None or message.text is None or update.effective_user is None:
            return
        game_id = await self._replied_game(message)
        views = await self.service.text(
            actor_of(update.effective_user),
            place_of(message.chat),
            message.text,
            reply_to_game=game_id,
        )
        await self.send(views, context, chat_id=message.chat_id, reply_to=message)

    async def on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None or query.message is None:
            if query is not None:
                await query.answer()
            return
        chat = query.message.chat
        actor = actor_of(query.from_user)
        if chat.type != "private" and is_chat_setting(query.data or ""):
            # A chat's settings: ask Telegram whether the presser administers the chat.
            member = await context.bot.get_chat_member(chat.id, query.from_user.id)
            actor = replace(actor, admin=member.status in ("administrator", "creator"))
        views = await self.service.press(
            actor,
            place_of(chat),
            query.data or "",
            message={"chat_id": chat.id, "message_id": query.message.message_id},
        )
        notices = [v for v in views if v.notice]
        if notices:
            notice = notices[0]
            answer = with_retries(
                partial(query.answer, _text(notice, 200), show_alert=notice.alert)
            )
        else:
            answer = with_retries(query.answer)
        rest = [v for v in views if not v.notice]
        # The answer (which stops the button's spinner) and the new board do not depend on
        # each other: sent together, the board arrives one Bot API round trip sooner.
        # A message too old for the bot to see (InaccessibleMessage) can't be edited as such.
        pressed = query.message if isinstance(query.message, Message) else None
        await _all(answer, self.send(rest, context, chat_id=chat.id, pressed=pressed))

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
        await self.send(views, context, chat_id=new)

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
        await self.send(views, context, chat_id=change.chat.id)

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
                await context.bot.send_message(update.effective_chat.id, text)

    async def _replied_game(self, message: Message) -> int | None:
        replied = message.reply_to_message
        if replied is None or replied.from_user is None or not replied.from_user.is_bot:
            return None
        return await self.service.game_of_message(
            PLATFORM, {"chat_id": replied.chat_id, "message_id": replied.message_id}
        )

    # -- views to messages -------------------------------------------------------------------

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
        if view.point and view.message and await self._point(bot, view, chat_id):
            return
        target = self._edit_target(view, pressed)
        if (
            view.edit
            and not view.point
            and target is not None
            and await self._edit(bot, view, target, markup)
        ):
            if view.game_id is not None and view.version is not None and not view.keyboard_only:
                moved = view.message is None or target["message_id"] != view.message.get(
                    "message_id"
                )
                await self.service.board_shown(
                    view.game_id, view.version, _ref(target) if moved else None
                )
            return
        if (view.caption_only or view.keyboard_only) and view.game_id is not None:
            # The board to change is gone: post it anew, picture and all.
            full = await self.service.full_board(view.game_id)
            if full is not None:
                await self._send_one(full, context, chat_id, reply_to, None)
            return
        if view.image is not None:
            sent = await with_retries(
                partial(
                    bot.send_photo,
                    chat_id,
                    view.image,
                    filename=view.image_name,
                    caption=_text(view, CAPTION_LIMIT),
                    reply_markup=markup,
                )
            )
        else:
            reply_id = reply_to.message_id if reply_to is not None and view.notice else None
            sent = await with_retries(
                partial(
                    bot.send_message,
                    chat_id,
                    _text(view),
                    reply_markup=markup,
                    reply_to_message_id=reply_id,
                )
            )
        if view.posted is not None:  # the service edits this message later (standings)
            await view.posted(
                {"chat_id": sent.chat_id, "message_id": sent.message_id, "photo": bool(sent.photo)}
            )
        if view.game_id is not None and (markup is not None or view.image is not None):
            ref = {
                "chat_id": sent.chat_id,
                "message_id": sent.message_id,
                "photo": bool(sent.photo),
            }
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
                    reply_to_message_id=view.message["message_id"],
                )
            )
        except BadRequest as exc:
            if _unreachable(exc):
                raise
            log.info("the board to point to is gone (%s): posting it anew", exc)
            return False
        return True

    @staticmethod
    def _edit_target(view: View, pressed: Message | None) -> dict[str, Any] | None:
        if pressed is not None and view.game_id is not None:
            return {
                "chat_id": pressed.chat_id,
                "message_id": pressed.message_id,
                "photo": bool(pressed.photo),
            }
        if view.message:
            return {**view.message, "photo": view.message.get("photo", True)}
        return None

    async def _edit(
        self, bot: Any, view: View, target: dict[str, Any], markup: InlineKeyboardMarkup | None
    ) -> bool:
        """Edit the board in place; False when it can't be edited (then a new one is sent)."""
        chat_id, message_id = target["chat_id"], target["message_id"]
        if view.keyboard_only:
            async with self._one_edit_at_a_time((str(chat_id), message_id), view.version) as wanted:
                if wanted:
                    await self._edit_keyboard(bot, chat_id, message_id, markup)
            return True
        if view.caption_only and target.get("photo"):
            # The picture stays: only its caption and buttons change.
            edit = partial(
                bot.edit_message_caption,
                chat_id=chat_id,
                message_id=message_id,
                caption=_text(view, CAPTION_LIMIT),
                reply_markup=markup,
            )
        elif view.image is not None and target.get("photo"):
            edit = partial(
                bot.edit_message_media,
                InputMediaPhoto(
                    view.image, caption=_text(view, CAPTION_LIMIT), filename=view.image_name
                ),
                chat_id=chat_id,
                message_id=message_id,
                reply_markup=markup,
            )
        elif view.image is None:
            edit = partial(
                bot.edit_message_text,
                _text(view),
                chat_id=chat_id,
                message_id=message_id,
                reply_markup=markup,
            )
        else:
            return False
        key = (str(chat_id), message_id)

        async def unless_outdated() -> None:
            if view.version is not None and self._edited.get(key, -1) > view.version:
                return  # a newer board is on screen already
            await edit()
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
        self, key: tuple[str, Any], version: int | None
    ) -> AsyncIterator[bool]:
        """Edits of one message are made one at a time, newest wins: while an edit waits for
        Telegram's per-group limit, the boards pressed meanwhile queue here, and only the
        newest of them is sent (yields False for one that a newer board makes useless).
        At human speed under the limit, this drops the in-between boards, not the game."""
        if version is not None:
            self._wanted[key] = max(version, self._wanted.get(key, -1))
        lock = self._edit_locks.setdefault(key, asyncio.Lock())
        self._edit_waiters[key] = self._edit_waiters.get(key, 0) + 1
        try:
            async with lock:
                yield version is None or self._wanted.get(key, -1) <= version
        finally:
            self._edit_waiters[key] -= 1
            if not self._edit_waiters[key]:
                del self._edit_waiters[key], self._edit_locks[key]
                self._wanted.pop(key, None)

    @staticmethod
    async def _edit_keyboard(
        bot: Any, chat_id: Any, message_id: Any, markup: InlineKeyboardMarkup | None
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


class _BotContext:
    """The bit of a handler context :meth:`TelegramAdapter.send` uses, for background work."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot


def _unreachable(exc: BadRequest) -> bool:
    """Whether a refusal means the bot cannot post in the chat at all."""
    text = str(exc).lower()
    return any(words in text for words in _UNREACHABLE)


def _ref(target: dict[str, Any]) -> dict[str, Any]:
    """A board message reference as it is stored."""
    return {
        "chat_id": target["chat_id"],
        "message_id": target["message_id"],
        "photo": bool(target.get("photo")),
    }


async def set_commands(app: Application) -> None:
    """Register the command menu in every language (English as the default)."""
    for lang in LANGUAGES:
        commands = [
            BotCommand(name, translate(desc, lang)[:256]) for name, desc in COMMANDS.items()
        ]
        code = None if lang == "en" else lang
        await app.bot.set_my_commands(commands, language_code=code)


async def _all(*calls: Awaitable[Any]) -> None:
    """Await ``calls`` together; every one runs to its end, then the first failure is raised
    (the others are logged) for the application's error handler."""
    results = await asyncio.gather(*calls, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    for extra in failures[1:]:
        log.error("a concurrent Bot API call failed too", exc_info=extra)
    if failures:
        raise failures[0]


def build_application(
    config: Config, service: GameService, *, rate_limiter: BaseRateLimiter[Any] | None = None
) -> tuple[Application, TelegramAdapter]:
    """The python-telegram-bot application with every handler, not yet started.

    The default rate limiter (bot/telegram/limiter.py) keeps to Telegram's flood limits as
    sliding windows and retries a 429 answer, delaying only the chat it concerns.
    """
    adapter = TelegramAdapter(service)
    quiet_http_clients()
    app = (
        ApplicationBuilder()
        .token(config.telegram_token or "")
        .base_url(config.telegram_base_url)
        .base_file_url(config.telegram_base_file_url)
        .rate_limiter(rate_limiter or limiter_for(config))
        .concurrent_updates(True)
        .request(AiohttpRequest(config.telegram_connections))
        # getUpdates runs one long poll at a time, on a connection of its own.
        .get_updates_request(AiohttpRequest(1))
        .build()
    )
    app.add_handler(CommandHandler([*COMMANDS, "start", *ADMIN_COMMANDS], adapter.on_command))
    app.add_handler(CallbackQueryHandler(adapter.on_press))
    app.add_handler(InlineQueryHandler(adapter.on_inline))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, adapter.on_migrate))
    app.add_handler(ChatMemberHandler(adapter.on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, adapter.on_text))
    app.add_error_handler(adapter.on_error)
    return app, adapter


async def run_telegram(
    config: Config,
    service: GameService,
    stop: asyncio.Event | None = None,
    *,
    rate_limiter: BaseRateLimiter[Any] | None = None,
    tick_seconds: float = TICK_SECONDS,
    runner: DeadlineRunner | None = None,
) -> None:
    """Run the bot until ``stop`` is set (or forever): polling, or a webhook if configured.
    Deadline rounds run every ``tick_seconds``, unless a shared ``runner`` runs them."""
    app, adapter = build_application(config, service, rate_limiter=rate_limiter)
    stop = stop or asyncio.Event()
    own_rounds = runner is None
    runner = runner or DeadlineRunner(service)
    adapter.serve_deadlines(runner, app.bot)
    async with app:
        await set_commands(app)
        await app.start()
        enable_web_board(config, adapter, app.bot)
        assert app.updater is not None
        if config.telegram_webhook_url:
            await app.updater.start_webhook(
                listen=config.telegram_webhook_listen,
                port=config.telegram_webhook_port,
                url_path="telegram",
                webhook_url=config.telegram_webhook_url,
            )
        else:
            await app.updater.start_polling()
        try:
            if own_rounds:
                await runner.run(stop, tick_seconds)  # the first round at once
            else:
                await stop.wait()
        finally:
            await app.updater.stop()
            await app.stop()
