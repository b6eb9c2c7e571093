"""The pool: find an opponent now (``/play``), among players on every chat and platform.

``/play [tavla|turkish|uzun] [points] [fast|daily]`` in a private chat with the bot puts the
player in the pool with what they want; the first fitting player waiting is paired at once
(core/pool.py says who fits whom; bot/storage/pool.py pairs in one transaction, so any worker
can). The game a pairing starts is saved in that same transaction (:mod:`bot.service.pool_games`):
should it fail, neither entry is lost. While nobody fits, a waiting message with a Cancel
button, its counts edited as players come and go; the deadline rounds pair what two workers
left apart, take out expired entries, and after a minute offer to play the computer
meanwhile. A player found while playing the computer is asked first
(:mod:`bot.service.pool_asks`). A pairing starts a rated game in the pool's leaderboard
(``/top pool``), each player in their own chat (:mod:`bot.service.seats`). Strangers learn
each other's display name and rating only (:mod:`bot.service.strangers`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from bot import metrics
from bot.i18n import Text, t, tn
from bot.storage.base import Chat, GameRecord, GameStatus, PoolEntry, Storage, User
from core.match import Match
from core.pool import new_seeker

from . import actions as A
from . import words as W
from .boards import Boards
from .errors import UserFacingError
from .lang import language, notice
from .numbers import parse_number
from .pool_asks import Asks
from .pool_counts import OFFER_COMPUTER_AFTER, CountEdits
from .pool_games import Opened, PoolGames
from .pool_views import (
    AFTER,
    CANCEL,
    COMPUTER,
    DECLINE,
    NOW,
    OPEN,
    addressed,
    left_view,
    offer_view,
    pace_of,
    seen,
    waiting_view,
    wish,
)
from .settings import POOL_SCOPE, ServiceSettings
from .store import GameStore
from .views import Button, MessageRef, Place, View

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Pool:
    """The pool (the storage, the pool's games, the questions to players busy with the
    computer, the waiting messages' counts, the store and boards that show a game's board
    from ``/games``, the settings and the clock)."""

    storage: Storage
    pool_games: PoolGames
    asks: Asks
    counts: CountEdits
    store: GameStore
    boards: Boards
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
        opened: Opened | None = None
        hold: tuple[PoolEntry, PoolEntry] | None = None
        try:
            async with self.storage.transaction() as tx:
                rating = (await tx.get_rating(user.id, POOL_SCOPE, variant)).rating
                seeker = new_seeker(user.id, variant, length, pace, rating, now, left_in_a_row=left)
                entry = PoolEntry(seeker, place.platform, place.chat_id)
                partner = await tx.pool.pair_or_wait(entry, now)
                if partner is not None:
                    # The one who waited may be playing the computer meanwhile: asked first.
                    if await self.asks.busy(partner.user_id):
                        hold = await self.asks.hold(tx, partner, entry, {partner.user_id}, now)
                    else:
                        opened = await self.pool_games.open(tx, partner, entry)
        except Exception:
            if partner is None:
                raise
            # The game could not start: the pairing is undone with it (one transaction), the
            # partner waits on, and so does the newcomer; the rounds pair them again.
            log.exception("a pool game could not start; both players wait on")
            async with self.storage.transaction() as tx:
                await tx.pool.put(entry)
            opened = hold = None
        metrics.POOL.labels("joined").inc()
        if hold is None:  # one more waits, or the one waiting left with the newcomer
            self.counts.changed()
        if hold is not None:
            return await self.asks.show_hold(hold, asker=user.id)
        if opened is None:
            return [await self._waiting_view(user, chat, entry, now)]
        return await self.pool_games.announce(opened, asker=user.id)

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
                        tn(
                            "A match can be 1 to {n} point long.",
                            "A match can be 1 to {n} points long.",
                            self.settings.max_match_length,
                        )
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
                tn(
                    "You have {n} daily game going already, the most at once.",
                    "You have {n} daily games going already, the most at once.",
                    self.settings.pool_daily_games,
                )
            )

    async def _waiting_view(self, user: User, chat: Chat, entry: PoolEntry, now: float) -> View:
        counts = await self.storage.pool.counts(now)
        joined = entry.seeker.joined
        shown = seen(entry, counts)

        async def posted(ref: MessageRef) -> None:
            await self.storage.pool.update(user.id, joined, ref, {"seen": shown})

        view = waiting_view(entry, counts, language(user, chat))
        view.posted = posted
        return view

    # -- buttons --------------------------------------------------------------------------

    async def press(self, user: User, chat: Chat, action: A.Action) -> list[View]:
        """The waiting message's Cancel button, or an answer to the question asked of a
        player busy with the computer."""
        if action.arg in (NOW, AFTER, DECLINE):
            views = await self.asks.answer(user, action.arg)
            if views is None:
                return [notice(user, chat, t("That question is no longer open."))]
            return views or [notice(user, chat, t("Waiting for your opponent's answer."))]
        if action.arg != CANCEL:
            raise UserFacingError(t("That button is not one of mine."))
        async with self.storage.transaction() as tx:
            entry = await tx.pool.leave(user.id)
        if entry is None:
            return [notice(user, chat, t("You are not waiting in the pool."))]
        metrics.POOL.labels("cancelled").inc()
        self.counts.changed()
        if "held" in entry.data:  # the one held for them waits on
            await self.asks.tick(
                [e for e in [await self.storage.pool.entry(int(entry.data["held"]))] if e]
            )
        view = left_view(entry, language(user, chat))
        view.chat = None  # the answer to the press, where it was pressed
        view.replace_pressed = True
        return [view]

    # -- the deadline rounds ------------------------------------------------------------

    async def tick(self, platforms: Collection[str] | None = None) -> list[View]:
        """Expired entries told, pairings two workers left apart made, held pairings
        settled, the computer offered to those waiting a minute, counts edited. Views of
        pairings are delivered by the seats."""
        now = self.clock()
        views: list[View] = []
        for entry in await self.storage.pool.expire(now):
            if platforms is not None and entry.platform not in platforms:
                continue
            user = await self.storage.get_user(entry.user_id)
            chat = await self.storage.get_chat(entry.platform, entry.chat_id)
            views.append(
                addressed(
                    View(
                        [t("Nobody came to play in time. /play to look again.")],
                        lang=language(user, chat),
                    ),
                    entry,
                )
            )
        counts = await self.storage.pool.counts(now)
        for bucket, count in counts.items():
            if count >= 2:
                await self._pair_waiting(bucket, now)
        entries = await self.storage.pool.entries(now)
        views.extend(await self.asks.tick(entries))
        edits, _more = await self.counts.edits(now, platforms)
        views.extend(edits)
        for entry in await self.storage.pool.entries(now):
            if (
                "held" in entry.data
                or entry.data.get("offered")
                or now - entry.seeker.joined < OFFER_COMPUTER_AFTER
                or (platforms is not None and entry.platform not in platforms)
            ):
                continue
            if not await self.storage.pool.update(
                entry.user_id, entry.seeker.joined, entry.message, {**entry.data, "offered": True}
            ):
                continue
            user = await self.storage.get_user(entry.user_id)
            chat = await self.storage.get_chat(entry.platform, entry.chat_id)
            views.append(offer_view(entry, language(user, chat)))
        return views

    async def _pair_waiting(self, bucket: tuple[str, int, str], now: float) -> None:
        """Pair the entries of a bucket that all wait; each game started (or, for a player
        busy with the computer, asked about) and shown."""
        opened: list[Opened] = []
        holds: list[tuple[PoolEntry, PoolEntry]] = []
        try:
            async with self.storage.transaction() as tx:
                for a, b in await tx.pool.pair_waiting(bucket, now):
                    busy = {e.user_id for e in (a, b) if await self.asks.busy(e.user_id)}
                    if busy:
                        holds.append(await self.asks.hold(tx, a, b, busy, now))
                    else:
                        opened.append(await self.pool_games.open(tx, a, b))
        except Exception:  # undone with the games: all of them wait on
            log.exception("pool games could not start; their players wait on")
            return
        for one in opened:
            await self.pool_games.announce(one)
        for hold in holds:
            await self.asks.show_hold(hold)

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
                    wish=wish(record.variant, record.settings.length, pace_of(record)),
                    name=names[1 - seat],
                    whose=t("your turn") if turn else t("their turn"),
                )
            )
        lines.append(t("A game's button shows its board."))
        opens = [
            Button(t("#{id}", id=record.stored_id), A.encode(record.stored_id, 0, A.POOL, OPEN))
            for record in games
        ]
        rows = [opens[i : i + 4] for i in range(0, len(opens), 4)]
        return [View(lines, lang=language(user, chat), buttons=rows)]

    async def open_board(self, user: User, chat: Chat, place: Place, game_id: int) -> list[View]:
        """A game's button under ``/games``: its board from the player's side, posted anew in
        the chat where they play it (and a word here when that is another chat)."""
        record = await self.storage.get_game(game_id)
        if (
            record is None
            or record.status is not GameStatus.ACTIVE
            or record.settings.scope != POOL_SCOPE
            or user.id not in record.seats
        ):
            raise UserFacingError(t("I can't find that game."))
        seat = record.seats.index(user.id)
        board = await self.boards.board(self.store.context(record), chat, edit=False)
        board.for_seat = seat  # the opponent's board stays as it is
        views = [board]
        if not any(
            s.seat == seat and (s.platform, s.chat_id) == (place.platform, place.chat_id)
            for s in await self.pool_games.seats.of(game_id)
        ):
            views.append(notice(user, chat, t("The board is in the chat where you play it.")))
        return views


__all__ = ["COMPUTER", "POOL_SCOPE", "Pool", "pace_of"]
