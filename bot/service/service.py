"""The game service: commands and button presses in, views out, games kept safe in storage.

Every state change follows design.md: one transaction loads the game, checks the version the
action was made against, applies the action through core, saves the game with its events and
commits. Pictures are rendered after the commit, off the event loop. Adapters only translate
their platform's updates into the calls below and the returned :class:`View` s into messages.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.drawing import DrawingPool
from bot.i18n import DEFAULT_LANGUAGE, LANGUAGE_NAMES, Text, normalize_language, t
from bot.storage.base import (
    Chat,
    GameRecord,
    GameStatus,
    ResultRow,
    StaleVersionError,
    Storage,
    StorageError,
    User,
)
from core.ai import Player, player_for
from core.ai.cube import CubeState
from core.dice import SeededDice, verify_game_rolls
from core.errors import NotationError, NotYourTurnError, TavlaError
from core.game import Game, Phase, ResultKind
from core.gnubg import position_id
from core.match import Match
from core.ratings import Rating, update_ratings
from core.variants import variant_by_name
from renderers.picture import JPEG, PNG, PictureCache, picture_key, render_picture
from renderers.text import render_text
from renderers.view import BoardView

from . import actions as A
from .errors import error_text
from .export import export_match
from .limits import RateLimiter, clean_name
from .presenter import VARIANT_NAMES, board_view, caption, game_buttons
from .tournaments import Tournaments
from .views import Button, View

log = logging.getLogger(__name__)

DAY = 24 * 3600.0
SLOW_DOWN = t("Not so fast, please: wait a few seconds and try again.")
BOARD_REPAIRED = t("That board was behind the game: it now shows the game as it stands.")
BOARD_JUST_CHANGED = t("The board has just changed: look again.")
BOARD_OLD = t("That is an old board: your game goes on in the current one.")
BOARD_HERE = t("⬆️ Your game's current board is here.")


@dataclass(frozen=True)
class Actor:
    """Who acts: a platform user as the adapter sees them."""

    platform: str
    user_id: str
    name: str
    username: str | None = None
    lang: str | None = None
    #: Whether the platform says this user administers the chat (for admin-only commands).
    admin: bool = False


@dataclass(frozen=True)
class Place:
    """Where: a chat (Telegram) or channel (Discord)."""

    platform: str
    chat_id: str
    private: bool = False
    title: str | None = None


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


class UserFacingError(Exception):
    """An expected refusal, shown to the player as a notice."""

    def __init__(self, text: Text) -> None:
        super().__init__(text.msgid)
        self.text = text


@dataclass
class _Context:
    """One action on one game, inside its transaction."""

    record: GameRecord
    match: Match
    dice: SeededDice
    names: list[str]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    notes: list[Text] = field(default_factory=list)
    selected: int | None = None
    finished: bool = False

    @property
    def game(self) -> Game:
        assert self.match.game is not None
        return self.match.game


class GameService:
    """The platform-neutral application."""

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
        self._pictures = PictureCache(self.settings.picture_cache_bytes)
        self._render_pool: DrawingPool | None = None
        if self.settings.render_processes > 0 and DrawingPool.supported:
            self._render_pool = DrawingPool(self.settings.render_processes)
        self.tournaments = Tournaments(self)

    async def _render(self, view: BoardView, fmt: str = PNG) -> bytes:
        """The board picture as ``fmt``: from the cache, or drawn off the event loop."""
        key = picture_key(view, fmt)
        image = self._pictures.get(key)
        if image is None:
            if self._render_pool is None:
                image = await asyncio.to_thread(render_picture, view, fmt)
            else:
                image = await self._render_pool.draw(view, fmt)
            self._pictures.put(key, image)
        return image

    def close(self) -> None:
        """Stop the drawing processes, if any."""
        if self._render_pool is not None:
            self._render_pool.close()
            self._render_pool = None

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
    ) -> list[View]:
        """A slash command (without the slash), with its argument text."""
        handlers: dict[str, Callable[..., Awaitable[list[View]]]] = {
            "start": self._help,
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
            "dice": self._dice,
            "lang": self._set_lang,
            "board": self._show_board,
            "resettop": self._reset_top,
            "tournament": self.tournaments.command,
        }
        handler = handlers.get(name.lower())
        user = await self._user(actor)
        chat = await self._chat(place)
        if self._flooding(user):
            return [self._notice(user, chat, SLOW_DOWN)]
        if handler is None:
            return [self._notice(user, chat, t("I don't know that command. /help lists them."))]
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

    async def press(
        self, actor: Actor, place: Place, data: str, *, message: dict[str, Any] | None = None
    ) -> list[View]:
        """A button press with its action id; ``message`` is the message pressed on, in the
        form the adapter binds boards (see :meth:`board_shown`).

        Presses that change nothing (refused, or on a board behind its game) are answered
        from a separate allowance, so they never slow a player down."""
        user = await self._user(actor)
        chat = await self._chat(place)
        if not (self.limiter.has(user.id) and self.idle_limiter.has(user.id)):
            return [self._notice(user, chat, SLOW_DOWN)]
        if self.tournaments.owns(data):  # a tournament card's Join / Leave / Start
            self.limiter.allow(user.id)
            work = self.tournaments.press(user, chat, place, actor, data, message)
            return await self._guard(user, chat, work)
        action = A.decode(data)
        if action is None:
            self.idle_limiter.allow(user.id)
            return [self._notice(user, chat, t("That button is not one of mine."))]
        views = await self._guard(user, chat, self._press(user, chat, place, action, message))
        if all(v.notice or v.repair for v in views):
            self.idle_limiter.allow(user.id)
        else:
            self.limiter.allow(user.id)
        return views

    async def text(
        self, actor: Actor, place: Place, text: str, *, reply_to_game: int | None = None
    ) -> list[View]:
        """A plain message: a typed move in a private chat or in reply to a board."""
        user = await self._user(actor)
        chat = await self._chat(place)
        if not place.private and reply_to_game is None:
            return []
        if self._flooding(user):
            return [self._notice(user, chat, SLOW_DOWN)]
        return await self._guard(
            user, chat, self._move(user, chat, text, reply_to_game, quiet=not place.private)
        )

    async def bind_message(self, game_id: int, message: dict[str, Any]) -> None:
        """Remember where a game's board was posted, so later views can edit it."""
        await self.storage.set_game_message(game_id, message)

    async def board_shown(
        self, game_id: int, version: int, message: dict[str, Any] | None = None
    ) -> None:
        """The adapter showed the board of ``version`` (a view's ``version``), in ``message``
        when it was posted anew. Boards never confirmed are redrawn by :meth:`tick`."""
        await self.storage.mark_board_shown(game_id, version, message)

    async def chat_unreachable(self, platform: str, chat_id: str) -> None:
        """The bot can no longer post in the chat (removed, muted, chat deleted): its games
        wait, with their clocks stopped, until the chat is heard from again."""
        await self.storage.set_chat_paused(platform, str(chat_id), self.clock())
        log.info("chat %s:%s is unreachable; its games wait", platform, chat_id)

    async def chat_reachable(self, place: Place) -> list[View]:
        """The bot may post in the chat again (added back, rights restored): resume."""
        chat = await self.storage.get_chat(place.platform, place.chat_id, place.title)
        if chat.paused is None:
            return []
        await self._resume(chat)
        games = await self.storage.games_in_chat(chat.platform, chat.chat_id, (GameStatus.ACTIVE,))
        return await self._boards_of(chat, games)

    async def chat_moved(self, platform: str, old_chat_id: str, new_chat_id: str) -> list[View]:
        """The chat got a new id (a Telegram group became a supergroup): move its games,
        language and leaderboard, and post the boards of its games in the new chat."""
        old_chat_id, new_chat_id = str(old_chat_id), str(new_chat_id)
        if old_chat_id == new_chat_id:
            return []
        await self.storage.move_chat(platform, old_chat_id, new_chat_id)
        new_scope = f"{platform}:{new_chat_id}"
        moved = []
        for record in await self.storage.games_in_chat(platform, old_chat_id):
            assert record.id is not None
            async with self.storage.transaction() as tx:
                fresh = await tx.get_game(record.id)
                if fresh is None or fresh.chat_id != old_chat_id:
                    continue  # moved already (Telegram announces a move in both chats)
                fresh.chat_id = new_chat_id
                fresh.message = None  # the old chat's messages are gone with it
                if fresh.settings.get("scope") == f"{platform}:{old_chat_id}":
                    fresh.settings["scope"] = new_scope
                moved.append(await tx.save_game(fresh, fresh.version))
        log.info("chat %s:%s moved to %s", platform, old_chat_id, new_chat_id)
        chat = await self.storage.get_chat(platform, new_chat_id)
        return await self._boards_of(chat, [r for r in moved if r.status is GameStatus.ACTIVE])

    async def _boards_of(self, chat: Chat, records: list[GameRecord]) -> list[View]:
        """The boards of these games, shown again (after a move or a pause): edited where
        the message is known, posted anew where it is not."""
        views = []
        for record in records:
            view = await self._board(self._context(record), chat, edit=record.message is not None)
            view.chat = (chat.platform, chat.chat_id)
            views.append(view)
        return views

    async def game_of_message(self, platform: str, message: dict[str, Any]) -> int | None:
        """The game whose board is ``message`` (for replies to a board)."""
        chat_id = str(message.get("chat_id", ""))
        for record in await self.storage.games_in_chat(platform, chat_id):
            if record.message and record.message.get("message_id") == message.get("message_id"):
                return record.id
        return None

    async def tick(self) -> list[View]:
        """Deadlines: expire old challenges, remind slow players, offer claims; and boards
        that lag their game (the bot stopped between a save and its edit, an edit failed)
        redrawn. Run often, and once at start-up."""
        now = self.clock()
        views: list[View] = await self._repairs(now)
        longest = max(self.settings.turn_limit, self.settings.fast_turn_limit)
        lead = longest * (1 - self.settings.reminder_at)
        for record in await self.storage.due_games(now, lead):
            try:
                views.extend(await self._tick_game(record, now))
            except StaleVersionError:
                continue  # someone acted meanwhile; the next tick will see the new state
            except StorageError:
                log.warning("tick: storage unavailable for game %s", record.id, exc_info=True)
        views.extend(await self.tournaments.tick(now))
        return views

    async def _repairs(self, now: float) -> list[View]:
        """Board views for games whose board message shows an older version."""
        views = []
        settings = self.settings
        try:
            lagging = await self.storage.lagging_boards(
                now - settings.repair_after, now - settings.repair_within, settings.repair_batch
            )
        except StorageError:
            log.warning("tick: storage unavailable for board repairs", exc_info=True)
            return []
        for record in lagging:
            chat = await self.storage.get_chat(record.platform, record.chat_id)
            views.extend(await self._boards_of(chat, [record]))
        return views

    # -- plumbing ----------------------------------------------------------------------

    async def _chat(self, place: Place) -> Chat:
        """The chat of an incoming update; hearing from a paused chat resumes its games."""
        chat = await self.storage.get_chat(place.platform, place.chat_id, place.title)
        if chat.paused is not None:
            await self._resume(chat)
        return chat

    async def _resume(self, chat: Chat) -> None:
        """Unpause the chat; its games' clocks restart where they stood."""
        paused, now = chat.paused, self.clock()
        chat.paused = None
        await self.storage.set_chat_paused(chat.platform, chat.chat_id, None)
        if paused is None:
            return
        for record in await self.storage.games_in_chat(
            chat.platform, chat.chat_id, (GameStatus.ACTIVE,)
        ):
            if record.deadline is None:
                continue
            try:
                async with self.storage.transaction() as tx:
                    fresh = await tx.get_game(record.stored_id)
                    if fresh is None or fresh.deadline is None:
                        continue
                    fresh.deadline += max(0.0, now - paused)
                    await self._save_bookkeeping(tx, fresh)
            except StaleVersionError:
                continue
        log.info("chat %s:%s is reachable again", chat.platform, chat.chat_id)

    async def _user(self, actor: Actor) -> User:
        return await self.storage.get_or_create_user(
            actor.platform,
            actor.user_id,
            clean_name(actor.name),
            actor.lang,
            username=clean_name(actor.username, "") if actor.username else None,
        )

    def _flooding(self, user: User) -> bool:
        return not self.limiter.allow(user.id)

    def _lang(self, user: User | None, chat: Chat | None = None, *, private: bool = True) -> str:
        """The player's language for private replies, the chat's for group messages."""
        if not private and chat is not None and chat.lang:
            return chat.lang
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

    # -- challenges --------------------------------------------------------------------

    async def _challenge(
        self,
        *,
        user: User,
        chat: Chat,
        place: Place,
        name: str,
        args: str,
        mentions: list[Actor],
        **_: Any,
    ) -> list[View]:
        variant = "tavla" if name == "tavla" else "uzun"
        length = 1
        fast = False
        opponent: User | None = None
        for word in args.split():
            low = word.casefold()
            if low.isascii() and low.isdigit():
                length = int(low)
            elif (
                low in ("turkish", "türk", "turk", "turkce", "türkçe", "geleneksel")
                and variant == "tavla"
            ):
                variant = "turkish"
            elif low in ("fast", "hızlı", "hizli", "быстро", "blitz"):
                fast = True
            elif low.startswith("@") or word in {m.name for m in mentions}:
                found = await self.storage.find_user(place.platform, low.lstrip("@"))
                if found is None:
                    raise UserFacingError(
                        t("I don't know {name} yet: they need to write to me once.", name=word)
                    )
                opponent = found
            else:
                raise UserFacingError(
                    t(
                        "I didn't understand “{word}”. Try /tavla, /tavla @name 5 or /uzun.",
                        word=word,
                    )
                )
        for mention in mentions:
            opponent = await self._user(mention)
        self._check_length(length)
        if opponent is not None and opponent.id == user.id:
            raise UserFacingError(t("You can't challenge yourself. Try /bot to play the computer."))
        now = self.clock()
        record = GameRecord(
            platform=place.platform,
            chat_id=place.chat_id,
            variant=variant,
            status=GameStatus.CHALLENGE,
            seats=[user.id, opponent.id if opponent else None],
            challenger=user.id,
            settings={"length": length, "fast": fast, "scope": chat.scope},
            deadline=now + self.settings.challenge_ttl,
            created=now,
            updated=now,
        )
        async with self.storage.transaction() as tx:
            record = await tx.insert_game(record)
            await tx.add_events(record.id, [("challenge", {"by": user.id, "to": record.seats[1]})])
        return [self._challenge_view(record, user, opponent, chat)]

    def _check_length(self, length: int) -> None:
        if not 1 <= length <= self.settings.max_match_length:
            raise UserFacingError(
                t("A match can be 1 to {n} points long.", n=self.settings.max_match_length)
            )

    def _challenge_view(
        self, record: GameRecord, user: User, opponent: User | None, chat: Chat
    ) -> View:
        assert record.id is not None
        length = record.settings["length"]
        contest = t("one game") if length == 1 else t("a match to {n}", n=length)
        title = VARIANT_NAMES[record.variant]
        if opponent is None:
            line = t(
                "{name} wants to play {title} ({contest}). Who accepts?",
                name=user.name,
                title=title,
                contest=contest,
            )
        else:
            line = t(
                "{name} challenges {other} to {title} ({contest}).",
                name=user.name,
                other=opponent.name,
                title=title,
                contest=contest,
            )
        lines: list[Text | str] = [line]
        if record.settings.get("fast"):
            lines.append(
                t("Fast game: {m} minutes per move.", m=int(self.settings.fast_turn_limit // 60))
            )
        buttons = [
            [
                Button(t("Accept"), A.encode(record.id, record.version, A.ACCEPT)),
                Button(t("Decline"), A.encode(record.id, record.version, A.DECLINE)),
            ]
        ]
        return View(
            lines, lang=self._lang(user, chat, private=False), buttons=buttons, game_id=record.id
        )

    async def _accept(self, user: User, chat: Chat, record: GameRecord) -> list[View]:
        if record.status is not GameStatus.CHALLENGE:
            raise UserFacingError(t("This challenge is no longer open."))
        if user.id == record.challenger:
            raise UserFacingError(t("That is your own challenge: wait for an opponent."))
        if record.seats[1] is not None and record.seats[1] != user.id:
            raise UserFacingError(t("This challenge is for someone else."))
        challenger = await self.storage.get_user(record.challenger)
        assert challenger is not None
        record.seats = [record.challenger, user.id]
        record.rated = True
        return await self._start(record, [challenger.name, user.name], chat, user, new=False)

    async def _bot_game(
        self, *, user: User, chat: Chat, place: Place, args: str, **_: Any
    ) -> list[View]:
        variant = "tavla"
        level = "club"
        length = 1
        for word in args.split():
            low = word.casefold()
            if low in ("uzun", "nardy", "нарды"):
                variant = "uzun"
            elif low in ("turkish", "türk", "turk"):
                variant = "turkish"
            elif low.isascii() and low.isdigit():
                length = int(low)
            elif low in ("beginner", "club", "expert", "master", "random"):
                level = low
        self._check_length(length)
        computer = await self.storage.computer_user(place.platform)
        now = self.clock()
        record = GameRecord(
            platform=place.platform,
            chat_id=place.chat_id,
            variant=variant,
            status=GameStatus.CHALLENGE,
            seats=[user.id, computer.id],
            challenger=user.id,
            settings={
                "length": length,
                "fast": False,
                "scope": chat.scope,
                "computer": 1,
                "level": level,
            },
            created=now,
            updated=now,
        )
        name = f"{computer.name} ({level})"
        return await self._start(record, [user.name, name], chat, user, new=True)

    async def _start(
        self, record: GameRecord, names: list[str], chat: Chat, user: User, *, new: bool
    ) -> list[View]:
        """Begin the contest of a challenge: seed the dice, open the first game, save."""
        dice = self.dice_factory()
        variant = variant_by_name(record.variant)
        match = Match(variant, length=record.settings["length"])
        record.commitment = dice.commitment
        record.status = GameStatus.ACTIVE
        record.settings["names"] = names
        ctx = _Context(record, match, dice, names)
        match.start_game(dice)
        ctx.events.append(("start", {"commitment": dice.commitment, "seats": record.seats}))
        await self._after_action_off_loop(ctx)
        async with self.storage.transaction() as tx:
            if new:
                record.match = match.to_dict()
                record.dice = dice.to_dict()
                record = await tx.insert_game(record)
                ctx.record = record
            else:
                record = await self._save(tx, ctx)
            assert record.id is not None
            await tx.add_events(record.id, ctx.events)
            if ctx.finished:
                await self._finish(tx, ctx)
        ctx.record = record
        board = await self._board(ctx, chat, edit=False)
        intro = View(
            [
                t(
                    "The dice are sealed: SHA-256 of this game's secret seed is {c}. /dice shows it; "
                    "the seed is revealed when the game ends.",
                    c=dice.commitment,
                )
            ],
            lang=self._lang(user, chat, private=False),
            game_id=record.id,
        )
        return [intro, board]

    # -- presses -----------------------------------------------------------------------

    async def _press(
        self,
        user: User,
        chat: Chat,
        place: Place,
        action: A.Action,
        message: dict[str, Any] | None = None,
    ) -> list[View]:
        record = await self.storage.get_game(action.game_id)
        if record is None or record.platform != place.platform or record.chat_id != place.chat_id:
            raise UserFacingError(t("I can't find that game."))
        if action.code in (A.ACCEPT, A.DECLINE):
            if record.status is not GameStatus.CHALLENGE:
                raise UserFacingError(t("This challenge is no longer open."))
            if action.version != record.version:
                raise StaleVersionError("stale challenge button")
            if action.code == A.ACCEPT:
                return await self._accept(user, chat, record)
            return await self._decline(user, chat, record)
        if action.code == A.REMATCH:
            return await self._rematch(user, chat, place, record)
        # Saves the board does not show (a reminder, say) leave its buttons valid.
        current = record.settings.get("state_version", record.version) <= action.version
        elsewhere = (  # pressed on an older board message than the game's board
            message is not None
            and record.message is not None
            and action.code != A.CLAIM
            and not _same_message(record.message, message)
        )
        if (elsewhere or not (current and action.version <= record.version)) and (
            record.status in (GameStatus.ACTIVE, GameStatus.FINISHED)
        ):
            return await self._repair_press(user, chat, record, message)
        if record.status is not GameStatus.ACTIVE:
            raise UserFacingError(t("This game is already over."))
        if not current:
            raise StaleVersionError("stale game button")
        if action.code in (A.SELECT, A.BACK):
            return await self._select(user, chat, record, action)
        handlers = {
            A.ROLL: lambda g, s: g.roll(s, ctx.dice),
            A.DOUBLE: lambda g, s: g.double(s),
            A.TAKE: lambda g, s: g.take(s),
            A.DROP: lambda g, s: g.drop(s),
            A.UNDO: lambda g, s: g.undo(s),
            A.CONFIRM: lambda g, s: g.confirm(s),
            A.RESIGN_ACCEPT: lambda g, s: g.accept_resign(s),
            A.RESIGN_DECLINE: lambda g, s: g.decline_resign(s),
        }
        if action.code == A.MOVE:
            source, dest = (int(x) for x in action.arg.split("-"))
            handlers[A.MOVE] = lambda g, s: g.step(s, source, dest)
        if action.code == A.CLAIM:
            return await self._claim_record(user, chat, record)
        handler = handlers.get(action.code)
        if handler is None:
            raise UserFacingError(t("That button is not one of mine."))
        ctx = self._context(record)
        seat = self._seat(record, user)
        handler(ctx.game, seat)
        return await self._commit(ctx, chat, user)

    async def _repair_press(
        self, user: User, chat: Chat, record: GameRecord, pressed: dict[str, Any] | None
    ) -> list[View]:
        """A press on a board behind its game never leaves the player stuck (design.md).

        Pressed on the game's board message (or where none is known): that message is
        redrawn at the game's current state. Pressed on an older message: the player is
        pointed to the current board (which the adapter posts anew if it is gone)."""
        notice = BOARD_REPAIRED if record.status is GameStatus.ACTIVE else None
        if record.status is GameStatus.FINISHED:
            notice = t("This game is already over.")
        board_message = record.message
        on_board = board_message is None or pressed is None or _same_message(board_message, pressed)
        if (
            on_board
            and record.shown_version < record.version
            and self.clock() - record.updated < self.settings.double_press
        ):
            # A double press: the first one's board edit is on its way.
            return [self._notice(user, chat, BOARD_JUST_CHANGED)]
        view = await self._board(self._context(record), chat, edit=True)
        view.repair = True
        if on_board:
            assert notice is not None
            return [self._notice(user, chat, notice), view]
        view.point = True
        return [self._notice(user, chat, BOARD_OLD), view]

    async def _select(
        self, user: User, chat: Chat, record: GameRecord, action: A.Action
    ) -> list[View]:
        ctx = self._context(record)
        seat = self._seat(record, user)
        game = ctx.game
        if seat != game.awaiting:
            raise NotYourTurnError("It is not your turn")
        if action.code == A.SELECT:
            point = int(action.arg)
            if game.current_turn is None or not game.current_turn.targets(point):
                raise UserFacingError(t("That checker can't move now."))
            ctx.selected = point
        return [await self._board(ctx, chat, edit=True)]

    async def _decline(self, user: User, chat: Chat, record: GameRecord) -> list[View]:
        if record.status is not GameStatus.CHALLENGE:
            raise UserFacingError(t("This challenge is no longer open."))
        if user.id not in (record.challenger, record.seats[1]) and record.seats[1] is not None:
            raise UserFacingError(t("This challenge is for someone else."))
        if record.seats[1] is None and user.id != record.challenger:
            raise UserFacingError(t("Only the challenger can withdraw an open challenge."))
        async with self.storage.transaction() as tx:
            fresh = await tx.get_game(record.id)  # type: ignore[arg-type]
            assert fresh is not None
            fresh.status = GameStatus.DECLINED
            fresh.deadline = None
            await tx.save_game(fresh, record.version)
            await tx.add_events(fresh.id, [("declined", {"by": user.id})])  # type: ignore[arg-type]
        return [
            View(
                [t("{name} declined the challenge.", name=user.name)],
                lang=self._lang(user, chat, private=False),
                game_id=record.id,
                edit=True,
                message=record.message,
            )
        ]

    async def _rematch(
        self, user: User, chat: Chat, place: Place, record: GameRecord
    ) -> list[View]:
        if record.status is not GameStatus.FINISHED or user.id not in record.seats:
            raise UserFacingError(t("Only the players of a finished game can ask for a rematch."))
        if record.settings.get("computer"):
            level = record.settings.get("level", "random")
            return await self._bot_game(
                user=user,
                chat=chat,
                place=place,
                args=f"{record.variant} {record.settings['length']} {level}",
            )
        other_id = record.seats[1] if record.seats[0] == user.id else record.seats[0]
        opponent = await self.storage.get_user(other_id) if other_id else None
        variant_word = {"tavla": "tavla", "turkish": "tavla", "uzun": "uzun"}[record.variant]
        args = str(record.settings["length"])
        if record.variant == "turkish":
            args += " turkish"
        if record.settings.get("fast"):
            args += " fast"
        mentions = []
        if opponent is not None:
            mentions = [Actor(opponent.platform, opponent.platform_id, opponent.name)]
        return await self._challenge(
            user=user, chat=chat, place=place, name=variant_word, args=args, mentions=mentions
        )

    # -- typed moves and commands on a game ----------------------------------------------

    async def _move_command(
        self, *, user: User, chat: Chat, args: str, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        if not args.strip():
            raise UserFacingError(t("Write the move after /move, for example /move 13/8 6/5"))
        return await self._move(user, chat, args, reply_to_game, quiet=False)

    async def _move(
        self, user: User, chat: Chat, text: str, game_id: int | None, *, quiet: bool
    ) -> list[View]:
        record = await self._find_game(user, chat, game_id)
        if record is None:
            if quiet:
                return []
            raise UserFacingError(t("You have no game here. Start one with /tavla, /uzun or /bot."))
        ctx = self._context(record)
        seat = self._seat(record, user)
        game = ctx.game
        if game.phase is Phase.ROLL and seat == game.awaiting:
            raise UserFacingError(t("Roll the dice first."))
        try:
            game.move_text(seat, text)
        except NotationError:
            if quiet:
                return []  # an ordinary reply in a group chat, not a move
            raise
        return await self._commit(ctx, chat, user)

    async def _find_game(self, user: User, chat: Chat, game_id: int | None) -> GameRecord | None:
        if game_id is not None:
            record = await self.storage.get_game(game_id)
            if record and record.status is GameStatus.ACTIVE and user.id in record.seats:
                return record
            return None
        games = [
            g
            for g in await self.storage.games_in_chat(
                chat.platform, chat.chat_id, (GameStatus.ACTIVE,)
            )
            if user.id in g.seats
        ]
        if not games:
            return None
        # Prefer a game that waits for this player.
        for record in games:
            match = Match.from_dict(record.match or {})
            if match.game and record.seats[match.game.awaiting] == user.id:
                return record
        return games[0]

    async def _resign(
        self, *, user: User, chat: Chat, args: str, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here to resign."))
        levels = {
            "": ResultKind.SINGLE,
            "1": ResultKind.SINGLE,
            "single": ResultKind.SINGLE,
            "oyun": ResultKind.SINGLE,
            "2": ResultKind.GAMMON,
            "gammon": ResultKind.GAMMON,
            "mars": ResultKind.GAMMON,
            "3": ResultKind.BACKGAMMON,
            "backgammon": ResultKind.BACKGAMMON,
        }
        kind = levels.get(args.strip().casefold())
        if kind is None:
            raise UserFacingError(t("Resign how? /resign, /resign gammon or /resign backgammon."))
        ctx = self._context(record)
        ctx.game.resign(self._seat(record, user), kind)
        return await self._commit(ctx, chat, user)

    async def _abort(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here to abort."))
        if record.settings.get("tournament"):
            raise UserFacingError(
                t("A tournament match can't be called off; the organiser may award it.")
            )
        seat = self._seat(record, user)
        async with self.storage.transaction() as tx:
            fresh = await tx.get_game(record.id)  # type: ignore[arg-type]
            assert fresh is not None
            asked = fresh.settings.get("abort_by")
            if fresh.settings.get("computer") or (asked is not None and asked != seat):
                fresh.status = GameStatus.ABORTED
                fresh.rated = False
                fresh.deadline = None
                line = t("The game was called off by agreement. It is not rated.")
            else:
                fresh.settings["abort_by"] = seat
                line = t(
                    "{name} asks to call off the game. The opponent can agree with /abort.",
                    name=user.name,
                )
            await self._save_bookkeeping(tx, fresh)
            await tx.add_events(fresh.id, [("abort", {"seat": seat})])  # type: ignore[arg-type]
        return [View([line], lang=self._lang(user, chat, private=False), game_id=record.id)]

    async def _claim(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here."))
        return await self._claim_record(user, chat, record)

    async def _claim_record(self, user: User, chat: Chat, record: GameRecord) -> list[View]:
        ctx = self._context(record)
        seat = self._seat(record, user)
        game = ctx.game
        now = self.clock()
        deadline = record.deadline
        if deadline is None:
            deadline = record.settings.get("claimable_since")
        if deadline is None or now < deadline or game.awaiting == seat:
            raise UserFacingError(
                t("You can claim the game only when your opponent has run out of time.")
            )
        if record.settings.get("tournament"):  # the whole match, as at the deadline (TN-7)
            return await self.tournaments.timed_out(record, now)
        ctx.events.append(("claim", {"seat": seat}))
        game.forfeit(game.awaiting, "timeout")
        return await self._commit(ctx, chat, user)

    # -- the transaction of an action -----------------------------------------------------

    def _context(self, record: GameRecord) -> _Context:
        match = Match.from_dict(record.match or {})
        names = list(record.settings.get("names", ["?", "?"]))
        return _Context(record, match, SeededDice.from_dict(record.dice), names)

    def _seat(self, record: GameRecord, user: User) -> int:
        if user.id not in record.seats:
            raise NotYourTurnError("You are not a player in this game", "not_a_player")
        return record.seats.index(user.id)

    async def _commit(self, ctx: _Context, chat: Chat, user: User) -> list[View]:
        await self._after_action_off_loop(ctx)
        async with self.storage.transaction() as tx:
            saved = await self._save(tx, ctx)
            await tx.add_events(saved.id, ctx.events)  # type: ignore[arg-type]
            if ctx.finished:
                await self._finish(tx, ctx)
        ctx.record = saved
        views = [await self._board(ctx, chat, edit=True)]
        if ctx.finished:
            views.append(self._final_view(ctx, chat, user))
            views.extend(await self.tournaments.after_game(saved, chat))
        return views

    async def _save(self, tx: Any, ctx: _Context) -> GameRecord:
        record = ctx.record
        expected = record.version
        record.match = ctx.match.to_dict()
        record.dice = ctx.dice.to_dict()
        record.updated = self.clock()
        record.settings["state_version"] = expected + 1
        return await tx.save_game(record, expected)

    async def _save_bookkeeping(self, tx: Any, record: GameRecord) -> GameRecord:
        """Save a change the board does not show (a reminder sent, a claim offered, clocks
        moved): the board's buttons stay valid (``state_version``), and a board that was up
        to date stays so rather than counting as lagging."""
        shown = record.shown_version >= record.version
        record.settings.setdefault("state_version", record.version)
        saved = await tx.save_game(record, record.version)
        if shown:
            assert saved.id is not None
            await self.storage.mark_board_shown(saved.id, saved.version)
        return saved

    async def _after_action_off_loop(self, ctx: _Context) -> None:
        """:meth:`_after_action`, in a thread when the computer may think there (between
        two people it takes microseconds, less than the hop to a thread)."""
        if ctx.record.settings.get("computer"):
            await asyncio.to_thread(self._after_action, ctx)
        else:
            self._after_action(ctx)

    def _after_action(self, ctx: _Context) -> None:
        """Let the computer act, move on to the next game, log core's events, set deadlines.

        ``settings["logged"]`` remembers how far core's history of the current game has
        been copied into the event log, so every event is logged exactly once.
        """
        match, record = ctx.match, ctx.record
        number, count = record.settings.get("logged", [0, 0])
        while True:
            game = ctx.game
            self._computer_turns(ctx)
            current = len(match.results)
            first = count if current == number else 0
            if not game.over:
                break
            ctx.events.extend(("core", {"game": current, **e}) for e in game.history[first:])
            match.record_game()
            number, count = current + 1, 0
            if match.over:
                ctx.finished = True
                record.status = GameStatus.FINISHED
                record.deadline = None
                return
            match.start_game(ctx.dice)
        game = ctx.game
        number = len(match.results)
        ctx.events.extend(("core", {"game": number, **e}) for e in game.history[first:])
        record.settings["logged"] = [number, len(game.history)]
        fast = record.settings.get("fast")
        limit = self.settings.fast_turn_limit if fast else self.settings.turn_limit
        record.deadline = self.clock() + limit
        record.reminded = False
        record.settings.pop("claimable_since", None)
        record.settings.pop("abort_by", None)

    def _computer_turns(self, ctx: _Context) -> None:
        """Play every action that waits for the computer seat, if there is one."""
        if not ctx.record.settings.get("computer"):
            return
        seat = ctx.record.settings["computer"]
        player = self.computer(ctx.record.variant, ctx.record.settings.get("level", "club"))
        game = ctx.game
        for _ in range(1000):  # a bound, not a limit anyone reaches
            if game.over or game.awaiting != seat:
                return
            if game.resign_offer and game.resign_offer[0] != seat:
                game.accept_resign(seat)
            elif game.phase is Phase.DOUBLED:
                cube = CubeState.from_game(game, seat, ctx.match)
                if player.should_take(game.variant, game.position(seat), cube):
                    game.take(seat)
                else:
                    game.drop(seat)
            elif game.phase is Phase.ROLL:
                if game.may_double(seat) and player.should_double(
                    game.variant, game.position(seat), CubeState.from_game(game, seat, ctx.match)
                ):
                    game.double(seat)
                else:
                    game.roll(seat, ctx.dice)
            elif game.phase is Phase.MOVE:
                game.play(
                    seat, player.choose_play(game.variant, game.position(seat), game.legal_plays())
                )

    async def _finish(self, tx: Any, ctx: _Context) -> None:
        """Ratings and statistics of a finished contest (FIBS, rules.md Ratings)."""
        record, match = ctx.record, ctx.match
        now = self.clock()
        winner = match.winner
        seats = record.seats
        human = not record.settings.get("computer") and seats[0] != seats[1]
        rated = bool(record.rated and human and winner is not None)
        if rated:
            recent = await tx.count_rated_between(seats[0], seats[1], record.variant, now - DAY)
            if recent >= self.settings.max_rated_per_day:
                rated = False
                ctx.notes.append(
                    t(
                        "You have played enough rated games against each other today: "
                        "this one is not rated."
                    )
                )
        record.rated = rated
        length = max(match.length, 1)
        if rated and winner is not None:
            w, l_ = seats[winner], seats[1 - winner]
            for scope in ("global", record.settings.get("scope", "global")):
                rw = await tx.get_rating(w, scope, record.variant)
                rl = await tx.get_rating(l_, scope, record.variant)
                new_w, new_l = update_ratings(
                    Rating(rw.rating, rw.experience), Rating(rl.rating, rl.experience), length
                )
                rw.rating, rw.experience, rw.games = new_w.rating, new_w.experience, rw.games + 1
                rl.rating, rl.experience, rl.games = new_l.rating, new_l.experience, rl.games + 1
                await tx.put_rating(rw, now)
                await tx.put_rating(rl, now)
                if scope == "global":
                    ctx.notes.append(
                        t(
                            "Ratings: {w} {wr} · {l} {lr}",
                            w=ctx.names[winner],
                            wr=round(new_w.rating),
                            l=ctx.names[1 - winner],
                            lr=round(new_l.rating),
                        )
                    )
        wins = [r for r in match.results if winner is not None and r.winner == winner]
        await tx.add_result(
            ResultRow(
                game_id=record.id,  # type: ignore[arg-type]
                scope=record.settings.get("scope", "global"),
                kind=record.variant,
                winner_id=seats[winner] if winner is not None else None,
                loser_id=seats[1 - winner] if winner is not None else None,
                length=match.length,
                winner_points=match.score[winner] if winner is not None else match.score[0],
                loser_points=match.score[1 - winner] if winner is not None else match.score[1],
                gammons=sum(r.kind is ResultKind.GAMMON for r in wins),
                backgammons=sum(r.kind is ResultKind.BACKGAMMON for r in wins),
                rated=rated,
                finished=now,
            )
        )
        await tx.add_events(
            record.id, [("finish", {"winner": winner, "seed": ctx.dice.seed_hex, "rated": rated})]
        )  # type: ignore[arg-type]
        await self.tournaments.game_finished(tx, record, match)

    # -- views of a game ---------------------------------------------------------------

    async def _board(self, ctx: _Context, chat: Chat, *, edit: bool) -> View:
        record, match = ctx.record, ctx.match
        assert record.id is not None
        assert match.game is not None
        lang = (
            self._lang(None, chat, private=False)
            if chat.lang
            else await self._game_lang(record, chat)
        )
        lines = caption(match, ctx.names, record.variant) + list(ctx.notes)
        buttons = (
            []
            if record.status is GameStatus.ABORTED
            else game_buttons(record.id, record.version, match.game, ctx.selected)
        )
        if record.status is GameStatus.FINISHED:
            buttons = [[Button(t("Rematch"), A.encode(record.id, record.version, A.REMATCH))]]
        view = board_view(
            match, ctx.names, selected=ctx.selected, theme=self.settings.theme, lang=lang
        )
        image = None
        if self.settings.render_images:
            image = await self._render(view, self.settings.picture_formats.get(chat.platform, PNG))
        return View(
            lines,
            lang=lang,
            image=image,
            buttons=buttons,
            game_id=record.id,
            edit=edit,
            message=record.message,
            text_board=render_text(view),
            version=record.version,
        )

    async def _game_lang(self, record: GameRecord, chat: Chat) -> str:
        if chat.lang:  # a group's own language wins; no need to look up the challenger
            return chat.lang
        user = await self.storage.get_user(record.challenger)
        return self._lang(user, chat, private=False)

    def _final_view(self, ctx: _Context, chat: Chat, user: User) -> View:
        match = ctx.match
        winner = match.winner
        lines: list[Text | str] = []
        if winner is None:
            lines.append(t("The match is over."))
        else:
            lines.append(
                t(
                    "🏆 {name} wins the match {a}–{b}!",
                    name=ctx.names[winner],
                    a=int(match.score[winner]),
                    b=int(match.score[1 - winner]),
                )
            )
        lines.append(t("Dice seed: {seed}. Check every roll with /dice.", seed=ctx.dice.seed_hex))
        return View(lines, lang=self._lang(user, chat, private=False), game_id=ctx.record.id)

    async def _show_board(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here. Start one with /tavla, /uzun or /bot."))
        ctx = self._context(record)
        return [await self._board(ctx, chat, edit=False)]

    async def _tick_game(self, record: GameRecord, now: float) -> list[View]:
        if record.deadline is None:
            return []
        limit = (
            self.settings.fast_turn_limit
            if record.settings.get("fast")
            else self.settings.turn_limit
        )
        remind_at = record.deadline - limit * (1 - self.settings.reminder_at)
        if now < record.deadline and (
            record.status is GameStatus.CHALLENGE or record.reminded or now < remind_at
        ):
            return []  # nothing due yet: decided before any costly work
        chat = await self.storage.get_chat(record.platform, record.chat_id)
        if chat.paused is not None:
            return []  # the bot can't speak there: the clocks wait with the game
        lang = await self._game_lang(record, chat)
        where = (record.platform, record.chat_id)
        if record.status is GameStatus.CHALLENGE:
            async with self.storage.transaction() as tx:
                record.status = GameStatus.EXPIRED
                record.deadline = None
                await tx.save_game(record, record.version)
                await tx.add_events(record.id, [("expired", {})])  # type: ignore[arg-type]
            return [
                View(
                    [t("Nobody accepted the challenge in time.")],
                    lang=lang,
                    chat=where,
                    game_id=record.id,
                    edit=True,
                    message=record.message,
                )
            ]
        if record.status is not GameStatus.ACTIVE:
            return []
        ctx = self._context(record)
        game = ctx.game
        names = ctx.names
        views: list[View] = []
        if now >= record.deadline:
            if record.settings.get("tournament"):  # the whole match is lost on time (TN-7)
                return await self.tournaments.timed_out(record, now)
            if record.settings.get("computer") == 1 - game.awaiting:
                game.forfeit(game.awaiting, "timeout")
                ctx.events.append(("timeout", {"seat": 1 - game.awaiting}))
                return await self._commit(
                    ctx, chat, await self._seat_user(record, 1 - record.settings["computer"])
                )
            async with self.storage.transaction() as tx:
                # Offered once: the game leaves the deadline scan, the claim stays open.
                record.settings["claimable_since"] = record.deadline
                record.deadline = None
                await self._save_bookkeeping(tx, record)
            views.append(
                View(
                    [
                        t(
                            "{name} has run out of time. {other} may claim the game.",
                            name=names[game.awaiting],
                            other=names[1 - game.awaiting],
                        )
                    ],
                    lang=lang,
                    chat=where,
                    message=record.message,
                    game_id=record.id,
                    buttons=[
                        [
                            Button(
                                t("Claim the game"),
                                A.encode(record.id, record.version + 1, A.CLAIM),
                            )
                        ]
                    ],
                )
            )
        elif not record.reminded and now >= record.deadline - limit * (
            1 - self.settings.reminder_at
        ):
            async with self.storage.transaction() as tx:
                record.reminded = True
                await self._save_bookkeeping(tx, record)
            minutes = max(1, int((record.deadline - now) // 60))
            views.append(
                View(
                    [
                        t(
                            "{name}, it is your move: {m} minutes left.",
                            name=names[game.awaiting],
                            m=minutes,
                        )
                    ],
                    lang=lang,
                    chat=where,
                    message=record.message,
                    game_id=record.id,
                )
            )
        return views

    async def _seat_user(self, record: GameRecord, seat: int) -> User:
        user = await self.storage.get_user(record.seats[seat])  # type: ignore[arg-type]
        assert user is not None
        return user

    # -- information commands ------------------------------------------------------------

    async def _help(self, *, user: User, chat: Chat, **_: Any) -> list[View]:
        lines: list[Text | str] = [
            t("Tavla bot: backgammon and long nardy with friends or the computer."),
            t("/tavla [@name] [points] [turkish] [fast] — challenge to tavla"),
            t("/uzun [@name] [points] — challenge to Uzun Tavla (long nardy); /nardy too"),
            t("/bot [uzun|turkish] [points] — play the computer"),
            t("/move 13/8 6/5 — type a move (or reply to the board with it)"),
            t("/board — your game's board here again, with live buttons"),
            t("/resign [gammon|backgammon], /abort, /claim — end a game"),
            t("/top, /stats [@name] — leaderboard and statistics"),
            t("/tournament knockout|roundrobin|swiss — a tournament in this group"),
            t("/export — the game for GNU Backgammon; /dice — check the dice"),
            t("/lang tr|en|ru — language; /rules — the rules"),
        ]
        return [View(lines, lang=self._lang(user, chat))]

    async def _rules(self, *, user: User, chat: Chat, args: str = "", **_: Any) -> list[View]:
        if args.strip().casefold() in ("uzun", "nardy"):
            lines = [
                t(
                    "Uzun Tavla: all 15 checkers start on your head (point 24); both players move the same way round."
                ),
                t("No hitting: a point with any opposing checker is closed."),
                t(
                    "Only one checker may leave the head per turn; on your first turn 6-6, 4-4 or 3-3 may take two."
                ),
                t(
                    "You may not build a wall of six points unless an opposing checker is already past it."
                ),
                t(
                    "Bear off once all 15 are home. Winning before the opponent bears off any is mars: 2 points."
                ),
            ]
        else:
            lines = [
                t("Tavla: move your 15 checkers home (points 1–6) and bear them off first."),
                t(
                    "You may land on a point with one opposing checker and hit it to the bar; two or more close the point."
                ),
                t(
                    "Checkers on the bar enter first. Use both dice if you can, the larger if only one."
                ),
                t(
                    "Win with the opponent having borne off none: mars (gammon), 2 points; with a checker still in your home or on the bar: 3."
                ),
                t(
                    "The cube doubles the stakes; Turkish tavla plays without it. /rules uzun for long nardy."
                ),
            ]
        return [View(list(lines), lang=self._lang(user, chat))]

    async def _set_lang(
        self, *, user: User, chat: Chat, place: Place, args: str, **_: Any
    ) -> list[View]:
        code = normalize_language(args.strip())
        if code is None:
            choices = ", ".join(f"{c} ({n})" for c, n in LANGUAGE_NAMES.items())
            raise UserFacingError(t("Choose a language: {choices}", choices=choices))
        if place.private:
            await self.storage.set_user_lang(user.id, code)
        else:
            await self.storage.set_chat_lang(place.platform, place.chat_id, code)
            await self.storage.set_user_lang(user.id, code)
        return [View([t("Language set: {name}", name=LANGUAGE_NAMES[code])], lang=code)]

    async def _top(
        self, *, user: User, chat: Chat, place: Place, args: str, **_: Any
    ) -> list[View]:
        kind = _kind_word(args) or "tavla"
        scope = "global" if place.private else chat.scope
        rows = await self.storage.top(scope, kind, 10)
        title = VARIANT_NAMES[kind]
        if not rows:
            return [
                View(
                    [t("No rated {title} games here yet.", title=title)],
                    lang=self._lang(user, chat, private=place.private),
                )
            ]
        lines: list[Text | str] = [t("🏆 {title} leaderboard", title=title)]
        for i, (player, row) in enumerate(rows, 1):
            lines.append(f"{i}. {player.name} — {round(row.rating)} ({row.games})")
        return [View(lines, lang=self._lang(user, chat, private=place.private))]

    async def _reset_top(
        self, *, user: User, chat: Chat, place: Place, args: str, actor: Actor, **_: Any
    ) -> list[View]:
        """Admin only: clear this chat's leaderboard (one game kind, or all)."""
        if place.private:
            raise UserFacingError(t("A leaderboard can be reset only in a group."))
        if not actor.admin:
            raise UserFacingError(t("Only the chat's administrators can reset its leaderboard."))
        kind = _kind_word(args)
        count = await self.storage.reset_scope(chat.scope, kind)
        log.info("leaderboard %s (%s) reset by user %s", chat.scope, kind or "all", user.id)
        return [
            View(
                [t("{name} reset this chat's leaderboard ({n} ratings).", name=user.name, n=count)],
                lang=self._lang(user, chat, private=False),
            )
        ]

    async def _stats(
        self, *, user: User, chat: Chat, place: Place, args: str, mentions: list[Actor], **_: Any
    ) -> list[View]:
        target = user
        words = [w for w in args.split() if _kind_word(w) is None]
        if mentions:
            target = await self._user(mentions[0])
        elif words:
            found = await self.storage.find_user(place.platform, words[0].lstrip("@"))
            if found is None:
                raise UserFacingError(
                    t("I don't know {name} yet: they need to write to me once.", name=words[0])
                )
            target = found
        kind = _kind_word(args) or "tavla"
        results = await self.storage.results_of_user(target.id, kind)
        played = len(results)
        won = sum(1 for r in results if r.winner_id == target.id)
        gammons = sum(r.gammons + r.backgammons for r in results if r.winner_id == target.id)
        rating = await self._rating(target.id, kind)
        lines: list[Text | str] = [
            t("{name} · {title}", name=target.name, title=VARIANT_NAMES[kind]),
            t("Played {n}, won {w}, mars won {g}", n=played, w=won, g=gammons),
            t("Rating {r} (experience {e})", r=round(rating[0]), e=rating[1]),
        ]
        history = await self.storage.rating_history(target.id, "global", kind)
        image = None
        if len(history) >= 2 and self.settings.render_images:
            from renderers.chart import rating_chart

            image = await asyncio.to_thread(rating_chart, [r for _, r in history])
        return [View(lines, lang=self._lang(user, chat, private=place.private), image=image)]

    async def _rating(self, user_id: int, kind: str) -> tuple[float, int]:
        async with self.storage.transaction() as tx:
            row = await tx.get_rating(user_id, "global", kind)
        return row.rating, row.experience

    async def _export(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        record = await self._latest_game(user, chat, reply_to_game)
        events = await self.storage.events(record.id)  # type: ignore[arg-type]
        match = Match.from_dict(record.match or {})
        names = record.settings.get("names", ["White", "Black"])
        text = export_match(match, names, [e.data for e in events if e.type == "core"])
        lines: list[Text | str] = [t("Game {id} for GNU Backgammon.", id=record.id)]
        if match.game is not None:
            lines.append(f"Position ID: {position_id(match.game.position())}")
            lines.append(f"Match ID: {match.match_id()}")
        return [
            View(
                lines,
                lang=self._lang(user, chat),
                document=(f"tavla-{record.id}.mat", text.encode()),
            )
        ]

    async def _dice(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        record = await self._latest_game(user, chat, reply_to_game)
        lines: list[Text | str] = [
            t("Dice commitment (SHA-256 of the secret seed): {c}", c=record.commitment)
        ]
        if record.status in (GameStatus.FINISHED, GameStatus.ABORTED):
            seed = SeededDice.from_dict(record.dice).seed_hex
            events = await self.storage.events(record.id)  # type: ignore[arg-type]
            rolls = _dice_record([e.data for e in events if e.type == "core"])
            result = verify_game_rolls(seed, record.commitment, rolls)
            lines.append(t("Seed: {seed}", seed=seed))
            lines.append(
                t(
                    "Every roll is HMAC-SHA256(seed, roll number); all {n} rolls check out: {ok}.",
                    n=len(rolls),
                    ok="✅" if result.ok else "❌",
                )
            )
        else:
            lines.append(t("The seed is revealed when the game ends."))
        return [View(lines, lang=self._lang(user, chat))]

    async def _latest_game(self, user: User, chat: Chat, game_id: int | None) -> GameRecord:
        if game_id is not None:
            record = await self.storage.get_game(game_id)
            if record is not None and record.match is not None:
                return record
        statuses = (GameStatus.ACTIVE, GameStatus.FINISHED, GameStatus.ABORTED)
        games = [
            g
            for g in await self.storage.games_in_chat(chat.platform, chat.chat_id, statuses)
            if user.id in g.seats and g.match is not None
        ]
        if not games:
            raise UserFacingError(t("You have no game here. Start one with /tavla, /uzun or /bot."))
        return max(games, key=lambda g: g.updated)


def _same_message(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two message references (as adapters bind them) name the same message."""
    if str(a.get("message_id")) != str(b.get("message_id")):
        return False
    for key in ("channel_id", "chat_id"):
        if a.get(key) is not None and b.get(key) is not None and str(a[key]) != str(b[key]):
            return False
    return True


def _kind_word(text: str) -> str | None:
    for word in text.split():
        low = word.casefold()
        if low in ("tavla", "backgammon"):
            return "tavla"
        if low in ("turkish", "türk", "turk"):
            return "turkish"
        if low in ("uzun", "nardy", "нарды"):
            return "uzun"
    return None


def _dice_record(events: list[dict[str, Any]]) -> list[tuple[int, ...]]:
    record: list[tuple[int, ...]] = []
    for event in events:
        if event.get("type") == "opening":
            record.extend((d,) for d in event["dice"])
        elif event.get("type") == "roll" and not event.get("opening"):
            record.append(tuple(event["dice"]))
    return record


__all__ = ["Actor", "GameService", "Place", "ServiceSettings", "UserFacingError"]
