"""Rounds: a game started for every pairing ready to play, results recorded in the game's
own transaction, the standings and the next matches after each result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.i18n import Text, t, tn
from bot.storage.base import (
    Chat,
    ContestSettings,
    GameRecord,
    GameStatus,
    StaleVersionError,
    Storage,
)
from core.match import Match
from core.tournament import Pace, Pairing, Stage, Tournament, TournamentError

from ..views import View
from .base import Starts, group, log, store_state
from .cards import Cards


@dataclass(eq=False)
class Rounds:
    """Matches started, results taken, rounds moved on (the storage, the cards and
    standings, the clock; the contests that start the matches, handed over by the
    composition root once both exist)."""

    storage: Storage
    cards: Cards
    clock: Callable[[], float]
    contests: Starts | None = field(default=None, init=False)

    async def game_finished(self, tx: Any, record: GameRecord, match: Match) -> None:
        """Inside the transaction that finishes a game: record its result (TN-7)."""
        number = record.settings.tournament
        if not number or match.winner is None or record.id is None:
            return
        stored = await tx.get_tournament(int(number))
        if stored is None:
            return
        tourney = Tournament.from_dict(stored.state)
        pairing = tourney.pairing_for_match(str(record.id))
        if pairing is None or pairing.result is not None:
            return  # decided meanwhile (awarded, a player left): the match no longer counts
        home, away = record.seats
        if home is None or away is None:
            return
        score = {home: match.score[0], away: match.score[1]}
        now = self.clock()
        try:
            tourney.record(pairing.key, (home, away)[match.winner], now, score)
        except TournamentError:
            log.warning("tournament %s refused the result of game %s", number, record.id)
            return
        store_state(stored, tourney, now)
        await tx.save_tournament(stored, stored.version)

    async def after_game(self, record: GameRecord, chat: Chat) -> list[View]:
        """After a tournament game's commit: the result, the next matches, the standings."""
        number = record.settings.tournament
        if not number or record.status is not GameStatus.FINISHED:
            return []
        return await self.after_result(int(number), chat, None)

    async def started(self, tournament_id: int, chat: Chat, tourney: Tournament) -> list[View]:
        """The card closed, the standings posted (edited from now on), the first matches."""
        line = t(
            "The tournament begins: {players}, {rounds}.",
            players=tn("{n} player", "{n} players", len(tourney.entrants)),
            rounds=tn("{n} round", "{n} rounds", tourney.rounds),
        )
        stored = await self.storage.get_tournament(tournament_id)
        if stored is None:
            return []
        views = self.cards.card_edits(stored, tourney, chat, t("Entries are closed: it has begun."))
        views.append(await self.cards.standings_view(tourney, chat, [line], stored, anew=True))
        return views + await self.start_matches(tournament_id, chat)

    async def after_result(self, tournament_id: int, chat: Chat, line: Text | None) -> list[View]:
        """After a result: its line, the standings picture edited in place, the winner's
        card at the end (posted anew), and the next matches."""
        stored = await self.storage.get_tournament(tournament_id)
        if stored is None:
            return []
        tourney = Tournament.from_dict(stored.state)
        views: list[View] = []
        if tourney.stage is Stage.FINISHED:
            winner = tourney.winner
            name = tourney.entrant(winner).name if winner is not None else None
            lines: list[Text | str] = [line] if line is not None else []
            lines.append(
                t("🏆 {name} wins the tournament!", name=name)
                if name
                else t("The tournament is over.")
            )
            if stored.message:
                views.append(await self.cards.standings_view(tourney, chat, [], stored))
            views.append(await self.cards.standings_view(tourney, chat, lines))
            return views
        if line is not None:
            views.append(group(chat, line))
        views.append(await self.cards.standings_view(tourney, chat, [], stored))
        return views + await self.start_matches(tournament_id, chat)

    async def start_matches(self, tournament_id: int, chat: Chat) -> list[View]:
        """Start a game for every pairing ready to play, and any game left unstarted."""
        stored = await self.storage.get_tournament(tournament_id)
        if stored is None:
            return []
        tourney = Tournament.from_dict(stored.state)
        views: list[View] = []
        announced: list[Text | str] = []
        rounds: set[int] = set()
        for pairing in tourney.ready():
            game = await self.attach_game(tournament_id, pairing.key, chat)
            if game is not None:
                announced.append(await self.cards.pairing_line(tourney, pairing))
                rounds.add(pairing.round)
                views.extend(await self.begin(game, chat))
        for pairing in tourney.in_play():  # attached, but a crash left the game unstarted
            game = await self.storage.get_game(int(pairing.match_ref or 0))
            if game is not None and game.status is GameStatus.CHALLENGE:
                views.extend(await self.begin(game, chat))
        if announced:
            # The byes of the rounds announced, so every player of them hears where they are.
            for pairing in tourney.pairings:
                if pairing.bye and pairing.round in rounds and pairing.home is not None:
                    player = await self.cards.mention(tourney, pairing.home)
                    announced.append(
                        t("Round {n}: {name} has a bye.", n=pairing.round, name=player)
                    )
            head = t("Tournament matches: you play in this chat, one board per match.")
            views.insert(0, group(chat, head, *announced))
        return views

    async def attach_game(self, tournament_id: int, key: str, chat: Chat) -> GameRecord | None:
        """The game of a pairing, created and attached in one transaction (not yet begun)."""
        now = self.clock()
        async with self.storage.transaction() as tx:
            stored = await tx.get_tournament(tournament_id)
            if stored is None:
                return None
            tourney = Tournament.from_dict(stored.state)
            pairing = tourney.pairing(key)
            if pairing not in tourney.ready() or pairing.home is None:
                return None  # started by another worker meanwhile
            settings = tourney.settings
            game = GameRecord(
                platform=stored.platform,
                chat_id=stored.chat_id,
                variant=settings.game,
                status=GameStatus.CHALLENGE,
                seats=[pairing.home, pairing.away],
                challenger=pairing.home,
                settings=ContestSettings(
                    length=settings.match_length,
                    fast=settings.pace is Pace.FAST,
                    scope=chat.scope,
                    tournament=tournament_id,
                    pairing=key,
                ),
                rated=True,
                created=now,
                updated=now,
            )
            game = await tx.insert_game(game)
            await tx.add_events(
                game.stored_id, [("tournament", {"tournament": tournament_id, "pairing": key})]
            )
            tourney.attach(key, str(game.stored_id))
            store_state(stored, tourney, now, waiting=True)
            await tx.save_tournament(stored, stored.version)
        return game

    async def begin(self, game: GameRecord, chat: Chat) -> list[View]:
        """Begin an attached game through the service's own start (dice, board, clock)."""
        home, away = [
            await self.storage.get_user(seat) if seat is not None else None for seat in game.seats
        ]
        if home is None or away is None:
            return []
        try:
            assert self.contests is not None, "the composition root hands over the contests"
            return await self.contests.start(game, [home.name, away.name], chat, home, new=False)
        except StaleVersionError:
            return []  # begun by another worker

    async def lock_games_in_play(self, tx: Any, tournament_id: int) -> None:
        """Lock the tournament's games in play before the tournament itself: a finishing
        game locks its game, then its tournament, and the same order everywhere keeps two
        workers from waiting for each other forever (PostgreSQL's row locks)."""
        stored = await self.storage.get_tournament(tournament_id)  # unlocked, in this tx
        if stored is None:
            return
        for pairing in Tournament.from_dict(stored.state).in_play():
            await tx.get_game(int(pairing.match_ref or 0))

    async def stop_pairing_game(self, tx: Any, pairing: Pairing) -> None:
        """End the game of a pairing decided without it (a player left, an award)."""
        if pairing.match_ref is None:
            return
        game = await tx.get_game(int(pairing.match_ref))
        if game is not None:
            await self.stop_game(tx, game, "tournament_decided")

    async def stop_game(self, tx: Any, game: GameRecord, why: str, **data: Any) -> None:
        """A tournament game that no longer counts: ended unrated, its clock stopped."""
        if game.status not in (GameStatus.ACTIVE, GameStatus.CHALLENGE):
            return
        game.status = GameStatus.ABORTED
        game.rated = False
        game.deadline = None
        game.updated = self.clock()
        await tx.save_game(game, game.version)
        await tx.add_events(game.stored_id, [(why, data)])
