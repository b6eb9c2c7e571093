"""The game service: commands and button presses in, views out, games kept safe in storage.

:class:`GameService` is the facade adapters talk to: it holds the entry points (commands,
presses, typed text, board bookkeeping) and combines the feature modules, each a mixin over
:class:`~bot.service.base.ServiceBase` (the way discord.py bots split their cogs):

- ``challenges``: challenges, acceptance, rematches, games against the computer;
- ``play``: presses, typed moves, resign/abort/claim, the computer's turns;
- ``results``: the end of a contest, ratings;
- ``deadlines``: :meth:`~GameService.tick` (reminders, timeouts, board repairs);
- ``info``: help, rules, language, leaderboards, statistics, export, dice;
- ``chats``: chats the bot loses, finds again, or that move to a new id.

Adapters only translate their platform's updates into the calls below and the returned
:class:`View` s into messages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from bot import metrics
from bot.i18n import t
from bot.storage.base import Chat, GameRecord, GameStatus, User
from core.match import Match

from . import actions as A
from .analysis import AnalysisMixin
from .base import ServiceBase, ServiceSettings, UserFacingError, acting_seat
from .challenges import ChallengesMixin
from .chat_settings import ChatSettingsMixin, is_chat_setting
from .chats import ChatsMixin
from .commands import find_command, unknown_argument
from .deadlines import DeadlinesMixin
from .info import InfoMixin
from .limits import clean_name
from .play import PlayMixin
from .prefs import PrefsMixin
from .privacy import PrivacyMixin, is_privacy_button
from .results import ResultsMixin
from .tournaments import Tournaments
from .views import BOARD_HERE, Actor, MessageRef, Place, View

SLOW_DOWN = t("Not so fast, please: wait a few seconds and try again.")


class GameService(
    AnalysisMixin,
    ChallengesMixin,
    ChatSettingsMixin,
    PlayMixin,
    PrefsMixin,
    PrivacyMixin,
    ResultsMixin,
    DeadlinesMixin,
    InfoMixin,
    ChatsMixin,
    ServiceBase,
):
    """The platform-neutral application."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tournaments = Tournaments(self)

    # -- entry points ------------------------------------------------------------------

    def close(self) -> None:
        """Stop the drawing processes or the drawing thread, if any."""
        if self._render_pool is not None:
            self._render_pool.close()
            self._render_pool = None
        if self._render_thread is not None:
            self._render_thread.shutdown(wait=False)
            self._render_thread = None

    async def command(
        self,
        actor: Actor,
        place: Place,
        name: str,
        args: str = "",
        *,
        mentions: list[Actor] | None = None,
        reply_to_game: int | None = None,
    ) -> list[View]:
        """A slash command (without the slash), with its argument text."""
        spec = find_command(name)
        metrics.COMMANDS.labels(spec.name if spec is not None else "unknown").inc()
        handler = self._command_handlers()[spec.name] if spec is not None else None
        user = await self._user(actor)
        chat = await self._chat(place, user)
        if self._flooding(user):
            return [self._slow_down(user, chat)]
        if handler is None:
            return [self._notice(user, chat, t("I don't know that command. /help lists them."))]
        word = spec.args.unknown(args) if spec is not None else None
        if spec is not None and word is not None:
            return [self._notice(user, chat, unknown_argument(spec, word))]
        return await self._guard(
            user,
            chat,
            handler(
                user=user,
                chat=chat,
                place=place,
                name=name.lower(),
                args=args,
                mentions=mentions or [],
                reply_to_game=reply_to_game,
                actor=actor,
            ),
        )

    async def hot_seat(
        self,
        actor: Actor,
        place: Place,
        name: str = "tavla",
        args: str = "",
        *,
        sides: tuple[str, str] | None = None,
    ) -> list[View]:
        """``/tavla`` or ``/uzun`` (``name``, any of their spellings) with ``args``, played
        by ``actor`` on both sides on one keyboard (the console): one person in both seats,
        so never rated, with no clock, and every answer (a roll, a take, a resignation, an
        abort) is theirs to give. ``sides``: what the two sides are called in the captions
        (by default the player's name, numbered)."""
        spec = find_command(name)
        if spec is None or spec.name not in ("tavla", "uzun", "nardy"):
            raise ValueError(f"not a challenge command: {name!r}")
        user = await self._user(actor)
        chat = await self._chat(place)
        if self._flooding(user):
            return [self._notice(user, chat, SLOW_DOWN)]
        first, second = sides or (f"{user.name} (1)", f"{user.name} (2)")
        names = (clean_name(first), clean_name(second))
        variant = "tavla" if spec.name == "tavla" else "uzun"
        work = self._solo_game(user, chat, place, variant, args, names)
        return await self._guard(user, chat, work)

    def _command_handlers(self) -> dict[str, Callable[..., Awaitable[list[View]]]]:
        """Each catalogue command's handler, by the command's name (see commands.py)."""
        return {
            "help": self._help,
            "rules": self._rules,
            "tavla": self._challenge,
            "uzun": self._challenge,
            "nardy": self._challenge,
            "bot": self._bot_game,
            "move": self._move_command,
            "resign": self._resign,
            "abort": self._abort,
            "claim": self._claim,
            "top": self._top,
            "stats": self._stats,
            "export": self._export,
            "analyse": self._analyse_command,
            "dice": self._dice,
            "lang": self._set_lang,
            "board": self._show_board,
            "resettop": self._reset_top,
            "tournament": self.tournaments.command,
            "settings": self._settings,
            "privacy": self._privacy,
            "forget": self._forget,
        }

    async def press(
        self, actor: Actor, place: Place, data: str, *, message: MessageRef | None = None
    ) -> list[View]:
        """A button press with its action id; ``message`` is the message pressed on, in the
        form the adapter binds boards (see :meth:`board_shown`).

        Presses that change nothing (refused, or on a board behind its game) are answered
        from a separate allowance, so they never slow a player down."""
        metrics.PRESSES.labels(_press_kind(self, data)).inc()
        with metrics.PRESS_SECONDS.time():
            return await self._answer_press(actor, place, data, message)

    async def _answer_press(
        self, actor: Actor, place: Place, data: str, message: MessageRef | None
    ) -> list[View]:
        user = await self._user(actor)
        chat = await self._chat(place, user)
        guarded = self._guarded(user)
        if guarded and not (self.limiter.has(user.id) and self.idle_limiter.has(user.id)):
            return [self._slow_down(user, chat)]
        if self.tournaments.owns(data):  # a tournament card's Join / Leave / Start
            self.limiter.allow(user.id)
            work = self.tournaments.press(user, chat, place, actor, data, message)
            return await self._guard(user, chat, work)
        if is_privacy_button(data):  # /forget's confirmation
            self.limiter.allow(user.id)
            return await self._guard(user, chat, self._forget_press(user, chat, data, message))
        action = A.decode(data)
        if action is None:
            self.idle_limiter.allow(user.id)
            return [self._notice(user, chat, t("That button is not one of mine."))]
        if is_chat_setting(data):  # a chat's settings: its administrators only
            self.limiter.allow(user.id)
            work = self._chat_setting(user, chat, place, actor, action.arg, message)
            return await self._guard(user, chat, work)
        views = await self._guard(user, chat, self._press(user, chat, place, action, message))
        if all(v.notice or v.repair for v in views):
            self.idle_limiter.allow(user.id)
        else:
            self.limiter.allow(user.id)
        return views

    async def ready(self) -> bool:
        """Whether the database answers (``/readyz``); raises when it does not."""
        await self.storage.ping()
        return True

    async def refresh_metrics(self) -> None:
        """Figures read from the database, before a scrape of ``/metrics``."""
        metrics.ACTIVE_GAMES.set(await self.storage.count_games((GameStatus.ACTIVE,)))

    async def text(
        self, actor: Actor, place: Place, text: str, *, reply_to_game: int | None = None
    ) -> list[View]:
        """A plain message: a typed move in a private chat or in reply to a board."""
        user = await self._user(actor)
        chat = await self._chat(place, user)
        if not place.private and reply_to_game is None:
            return []
        if self._flooding(user):
            return [self._slow_down(user, chat)]
        return await self._guard(
            user, chat, self._move(user, chat, text, reply_to_game, quiet=not place.private)
        )

    def _slow_down(self, user: User, chat: Chat) -> View:
        """The flood guard's "Not so fast": said once a window, then quiet (a flood's every
        refused message answered with a chat message of its own would queue behind the
        chat's flood limit; where an answer is due anyway, a press's, it is still shown)."""
        notice = self._notice(user, chat, SLOW_DOWN)
        if not self.warned.allow(user.id):
            notice = replace(notice, quiet=True)
        return notice

    async def bind_message(self, game_id: int, message: MessageRef) -> None:
        """Remember where a game's board was posted, so later views can edit it."""
        await self.storage.set_game_message(game_id, message)

    async def board_shown(
        self, game_id: int, version: int, message: MessageRef | None = None
    ) -> None:
        """The adapter showed the board of ``version`` (a view's ``version``), in ``message``
        when it was posted anew. Boards never confirmed are redrawn by :meth:`tick`."""
        await self.storage.mark_board_shown(game_id, version, message)

    async def game_of_message(self, platform: str, message: MessageRef) -> int | None:
        """The game whose board is ``message`` (for replies to a board)."""
        for record in await self.storage.games_in_chat(platform, message.chat_id or ""):
            if record.message is not None and record.message.same_message(message):
                return record.id
        return None

    # -- what adapters may ask (they never read storage themselves) --------------------

    async def full_board(self, game_id: int) -> View | None:
        """The game's board with its picture, to post anew where a lighter view (one that
        changes only the caption or the buttons) could not be applied: the message is gone."""
        record = await self.storage.get_game(game_id)
        if record is None:
            return None
        chat = await self.storage.get_chat(record.platform, record.chat_id)
        (view,) = await self._boards_of(chat, [record])
        view.edit = False
        return view

    async def board_message(self, game_id: int) -> MessageRef | None:
        """Where the game's board is, as the adapter bound it (None: not known)."""
        record = await self.storage.get_game(game_id)
        return record.message if record is not None else None

    async def game_record(self, game_id: int) -> GameRecord | None:
        """The stored game (None: not known), for an adapter that draws the game itself (the
        web board's page). Read only: every change goes through the entry points above."""
        return await self.storage.get_game(game_id)

    async def user_record(self, user_id: int) -> User | None:
        """A stored user by the service's id (the web board's personal links carry it)."""
        return await self.storage.get_user(user_id)

    async def seated(self, record: GameRecord) -> list[tuple[int, User]]:
        """Each seat of ``record`` with the person on it, seat by seat (empty seats left
        out; one person on both seats in a game against themselves)."""
        users = await self.storage.get_users(u for u in record.seats if u is not None)
        return [
            (seat, users[user_id])
            for seat, user_id in enumerate(record.seats)
            if user_id is not None and user_id in users
        ]

    async def player_to_act(self, game_id: int) -> str | None:
        """The platform user id of the player an active game waits for, the answer to a
        resignation included (None: the game is not active, or not known)."""
        record = await self.storage.get_game(game_id)
        if record is None or record.status is not GameStatus.ACTIVE or not record.match:
            return None
        game = Match.from_dict(record.match).game
        if game is None:
            return None
        user_id = record.seats[acting_seat(game)]
        user = await self.storage.get_user(user_id) if user_id is not None else None
        return user.platform_id if user is not None else None


def _press_kind(service: GameService, data: str) -> str:
    """A press's ``kind`` label: its button's code by name (``roll``, ``move``…), or
    ``tournament``, or ``unknown`` for a button not of ours."""
    if service.tournaments.owns(data):
        return "tournament"
    action = A.decode(data)
    return action.code.name.lower() if action is not None else "unknown"


__all__ = [
    "BOARD_HERE",
    "Actor",
    "GameService",
    "Place",
    "ServiceSettings",
    "UserFacingError",
]
