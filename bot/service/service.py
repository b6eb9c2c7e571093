"""The game service: commands and button presses in, views out, games kept safe in storage.

:class:`GameService` is the façade adapters talk to, and the composition root of the
service: it builds each part once, giving it the collaborators it uses by name, and routes
every command (through the one command catalogue, :mod:`bot.service.commands`) and every
button (through its action code, :mod:`bot.service.actions`) to the part that answers it:

- the shared steps: :class:`~bot.service.store.GameStore` (load a game, check who acts, save
  it), :class:`~bot.service.boards.Boards` (a board as a view, its picture drawn once),
  :class:`~bot.service.people.People` (the user and chat of an update) and
  :class:`~bot.service.contests.Contests` (an action saved with its events and answered);
- the features: :class:`~bot.service.challenges.Challenges`, :class:`~bot.service.play.Play`,
  :class:`~bot.service.results.Results`, :class:`~bot.service.deadlines.Deadlines`,
  :class:`~bot.service.info.Info`, :class:`~bot.service.prefs.Prefs`,
  :class:`~bot.service.chat_settings.ChatSettings`, :class:`~bot.service.privacy.Privacy`,
  :class:`~bot.service.chats.Chats`, :class:`~bot.service.analysis.Analysis` and
  :class:`~bot.service.tournaments.Tournaments`.

Adapters only translate their platform's updates into the calls below and the returned
:class:`View` s into messages. docs/architecture.md draws the parts and a press's path.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Collection, Coroutine
from dataclasses import replace
from typing import Any

from bot import metrics
from bot.i18n import t
from bot.storage.base import Chat, GameRecord, GameStatus, Storage, User
from core.ai import Player, player_for
from core.dice import SeededDice
from core.match import Match

from . import actions as A
from . import words as W
from .advice import Advisor
from .analysis import Analysis
from .autoplay import BUSY
from .background import Background
from .boards import DRAW_LATER, Boards
from .challenges import Challenges
from .chat_settings import ChatSettings, is_chat_setting
from .chats import Chats
from .commands import clashing_arguments, find_command, unknown_argument
from .compiling import start_worker
from .contests import Contests
from .daily import DailyPuzzles
from .deadlines import Deadlines
from .errors import UserFacingError
from .hints import Hints
from .info import Info
from .lang import language, notice
from .lessons import Lessons
from .limits import RateLimiter, clean_name
from .mining import Mining
from .people import People, guarded
from .play import Play
from .pool import COMPUTER, Pool
from .pool_asks import Asks
from .pool_counts import CountEdits
from .pool_games import PoolGames
from .pool_views import OPEN
from .prefs import Prefs
from .privacy import Privacy, is_privacy_button
from .puzzles import Puzzles
from .results import Results
from .seats import Seats
from .settings import ServiceSettings
from .store import GameStore, acting_seat
from .strangers import Strangers
from .tournaments import Tournaments
from .turns import Turns
from .tutor import Tutor
from .views import BOARD_HERE, Actor, MessageRef, Place, View

SLOW_DOWN = t("Not so fast, please: wait a few seconds and try again.")

Handler = Callable[..., Awaitable[list[View]]]


class Clock:
    """The service's time, read by every part: what :attr:`source` says (tests wind it by
    giving the service another clock)."""

    def __init__(self, source: Callable[[], float]) -> None:
        self.source = source

    def __call__(self) -> float:
        return self.source()


class GameService:
    """The platform-neutral application: the façade adapters call, and the composition root
    that builds the service's parts."""

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
        self.settings = settings = settings or ServiceSettings()
        self._clock = now = Clock(clock)
        # Who may act how often (the flood guard, see :meth:`press`), by the clock given.
        self.limiter = RateLimiter(settings.burst_actions, settings.burst_window, clock)
        self.idle_limiter = RateLimiter(settings.idle_actions, settings.idle_window, clock)
        # One "Not so fast" a window per user; refusals after it are quiet (View.quiet).
        self.warned = RateLimiter(1, settings.burst_window, clock)
        # The shared steps.
        self.store = store = GameStore(storage, now)
        self.people = people = People(storage, store)
        self.boards = boards = Boards(settings, store)
        self.background = background = Background(boards.drawn)
        # The features, each given what it uses.
        self.tournaments = tournaments = Tournaments(storage, people, now, settings)
        self.analysis = analysis = Analysis(storage, store, now, settings, background)
        self.turns = turns = Turns(store, computer or player_for, now, settings)
        self.results = results = Results(now, settings, tournaments)
        self.mining = mining = Mining(
            storage, background, now, settings.advice_processes, settings.game_puzzles
        )
        self.contests = contests = Contests(
            storage, store, boards, turns, results, tournaments, analysis, mining, dice_factory
        )
        # A tournament's finished match starts its next ones, which end through the
        # contests: the one edge that has to be handed over once both parts exist.
        tournaments.starting_with(contests)
        self.challenges = Challenges(storage, store, boards, contests, people, settings, now)
        self.lessons = Lessons(storage, store, self.challenges.computer_game)
        # Below the bot's own work, as the mining's: the presses come first; the tutor's
        # verdicts, which nobody asked for, then wait and are skipped (Advisor.advisory).
        self.advisor = Advisor(settings.advice_processes, initializer=start_worker)
        self.tutor = Tutor(
            storage, store, self.advisor, settings.tutor_first_games, settings.tutor_wait
        )
        self.play = Play(
            storage, store, boards, contests, tournaments, now, settings.double_press, self.tutor
        )
        self.deadlines = Deadlines(storage, store, boards, contests, tournaments, settings, now)
        self.chats = Chats(storage, store, boards, now)
        self.info = Info(storage, people, settings)
        self.chat_settings = ChatSettings(storage, now)
        self.prefs = Prefs(storage, settings, self.chat_settings)
        self.privacy = Privacy(storage, now)
        # Games in two chats (the pool's) and the pool itself.
        self.seats = seats = Seats(storage, store, boards, settings, background, now)
        pool_games = PoolGames(storage, contests, seats, now)
        self.strangers = strangers = Strangers(storage, seats, now)
        counts = CountEdits(storage, background, now)
        asks = Asks(storage, pool_games, seats, counts, now)
        self.pool = Pool(storage, pool_games, asks, counts, store, boards, settings, now)
        self.hints = Hints(storage, store, boards, self.advisor)
        self.puzzles = Puzzles(storage, boards, settings, now)
        self.daily = DailyPuzzles(storage, self.puzzles, now)
        #: Each catalogue command's handler, by the command's name (see commands.py).
        self.handlers: dict[str, Handler] = {
            "help": self.info.help,
            "rules": self.info.rules,
            "tavla": self.challenges.challenge,
            "uzun": self.challenges.challenge,
            "nardy": self.challenges.challenge,
            "bot": self.challenges.bot_game,
            "play": self.pool.play,
            "games": self.pool.games,
            "block": strangers.block,
            "report": strangers.report,
            "say": strangers.say,
            "move": self._move_command,
            "resign": self.play.resign,
            "abort": self.play.abort,
            "claim": self.play.claim,
            "top": self.info.top,
            "stats": self.info.stats,
            "export": self.info.export,
            "analyse": self.analysis.command,
            "dice": self.info.dice,
            "lang": self.info.set_lang,
            "board": self.play.show_board,
            "resettop": self.info.reset_top,
            "tournament": self.tournaments.command,
            "settings": self.prefs.command,
            "privacy": self.privacy.privacy,
            "forget": self.privacy.forget,
            "hint": self.hints.command,
            "puzzle": self.puzzles.command,
            "learn": self.lessons.command,
        }

    # -- the service's own ---------------------------------------------------------------

    @property
    def clock(self) -> Callable[[], float]:
        """The time every part reads."""
        return self._clock

    @clock.setter
    def clock(self, source: Callable[[], float]) -> None:
        self._clock.source = source

    @property
    def outlets(self) -> dict[str, Callable[[View], Awaitable[None]]]:
        """How views made outside any request reach their chat, by platform (registered by
        :class:`bot.service.runner.DeadlineRunner`)."""
        return self.background.outlets

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background; a failure is logged, never lost."""
        self.background.spawn(work)

    async def deliver_later(self, view: View) -> None:
        """Deliver a view made outside any request to its chat (``view.chat``)."""
        await self.background.deliver_later(view)

    async def settle(self) -> None:
        """Wait until the background work is done (tests, shutdown)."""
        await self.background.settle()

    def warm(self) -> None:
        """Start now what a first player would otherwise wait for: the drawing's fonts and
        pieces, and the advice process (hints, the tutor's verdicts)."""
        self.boards.warm()
        self.advisor.warm()

    def close(self) -> None:
        """Stop the drawing processes or the drawing thread, and the advice and puzzle
        workers, if any."""
        self.boards.close()
        self.advisor.close()
        self.mining.close()

    # -- entry points ------------------------------------------------------------------

    async def command(
        self,
        actor: Actor,
        place: Place,
        name: str,
        args: str = "",
        *,
        mentions: list[Actor] | None = None,
        reply_to_game: int | None = None,
        replied_to: MessageRef | None = None,
    ) -> list[View]:
        """A slash command (without the slash), with its argument text; ``reply_to_game``:
        the game whose board it replies to, ``replied_to``: the bot's message it replies to
        (a group's puzzle of the day takes ``/move`` in reply to it)."""
        spec = find_command(name)
        metrics.COMMANDS.labels(spec.name if spec is not None else "unknown").inc()
        handler = self.handlers[spec.name] if spec is not None else None
        user = await self.people.user(actor)
        chat = await self.people.chat(place, user)
        if self._flooding(user):
            return [self._slow_down(user, chat)]
        if handler is None:
            return [notice(user, chat, t("I don't know that command. /help lists them."))]
        word = spec.args.unknown(args) if spec is not None else None
        if spec is not None and word is not None:
            return [notice(user, chat, unknown_argument(spec, word))]
        if spec is not None and not spec.args.free and (pair := W.clash(args)) is not None:
            return [notice(user, chat, clashing_arguments(spec, *pair))]
        views = await guarded(
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
                replied_to=replied_to,
                actor=actor,
            ),
        )
        return await self._answered(user, place, views)

    async def _answered(self, user: User, place: Place, views: list[View]) -> list[View]:
        """The answer to ``user`` in ``place``: each seat's copy of a game in two chats; and
        a pool game held until this player's game against the computer ended started, once
        it has (in the background)."""
        if user.id in self.pool.asks.after_pending:
            self.spawn(self.pool.asks.after_game(user.id))
        return await self.seats.answer(user, place, views)

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
        user = await self.people.user(actor)
        chat = await self.people.chat(place)
        if self._flooding(user):
            return [notice(user, chat, SLOW_DOWN)]
        first, second = sides or (f"{user.name} (1)", f"{user.name} (2)")
        names = (clean_name(first), clean_name(second))
        variant = "tavla" if spec.name == "tavla" else "uzun"
        work = self.challenges.solo_game(user, chat, place, variant, args, names)
        return await guarded(user, chat, work)

    async def press(
        self,
        actor: Actor,
        place: Place,
        data: str,
        *,
        message: MessageRef | None = None,
        draw: bool = True,
        busy: bool = False,
    ) -> list[View]:
        """A button press with its action id; ``message`` is the message pressed on, in the
        form the adapter binds boards (see :meth:`board_shown`). ``draw=False``: the boards'
        pictures are left to the caller, who draws them with :meth:`drawn` when it sends
        them (``View.picture_due``), so that it can answer the press first. ``busy``: the
        chat cannot keep up with its platform's limits; the turn costs it fewer messages
        (see bot/service/autoplay.py).

        Presses that change nothing (refused, or on a board behind its game) are answered
        from a separate allowance, so they never slow a player down."""
        metrics.PRESSES.labels(_press_kind(self, data)).inc()
        later, crowded = DRAW_LATER.set(not draw), BUSY.set(busy)
        try:
            with metrics.PRESS_SECONDS.time():
                return await self._answer_press(actor, place, data, message)
        finally:
            DRAW_LATER.reset(later)
            BUSY.reset(crowded)

    async def drawn(self, view: View) -> View:
        """``view`` with its picture drawn, if it was left due (see :meth:`press`)."""
        return await self.boards.drawn(view)

    async def _answer_press(
        self, actor: Actor, place: Place, data: str, message: MessageRef | None
    ) -> list[View]:
        user = await self.people.user(actor)
        chat = await self.people.chat(place, user)
        if self._guarded(user) and not (
            self.limiter.has(user.id) and self.idle_limiter.has(user.id)
        ):
            return [self._slow_down(user, chat)]
        if self.tournaments.owns(data):  # a tournament card's Join / Leave / Start
            self.limiter.allow(user.id)
            work = self.tournaments.press(user, chat, place, actor, data, message)
            return await guarded(user, chat, work)
        if is_privacy_button(data):  # /forget's confirmation
            self.limiter.allow(user.id)
            return await guarded(user, chat, self.privacy.press(user, chat, data, message))
        action = A.decode(data)
        if action is None:
            self.idle_limiter.allow(user.id)
            return [notice(user, chat, t("That button is not one of mine."))]
        if is_chat_setting(data):  # a chat's settings: its administrators only
            self.limiter.allow(user.id)
            work = self.chat_settings.press(user, chat, place, actor, action.arg, message)
            return await guarded(user, chat, work)
        views = await guarded(user, chat, self._route(user, chat, place, action, message))
        if all(v.notice or v.repair for v in views):
            self.idle_limiter.allow(user.id)
        else:
            self.limiter.allow(user.id)
        return await self._answered(user, place, views)

    async def _route(
        self, user: User, chat: Chat, place: Place, action: A.Action, message: MessageRef | None
    ) -> list[View]:
        """A button of ours, to the part its action code belongs to."""
        if action.code == A.SETTING:
            return await self.prefs.press(user, chat, place, action.arg, message)
        if action.code == A.POOL:
            if action.arg == COMPUTER:  # while waiting in the pool: the computer meanwhile
                return await self.challenges.bot_game(user=user, chat=chat, place=place, args="")
            if action.arg == "k" or action.arg.startswith("s"):  # a phrase, a block
                return await self.strangers.press(user, chat, action)
            if action.arg == OPEN:  # a game under /games
                return await self.pool.open_board(user, chat, place, action.game_id)
            return await self.pool.press(user, chat, action)
        if action.code == A.PUZZLE:
            if not place.private:  # a group's puzzle of the day
                return await self.daily.press(user, chat, action)
            return await self.puzzles.press(user, chat, action)
        record = await self.storage.get_game(action.game_id)
        if record is None or (
            (record.platform, record.chat_id) != (place.platform, place.chat_id)
            and not await self.seats.plays_in(record.stored_id, place, user)
        ):
            raise UserFacingError(t("I can't find that game."))
        if await self.seats.others_board(record.stored_id, user, message):
            raise UserFacingError(t("That board is your opponent's: press your own."))
        if action.code in (A.ACCEPT, A.DECLINE):
            return await self.challenges.press(user, chat, action.code, record, action.version)
        if action.code == A.REMATCH:
            return await self.challenges.rematch(user, chat, place, record)
        if action.code == A.ANALYSE:
            return await self.analysis.press(user, chat, place, record)
        if action.code == A.HINT:
            return await self.hints.press(user, chat, record)
        if action.code in (A.HINT_YES, A.HINT_NO):
            return await self.hints.answer(user, chat, record, action.code == A.HINT_YES)
        return await self.play.press(user, chat, record, action, message)

    async def text(
        self,
        actor: Actor,
        place: Place,
        text: str,
        *,
        reply_to_game: int | None = None,
        replied_to: MessageRef | None = None,
    ) -> list[View]:
        """A plain message: a typed move in a private chat or in reply to a board, or a play
        in reply to a group's puzzle of the day (``replied_to``: the bot's message replied
        to). Other messages in a group are the group's talk: not answered."""
        user = await self.people.user(actor)
        chat = await self.people.chat(place, user)
        daily = None
        if not place.private and reply_to_game is None:
            daily = await self.daily.posted_as(chat, replied_to) if replied_to else None
            if daily is None:
                return []
        if self._flooding(user):
            return [self._slow_down(user, chat)]
        if daily is not None:
            work = self.daily.typed(user, chat, daily, text, quiet=True)
        else:
            work = self._typed_move(user, chat, text, reply_to_game, quiet=not place.private)
        views = await guarded(user, chat, work)
        return await self._answered(user, place, views)

    async def _move_command(
        self,
        *,
        user: User,
        chat: Chat,
        args: str,
        reply_to_game: int | None,
        replied_to: MessageRef | None,
        **_: Any,
    ) -> list[View]:
        """``/move 13/8 6/5``: a typed move, to the open puzzle or the game (_typed_move), or
        in reply to a group's puzzle of the day, its answer."""
        if not args.strip():
            return await self.play.move_command(
                user=user, chat=chat, args=args, reply_to_game=reply_to_game
            )
        if not chat.private and reply_to_game is None and replied_to is not None:
            daily = await self.daily.posted_as(chat, replied_to)
            if daily is not None:
                return await self.daily.typed(user, chat, daily, args, quiet=False)
        return await self._typed_move(user, chat, args, reply_to_game, quiet=False)

    async def _typed_move(
        self, user: User, chat: Chat, text: str, reply_to_game: int | None, *, quiet: bool
    ) -> list[View]:
        """A typed move: the answer to the puzzle open in this private chat while it is the
        thing on the player's screen (/puzzle, then "24/18 13/11"; see Puzzles.open_here),
        else a move in the game."""
        puzzle_id = await self.puzzles.open_here(user, chat) if reply_to_game is None else None
        if puzzle_id is not None:
            answered = await self.puzzles.typed(user, chat, text, puzzle_id)
            if answered is not None:
                return answered
        return await self.play.move(user, chat, text, reply_to_game, quiet=quiet)

    async def tick(self, platforms: Collection[str] | None = None) -> list[View]:
        """The deadline rounds (:meth:`bot.service.deadlines.Deadlines.tick`): expired
        challenges, reminders, claims offered, lagging boards redrawn, tournaments' clocks;
        open puzzles past their time forgotten. Run often, and once at start-up
        (bot/service/runner.py does). Then the groups' daily puzzles and their answers due."""
        views = await self.deadlines.tick(platforms)
        views.extend(await self.pool.tick(platforms))
        await self.puzzles.tidy()
        return await self.seats.addressed(views) + await self.daily.tick(platforms)

    async def chat_unreachable(self, platform: str, chat_id: str) -> None:
        """The bot can no longer post in the chat: its games wait with their clocks stopped."""
        await self.chats.chat_unreachable(platform, chat_id)

    async def chat_reachable(self, place: Place) -> list[View]:
        """The bot may post in the chat again: its games resume, their boards shown."""
        return await self.chats.chat_reachable(place)

    async def chat_moved(self, platform: str, old_chat_id: str, new_chat_id: str) -> list[View]:
        """The chat got a new id: its games, language and leaderboard move with it."""
        return await self.chats.chat_moved(platform, old_chat_id, new_chat_id)

    # -- the flood guard ---------------------------------------------------------------

    def _guarded(self, user: User) -> bool:
        """Whether the flood guard counts this user's actions (not on the console)."""
        return user.platform not in self.settings.unguarded_platforms

    def _flooding(self, user: User) -> bool:
        return self._guarded(user) and not self.limiter.allow(user.id)

    def _slow_down(self, user: User, chat: Chat) -> View:
        """The flood guard's "Not so fast": said once a window, then quiet (a flood's every
        refused message answered with a chat message of its own would queue behind the
        chat's flood limit; where an answer is due anyway, a press's, it is still shown)."""
        said = notice(user, chat, SLOW_DOWN)
        if not self.warned.allow(user.id):
            said = replace(said, quiet=True)
        return said

    # -- what adapters may ask (they never read storage themselves) --------------------

    async def ready(self) -> bool:
        """Whether the database answers (``/readyz``); raises when it does not."""
        await self.storage.ping()
        return True

    async def refresh_metrics(self) -> None:
        """Figures read from the database, before a scrape of ``/metrics``."""
        metrics.ACTIVE_GAMES.set(await self.storage.count_games((GameStatus.ACTIVE,)))

    async def bind_message(self, game_id: int, message: MessageRef) -> None:
        """Remember where a game's board was posted, so later views can edit it."""
        if await self.seats.board_shown(game_id, 0, message):
            return  # a game in two chats: each seat's board is its own
        await self.storage.set_game_message(game_id, message)

    async def board_shown(
        self,
        game_id: int,
        version: int,
        message: MessageRef | None = None,
        *,
        shown_in: MessageRef | None = None,
    ) -> None:
        """The adapter showed the board of ``version`` (a view's ``version``), in ``message``
        when it was posted anew; ``shown_in``: the message it edited, when the adapter knows
        it (a game played in two chats tells each chat's board by it). Boards never
        confirmed are redrawn by :meth:`tick`."""
        if await self.seats.board_shown(game_id, version, message, shown_in):
            return  # a game in two chats: each seat's board is its own
        await self.storage.mark_board_shown(game_id, version, message)

    async def game_of_message(self, platform: str, message: MessageRef) -> int | None:
        """The game whose board is ``message`` (for replies to a board)."""
        for record in await self.storage.games_in_chat(platform, message.chat_id or ""):
            if record.message is not None and record.message.same_message(message):
                return record.id
        return None

    async def full_board(self, game_id: int) -> View | None:
        """The game's board with its picture, to post anew where a lighter view (one that
        changes only the caption or the buttons) could not be applied: the message is gone."""
        record = await self.storage.get_game(game_id)
        if record is None:
            return None
        chat = await self.storage.get_chat(record.platform, record.chat_id)
        (view,) = await self.boards.boards_of(chat, [record])
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

    async def language_of(self, actor: Actor, place: Place) -> str:
        """The language ``actor`` reads in ``place`` (what ``/lang`` set, else their
        platform's): for an adapter's own words, such as the console's prompts."""
        user = await self.people.user(actor)
        chat = await self.people.chat(place, user)
        return language(user, chat, private=place.private)

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
