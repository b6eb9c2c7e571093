"""``/tournament`` and the card's buttons: open, join, leave, start, cancel, award."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from bot.i18n import t
from bot.storage.base import Chat, TournamentRecord, TournamentStatus, User
from core.tournament import Pairing, Stage, Tournament, TournamentError

from .. import group_lang
from ..numbers import parse_id
from ..views import MessageRef, View
from .base import JOIN, LEAVE, START
from .clock import ClockMixin
from .words import PENDING, REPLACED, SUBCOMMANDS, USAGE, parse_settings

if TYPE_CHECKING:
    from ..views import Actor, Place


class Tournaments(ClockMixin):
    """The tournaments of every chat, driven by the game service."""

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
        live = await self._live(chat)
        if not words or sub == "show":
            shown = live or await self._latest(chat)  # after the end: the final standings
            if shown is None:
                return [self._say(user, chat, t("No tournament here yet."), USAGE)]
            return await self._show(shown, chat, user)
        if sub is None:
            if live is None:
                return await self._open(user, chat, place, words)
            if live.status is not TournamentStatus.OPEN:
                raise self._refuse(t("This chat has a tournament already: /tournament shows it."))
            if not actor.admin:
                raise self._refuse(PENDING)
            # A chat admin's new tournament replaces one that has not started: nobody can
            # hold a group's tournaments up by opening one and leaving it.
            return await self._open(user, chat, place, words, replacing=live)
        if live is None:
            raise self._refuse(t("No tournament here yet."))
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
            raise self._refuse(t("That button is not one of mine."))
        sub = {JOIN: "join", LEAVE: "leave", START: "start"}.get(parts[2])
        record = await self.storage.get_tournament(tournament_id)
        elsewhere = record is None or (record.platform, record.chat_id) != (
            place.platform,
            place.chat_id,
        )
        if sub is None or elsewhere:
            raise self._refuse(t("That button is not one of mine."))
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
            raise self._refuse(t("Tournaments are played in groups: open one there."))
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
            self._store(stored, tourney, now)
            stored = await tx.insert_tournament(stored)
        return [*closed, self._card(stored, tourney, chat, user)]

    async def _replace(
        self, tx: Any, tournament_id: int, user: User, chat: Chat, now: float
    ) -> list[View]:
        """Call off the tournament a chat admin replaces; its card closed and the chat told."""
        old = await tx.get_tournament(tournament_id)
        if old is None or old.status is not TournamentStatus.OPEN:  # started meanwhile
            raise self._refuse(t("This chat has a tournament already: /tournament shows it."))
        previous = Tournament.from_dict(old.state)
        try:
            previous.cancel(now, by=user.id, admin=True)
        except TournamentError as exc:
            raise self._refusal(exc) from None
        self._store(old, previous, now)
        await tx.save_tournament(old, old.version)
        off = t("The tournament is called off.")
        return [*self._card_edits(old, previous, chat, off), self._group(chat, REPLACED)]

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
            await self._lock_games_in_play(tx, tournament_id)
            stored = await tx.get_tournament(tournament_id)
            if stored is None:
                raise self._refuse(t("No tournament here yet."))
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
                    ratings = await self._ratings(tx, tourney, chat)
                    tourney.start(now, by=user.id, admin=actor.admin, ratings=ratings)
                elif sub == "cancel":
                    tourney.cancel(now, by=user.id, admin=actor.admin)
            except TournamentError as exc:
                raise self._refusal(exc) from None
            for pairing in decided:
                await self._stop_pairing_game(tx, pairing)
            if sub == "cancel":
                for pairing in tourney.in_play():
                    await self._stop_pairing_game(tx, pairing)
            self._store(stored, tourney, now)
            await tx.save_tournament(stored, stored.version)
        if sub == "cancel":
            off = t("The tournament is called off.")
            closed = [] if was_running else self._card_edits(stored, tourney, chat, off)
            return [*closed, self._group(chat, off)]
        if sub == "join":  # the group speaks its players' language
            entrants = [e.player for e in tourney.entrants]
            chat = await group_lang.settle(self.storage, chat, entrants)
        if sub == "start":
            return await self._started(tournament_id, chat, tourney)
        if sub == "leave" and was_running:
            line = t("{name} has left the tournament.", name=user.name)
            return await self._after_result(tournament_id, chat, line)
        card = self._card(stored, tourney, chat, user)
        live = stored.message
        if message is not None and (live is None or live.same_message(message)):
            card.edit, card.message = True, message  # the live card's button: edited
            return [card]
        if live is None:  # where the card is was never told: post it
            return [card]
        if message is not None:
            # A button of an older card: the live one is edited, the pressed one retired.
            card.edit, card.message = True, live
            return [*self._retire(replace(stored, message=message), chat), card]
        # By command: the card is edited where it is (no second card with live buttons), and
        # the player is answered here.
        card.edit, card.message = True, stored.message
        if sub == "join":
            said = t(
                "{name} joins the tournament: {n} players.",
                name=user.name,
                n=len(tourney.entrants),
            )
        else:
            said = t("{name} leaves the tournament.", name=user.name)
        return [card, self._say(user, chat, said)]

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
            raise self._refuse(t("Award to whom? /tournament award @name."))
        now = self.clock()
        async with self.storage.transaction() as tx:
            await self._lock_games_in_play(tx, live.stored_id)
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
                raise self._refuse(t("{name} has no match to award now.", name=winner.name))
            try:
                tourney.award(pairing.key, winner.id, now, by=user.id, admin=actor.admin)
            except TournamentError as exc:
                raise self._refusal(exc) from None
            await self._stop_pairing_game(tx, pairing)
            self._store(stored, tourney, now)
            await tx.save_tournament(stored, stored.version)
        line = t("The organiser awards the match to {name}.", name=winner.name)
        return await self._after_result(live.stored_id, chat, line)
