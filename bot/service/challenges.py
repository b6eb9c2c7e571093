"""Challenges: open, accept, decline and rematch a contest, or play the computer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.i18n import Text, t, tn
from bot.storage.base import (
    Chat,
    ContestSettings,
    GameRecord,
    GameStatus,
    StaleVersionError,
    Storage,
    User,
)

from . import actions as A
from . import group_lang
from . import words as W
from .boards import Boards
from .commands import clashing_arguments, unknown_argument
from .contests import Contests
from .errors import UserFacingError
from .lang import language, notice
from .numbers import parse_number
from .people import People
from .presenter import VARIANT_NAMES
from .settings import ServiceSettings
from .store import GameStore
from .views import Actor, Button, Place, View


@dataclass(eq=False)
class Challenges:
    """Challenges and the start of a contest (the storage, the store and the boards, the
    contests that start it, the people challenged, the settings and the clock)."""

    storage: Storage
    store: GameStore
    boards: Boards
    contests: Contests
    people: People
    settings: ServiceSettings
    clock: Callable[[], float]

    async def press(
        self, user: User, chat: Chat, code: A.Code, record: GameRecord, version: int
    ) -> list[View]:
        """An Accept or Decline button under a challenge drawn at ``version``."""
        if record.status is not GameStatus.CHALLENGE:
            raise UserFacingError(t("This challenge is no longer open."))
        if version != record.version:
            raise StaleVersionError("stale challenge button")
        if code == A.ACCEPT:
            return await self.accept(user, chat, record)
        return await self.decline(user, chat, record)

    async def challenge(
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
        """``/tavla`` or ``/uzun`` (``/nardy``): a challenge in the chat, open or to the one
        named, answered by an Accept button."""
        words = await self._contest_words(name, args, place, mentions)
        variant, length, fast, opponent, unrated = words
        if opponent is not None and opponent.id == user.id:
            raise UserFacingError(t("You can't challenge yourself. Try /bot to play the computer."))
        settings = ContestSettings(
            length=length, fast=fast, scope=chat.scope, unrated=True if unrated else None
        )
        record = self._new_contest(
            place, variant, [user.id, opponent.id if opponent else None], settings
        )
        record.deadline = record.created + self.settings.challenge_ttl
        async with self.storage.transaction() as tx:
            record = await tx.insert_game(record)
            await tx.add_events(
                record.stored_id, [("challenge", {"by": user.id, "to": record.seats[1]})]
            )
        return [self._challenge_view(record, user, opponent, chat)]

    async def _contest_words(
        self, name: str, args: str, place: Place, mentions: list[Actor] | None
    ) -> tuple[str, int, bool, User | None, bool]:
        """The game, match length, pace, named opponent and whether it is unrated, of
        ``/tavla`` or ``/uzun`` (``name``) with ``args``; ``mentions`` None: no opponent may
        be named (a game against oneself)."""
        variant = "tavla" if name == "tavla" else "uzun"
        length = 1
        fast = False
        unrated = False
        opponent: User | None = None
        # A mention (Telegram's text mention of a user without a username) names the
        # opponent by itself; the words of its name in the text are not arguments.
        mentioned = {part.casefold() for m in mentions or [] for part in m.name.split()}
        typed = " ".join(w for w in args.split() if w.casefold() not in mentioned)
        if (pair := W.clash(typed)) is not None:
            raise UserFacingError(clashing_arguments(name, *pair))
        for word in args.split():
            low = word.casefold()
            if low.isascii() and low.isdigit():
                length = self._length_word(low)
            elif low in W.TURKISH and variant == "tavla":
                variant = "turkish"
            elif low in W.FAST:
                fast = True
            elif low in W.UNRATED:
                unrated = True
            elif low in mentioned:
                continue
            elif mentions is not None and low.startswith("@"):
                found = await self.storage.find_user(place.platform, low.lstrip("@"))
                if found is None:
                    raise UserFacingError(
                        t("I don't know {name} yet: they need to write to me once.", name=word)
                    )
                opponent = found
            else:
                raise UserFacingError(unknown_argument(name, word))
        for mention in mentions or []:
            opponent = await self.people.user(mention)
        self._check_length(length)
        return variant, length, fast, opponent, unrated

    async def solo_game(
        self,
        user: User,
        chat: Chat,
        place: Place,
        name: str,
        args: str,
        sides: tuple[str, str],
    ) -> list[View]:
        """A game one person plays against themselves, both seats theirs (the console's
        hot-seat): never rated, no clock, every answer theirs to give (see :func:`~bot.service.store.seat_of`).
        ``sides``: the names the two sides go by in the captions."""
        variant, length, fast, _, _ = await self._contest_words(name, args, place, None)
        record = self._new_contest(
            place,
            variant,
            [user.id, user.id],
            ContestSettings(length=length, fast=fast, scope=chat.scope),
        )
        return await self.contests.start(record, list(sides), chat, user, new=True)

    def _new_contest(
        self, place: Place, variant: str, seats: list[int | None], settings: ContestSettings
    ) -> GameRecord:
        """A contest not yet started, in ``place``, challenged by the first seat's player."""
        now = self.clock()
        assert seats[0] is not None
        return GameRecord(
            platform=place.platform,
            chat_id=place.chat_id,
            variant=variant,
            status=GameStatus.CHALLENGE,
            seats=seats,
            challenger=seats[0],
            settings=settings,
            created=now,
            updated=now,
        )

    def _length_word(self, word: str) -> int:
        """A match length written in ASCII digits, or a polite refusal."""
        length = parse_number(word, 1, self.settings.max_match_length)
        if length is None:
            raise self._bad_length()
        return length

    def _check_length(self, length: int) -> None:
        if not 1 <= length <= self.settings.max_match_length:
            raise self._bad_length()

    def _bad_length(self) -> UserFacingError:
        return UserFacingError(
            tn(
                "A match can be 1 to {n} point long.",
                "A match can be 1 to {n} points long.",
                self.settings.max_match_length,
            )
        )

    def _challenge_view(
        self, record: GameRecord, user: User, opponent: User | None, chat: Chat
    ) -> View:
        assert record.id is not None
        length = record.settings.length
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
        if record.settings.fast:
            lines.append(
                tn(
                    "Fast game: {n} minute per move.",
                    "Fast game: {n} minutes per move.",
                    int(self.settings.fast_turn_limit // 60),
                )
            )
        if record.settings.unrated:
            lines.append(
                t("Unrated: it counts in no rating, and 💡 hints are used only if both allow them.")
            )
        buttons = [
            [
                Button(t("Accept"), A.encode(record.id, record.version, A.ACCEPT)),
                Button(t("Decline"), A.encode(record.id, record.version, A.DECLINE)),
            ]
        ]
        return View(
            lines, lang=language(user, chat, private=False), buttons=buttons, game_id=record.id
        )

    async def accept(self, user: User, chat: Chat, record: GameRecord) -> list[View]:
        """The challenge accepted by ``user``: the contest starts."""
        if record.status is not GameStatus.CHALLENGE:
            raise UserFacingError(t("This challenge is no longer open."))
        if user.id == record.challenger:
            raise UserFacingError(t("That is your own challenge: wait for an opponent."))
        if record.seats[1] is not None and record.seats[1] != user.id:
            raise UserFacingError(t("This challenge is for someone else."))
        challenger = await self.storage.get_user(record.challenger)
        assert challenger is not None
        record.seats = [record.challenger, user.id]
        record.rated = not record.settings.unrated
        if not chat.private:  # a contest starts: the group speaks its players' language
            chat = await group_lang.settle(self.storage, chat)
        return await self.contests.start(
            record, [challenger.name, user.name], chat, user, new=False
        )

    async def decline(self, user: User, chat: Chat, record: GameRecord) -> list[View]:
        """The challenge declined (or withdrawn by its challenger)."""
        if record.status is not GameStatus.CHALLENGE:
            raise UserFacingError(t("This challenge is no longer open."))
        if user.id not in (record.challenger, record.seats[1]) and record.seats[1] is not None:
            raise UserFacingError(t("This challenge is for someone else."))
        if record.seats[1] is None and user.id != record.challenger:
            raise UserFacingError(t("Only the challenger can withdraw an open challenge."))
        async with self.storage.transaction() as tx:
            fresh = await tx.get_game(record.stored_id)
            assert fresh is not None
            fresh.status = GameStatus.DECLINED
            fresh.deadline = None
            await tx.save_game(fresh, record.version)
            await tx.add_events(fresh.stored_id, [("declined", {"by": user.id})])
        return [
            View(
                [t("{name} declined the challenge.", name=user.name)],
                lang=language(user, chat, private=False),
                game_id=record.id,
                edit=True,
                message=record.message,
                replace_pressed=True,
            )
        ]

    async def bot_game(
        self, *, user: User, chat: Chat, place: Place, args: str, **_: Any
    ) -> list[View]:
        """``/bot [uzun|turkish] [points] [level]``: a contest against the computer, started at
        once."""
        variant = "tavla"
        level = "club"
        length = 1
        for word in args.split():
            low = word.casefold()
            if low.isascii() and low.isdigit():
                length = self._length_word(low)
            elif low in W.LEVELS:
                level = W.LEVELS[low]
            elif (kind := W.kind_of(low)) is not None:
                variant = kind
            else:  # the catalogue refuses these first; a rematch passes known words only
                raise UserFacingError(unknown_argument("bot", word))
        self._check_length(length)
        return await self.computer_game(user, chat, place, variant, length, level)

    async def computer_game(
        self,
        user: User,
        chat: Chat,
        place: Place,
        variant: str,
        length: int,
        level: str,
        *,
        lesson: bool = False,
    ) -> list[View]:
        """A contest of ``variant`` against the computer at ``level``, started at once
        (``lesson``: the guided first game, :mod:`bot.service.lessons`); the board of the
        player's running game against the computer here instead, if there is one."""
        for running in await self.storage.games_in_chat(
            place.platform, place.chat_id, (GameStatus.ACTIVE,)
        ):
            if running.settings.computer and user.id in running.seats:
                # One game against the computer a chat: a second one would take the typed
                # moves of the first. The player gets that game's board back instead.
                note = t(
                    "You already have a game against the computer here: this one. "
                    "Finish it, or /abort it to start another."
                )
                board = await self.boards.board(self.store.context(running), chat, edit=False)
                return [notice(user, chat, note), board]
        computer = await self.storage.computer_user(place.platform)
        settings = ContestSettings(
            length=length,
            fast=False,
            scope=chat.scope,
            computer=1,
            level=level,
            lesson=() if lesson else None,
        )
        record = self._new_contest(place, variant, [user.id, computer.id], settings)
        name = f"{computer.name} ({level})"  # stored in English; shown in the reader's words
        return await self.contests.start(record, [user.name, name], chat, user, new=True)

    async def rematch(self, user: User, chat: Chat, place: Place, record: GameRecord) -> list[View]:
        """The Rematch button under a finished board: a new contest like it."""
        if record.status is not GameStatus.FINISHED or user.id not in record.seats:
            raise UserFacingError(t("Only the players of a finished game can ask for a rematch."))
        if record.settings.computer:
            level = record.settings.level or "random"
            return await self.bot_game(
                user=user,
                chat=chat,
                place=place,
                args=f"{record.variant} {record.settings.length} {level}",
            )
        if record.seats[0] == record.seats[1]:  # a game against oneself: another one
            names = record.settings.names or (user.name, user.name)
            return await self.solo_game(
                user,
                chat,
                place,
                "uzun" if record.variant == "uzun" else "tavla",
                _contest_args(record),
                (names[0], names[1]),
            )
        other_id = record.seats[1] if record.seats[0] == user.id else record.seats[0]
        opponent = await self.storage.get_user(other_id) if other_id else None
        variant_word = {"tavla": "tavla", "turkish": "tavla", "uzun": "uzun"}[record.variant]
        args = _contest_args(record)
        mentions = []
        if opponent is not None:
            mentions = [Actor(opponent.platform, opponent.platform_id, opponent.name)]
        return await self.challenge(
            user=user, chat=chat, place=place, name=variant_word, args=args, mentions=mentions
        )


def _contest_args(record: GameRecord) -> str:
    """The words of ``/tavla`` or ``/uzun`` that start a contest like ``record``."""
    args = str(record.settings.length)
    if record.variant == "turkish":
        args += " turkish"
    if record.settings.fast:
        args += " fast"
    if record.settings.unrated:
        args += " unrated"
    return args
