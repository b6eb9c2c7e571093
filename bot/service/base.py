"""The service's shared state and plumbing, on which the feature modules build.

Every state change follows design.md: one transaction loads the game, checks the version the
action was made against, applies the action through core, saves the game with its events and
commits. Pictures are rendered after the commit, off the event loop. Each feature module
(challenges, play, results, deadlines, info, chats) is a mixin over :class:`ServiceBase`;
:class:`bot.service.service.GameService` combines them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from bot import metrics
from bot.drawing import DrawingPool
from bot.i18n import DEFAULT_LANGUAGE, Text, normalize_language, t
from bot.storage.base import (
    Chat,
    GameRecord,
    GameStatus,
    PlayerPrefs,
    StaleVersionError,
    Storage,
    StorageError,
    User,
)
from core.ai import Player, player_for
from core.dice import SeededDice
from core.errors import ErrorCode, NotYourTurnError, TavlaError
from core.game import Game, Phase, ResultKind
from core.match import Match
from renderers.picture import JPEG, PNG, PictureCache, picture_key, render_picture
from renderers.view import BoardView

from . import group_lang
from .errors import error_text
from .keypad import DEFAULT_LIMITS, DISCORD_LIMITS, KeypadLimits
from .limits import RateLimiter, clean_name
from .presenter import (
    board_view,
    caption,
    finished_buttons,
    game_buttons,
    resign_buttons,
    resign_question,
    shown_seat,
)
from .views import Actor, MessageRef, Place, View

if TYPE_CHECKING:
    from .tournaments import Tournaments

log = logging.getLogger(__name__)

DAY = 24 * 3600.0


@dataclass
class ServiceSettings:
    """Tunable behaviour; defaults are what players get."""

    turn_limit: float = DAY  # inactivity limit per action
    fast_turn_limit: float = 300.0  # for contests started as "fast"
    challenge_ttl: float = 3600.0
    reminder_at: float = 0.75  # remind after this share of the limit
    max_rated_per_day: int = 3  # rated contests per pair and game kind in 24 h
    theme: str = "classic"
    render_images: bool = True
    max_match_length: int = 25
    # Per-user flood guard: this many actions, refilled over this many seconds. A whole
    # doubles turn pressed at human speed (ten presses in three seconds) stays well inside.
    burst_actions: int = 16
    burst_window: float = 8.0
    # A separate allowance for presses that change nothing (another player's board, an old
    # board, a refused move): they never use up the player's own, but a machine-speed flood
    # of them is still refused.
    idle_actions: int = 30
    idle_window: float = 10.0
    # Platforms whose users the flood guard leaves alone: the console is the operator at
    # their own terminal (or a script piping moves into it), with no other players to
    # protect and nobody else's allowance to use up.
    unguarded_platforms: frozenset[str] = frozenset({"console"})
    # Platforms where nothing is rated: at the console one keyboard is one person, whoever
    # the seats say plays (hot-seat games kept from earlier versions had two local players).
    unrated_platforms: frozenset[str] = frozenset({"console"})
    # A board that lags its game is redrawn by the deadline rounds once it has lagged this
    # long (an edit may wait for Telegram's per-group limit meanwhile), for this long at most.
    repair_after: float = 90.0
    # A second press within this many seconds of a change, while that change's board is
    # still on its way, is a double press: answered with a toast rather than another edit.
    double_press: float = 2.0
    repair_within: float = 7 * DAY
    repair_batch: int = 50
    # Board pictures are drawn in this many worker processes (0: a thread of this process).
    # Processes let drawing use another core while this one answers players.
    render_processes: int = 0
    # Picture format by platform (PNG elsewhere): Telegram re-encodes every photo as JPEG
    # anyway, so a JPEG costs its players nothing and half the encoding; Discord shows
    # attachments as they are, so it keeps the exact PNG.
    picture_formats: dict[str, str] = field(default_factory=lambda: {"telegram": JPEG})
    # Drawn boards kept by what they show (renderers.picture.PictureCache), in bytes.
    picture_cache_bytes: int = 32 << 20
    # How many whole plays and checker moves a board's keyboard shows, by platform
    # (bot.service.keypad); Discord allows 25 buttons a message.
    keypad: dict[str, KeypadLimits] = field(default_factory=lambda: {"discord": DISCORD_LIMITS})


class UserFacingError(Exception):
    """An expected refusal, shown to the player as a notice."""

    def __init__(self, text: Text) -> None:
        super().__init__(text.msgid)
        self.text = text


@dataclass
class ActionContext:
    """One action on one game, inside its transaction."""

    record: GameRecord
    match: Match
    dice: SeededDice
    names: list[str]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    notes: list[Text] = field(default_factory=list)
    #: How the games that ended during the action ended, when the match goes on: the next
    #: game's board says it under its first line (who resigned, passed or bore off).
    ended: list[Text] = field(default_factory=list)
    selected: int | None = None
    #: A resignation asked for and not yet confirmed (seat, level): the board asks to.
    resigning: tuple[int, ResultKind] | None = None
    finished: bool = False
    #: The seats' own settings, once loaded (:meth:`ServiceBase._prefs`).
    prefs: tuple[PlayerPrefs, PlayerPrefs] | None = None
    #: The players' and the challenger's users by id, once loaded (:meth:`ServiceBase._players`).
    users: dict[int, User] | None = None

    @property
    def game(self) -> Game:
        assert self.match.game is not None
        return self.match.game


def alone(record: GameRecord) -> bool:
    """Whether one person holds both seats of ``record`` (a game against oneself)."""
    return record.seats[0] is not None and record.seats[0] == record.seats[1]


def acting_seat(game: Game) -> int:
    """The seat whose answer the game waits for: the other side of a resignation offered,
    else the seat to act (the taker of a double, the player on roll)."""
    if game.resign_offer is not None:
        return 1 - game.resign_offer[0]
    return game.awaiting


def picture_state(game: Game) -> tuple[Any, ...]:
    """What a board picture shows that matters to the players: the checkers, the cube and
    the rolls made (not the dice put away when a move is confirmed). Only a change here is
    worth drawing and uploading a new picture (issue 13)."""
    position = game.position(0)
    rolls = sum(1 for event in game.history if event["type"] == "roll")
    return (
        position.mover,
        position.opponent,
        rolls,
        game.cube_value,
        game.cube_owner,
        game.phase is Phase.DOUBLED,
        game.over,
    )


class ServiceBase(ABC):
    """State and plumbing shared by every feature of the service."""

    #: Tournaments in the chats (tournaments.py), set up by GameService.
    tournaments: Tournaments

    def __init__(
        self,
        storage: Storage,
        settings: ServiceSettings | None = None,
        *,
        clock: Callable[[], float] = time.time,
        dice_factory: Callable[[], SeededDice] = SeededDice,
        computer: Callable[[str, str], Player] | None = None,
    ) -> None:
        self.storage = storage
        self.settings = settings or ServiceSettings()
        self.clock = clock
        self.dice_factory = dice_factory
        # (variant name, level) -> the computer player; core's players by default.
        self.computer = computer or player_for
        self.limiter = RateLimiter(
            self.settings.burst_actions, self.settings.burst_window, self.clock
        )
        self.idle_limiter = RateLimiter(
            self.settings.idle_actions, self.settings.idle_window, self.clock
        )
        # One "Not so fast" a window per user; refusals after it are quiet (View.quiet).
        self.warned = RateLimiter(1, self.settings.burst_window, self.clock)
        self._pictures = PictureCache(self.settings.picture_cache_bytes)
        #: How views made outside any request (an analysis done) reach their chat, by
        #: platform: the adapters' deadline outlets (DeadlineRunner.serve registers them).
        self.outlets: dict[str, Callable[[View], Awaitable[None]]] = {}
        #: Work under way in the background (analyses), kept until done.
        self.background: set[asyncio.Task[None]] = set()
        self._render_pool: DrawingPool | None = None
        if self.settings.render_processes > 0 and DrawingPool.supported:
            self._render_pool = DrawingPool(self.settings.render_processes)
        #: Without drawing processes, pictures are drawn on this one thread: fonts are loaded
        #: per thread, so the kept text masks and measures serve every picture only when
        #: one thread draws them all (asyncio's default pool spread them over several).
        self._render_thread: ThreadPoolExecutor | None = None

    async def _render(self, view: BoardView, fmt: str = PNG) -> bytes:
        """The board picture as ``fmt``: from the cache, or drawn off the event loop."""
        key = picture_key(view, fmt)
        image = self._pictures.get(key)
        if image is None:
            started = time.perf_counter()
            if self._render_pool is None:
                if self._render_thread is None:
                    self._render_thread = ThreadPoolExecutor(1, thread_name_prefix="tavla-draw")
                loop = asyncio.get_running_loop()
                image = await loop.run_in_executor(self._render_thread, render_picture, view, fmt)
            else:
                image = await self._render_pool.draw(view, fmt)
            metrics.DRAWING_SECONDS.observe(time.perf_counter() - started)
            self._pictures.put(key, image)
        return image

    # -- work in the background ------------------------------------------------------

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background; a failure is logged, never lost."""
        task = asyncio.get_running_loop().create_task(work)
        self.background.add(task)

        def done(task: asyncio.Task[None]) -> None:
            self.background.discard(task)
            if not task.cancelled() and task.exception() is not None:
                log.error("background work failed", exc_info=task.exception())

        task.add_done_callback(done)

    async def deliver_later(self, view: View) -> None:
        """Deliver a view made outside any request to its chat (``view.chat``) through the
        outlet of its platform; dropped (and logged) where no adapter serves it."""
        outlet = self.outlets.get(view.chat[0]) if view.chat is not None else None
        if outlet is None:
            log.warning("no outlet for a view to %s", view.chat)
            return
        await outlet(view)

    async def settle(self) -> None:
        """Wait until the background work is done (tests, shutdown)."""
        while self.background:
            await asyncio.gather(*self.background, return_exceptions=True)

    # -- who and where ---------------------------------------------------------------

    async def _chat(self, place: Place, user: User | None = None) -> Chat:
        """The chat of an incoming update from ``user``; hearing from a paused chat resumes
        its games, and a group with no language yet takes the first speaker's."""
        chat = await self.storage.get_chat(place.platform, place.chat_id, place.title)
        chat.private = place.private
        if chat.paused is not None:
            await self._resume(chat)
        if not place.private and user is not None:
            chat = await group_lang.first_speaker(self.storage, chat, user)
        return chat

    async def _user(self, actor: Actor) -> User:
        return await self.storage.get_or_create_user(
            actor.platform,
            actor.user_id,
            clean_name(actor.name),
            actor.lang,
            username=clean_name(actor.username, "") if actor.username else None,
        )

    def _guarded(self, user: User) -> bool:
        """Whether the flood guard counts this user's actions (not on the console)."""
        return user.platform not in self.settings.unguarded_platforms

    def _flooding(self, user: User) -> bool:
        return self._guarded(user) and not self.limiter.allow(user.id)

    def _lang(self, user: User | None, chat: Chat | None = None, *, private: bool = True) -> str:
        """The player's language for private replies, the group's for group messages (set
        with /lang, else the one most of its players use: :mod:`bot.service.group_lang`)."""
        if not private and chat is not None and (chat.lang or chat.group_lang):
            return chat.lang or chat.group_lang or DEFAULT_LANGUAGE
        if user is not None:
            lang = user.lang or normalize_language(user.platform_lang)
            if lang:
                return lang
        if chat is not None and chat.lang:
            return chat.lang
        return DEFAULT_LANGUAGE

    def _notice(
        self, user: User | None, chat: Chat | None, text: Text, alert: bool = False
    ) -> View:
        return View([text], lang=self._lang(user, chat), notice=True, alert=alert)

    async def _guard(self, user: User, chat: Chat, work: Awaitable[list[View]]) -> list[View]:
        """Turn every expected failure into a polite notice; nothing else escapes unlogged."""
        try:
            return await work
        except UserFacingError as exc:
            return [self._notice(user, chat, exc.text)]
        except TavlaError as exc:
            return [self._notice(user, chat, error_text(exc))]
        except StaleVersionError:
            return [self._notice(user, chat, t("This board is out of date: use the newest one."))]
        except StorageError:
            log.warning("storage unavailable", exc_info=True)
            return [self._notice(user, chat, t("I couldn't save that just now. Please try again."))]

    # -- the transaction of an action ------------------------------------------------

    def _context(self, record: GameRecord) -> ActionContext:
        match = Match.from_dict(record.match or {})
        names = list(record.settings.names or ["?", "?"])
        return ActionContext(record, match, SeededDice.from_dict(record.dice), names)

    def _seat(self, record: GameRecord, user: User, game: Game | None = None) -> int:
        """The seat ``user`` acts for in ``record``. In a game against oneself (both seats
        theirs) that is the seat ``game`` waits for (:func:`acting_seat`); without ``game``,
        their first seat."""
        if user.id not in record.seats:
            raise NotYourTurnError("You are not a player in this game", ErrorCode.NOT_A_PLAYER)
        if game is not None and alone(record):
            return acting_seat(game)
        return record.seats.index(user.id)

    async def _seat_user(self, record: GameRecord, seat: int) -> User:
        user_id = record.seats[seat]
        user = await self.storage.get_user(user_id) if user_id is not None else None
        assert user is not None
        return user

    async def _commit(
        self, ctx: ActionContext, chat: Chat, user: User, *, shown: tuple[Any, ...] | None = None
    ) -> list[View]:
        """Save the action and answer with the board. ``shown``: what the picture showed
        before the action (:func:`picture_state`); when the action changed none of it (a
        move confirmed, a resignation offered), only the caption and buttons change."""
        await self._after_action_off_loop(ctx)
        async with self.storage.transaction() as tx:
            if ctx.finished:
                await self._decide_rated(tx, ctx)
            saved = await self._save(tx, ctx)
            await tx.add_events(saved.stored_id, ctx.events)
            if ctx.finished:
                await self._finish(tx, ctx)
        ctx.record = saved
        same = shown is not None and not ctx.finished and shown == picture_state(ctx.game)
        views = [await self._board(ctx, chat, edit=True, caption_only=same)]
        if ctx.finished:
            views.append(self._final_view(ctx, chat, user))
            views.extend(await self.tournaments.after_game(saved, chat))
            views.extend(await self._auto_analysis(saved, chat))
        return views

    async def _save(self, tx: Any, ctx: ActionContext) -> GameRecord:
        record = ctx.record
        expected = record.version
        record.match = ctx.match.to_dict()
        record.dice = ctx.dice.to_dict()
        record.updated = self.clock()
        record.settings = replace(record.settings, state_version=expected + 1)
        return await tx.save_game(record, expected)

    async def _save_bookkeeping(self, tx: Any, record: GameRecord) -> GameRecord:
        """Save a change the board does not show (a reminder sent, a claim offered, clocks
        moved): the board's buttons stay valid (``state_version``), and a board that was up
        to date stays so rather than counting as lagging."""
        shown = record.shown_version >= record.version
        if record.settings.state_version is None:
            record.settings = replace(record.settings, state_version=record.version)
        saved = await tx.save_game(record, record.version)
        if shown:
            assert saved.id is not None
            await self.storage.mark_board_shown(saved.id, saved.version)
        return saved

    # -- views of a game -------------------------------------------------------------

    async def _players(self, ctx: ActionContext) -> dict[int, User]:
        """The users of both seats and of the challenger (whose language a group without
        one of its own speaks), loaded once per action in one query."""
        if ctx.users is None:
            record = ctx.record
            ids = {user_id for user_id in record.seats if user_id is not None}
            ctx.users = await self.storage.get_users({*ids, record.challenger})
        return ctx.users

    async def _prefs(self, ctx: ActionContext) -> tuple[PlayerPrefs, PlayerPrefs]:
        """The two seats' own settings (the computer's are the defaults), loaded once."""
        if ctx.prefs is None:
            users = await self._players(ctx)
            found = []
            for user_id in ctx.record.seats:
                user = users.get(user_id) if user_id is not None else None
                found.append(user.prefs if user is not None else PlayerPrefs())
            ctx.prefs = (found[0], found[1])
        return ctx.prefs

    async def _board(
        self,
        ctx: ActionContext,
        chat: Chat,
        *,
        edit: bool,
        keyboard_only: bool = False,
        caption_only: bool = False,
    ) -> View:
        """The game's board. ``keyboard_only``: only the buttons changed (a checker picked);
        ``caption_only``: the text and buttons changed but no checker moved, no dice were
        rolled and the cube did not turn. Either way no picture is drawn: the adapter keeps
        the board's picture and changes the rest."""
        record, match = ctx.record, ctx.match
        assert record.id is not None
        game = match.game
        assert game is not None
        lang = self._lang(
            None if chat.lang else (await self._players(ctx)).get(record.challenger),
            chat,
            private=False,
        )
        head = caption(match, ctx.names, record.variant)
        lines = [*head[:1], *ctx.ended, *head[1:], *ctx.notes]
        limits = self.settings.keypad.get(chat.platform, DEFAULT_LIMITS)
        buttons = (
            []
            if record.status is GameStatus.ABORTED
            else game_buttons(record.id, record.version, game, ctx.selected, limits)
        )
        if record.status is GameStatus.FINISHED:
            buttons = finished_buttons(record.id, record.version)
        elif ctx.resigning is not None:
            seat, kind = ctx.resigning
            lines.append(resign_question(ctx.names, seat, kind))
            buttons = resign_buttons(record.id, record.version, seat, kind)
        # The board is drawn from the side of the seat to act (once the game is over, the
        # side it was last seen from), in that player's own style.
        seat = shown_seat(game, record.settings.computer)
        viewer = (await self._prefs(ctx))[seat]
        view = board_view(
            match,
            ctx.names,
            viewer=seat,
            selected=ctx.selected,
            theme=viewer.theme or self.settings.theme,
            lang=lang,
            home=viewer.home,
        )
        image = None
        if self.settings.render_images and not (keyboard_only or caption_only):
            image = await self._render(view, self.settings.picture_formats.get(chat.platform, PNG))
        return View(
            lines,
            lang=lang,
            image=image,
            buttons=buttons,
            game_id=record.id,
            edit=edit,
            message=record.message,
            board=view,
            version=record.version,
            keyboard_only=keyboard_only,
            caption_only=caption_only,
        )

    async def _game_lang(self, record: GameRecord, chat: Chat) -> str:
        if chat.lang:  # a group's own language wins; no need to look up the challenger
            return chat.lang
        user = await self.storage.get_user(record.challenger)
        return self._lang(user, chat, private=False)

    # -- provided by the feature modules ---------------------------------------------------
    # Declared here so that every module may call them (and mypy can check the calls).

    @abstractmethod
    async def _after_action_off_loop(self, ctx: ActionContext) -> None:
        """Let the computer act, move on, log core's events, set deadlines (play.py)."""

    @abstractmethod
    async def _decide_rated(self, tx: Any, ctx: ActionContext) -> None:
        """Whether a finished contest is rated, before its record is saved (results.py)."""

    @abstractmethod
    async def _finish(self, tx: Any, ctx: ActionContext) -> None:
        """Ratings and statistics of a finished contest (results.py)."""

    @abstractmethod
    def _final_view(self, ctx: ActionContext, chat: Chat, user: User) -> View:
        """The message that ends a contest (results.py)."""

    @abstractmethod
    async def _resume(self, chat: Chat) -> None:
        """Unpause a chat; its games' clocks restart where they stood (deadlines.py)."""

    @abstractmethod
    async def _boards_of(self, chat: Chat, records: list[GameRecord]) -> list[View]:
        """The boards of these games, shown again (chats.py)."""

    @abstractmethod
    async def _setting(
        self, user: User, chat: Chat, place: Place, arg: str, message: MessageRef | None
    ) -> list[View]:
        """A /settings button (prefs.py)."""

    @abstractmethod
    async def _group_settings(self, user: User, chat: Chat, actor: Actor) -> list[View]:
        """``/settings`` in a group (chat_settings.py)."""

    @abstractmethod
    async def _analyse_press(
        self, user: User, chat: Chat, place: Place, record: GameRecord
    ) -> list[View]:
        """The Analyse button under a finished board (analysis.py)."""

    @abstractmethod
    async def _auto_analysis(self, record: GameRecord, chat: Chat) -> list[View]:
        """A finished contest's analysis where the chat asks for every one (analysis.py)."""

    @abstractmethod
    async def _accept(self, user: User, chat: Chat, record: GameRecord) -> list[View]:
        """Accept a challenge (challenges.py)."""

    @abstractmethod
    async def _decline(self, user: User, chat: Chat, record: GameRecord) -> list[View]:
        """Decline or withdraw a challenge (challenges.py)."""

    @abstractmethod
    async def _rematch(
        self, user: User, chat: Chat, place: Place, record: GameRecord
    ) -> list[View]:
        """A new contest like a finished one (challenges.py)."""
