"""Deadlines: expired challenges, reminders, claims offered, lagging boards redrawn. (The
clocks of a paused chat resume in :meth:`bot.service.store.GameStore.resume`.)"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from bot.i18n import t, tn, translate
from bot.storage.base import GameRecord, GameStatus, StaleVersionError, Storage, StorageError
from core.game import ResultReason

from . import actions as A
from .boards import Boards
from .contests import Contests
from .mentions import Mention
from .settings import ServiceSettings
from .store import GameStore
from .tournaments import Tournaments
from .views import Button, View

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Deadlines:
    """The clock's side of the service: run :meth:`tick` often (the storage and the store,
    the boards redrawn, the contests that end a game on time, the tournaments and their own
    deadlines, the settings and the clock)."""

    storage: Storage
    store: GameStore
    boards: Boards
    contests: Contests
    tournaments: Tournaments
    settings: ServiceSettings
    clock: Callable[[], float]

    async def tick(self, platforms: Collection[str] | None = None) -> list[View]:
        """Deadlines: expire old challenges, remind slow players, offer claims; and boards
        that lag their game (the bot stopped between a save and its edit, an edit failed)
        redrawn. Run often, and once at start-up (bot/service/runner.py does).

        With ``platforms``, only the games of those platforms are looked at: an adapter
        never takes the reminders of another platform's games, which it could not deliver."""
        now = self.clock()
        views: list[View] = await self._repairs(now, platforms)
        longest = max(self.settings.turn_limit, self.settings.fast_turn_limit)
        lead = longest * (1 - self.settings.reminder_at)
        for record in await self.storage.due_games(now, lead):
            if platforms is not None and record.platform not in platforms:
                continue
            try:
                views.extend(await self._tick_game(record, now))
            except StaleVersionError:
                continue  # someone acted meanwhile; the next tick will see the new state
            except StorageError:
                log.warning("tick: storage unavailable for game %s", record.id, exc_info=True)
        views.extend(await self.tournaments.tick(now, platforms))
        return views

    async def _repairs(self, now: float, platforms: Collection[str] | None) -> list[View]:
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
            if platforms is not None and record.platform not in platforms:
                continue
            chat = await self.storage.get_chat(record.platform, record.chat_id)
            for view in await self.boards.boards_of(chat, [record]):
                view.repair = True  # a game in two chats: only the seats left behind
                views.append(view)
        return views

    async def _tick_game(self, record: GameRecord, now: float) -> list[View]:
        if record.deadline is None:
            return []
        limit = self.settings.fast_turn_limit if record.settings.fast else self.settings.turn_limit
        remind_at = record.deadline - limit * (1 - self.settings.reminder_at)
        if now < record.deadline and (
            record.status is GameStatus.CHALLENGE or record.reminded or now < remind_at
        ):
            return []  # nothing due yet: decided before any costly work
        chat = await self.storage.get_chat(record.platform, record.chat_id)
        if chat.paused is not None:
            return []  # the bot can't speak there: the clocks wait with the game
        lang = await self.store.game_lang(record, chat)
        where = (record.platform, record.chat_id)
        if record.status is GameStatus.CHALLENGE:
            async with self.storage.transaction() as tx:
                record.status = GameStatus.EXPIRED
                record.deadline = None
                await tx.save_game(record, record.version)
                await tx.add_events(record.stored_id, [("expired", {})])
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
        ctx = self.store.context(record)
        game = ctx.game
        names = ctx.names
        views: list[View] = []
        if now >= record.deadline:
            if record.settings.tournament:  # the whole match is lost on time (TN-7)
                return await self.tournaments.timed_out(record, now)
            if record.settings.computer == 1 - game.awaiting:
                game.forfeit(game.awaiting, ResultReason.TIMEOUT)
                ctx.events.append(("timeout", {"seat": 1 - game.awaiting}))
                ended = await self.contests.commit(
                    ctx,
                    chat,
                    await self.store.seat_user(record, 1 - (record.settings.computer or 0)),
                )
                for view in ended:
                    view.chat = where  # addressed, as every view of a round, to be delivered
                return ended
            async with self.storage.transaction() as tx:
                # Offered once: the game leaves the deadline scan, the claim stays open.
                record.settings = replace(record.settings, claimable_since=record.deadline)
                record.deadline = None
                await self.store.save_bookkeeping(tx, record)
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
                    for_seat=1 - game.awaiting,  # the one who may claim (the other cannot)
                    buttons=[
                        [
                            Button(
                                t("Claim the game"),
                                # The offer's save above gave the record its version.
                                A.encode(record.stored_id, record.version, A.CLAIM),
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
                await self.store.save_bookkeeping(tx, record)
            minutes = max(1, int((record.deadline - now) // 60))
            # The slow player is mentioned, so the platform notifies them.
            slow = await self.store.seat_user(record, game.awaiting)
            views.append(
                View(
                    [
                        tn(
                            "{name}, it is your move: {n} minute left.",
                            "{name}, it is your move: {n} minutes left.",
                            minutes,
                            name=Mention(
                                slow.platform,
                                slow.platform_id,
                                translate(names[game.awaiting], lang),
                            ),
                        )
                    ],
                    lang=lang,
                    chat=where,
                    message=record.message,
                    game_id=record.id,
                    for_seat=game.awaiting,
                )
            )
        return views
