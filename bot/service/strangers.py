"""Strangers met in the pool: what one may say to the other (fixed phrases, each shown in
the reader's language: no free text between strangers), ``/block`` (never paired again, from
the command or the finished board's button) and ``/report`` (kept with the game for the
operator)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot import metrics
from bot.i18n import Text, t
from bot.storage.base import Chat, GameRecord, GameStatus, Storage, User

from . import actions as A
from .errors import UserFacingError
from .lang import language, notice
from .seats import Seats
from .settings import POOL_SCOPE
from .views import Button, View

#: What strangers may say to each other: fixed phrases, each shown in the reader's language.
PHRASES: tuple[Text, ...] = (
    t("Good luck!"),
    t("Have fun!"),
    t("Nice move!"),
    t("Well played!"),
    t("Thanks for the game!"),
    t("Sorry, I have to think a little."),
)


@dataclass(eq=False)
class Strangers:
    """Phrases, blocks and reports between pool opponents (the storage, the seats that
    deliver a phrase to the other's chat, the clock)."""

    storage: Storage
    seats: Seats
    clock: Callable[[], float]

    async def press(self, user: User, chat: Chat, action: A.Action) -> list[View]:
        """A phrase chosen (``s<n>``) or the finished board's Block button (``k``)."""
        if action.arg.startswith("s") and action.arg[1:].isdigit():
            return await self._say(user, chat, action.game_id, int(action.arg[1:]))
        if action.arg == "k":
            return await self._block(user, chat, action.game_id)
        raise UserFacingError(t("That button is not one of mine."))

    async def say(self, *, user: User, chat: Chat, **_: Any) -> list[View]:
        """``/say``: the fixed phrases a player may send to their pool opponent."""
        found = await self._last_opponent(user)
        if found is None:
            raise UserFacingError(t("You have played nobody from the pool yet."))
        record, _other = found
        game_id = record.stored_id
        buttons = [
            [Button(phrase, A.encode(game_id, 0, A.POOL, f"s{n}"))]
            for n, phrase in enumerate(PHRASES)
        ]
        return [
            View(
                [t("Say to your opponent (they read it in their language):")],
                lang=language(user, chat),
                buttons=buttons,
            )
        ]

    async def _say(self, user: User, chat: Chat, game_id: int, n: int) -> list[View]:
        record = await self.storage.get_game(game_id)
        if record is None or user.id not in record.seats or not 0 <= n < len(PHRASES):
            raise UserFacingError(t("That button is not one of mine."))
        seats = await self.seats.of(game_id)
        mine = next((s for s in seats if s.user_id == user.id), None)
        other = next((s for s in seats if s.user_id != user.id), None)
        if mine is None or other is None:
            raise UserFacingError(t("That button is not one of mine."))
        names = record.settings.names or (user.name, "?")
        reader = await self.storage.get_user(other.user_id)
        where = await self.storage.get_chat(other.platform, other.chat_id)
        self.seats.deliver(
            [
                View(
                    [t("{name} says: {phrase}", name=names[mine.seat], phrase=PHRASES[n])],
                    lang=language(reader, where),
                    chat=(other.platform, other.chat_id),
                    channel=other.message,
                    seat_copy=True,
                )
            ]
        )
        return [notice(user, chat, t("Sent: {phrase}", phrase=PHRASES[n]))]

    async def _last_opponent(self, user: User) -> tuple[GameRecord, int] | None:
        games = [
            g
            for g in await self.storage.games_of_user(
                user.id, (GameStatus.ACTIVE, GameStatus.FINISHED, GameStatus.ABORTED)
            )
            if g.settings.scope == POOL_SCOPE
        ]
        if not games:
            return None
        last = max(games, key=lambda g: g.stored_id)
        other = last.seats[1] if last.seats[0] == user.id else last.seats[0]
        assert other is not None
        return last, other

    async def block(self, *, user: User, chat: Chat, **_: Any) -> list[View]:
        """``/block``: never be paired with the last pool opponent again."""
        found = await self._last_opponent(user)
        if found is None:
            raise UserFacingError(t("You have played nobody from the pool yet."))
        record, _other = found
        return await self._block(user, chat, record.stored_id)

    async def _block(self, user: User, chat: Chat, game_id: int) -> list[View]:
        """Block the opponent of ``user`` in a pool game."""
        record = await self.storage.get_game(game_id)
        if record is None or user.id not in record.seats or record.settings.scope != POOL_SCOPE:
            raise UserFacingError(t("That button is not one of mine."))
        other = record.seats[1] if record.seats[0] == user.id else record.seats[0]
        assert other is not None
        await self.storage.pool.block(user.id, other, self.clock())
        names = record.settings.names or ("?", "?")
        name = names[record.seats.index(other)]
        return [
            View(
                [t("{name} is blocked: you will never be paired again.", name=name)],
                lang=language(user, chat),
            )
        ]

    async def report(self, *, user: User, chat: Chat, args: str, **_: Any) -> list[View]:
        """``/report [what happened]``: a report about the last pool opponent, kept with the
        game for the operator."""
        found = await self._last_opponent(user)
        if found is None:
            raise UserFacingError(t("You have played nobody from the pool yet."))
        record, other = found
        await self.storage.pool.report(
            user.id, other, record.stored_id, args.strip()[:500], self.clock()
        )
        metrics.POOL_REPORTS.inc()
        return [
            View(
                [
                    t(
                        "Thank you: your report is kept with the game for the operator. /block keeps you apart for good."
                    )
                ],
                lang=language(user, chat),
            )
        ]


__all__ = ["PHRASES", "Strangers"]
