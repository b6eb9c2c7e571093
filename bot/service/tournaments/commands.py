"""``/tournament`` and the card's buttons: open, join, leave, start, cancel, award."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from typing import Any

from bot.i18n import t, tn
from bot.storage.base import (
    Chat,
    GameRecord,
    Storage,
    TournamentRecord,
    TournamentStatus,
    User,
)
from core.match import Match
from core.tournament import Pairing, Stage, Tournament, TournamentError

from .. import group_lang
from ..numbers import parse_id
from ..people import People
from ..settings import ServiceSettings
from ..views import Actor, MessageRef, Place, View
from . import base
from .base import (
    JOIN,
    LEAVE,
    START,
    Starts,
    entrant_ratings,
    group,
    latest_tournament,
    live_tournament,
    refuse,
    say,
    store_state,
)
from .cards import Cards
from .clock import TournamentClock
from .rounds import Rounds
from .words import PENDING, REPLACED, SUBCOMMANDS, USAGE, parse_settings, refusal


class Tournaments:
    """The tournaments of every chat, driven by the game service (the storage, the people
    named in commands, the clock, the settings). Its parts: the cards and standings
    (:class:`Cards`), the rounds (:class:`Rounds`) and their clock (:class:`TournamentClock`);
    this class answers the command and the cards' buttons, and is what the rest of the
    service calls."""

    def __init__(
        self,
        storage: Storage,
        people: People,
        clock: Callable[[], float],
        settings: ServiceSettings,
    ) -> None:
        self.storage = storage
        self.people = people
        self.clock = clock
        self.cards = Cards(storage, settings, clock)
        self.rounds = Rounds(storage, self.cards, clock)
        self.deadlines = TournamentClock(storage, self.cards, self.rounds)

    owns = staticmethod(base.owns)
    manages = staticmethod(base.manages)

    def starting_with(self, contests: Starts) -> None:
        """Start the tournaments' matches with ``contests`` (handed over by the composition
        root once both exist: the contests in turn tell the tournaments of every result)."""
        self.rounds.contests = contests

    async def game_finished(self, tx: Any, record: GameRecord, match: Match) -> None:
        """Inside the transaction that finishes a game: record its result (TN-7)."""
        await self.rounds.game_finished(tx, record, match)

    async def after_game(self, record: GameRecord, chat: Chat) -> list[View]:
        """After a tournament game's commit: the result, the next matches, the standings."""
        return await self.rounds.after_game(record, chat)

    async def timed_out(self, record: GameRecord, now: float) -> list[View]:
        """A tournament game passed its deadline: the player to act loses the match (TN-7)."""
        return await self.deadlines.timed_out(record, now)

    async def tick(self, now: float, platforms: Collection[str] | None = None) -> list[View]:
        """The tournaments' part of the deadline rounds (start times, matches to start)."""
        return await self.deadlines.tick(now, platforms)

    async def command(
        self,
        *,
        user: User,
        chat: Chat,
        place: Place,
        args: str,
        actor: Actor,
        mentions: list[Actor],
        **_: Any,
    ) -> list[View]:
        """``/tournament [format … | join | leave | start | cancel | award @name]``."""
        words = args.replace(",", " ").split()
        head = words[0].casefold() if words else ""
        sub = next((name for name, forms in SUBCOMMANDS.items() if head in forms), None)
        live = await live_tournament(self.storage, chat)
        if not words or sub == "show":
            shown = live or await latest_tournament(
                self.storage, chat
            )  # after the end: the final standings
            if shown is None:
                return [say(user, chat, t("No tournament here yet."), USAGE)]
            return await self.cards.show(shown, chat, user)
        if sub is None:
            if live is None:
                return await self._open(user, chat, place, words)
            if live.status is not TournamentStatus.OPEN:
                raise refuse(t("This chat has a tournament already: /tournament shows it."))
            if not actor.admin:
                raise refuse(PENDING)
            # A chat admin's new tournament replaces one that has not started: nobody can
            # hold a group's tournaments up by opening one and leaving it.
            return await self._open(user, chat, place, words, replacing=live)
        if live is None:
            raise refuse(t("No tournament here yet."))
        if sub == "award":
            return await self._award(user, chat, place, actor, words[1:], mentions, live)
        return await self._act(live.stored_id, sub, user, chat, actor, None)

    async def press(
        self,
        user: User,
        chat: Chat,
        place: Place,
        actor: Actor,
        data: str,
        message: MessageRef | None,
    ) -> list[View]:
        """A Join / Leave / Start button of a card."""
        parts = data.split(":")
        tournament_id = parse_id(parts[1]) if len(parts) == 3 else None
        if tournament_id is None:
            raise refuse(t("That button is not one of mine."))
        sub = {JOIN: "join", LEAVE: "leave", START: "start"}.get(parts[2])
        record = await self.storage.get_tournament(tournament_id)
        elsewhere = record is None or (record.platform, record.chat_id) != (
            place.platform,
            place.chat_id,
        )
        if sub is None or elsewhere:
            raise refuse(t("That button is not one of mine."))
        return await self._act(tournament_id, sub, user, chat, actor, message)

    async def _open(
        self,
        user: User,
        chat: Chat,
        place: Place,
        words: list[str],
        replacing: TournamentRecord | None = None,
    ) -> list[View]:
        """A new tournament and its card; ``replacing``: a chat admin's new one calls off
        the chat's tournament that has not started (in the same transaction)."""
        if place.private:
            raise refuse(t("Tournaments are played in groups: open one there."))
        settings = parse_settings(words, self.clock())
        now = self.clock()
        tourney = Tournament.open(settings, organiser=user.id, now=now)
        stored = TournamentRecord(
            platform=chat.platform,
            chat_id=chat.chat_id,
            status=TournamentStatus.OPEN,
            organiser=user.id,
            created=now,
            updated=now,
        )
        closed: list[View] = []
        async with self.storage.transaction() as tx:
            if replacing is not None:
                closed = await self._replace(tx, replacing.stored_id, user, chat, now)
            rating = (await tx.get_rating(user.id, chat.scope, settings.game)).rating
            tourney.join(user.id, user.name, rating, now)
            store_state(stored, tourney, now)
            stored = await tx.insert_tournament(stored)
        return [*closed, self.cards.card(stored, tourney, chat, user)]

    async def _replace(
        self, tx: Any, tournament_id: int, user: User, chat: Chat, now: float
    ) -> list[View]:
        """Call off the tournament a chat admin replaces; its card closed and the chat told."""
        old = await tx.get_tournament(tournament_id)
        if old is None or old.status is not TournamentStatus.OPEN:  # started meanwhile
            raise refuse(t("This chat has a tournament already: /tournament shows it."))
        previous = Tournament.from_dict(old.state)
        try:
            previous.cancel(now, by=user.id, admin=True)
        except TournamentError as exc:
            raise refusal(exc) from None
        store_state(old, previous, now)
        await tx.save_tournament(old, old.version)
        off = t("The tournament is called off.")
        return [*self.cards.card_edits(old, previous, chat, off), group(chat, REPLACED)]

    async def _act(
        self,
        tournament_id: int,
        sub: str,
        user: User,
        chat: Chat,
        actor: Actor,
        message: MessageRef | None,
    ) -> list[View]:
        """Join, leave, start or cancel, in one transaction; then the card or the rounds."""
        now = self.clock()
        async with self.storage.transaction() as tx:
            await self.rounds.lock_games_in_play(tx, tournament_id)
            stored = await tx.get_tournament(tournament_id)
            if stored is None:
                raise refuse(t("No tournament here yet."))
            tourney = Tournament.from_dict(stored.state)
            was_running = tourney.stage is Stage.RUNNING
            decided: list[Pairing] = []
            try:
                if sub == "join":
                    rating = (
                        await tx.get_rating(user.id, chat.scope, tourney.settings.game)
                    ).rating
                    tourney.join(user.id, user.name, rating, now)
                elif sub == "leave":
                    decided = tourney.leave(user.id, now)
                elif sub == "start":
                    ratings = await entrant_ratings(tx, tourney, chat)
                    tourney.start(now, by=user.id, admin=actor.admin, ratings=ratings)
                elif sub == "cancel":
                    tourney.cancel(now, by=user.id, admin=actor.admin)
            except TournamentError as exc:
                raise refusal(exc) from None
            for pairing in decided:
                await self.rounds.stop_pairing_game(tx, pairing)
            if sub == "cancel":
                for pairing in tourney.in_play():
                    await self.rounds.stop_pairing_game(tx, pairing)
            store_state(stored, tourney, now)
            await tx.save_tournament(stored, stored.version)
        if sub == "cancel":
            off = t("The tournament is called off.")
            closed = [] if was_running else self.cards.card_edits(stored, tourney, chat, off)
            return [*closed, group(chat, off)]
        if sub == "join":  # the group speaks its players' language
            entrants = [e.player for e in tourney.entrants]
            chat = await group_lang.settle(self.storage, chat, entrants)
        if sub == "start":
            return await self.rounds.started(tournament_id, chat, tourney)
        if sub == "leave" and was_running:
            line = t("{name} has left the tournament.", name=user.name)
            return await self.rounds.after_result(tournament_id, chat, line)
        card = self.cards.card(stored, tourney, chat, user)
        live = stored.message
        if message is not None and (live is None or live.same_message(message)):
            card.edit, card.message = True, message  # the live card's button: edited
            return [card]
        if live is None:  # where the card is was never told: post it
            return [card]
        if message is not None:
            # A button of an older card: the live one is edited, the pressed one retired.
            card.edit, card.message = True, live
            return [*self.cards.retire(replace(stored, message=message), chat), card]
        # By command: the card is edited where it is (no second card with live buttons), and
        # the player is answered here.
        card.edit, card.message = True, stored.message
        if sub == "join":
            said = t(
                "{name} joins the tournament: {players}.",
                name=user.name,
                players=tn("{n} player", "{n} players", len(tourney.entrants)),
            )
        else:
            said = t("{name} leaves the tournament.", name=user.name)
        return [card, say(user, chat, said)]

    async def _award(
        self,
        user: User,
        chat: Chat,
        place: Place,
        actor: Actor,
        words: list[str],
        mentions: list[Actor],
        live: TournamentRecord,
    ) -> list[View]:
        """``/tournament award @name``: the organiser gives ``name`` their current match."""
        winner: User | None = None
        for mention in mentions:
            winner = await self.people.user(mention)
        if winner is None and words:
            winner = await self.storage.find_user(place.platform, words[0].lstrip("@"))
        if winner is None:
            raise refuse(t("Award to whom? /tournament award @name."))
        now = self.clock()
        async with self.storage.transaction() as tx:
            await self.rounds.lock_games_in_play(tx, live.stored_id)
            stored = await tx.get_tournament(live.stored_id)
            assert stored is not None
            tourney = Tournament.from_dict(stored.state)
            pairing = next(
                (
                    p
                    for p in tourney.pairings
                    if winner.id in p.players
                    and p.result is None
                    and p.complete
                    and not p.bye
                    and (p in tourney.ready() or p in tourney.in_play())
                ),
                None,
            )
            if pairing is None:
                raise refuse(t("{name} has no match to award now.", name=winner.name))
            try:
                tourney.award(pairing.key, winner.id, now, by=user.id, admin=actor.admin)
            except TournamentError as exc:
                raise refusal(exc) from None
            await self.rounds.stop_pairing_game(tx, pairing)
            store_state(stored, tourney, now)
            await tx.save_tournament(stored, stored.version)
        line = t("The organiser awards the match to {name}.", name=winner.name)
        return await self.rounds.after_result(live.stored_id, chat, line)
