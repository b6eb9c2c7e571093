"""The clock's side: a tournament game past its deadline is lost, as a match, by the player
to act (TN-7); tournaments start (or are called off) at their start time (TN-1); matches a
crash left unstarted are started."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from bot.i18n import t, tn
from bot.storage.base import (
    GameRecord,
    GameStatus,
    StaleVersionError,
    Storage,
    StorageError,
    TournamentRecord,
    TournamentStatus,
)
from core.match import Match
from core.tournament import Stage, Tournament, TournamentError

from ..views import View
from .base import address, entrant_ratings, group, log, store_state
from .cards import Cards
from .rounds import Rounds


@dataclass(eq=False)
class TournamentClock:
    """Deadlines and start times, run by the service's deadline rounds (the storage, the
    cards, the rounds)."""

    storage: Storage
    cards: Cards
    rounds: Rounds

    async def timed_out(self, record: GameRecord, now: float) -> list[View]:
        """A tournament game passed its deadline: the player to act loses the match (TN-7)."""
        number = int(record.settings.tournament or 0)
        async with self.storage.transaction() as tx:
            game = await tx.get_game(record.stored_id)
            if game is None or game.status is not GameStatus.ACTIVE or game.deadline is None:
                return []
            if now < game.deadline:
                return []
            match = Match.from_dict(game.match or {})
            assert match.game is not None
            seat = match.game.awaiting
            loser = game.seats[seat]
            stored = await tx.get_tournament(number)
            if stored is None:
                return []
            tourney = Tournament.from_dict(stored.state)
            pairing = tourney.pairing_for_match(str(game.id))
            home, away = game.seats
            if pairing is not None and pairing.result is None and home and away and loser:
                score = {home: match.score[0], away: match.score[1]}
                tourney.timeout(pairing.key, loser, now, score)
                store_state(stored, tourney, now)
                await tx.save_tournament(stored, stored.version)
            await self.rounds.stop_game(tx, game, "timeout", seat=seat)
        chat = await self.storage.get_chat(record.platform, record.chat_id)
        names = list(record.settings.names or ["?", "?"])
        line = t(
            "{name} has run out of time and loses the tournament match against {other}.",
            name=names[seat],
            other=names[1 - seat],
        )
        views = await self.rounds.after_result(number, chat, line)
        # Sent by the deadline rounds, which have no incoming chat.
        return address(views, chat, await self.storage.get_tournament(number))

    async def tick(self, now: float, platforms: Collection[str] | None = None) -> list[View]:
        """Start tournaments at their start time (or call them off, TN-1) and start any
        match still waiting (after a crash between a result and its next match). With
        ``platforms``, only the tournaments of those platforms (an adapter's own)."""
        views: list[View] = []
        for stored in await self.storage.due_tournaments(now):
            if platforms is not None and stored.platform not in platforms:
                continue
            try:
                views.extend(await self._tick_one(stored, now))
            except StaleVersionError:
                continue  # changed meanwhile: the next round sees it
            except (TournamentError, StorageError):
                log.warning("tick: tournament %s not advanced", stored.id, exc_info=True)
        return views

    async def _tick_one(self, stored: TournamentRecord, now: float) -> list[View]:
        chat = await self.storage.get_chat(stored.platform, stored.chat_id)
        if chat.paused is not None:
            return []
        views: list[View] = []
        if stored.status is TournamentStatus.OPEN:
            async with self.storage.transaction() as tx:
                fresh = await tx.get_tournament(stored.stored_id)
                if fresh is None or fresh.status is not TournamentStatus.OPEN:
                    return []
                if fresh.deadline is None or fresh.deadline > now:
                    return []  # another worker's round took it meanwhile: one edit, not two
                tourney = Tournament.from_dict(fresh.state)
                ratings = await entrant_ratings(tx, tourney, chat)
                if tourney.stage is Stage.OPEN and (
                    tourney.settings.starts_at is not None
                    and now >= tourney.settings.starts_at
                    and len(tourney.entrants) >= tourney.settings.min_players
                ):
                    tourney.start(now, ratings=ratings)
                else:
                    tourney.start_if_due(now)
                store_state(fresh, tourney, now)
                await tx.save_tournament(fresh, fresh.version)
            if tourney.stage is Stage.CANCELLED:
                why = tn(
                    "The tournament is called off: fewer than {n} player had joined by its start.",
                    "The tournament is called off: fewer than {n} players had joined by its start.",
                    tourney.settings.min_players,
                )
                views.extend(self.cards.card_edits(fresh, tourney, chat, why))
                views.append(group(chat, why))
            elif tourney.stage is Stage.OPEN:
                views.extend(self.cards.card_edits(fresh, tourney, chat, None))  # the countdown
            else:
                views.extend(await self.rounds.started(fresh.stored_id, chat, tourney))
        else:
            views.extend(await self.rounds.start_matches(stored.stored_id, chat))
            async with self.storage.transaction() as tx:
                fresh = await tx.get_tournament(stored.stored_id)
                if fresh is not None:
                    tourney = Tournament.from_dict(fresh.state)
                    store_state(fresh, tourney, now)
                    await tx.save_tournament(fresh, fresh.version)
        return address(views, chat, await self.storage.get_tournament(stored.stored_id))
