"""Interactions in, service views out: the heart of the Discord adapter.

Like the Telegram adapter, nothing here keeps game state: each slash command or button press
goes to the game service, and each view it returns becomes an interaction response, a
follow-up, an ephemeral notice or an edit of the board message. Discord wants an answer to
every interaction within three seconds: the service's work runs as a task and, when it is not
done after :attr:`DiscordAdapter.defer_after` seconds (rendering, the computer thinking), the
interaction is deferred first and answered later with follow-ups and edits.

Places: a server channel's place is the *server* (``chat_id`` = guild id), so games, the
language set with ``/lang`` and the ``/top`` leaderboard are per server, whatever channel a
game is played in; a direct message's place is its DM channel (private). A player is the same
person everywhere (``user_id`` = Discord user id).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import discord
from discord.utils import escape_markdown, escape_mentions

from bot.i18n import normalize_language, t, translate, translate_lines
from bot.service import actions as A
from bot.service.commands import find_command
from bot.service.mentions import Mention, mentions_in, pieces
from bot.service.runner import DeadlineRunner
from bot.service.service import GameService
from bot.service.views import BOARD_HERE, Actor, MessageRef, Place, View

from .buttons import view_of

log = logging.getLogger(__name__)

PLATFORM = "discord"
CONTENT_LIMIT = 2000
#: Defer an interaction whose answer is not ready after this many seconds (Discord allows 3).
DEFER_AFTER = 2.0


def actor_of(
    user: discord.abc.User, locale: discord.Locale | None = None, *, admin: bool = False
) -> Actor:
    """The service's actor for a Discord user; the interaction's locale is their language."""
    return Actor(
        PLATFORM,
        str(user.id),
        user.display_name or user.name or str(user.id),
        user.name,
        locale.value if locale is not None else None,
        admin=admin,
    )


def is_admin(interaction: discord.Interaction[Any]) -> bool:
    """Whether the user administers the server (Administrator or Manage Server, as Discord
    resolved their permissions in the interaction): what a chat admin may do, they may."""
    if interaction.guild_id is None:
        return False
    permissions = interaction.permissions
    return permissions.administrator or permissions.manage_guild


def place_of(interaction: discord.Interaction[Any]) -> Place:
    """The server for server channels (per-server games and leaderboards), else the DM."""
    if interaction.guild_id is not None:
        guild = interaction.guild
        title = guild.name if guild is not None and guild.name else None
        return Place(PLATFORM, str(interaction.guild_id), private=False, title=title)
    return Place(PLATFORM, str(interaction.channel_id), private=True)


def message_ref(
    message: discord.Message, chat_id: str | None = None, *, photo: bool | None = None
) -> MessageRef:
    """The service's reference of a message: its channel and id (and the service's chat
    and whether it carries a picture, where known)."""
    return MessageRef(message.id, chat_id=chat_id, channel_id=str(message.channel.id), photo=photo)


def _limited(text: str) -> str:
    return text if len(text) <= CONTENT_LIMIT else text[: CONTENT_LIMIT - 1] + "…"


def text_of(view: View) -> str:
    """The view's text as Discord shows it: as written (see :func:`plain`)."""
    return _limited(plain(translate_lines(view.lines, view.lang)))


def plain(text: str) -> str:
    """``text`` with nothing in it read as markdown or a mention by Discord.

    The bot's messages use no markdown of their own, but they carry what players wrote:
    names (``[Free Nitro](https://ev.il)`` would be a link, ``**x**`` bold, ``@everyone``
    or ``<@id>`` a mention), typed moves, server titles. So every text the bot writes on
    Discord is escaped, here, as a whole; ``13/8*`` still reads ``13/8*``.
    """
    return escape_markdown(escape_mentions(text))


def mentioned(view: View) -> tuple[str, discord.AllowedMentions]:
    """The view's text with the players it mentions as ``<@id>``, and the mentions allowed:
    those users alone (never @everyone or a role, whatever a name says)."""
    users = [m for m in mentions_in(view.lines) if m.platform == PLATFORM]
    # Mentions in a name are escaped piece by piece, markdown in the whole text at once (a
    # pair of asterisks may span pieces); the bot's own <@id> has neither.
    content = escape_markdown(
        "".join(
            f"<@{piece.user_id}>"
            if isinstance(piece, Mention) and piece.platform == PLATFORM
            else escape_mentions(str(piece))
            for piece in pieces(view.lines, view.lang)
        )
    )
    if not users or len(content) > CONTENT_LIMIT:
        return text_of(view), discord.AllowedMentions.none()
    allowed = discord.AllowedMentions(
        everyone=False,
        roles=False,
        replied_user=False,
        users=[discord.Object(int(m.user_id)) for m in users],
    )
    return content, allowed


def files_of(view: View) -> list[discord.File]:
    if view.document is not None:
        name, data = view.document
        return [discord.File(io.BytesIO(data), filename=name)]
    if view.image is not None:
        return [discord.File(io.BytesIO(view.image), filename=view.image_name)]
    return []


@dataclass
class _Exchange:
    """One interaction being answered."""

    interaction: discord.Interaction[Any]
    place: Place
    #: The game whose button was pressed (None for slash commands).
    pressed_game: int | None = None
    #: A public "thinking…" message from a deferral that no view has replaced yet.
    thinking: bool = False
    #: The text of the last board edited elsewhere (the ephemeral answer to /move).
    summary: str | None = None

    @property
    def is_press(self) -> bool:
        return self.interaction.type is discord.InteractionType.component


class DiscordAdapter:
    """Sends a service's views to Discord; one per client."""

    def __init__(self, service: GameService, *, defer_after: float = DEFER_AFTER) -> None:
        self.service = service
        self.defer_after = defer_after
        self.client: discord.Client | None = None

    # -- entry points (called by the commands and the buttons) ---------------------------

    async def run_command(
        self,
        interaction: discord.Interaction[Any],
        name: str,
        args: str = "",
        *,
        mentions: Sequence[discord.abc.User] = (),
        game: int | None = None,
    ) -> None:
        place = place_of(interaction)
        actor = actor_of(interaction.user, interaction.locale)
        spec = find_command(name)
        if spec is not None and spec.asks_admin and not place.private:
            # Discord sends the member's permissions with the interaction: no extra call.
            actor = replace(actor, admin=is_admin(interaction))
        work = self.service.command(
            actor,
            place,
            name,
            args.strip(),
            mentions=[actor_of(m) for m in mentions],
            reply_to_game=game,
        )
        exchange = _Exchange(interaction, place)
        views = await self._in_time(exchange, work)
        await self.deliver(exchange, views)

    async def on_press(self, interaction: discord.Interaction[Any], action: str) -> None:
        """A game button. Errors are handled here: discord.py only logs a button's failures."""
        try:
            place = place_of(interaction)
            decoded = A.decode(action)
            exchange = _Exchange(interaction, place, decoded.game_id if decoded else None)
            pressed = interaction.message
            work = self.service.press(
                actor_of(interaction.user, interaction.locale, admin=is_admin(interaction)),
                place,
                action,
                message=message_ref(pressed) if pressed is not None else None,
            )
            views = await self._in_time(exchange, work)
            await self.deliver(exchange, views)
        except Exception as exc:
            await self.on_error(interaction, exc)

    async def on_error(self, interaction: discord.Interaction[Any], error: BaseException) -> None:
        """Log every failure with its exception; answer politely and privately, never a trace."""
        original = getattr(error, "original", None) or error
        command = interaction.command.name if interaction.command is not None else None
        log.error(
            "Discord interaction failed (command=%s, user=%s, guild=%s)",
            command,
            interaction.user.id if interaction.user else None,
            interaction.guild_id,
            exc_info=(type(original), original, original.__traceback__),
        )
        lang = normalize_language(interaction.locale.value) or "en"
        text = translate(
            t("Sorry, something went wrong. Your game is safe; please try again."), lang
        )
        with contextlib.suppress(discord.HTTPException):
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)

    # -- answering in time ---------------------------------------------------------------

    async def _in_time(self, exchange: _Exchange, work: Awaitable[list[View]]) -> list[View]:
        """The service's views; the interaction is deferred if they take too long."""
        task = asyncio.ensure_future(work)
        done, _ = await asyncio.wait({task}, timeout=self.defer_after)
        if not done:
            interaction = exchange.interaction
            try:
                # A press is deferred silently (its board is edited later); a command shows
                # "thinking…" until its first answer replaces it.
                await interaction.response.defer(thinking=not exchange.is_press)
                exchange.thinking = not exchange.is_press
            except discord.HTTPException:
                log.warning("could not defer interaction %s", interaction.id, exc_info=True)
        return await task

    # -- views to messages ----------------------------------------------------------------

    async def deliver(self, exchange: _Exchange, views: list[View]) -> None:
        """Deliver views in order as answers to one interaction."""
        interaction = exchange.interaction
        for view in views:
            if view.notice:
                await self._notice(exchange, view)
            elif view.edit_only:
                await self._edit_other(view)  # an old message; if it is gone, nothing
            elif (
                (view.point and view.message and await self._point(exchange, view))
                or (
                    view.edit
                    and view.game_id is not None
                    and await self._edit_board(exchange, view)
                )
                or await self._replace_challenge(exchange, view)
                or await self._edit_pressed(exchange, view)
                or await self._edit_other(view)
            ):
                continue
            else:
                await self._send(exchange, view)
        # Every interaction gets exactly one response.
        if not interaction.response.is_done():
            if exchange.is_press:
                await interaction.response.defer()
            else:
                await interaction.response.send_message(exchange.summary or "✅", ephemeral=True)
        elif exchange.thinking:
            await self._replace_thinking(exchange, exchange.summary or "✅")

    async def _notice(self, exchange: _Exchange, view: View) -> None:
        interaction = exchange.interaction
        text = text_of(view)
        if not interaction.response.is_done():
            await interaction.response.send_message(text, ephemeral=True)
        elif exchange.thinking:
            await self._replace_thinking(exchange, text)
        else:
            await interaction.followup.send(text, ephemeral=True)

    async def _point(self, exchange: _Exchange, view: View) -> bool:
        """Tell the player privately where the current board is (a jump link); False when
        that message is gone (then the board is posted anew)."""
        assert view.message is not None
        channel_id, message_id = view.message.channel_id, view.message.message_id
        if self.client is None or channel_id is None:
            return False
        channel = self.client.get_partial_messageable(int(channel_id))
        try:
            await channel.fetch_message(message_id)
        except discord.HTTPException as exc:
            log.info("the board to point to is gone (%s): posting it anew", exc)
            return False
        interaction = exchange.interaction
        guild = interaction.guild_id or "@me"
        link = f"https://discord.com/channels/{guild}/{channel_id}/{message_id}"
        # Private: in the presser's language, like the toast before it.
        lang = normalize_language(interaction.locale.value) or view.lang
        text = f"{translate(BOARD_HERE, lang)}\n{link}"
        await self._notice(exchange, View([text], lang=lang, notice=True))
        return True

    async def _replace_thinking(self, exchange: _Exchange, text: str) -> None:
        """The public "thinking…" message gives way to a private answer."""
        interaction = exchange.interaction
        exchange.thinking = False
        with contextlib.suppress(discord.NotFound):
            await interaction.delete_original_response()
        await interaction.followup.send(text, ephemeral=True)

    async def _send(self, exchange: _Exchange, view: View) -> discord.Message:
        """A new public message in the interaction's channel."""
        interaction = exchange.interaction
        content, allowed = mentioned(view)
        ui = view_of(view)
        files = files_of(view)
        extra: dict[str, Any] = {"allowed_mentions": allowed}
        if ui is not None:
            extra["view"] = ui
        if files:
            extra["files"] = files
        message: discord.Message
        if not interaction.response.is_done():
            response = await interaction.response.send_message(content, **extra)
            resource = response.resource if response is not None else None
            message = (
                resource
                if isinstance(resource, discord.InteractionMessage)
                else await interaction.original_response()
            )
        elif exchange.thinking:
            exchange.thinking = False
            message = await interaction.edit_original_response(
                content=content, attachments=files, view=ui, allowed_mentions=allowed
            )
        else:
            message = await interaction.followup.send(content, wait=True, **extra)
        await self._bind(view, message, exchange.place.chat_id)
        await self._posted(view, message, exchange.place.chat_id)
        return message

    @staticmethod
    async def _posted(view: View, message: discord.Message, chat_id: str) -> None:
        """Tell the service where a view it edits later was posted (a tournament's card or
        standings, an analysis's "working…")."""
        if view.posted is not None:
            await view.posted(message_ref(message, chat_id, photo=view.image is not None))

    async def _edit_board(self, exchange: _Exchange, view: View) -> bool:
        """Edit the board in place; False when it can't be (then a new one is sent)."""
        assert view.game_id is not None  # a board view
        interaction = exchange.interaction
        content, files, ui = text_of(view), files_of(view), view_of(view)
        exchange.summary = content
        pressed = interaction.message
        # A picked checker changes the buttons alone, a confirmed move the text and buttons:
        # no new picture is uploaded (attachments left out are kept).
        changes: dict[str, Any] = {"view": ui}
        if not view.keyboard_only:
            changes["content"] = content
        if not (view.keyboard_only or view.caption_only):
            changes["attachments"] = files
        if exchange.is_press and exchange.pressed_game == view.game_id and pressed is not None:
            if not interaction.response.is_done():
                await interaction.response.edit_message(**changes)
            elif (
                interaction.response.type is discord.InteractionResponseType.deferred_message_update
            ):
                await interaction.edit_original_response(**changes)
            else:
                await pressed.edit(**changes)
            if view.keyboard_only:
                return True
            if view.message is None or view.message.message_id != pressed.id:
                await self._bind(view, pressed, exchange.place.chat_id, force=True)
            elif view.version is not None:
                await self.service.board_shown(view.game_id, view.version, shown_in=view.message)
            return True
        if view.keyboard_only:
            return True  # only ever made for the board that was pressed
        if await self._edit_bound(view, **changes):
            if view.version is not None:
                await self.service.board_shown(view.game_id, view.version, shown_in=view.message)
            return True
        if view.caption_only:
            # The board to change is gone: post it anew, picture and all.
            full = await self.service.full_board(view.game_id)
            if full is not None:
                await self._send(exchange, full)
            return True
        return False

    async def _edit_bound(self, board: View, **changes: Any) -> bool:
        """Edit the board message ``board`` names with ``changes`` (discord.py's edit)."""
        target = board.message
        if self.client is None or target is None or target.channel_id is None:
            return False
        channel = self.client.get_partial_messageable(int(target.channel_id))
        try:
            await channel.get_partial_message(target.message_id).edit(**changes)
        except discord.HTTPException as exc:
            log.info("could not edit board message %s: %s", target.message_id, exc)
            return False
        return True

    async def _edit_pressed(self, exchange: _Exchange, view: View) -> bool:
        """A view that redraws the message pressed on, outside any game (``/settings``)."""
        interaction = exchange.interaction
        if (
            not view.edit
            or view.game_id is not None
            or view.message is None
            or not exchange.is_press
            or interaction.response.is_done()
            or interaction.message is None
            or view.message.message_id != interaction.message.id
        ):
            return False
        await interaction.response.edit_message(content=text_of(view), view=view_of(view))
        return True

    async def _edit_other(self, view: View) -> bool:
        """A view that edits a message of its own in place, outside any game (a tournament's
        standings picture); False when it can't be (then it is posted anew)."""
        if not view.edit or view.game_id is not None or view.message is None:
            return False
        return await self._edit_bound(
            view, content=text_of(view), attachments=files_of(view), view=view_of(view)
        )

    async def _replace_challenge(self, exchange: _Exchange, view: View) -> bool:
        """Accepting a challenge turns the challenge message into the game's first line
        (the service marks such views ``replace_pressed``)."""
        interaction = exchange.interaction
        if (
            not view.replace_pressed
            or not exchange.is_press
            or interaction.response.is_done()
            or interaction.message is None
            or view.game_id is None
            or view.game_id != exchange.pressed_game
        ):
            return False
        await interaction.response.edit_message(content=text_of(view), view=None)
        return True

    async def _bind(
        self, view: View, message: discord.Message, chat_id: str, *, force: bool = False
    ) -> None:
        """Remember the board (or challenge) message so later views can edit it."""
        if view.game_id is None:
            return
        if not force and view.image is None and not (view.buttons and view.message is None):
            return
        ref = message_ref(message, chat_id, photo=view.image is not None)
        if view.version is not None:
            await self.service.board_shown(view.game_id, view.version, ref)
        else:
            await self.service.bind_message(view.game_id, ref)

    # -- background ------------------------------------------------------------------------

    async def chat_gone(self, chat_id: str) -> None:
        """The bot can no longer reach a server (removed from it)."""
        await self.service.chat_unreachable(PLATFORM, chat_id)

    async def chat_back(self, chat_id: str, title: str | None = None) -> None:
        """The bot can reach a server again: show the boards of the games that waited."""
        for view in await self.service.chat_reachable(Place(PLATFORM, chat_id, title=title)):
            try:
                await self.send_background(view)
            except discord.HTTPException:
                log.warning("could not show a board again", exc_info=True)

    def serve_deadlines(self, runner: DeadlineRunner) -> None:
        """Deliver the deadline runner's views of Discord games (reminders, expiries, claims,
        boards that lag their game) to the channels of their boards."""
        runner.serve(
            PLATFORM,
            self.send_background,
            errors=(discord.HTTPException,),
            undeliverable=self._undeliverable,
        )

    async def tick(self) -> None:
        """One deadline round for this adapter alone (run_discord runs them periodically)."""
        runner = DeadlineRunner(self.service)
        self.serve_deadlines(runner)
        await runner.round()

    async def _undeliverable(self, view: View) -> None:
        if view.game_id is not None and view.version is not None:
            # The board's channel is gone or closed to the bot: stop redrawing it every
            # round. A press on it, or /board in any channel, shows it again.
            await self.service.board_shown(view.game_id, view.version)

    async def send_background(self, view: View) -> None:
        """A view made without an interaction, to the channel of its game's board."""
        if self.client is None or view.chat is None or view.chat[0] != PLATFORM:
            return
        target = view.message
        if target is None and view.game_id is not None:
            # The service does not put the board reference on every deadline view.
            target = await self.service.board_message(view.game_id)
        target = target or view.reply_to or view.channel
        if target is None or target.channel_id is None:
            log.info("no channel known for a deadline message of game %s", view.game_id)
            if view.game_id is not None and view.version is not None:
                await self.service.board_shown(view.game_id, view.version)
            return
        content, files, ui = text_of(view), files_of(view), view_of(view)
        if view.edit and await self._edit_bound(
            View(view.lines, message=target), content=content, attachments=files, view=ui
        ):
            if view.game_id is not None and view.version is not None:
                await self.service.board_shown(view.game_id, view.version, shown_in=target)
            return
        if view.edit_only:
            return  # an old message that is gone: nothing to post in its place
        channel = self.client.get_partial_messageable(int(target.channel_id))
        content, allowed = mentioned(view)
        extra: dict[str, Any] = {"view": ui} if ui is not None else {}
        if files:
            extra["files"] = files
        if view.reply_to is not None and view.reply_to.channel_id == target.channel_id:
            # A reply the service asks for (a day's answer); posted alone if that is gone.
            extra["reference"] = discord.MessageReference(
                message_id=view.reply_to.message_id,
                channel_id=int(target.channel_id),
                fail_if_not_exists=False,
            )
        message = await channel.send(content, allowed_mentions=allowed, **extra)
        if view.image is not None:
            await self._bind(view, message, view.chat[1], force=True)
        await self._posted(view, message, view.chat[1])
