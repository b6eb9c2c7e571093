"""The pool: find an opponent now (``/play``), among players on every chat and platform.

``/play [tavla|turkish|uzun] [points] [fast|daily]`` in a private chat with the bot puts the
player in the pool with what they want; the first fitting player waiting is paired at once
(core/pool.py says who fits whom; bot/storage/pool.py pairs in one transaction, so any
worker can, and the game the pairing starts is saved in that same transaction: should it fail,
neither entry is lost). While nobody fits, a waiting message with a Cancel button; the deadline rounds
pair what two workers left apart, take out expired entries, and after a minute offer to play
the computer meanwhile. A pairing starts a rated game in the pool's leaderboard (``/top
pool``), each player in their own chat (:mod:`bot.service.seats`). Strangers learn each
other's display name and rating only. ``/block`` keeps two players apart for good and
``/report`` keeps a report with the game for the operator.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from bot import metrics
from bot.i18n import Text, t
from bot.storage.base import (
    Chat,
    ContestSettings,
    GameRecord,
    GameStatus,
    PoolEntry,
    SeatChat,
    Storage,
    Transaction,
    User,
)
from core.match import Match
from core.pool import new_seeker

from . import actions as A
from . import words as W
from .contests import Contests
from .errors import UserFacingError
from .lang import language, notice
from .numbers import parse_number
from .presenter import VARIANT_NAMES
from .seats import Seats
from .settings import POOL_SCOPE, ServiceSettings
from .store import ActionContext
from .views import Button, MessageRef, Place, View

log = logging.getLogger(__name__)

#: What the pool's buttons carry after the code: Cancel, Play the computer meanwhile.
CANCEL, COMPUTER = "c", "b"
#: What strangers may say to each other: fixed phrases, each shown in the reader's language.
PHRASES: tuple[Text, ...] = (
    t("Good luck!"),
    t("Have fun!"),
    t("Nice move!"),
    t("Well played!"),
    t("Thanks for the game!"),
    t("Sorry, I have to think a little."),
)
#: Seconds of waiting before the computer is offered meanwhile.
OFFER_COMPUTER_AFTER = 60.0


def _seen(entry: PoolEntry, counts: dict[tuple[str, int, str], int]) -> list[int]:
    """How many wait for what the entry wants, and in all (as its message says)."""
    return [counts.get(entry.bucket, 1), sum(counts.values())]


def _waiting(entry: PoolEntry, counts: dict[tuple[str, int, str], int], lang: str) -> View:
    """The waiting message: what the player wants, how many wait, and Cancel."""
    same, everyone = _seen(entry, counts)
    return View(
        [
            t("🔎 Looking for an opponent: {wish}.", wish=_wish(*entry.bucket)),
            t("Waiting for this: {n}. In the pool: {m}.", n=same, m=everyone),
        ],
        lang=lang,
        buttons=[[Button(t("Cancel"), A.encode(0, 0, A.POOL, CANCEL))]],
    )


def pace_of(record: GameRecord) -> str:
    return "fast" if record.settings.fast else "daily"


def _wish(variant: str, length: int, pace: str) -> Text:
    contest = t("one game") if length == 1 else t("a match to {n}", n=length)
    speed = t("fast") if pace == "fast" else t("daily")
    return t(
        "{title}, {contest}, {pace}", title=VARIANT_NAMES[variant], contest=contest, pace=speed
    )


@dataclass(frozen=True)
class _Opened:
    """A pool game saved with its pairing, to be shown once the transaction is committed."""

    ctx: ActionContext
    entries: tuple[PoolEntry, PoolEntry]
    users: tuple[User, User]


@dataclass(eq=False)
class Pool:
    """The pool (the storage, the contests that start a pairing's game, the seats that show
    it in two chats, the settings and the clock)."""

    storage: Storage
    contests: Contests
    seats: Seats
    settings: ServiceSettings
    clock: Callable[[], float]

    # -- /play -------------------------------------------------------------------------

    async def play(
        self, *, user: User, chat: Chat, place: Place, args: str, **_: Any
    ) -> list[View]:
        """``/play [tavla|turkish|uzun] [points] [fast|daily]``: join the pool, or be paired
        with the first fitting player waiting."""
        if not place.private and place.platform not in self.settings.pool_in_groups:
            raise UserFacingError(
                t("Write /play to me in a private chat: the game is played there.")
            )
        variant, length, pace = self._words(args)
        await self._check_room(user, pace)
        now = self.clock()
        left = await self.storage.pool.left_in_a_row(user.id)
        partner: PoolEntry | None = None
        opened: _Opened | None = None
        try:
            async with self.storage.transaction() as tx:
                rating = (await tx.get_rating(user.id, POOL_SCOPE, variant)).rating
                seeker = new_seeker(user.id, variant, length, pace, rating, now, left_in_a_row=left)
                entry = PoolEntry(seeker, place.platform, place.chat_id)
                partner = await tx.pool.pair_or_wait(entry, now)
                if partner is not None:
                    opened = await self._open(tx, partner, entry)
        except Exception:
            if partner is None:
                raise
            # The game could not start: the pairing is undone with it (one transaction), the
            # partner waits on, and so does the newcomer; the rounds pair them again.
            log.exception("a pool game could not start; both players wait on")
            async with self.storage.transaction() as tx:
                await tx.pool.put(entry)
            opened = None
        metrics.POOL.labels("joined").inc()
        if opened is None:
            return [await self._waiting_view(user, chat, entry, now)]
        return await self._announce(opened, asker=True)

    def _words(self, args: str) -> tuple[str, int, str]:
        variant, length, pace = "tavla", 1, "fast"
        for word in args.split():
            low = word.casefold()
            kind = W.kind_of(low)
            if kind is not None:
                variant = kind
            elif low.isascii() and low.isdigit():
                number = parse_number(low, 1, self.settings.max_match_length)
                if number is None:
                    raise UserFacingError(
                        t("A match can be 1 to {n} points long.", n=self.settings.max_match_length)
                    )
                length = number
            elif low in W.FAST:
                pace = "fast"
            elif low in W.DAILY:
                pace = "daily"
            else:
                raise UserFacingError(
                    t(
                        "I don't understand {word}. Write /play [tavla|turkish|uzun] [points] "
                        "[fast|daily].",
                        word=word,
                    )
                )
        return variant, length, pace

    async def _pool_games(self, user: User) -> list[GameRecord]:
        return [
            g
            for g in await self.storage.games_of_user(user.id, (GameStatus.ACTIVE,))
            if g.settings.scope == POOL_SCOPE
        ]

    async def _check_room(self, user: User, pace: str) -> None:
        """One fast pool game at a time; up to the operator's number of daily ones."""
        games = await self._pool_games(user)
        if pace == "fast" and any(pace_of(g) == "fast" for g in games):
            raise UserFacingError(t("Finish your fast game first: /games shows where it is."))
        daily = sum(pace_of(g) == "daily" for g in games)
        if pace == "daily" and daily >= self.settings.pool_daily_games:
            raise UserFacingError(
                t(
                    "You have {n} daily games going already, the most at once.",
                    n=self.settings.pool_daily_games,
                )
            )

    async def _waiting_view(self, user: User, chat: Chat, entry: PoolEntry, now: float) -> View:
        counts = await self.storage.pool.counts(now)
        joined = entry.seeker.joined
        seen = _seen(entry, counts)

        async def posted(ref: MessageRef) -> None:
            await self.storage.pool.update(user.id, joined, ref, {"seen": seen})

        view = _waiting(entry, counts, language(user, chat))
        view.posted = posted
        return view

    # -- a pairing ----------------------------------------------------------------------

    async def _open(self, tx: Transaction, waiting: PoolEntry, newcomer: PoolEntry) -> _Opened:
        """Start the game of a pairing in ``tx``, the pairing's own transaction: ``waiting``
        (seat 0) against ``newcomer``. Should anything fail, the pairing is undone with the
        game (neither entry lost, no game half made)."""
        users = await self.storage.get_users([waiting.user_id, newcomer.user_id])
        first, second = users[waiting.user_id], users[newcomer.user_id]
        now = self.clock()
        variant, length, pace = waiting.bucket
        record = GameRecord(
            platform=waiting.platform,
            chat_id=waiting.chat_id,
            variant=variant,
            status=GameStatus.CHALLENGE,
            seats=[first.id, second.id],
            challenger=first.id,
            settings=ContestSettings(length=length, fast=pace == "fast", scope=POOL_SCOPE),
            rated=True,
            created=now,
            updated=now,
        )
        ctx = await self.contests.prepare(record, [first.name, second.name])
        await self.contests.save_opened(tx, ctx, new=True)
        game_id = ctx.record.stored_id
        await tx.pool.add_seat_chats(
            [
                SeatChat(game_id, 0, first.id, waiting.platform, waiting.chat_id, waiting.message),
                SeatChat(
                    game_id, 1, second.id, newcomer.platform, newcomer.chat_id, newcomer.message
                ),
            ]
        )
        return _Opened(ctx, (waiting, newcomer), (first, second))

    async def _announce(self, opened: _Opened, *, asker: bool = False) -> list[View]:
        """Show a started pool game in both chats, each its own side and language: the
        newcomer's views returned when they asked (``asker``), every other delivered."""
        waiting, newcomer = opened.entries
        first, second = opened.users
        game_id = opened.ctx.record.stored_id
        chat = await self.storage.get_chat(waiting.platform, waiting.chat_id)
        views = await self.contests.opening(opened.ctx, chat, first, new=True)
        metrics.POOL.labels("paired").inc()
        split = await self.seats.split(views)
        assert split is not None
        found = {
            0: self._found(waiting, second, newcomer.seeker.rating, game_id),
            1: self._found(newcomer, first, waiting.seeker.rating, game_id),
        }
        out: list[View] = []
        for seat in (0, 1):
            mine = [await found[seat], *split[seat]]
            if asker and seat == 1:
                out = mine
            else:
                self.seats.deliver(mine)
        return out

    async def _found(self, entry: PoolEntry, other: User, rating: float, game_id: int) -> View:
        """The waiting message, saying who the opponent is: their display name and rating."""
        me = await self.storage.get_user(entry.user_id)
        chat = await self.storage.get_chat(entry.platform, entry.chat_id)
        return View(
            [
                t(
                    "🎲 Opponent found: {name} (rating {r}). {wish}. Good luck!",
                    name=other.name,
                    r=round(rating),
                    wish=_wish(*entry.bucket),
                )
            ],
            lang=language(me, chat),
            chat=(entry.platform, entry.chat_id),
            message=entry.message,
            channel=entry.message,
            edit=entry.message is not None,
        )

    # -- buttons --------------------------------------------------------------------------

    async def press(self, user: User, chat: Chat, action: A.Action) -> list[View]:
        """The waiting message's Cancel button, or a phrase to the opponent."""
        if action.arg.startswith("s"):
            return await self._say(user, chat, action.game_id, int(action.arg[1:]))
        if action.arg == "k":
            return await self._block(user, chat, action.game_id)
        if action.arg != CANCEL:
            raise UserFacingError(t("That button is not one of mine."))
        async with self.storage.transaction() as tx:
            entry = await tx.pool.leave(user.id)
        if entry is None:
            return [notice(user, chat, t("You are not waiting in the pool."))]
        metrics.POOL.labels("cancelled").inc()
        return [
            View(
                [t("You left the pool. /play to look again.")],
                lang=language(user, chat),
                message=entry.message,
                edit=entry.message is not None,
                replace_pressed=True,
            )
        ]

    def offer_view(self, entry: PoolEntry, user: User | None, chat: Chat) -> View:
        """A minute without an opponent: play the computer meanwhile (the search goes on)."""
        return View(
            [
                t("🔎 Looking for an opponent: {wish}.", wish=_wish(*entry.bucket)),
                t("Nobody yet. Play the computer meanwhile? The search goes on."),
            ],
            lang=language(user, chat),
            chat=(entry.platform, entry.chat_id),
            message=entry.message,
            channel=entry.message,
            edit=entry.message is not None,
            buttons=[
                [
                    Button(t("Play the computer"), A.encode(0, 0, A.POOL, COMPUTER)),
                    Button(t("Cancel"), A.encode(0, 0, A.POOL, CANCEL)),
                ]
            ],
        )

    # -- the deadline rounds ------------------------------------------------------------

    async def tick(self, platforms: Collection[str] | None = None) -> list[View]:
        """Expired entries told, pairings two workers left apart made, the computer offered
        to those waiting a minute. Views of pairings are delivered by the seats."""
        now = self.clock()
        views: list[View] = []
        for entry in await self.storage.pool.expire(now):
            if platforms is not None and entry.platform not in platforms:
                continue
            user = await self.storage.get_user(entry.user_id)
            chat = await self.storage.get_chat(entry.platform, entry.chat_id)
            views.append(
                View(
                    [t("Nobody came to play in time. /play to look again.")],
                    lang=language(user, chat),
                    chat=(entry.platform, entry.chat_id),
                    message=entry.message,
                    channel=entry.message,
                    edit=entry.message is not None,
                )
            )
        counts = await self.storage.pool.counts(now)
        for bucket, count in counts.items():
            if count < 2:
                continue
            try:
                async with self.storage.transaction() as tx:
                    pairs = await tx.pool.pair_waiting(bucket, now)
                    opened = [await self._open(tx, a, b) for a, b in pairs]
            except Exception:  # undone with the games: all of them wait on
                log.exception("pool games could not start; their players wait on")
                continue
            for one in opened:
                await self._announce(one)
        counts = await self.storage.pool.counts(now)
        for entry in await self.storage.pool.entries(now):
            if entry.data.get("offered") or (
                platforms is not None and entry.platform not in platforms
            ):
                continue
            if now - entry.seeker.joined < OFFER_COMPUTER_AFTER:
                # The waiting message says how many wait, edited when that changes.
                seen = _seen(entry, counts)
                if entry.message is None or entry.data.get("seen") == seen:
                    continue
                if await self.storage.pool.update(
                    entry.user_id, entry.seeker.joined, entry.message, {**entry.data, "seen": seen}
                ):
                    user = await self.storage.get_user(entry.user_id)
                    chat = await self.storage.get_chat(entry.platform, entry.chat_id)
                    view = _waiting(entry, counts, language(user, chat))
                    view.chat, view.message, view.channel = (
                        (entry.platform, entry.chat_id),
                        entry.message,
                        entry.message,
                    )
                    view.edit = view.edit_only = True
                    views.append(view)
                continue
            if not await self.storage.pool.update(
                entry.user_id, entry.seeker.joined, entry.message, {**entry.data, "offered": True}
            ):
                continue
            user = await self.storage.get_user(entry.user_id)
            chat = await self.storage.get_chat(entry.platform, entry.chat_id)
            views.append(self.offer_view(entry, user, chat))
        return views

    # -- /games -------------------------------------------------------------------------

    async def games(self, *, user: User, chat: Chat, **_: Any) -> list[View]:
        """``/games``: the player's pool games under way, whose turn it is in each."""
        games = sorted(await self._pool_games(user), key=lambda g: g.stored_id)
        if not games:
            return [
                View(
                    [t("You have no pool game going. /play finds an opponent.")],
                    lang=language(user, chat),
                )
            ]
        lines: list[Text | str] = [t("Your pool games:")]
        for record in games:
            match = Match.from_dict(record.match or {})
            seat = record.seats.index(user.id)
            names = record.settings.names or ("?", "?")
            turn = match.game is not None and match.game.awaiting == seat
            lines.append(
                t(
                    "#{id} {wish} against {name}: {whose}",
                    id=record.stored_id,
                    wish=_wish(record.variant, record.settings.length, pace_of(record)),
                    name=names[1 - seat],
                    whose=t("your turn") if turn else t("their turn"),
                )
            )
        lines.append(t("/board in the chat where you play shows a game's board."))
        return [View(lines, lang=language(user, chat))]

    # -- strangers --------------------------------------------------------------------

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


__all__ = ["COMPUTER", "POOL_SCOPE", "Pool", "pace_of"]
