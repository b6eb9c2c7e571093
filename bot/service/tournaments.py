"""Tournaments in a chat: ``/tournament``, its card, its rounds played as ordinary games.

The engine is :mod:`core.tournament` (pure); this module keeps a tournament in storage
(one row, its state as JSON, saved with a version check inside one transaction), and talks
to the game service through a few hooks:

- ``/tournament …`` and the card's Join / Leave / Start buttons (:meth:`Tournaments.command`,
  :meth:`Tournaments.press`);
- a tournament game that finishes records its result in the same transaction
  (:meth:`Tournaments.game_finished`), after which the next matches are started and the
  standings posted (:meth:`Tournaments.after_game`);
- a tournament game whose clock runs out is lost, as a match, by the player to act (TN-7,
  :meth:`Tournaments.timed_out`); the deadline rounds also start tournaments at their start
  time and start any match a crash left unstarted (:meth:`Tournaments.tick`).

Each pairing's match is a normal game of the chat (buttons, typed moves, deadlines, fair
dice, rated per chat); its settings name the tournament and the pairing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from bot.i18n import Text, t, translate
from bot.storage.base import (
    Chat,
    ContestSettings,
    GameRecord,
    GameStatus,
    StaleVersionError,
    StorageError,
    TournamentRecord,
    TournamentStatus,
    User,
)
from core.match import Match
from core.tournament import (
    Format,
    Pace,
    Pairing,
    Settings,
    Stage,
    Tournament,
    TournamentError,
)
from renderers.standings import StandingsLabels, render_standings

from .views import Button, View

if TYPE_CHECKING:
    from .service import Actor, GameService, Place

log = logging.getLogger(__name__)

#: Button ids of tournament cards: ``tn:<tournament id>:<code>`` (game buttons are digits).
PREFIX = "tn:"
JOIN, LEAVE, START = "j", "l", "s"
#: A running tournament with matches to start is looked at again after this many seconds,
#: so a match a crash left unstarted is started by the deadline rounds.
RETRY_AFTER = 120.0
DEFAULT_SWISS_ROUNDS = 3

FORMAT_WORDS = {
    Format.KNOCKOUT: {"knockout", "ko", "cup", "eleme", "kupa", "олимпийка", "навылет"},
    Format.ROUND_ROBIN: {"roundrobin", "round-robin", "rr", "league", "lig", "круговой"},
    Format.SWISS: {"swiss", "isviçre", "isvicre", "швейцарка", "швейцарская"},
}
GAME_WORDS = {
    "tavla": "tavla",
    "backgammon": "tavla",
    "turkish": "turkish",
    "türk": "turkish",
    "turk": "turkish",
    "geleneksel": "turkish",
    "uzun": "uzun",
    "nardy": "uzun",
    "нарды": "uzun",
}
FAST_WORDS = {"fast", "hızlı", "hizli", "быстро", "blitz"}
DAILY_WORDS = {"daily", "günlük", "gunluk", "ежедневно"}
ROUND_WORDS = {"round", "rounds", "tur", "raunt", "тур", "тура", "туров", "раунд", "раунда"}
POINT_WORDS = {"point", "points", "puan", "очко", "очка", "очков"}
MAX_WORDS = {"max", "en", "çok", "макс"}
SUBCOMMANDS = {
    "join": {"join", "katıl", "katil", "участвую", "войти"},
    "leave": {"leave", "ayrıl", "ayril", "выйти"},
    "start": {"start", "başlat", "baslat", "старт", "начать"},
    "cancel": {"cancel", "iptal", "отмена"},
    "show": {"standings", "table", "show", "tablo", "таблица"},
    "award": {"award", "hükmen", "hukmen", "присудить"},
}
_RELATIVE_START = re.compile(r"^(\d{1,4})(m|min|h|dk|sa|м|ч)$")

FORMAT_NAMES: dict[Format, Text] = {
    Format.KNOCKOUT: t("knockout"),
    Format.ROUND_ROBIN: t("round robin"),
    Format.SWISS: t("Swiss"),
}
GAME_NAMES: dict[str, Text] = {
    "tavla": t("Tavla"),
    "turkish": t("Turkish tavla"),
    "uzun": t("Uzun Tavla"),
}

#: Core's refusals (TournamentError codes) as messages.
ERRORS: dict[str, Text] = {
    "tournament_not_joined": t("You are not in this tournament."),
    "tournament_already_joined": t("You are in the tournament already."),
    "tournament_full": t("The tournament is full ({max} players)."),
    "tournament_not_organiser": t("Only the organiser or a chat admin can do that."),
    "tournament_too_few": t("At least {min} players are needed to start."),
    "tournament_over": t("This tournament is over."),
    "tournament_started": t("The tournament has started: entries are closed."),
    "tournament_not_running": t("The tournament is not running."),
    "tournament_bad_game": t("A tournament is played in tavla, turkish or uzun."),
    "tournament_bad_length": t("A match can be 1 to {max} points long."),
    "tournament_bad_limits": t("The player limit can be 2 to {max}."),
    "tournament_bad_rounds": t("A Swiss has 1 to 30 rounds; the other formats set their own."),
}
USAGE = t(
    "Open a tournament with /tournament knockout, /tournament roundrobin or "
    "/tournament swiss 4 (rounds), optionally with the game (tavla, turkish, uzun), the match "
    "length (3 points), fast or daily, max 8 and a start such as in 30m. Then: /tournament "
    "join, leave, start, cancel, award @name; /tournament alone shows it."
)


class Tournaments:
    """The tournaments of every chat, driven by the game service."""

    def __init__(self, service: GameService) -> None:
        self.service = service

    @property
    def storage(self) -> Any:
        return self.service.storage

    def clock(self) -> float:
        return self.service.clock()

    @staticmethod
    def owns(data: str) -> bool:
        """Whether a button id is a tournament card's."""
        return data.startswith(PREFIX)

    # -- the command -----------------------------------------------------------------

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
            return [await self._show(shown, chat, user)]
        if sub is None:
            if live is not None:
                raise self._refuse(t("This chat has a tournament already: /tournament shows it."))
            return await self._open(user, chat, place, words)
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
        message: dict[str, Any] | None,
    ) -> list[View]:
        """A Join / Leave / Start button of a card."""
        try:
            _, number, code = data.split(":")
            tournament_id = int(number)
        except ValueError:
            raise self._refuse(t("That button is not one of mine.")) from None
        sub = {JOIN: "join", LEAVE: "leave", START: "start"}.get(code)
        record = await self.storage.get_tournament(tournament_id)
        elsewhere = record is None or (record.platform, record.chat_id) != (
            place.platform,
            place.chat_id,
        )
        if sub is None or elsewhere:
            raise self._refuse(t("That button is not one of mine."))
        return await self._act(tournament_id, sub, user, chat, actor, message)

    # -- hooks of the game service ---------------------------------------------------

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
        self._store(stored, tourney, now)
        await tx.save_tournament(stored, stored.version)

    async def after_game(self, record: GameRecord, chat: Chat) -> list[View]:
        """After a tournament game's commit: the result, the next matches, the standings."""
        number = record.settings.tournament
        if not number or record.status is not GameStatus.FINISHED:
            return []
        return await self._after_result(int(number), chat, None)

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
                self._store(stored, tourney, now)
                await tx.save_tournament(stored, stored.version)
            await self._stop_game(tx, game, "timeout", seat=seat)
        chat = await self.storage.get_chat(record.platform, record.chat_id)
        names = list(record.settings.names or ["?", "?"])
        line = t(
            "{name} has run out of time and loses the tournament match against {other}.",
            name=names[seat],
            other=names[1 - seat],
        )
        views = await self._after_result(number, chat, line)
        for view in views:  # sent by the deadline rounds, which have no incoming chat
            view.chat = (chat.platform, chat.chat_id)
        return views

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
                tourney = Tournament.from_dict(fresh.state)
                ratings = await self._ratings(tx, tourney, chat)
                if tourney.stage is Stage.OPEN and (
                    tourney.settings.starts_at is not None
                    and now >= tourney.settings.starts_at
                    and len(tourney.entrants) >= tourney.settings.min_players
                ):
                    tourney.start(now, ratings=ratings)
                else:
                    tourney.start_if_due(now)
                self._store(fresh, tourney, now)
                await tx.save_tournament(fresh, fresh.version)
            if tourney.stage is Stage.CANCELLED:
                views.append(
                    self._group(
                        chat,
                        t(
                            "The tournament is called off: fewer than {n} players had joined "
                            "by its start.",
                            n=tourney.settings.min_players,
                        ),
                    )
                )
            elif tourney.stage is not Stage.OPEN:
                views.extend(await self._started(fresh.stored_id, chat, tourney))
        else:
            views.extend(await self._start_matches(stored.stored_id, chat))
            async with self.storage.transaction() as tx:
                fresh = await tx.get_tournament(stored.stored_id)
                if fresh is not None:
                    tourney = Tournament.from_dict(fresh.state)
                    self._store(fresh, tourney, now)
                    await tx.save_tournament(fresh, fresh.version)
        for view in views:
            view.chat = (chat.platform, chat.chat_id)
        return views

    # -- actions ---------------------------------------------------------------------

    async def _open(self, user: User, chat: Chat, place: Place, words: list[str]) -> list[View]:
        if place.private:
            raise self._refuse(t("Tournaments are played in groups: open one there."))
        settings = self._parse(words)
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
        async with self.storage.transaction() as tx:
            rating = (await tx.get_rating(user.id, chat.scope, settings.game)).rating
            tourney.join(user.id, user.name, rating, now)
            self._store(stored, tourney, now)
            stored = await tx.insert_tournament(stored)
        return [self._card(stored, tourney, chat, user)]

    async def _act(
        self,
        tournament_id: int,
        sub: str,
        user: User,
        chat: Chat,
        actor: Actor,
        message: dict[str, Any] | None,
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
            return [self._group(chat, t("The tournament is called off."))]
        if sub == "start":
            return await self._started(tournament_id, chat, tourney)
        if sub == "leave" and was_running:
            line = t("{name} has left the tournament.", name=user.name)
            return await self._after_result(tournament_id, chat, line)
        card = self._card(stored, tourney, chat, user)
        if message is not None:
            card.edit, card.message = True, message
        return [card]

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
            winner = await self.service._user(mention)
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

    # -- rounds ----------------------------------------------------------------------

    async def _started(self, tournament_id: int, chat: Chat, tourney: Tournament) -> list[View]:
        line = t(
            "The tournament begins: {n} players, {rounds} rounds.",
            n=len(tourney.entrants),
            rounds=tourney.rounds,
        )
        stored = await self.storage.get_tournament(tournament_id)
        views = [await self._standings_view(tourney, chat, [line], stored, anew=True)]
        return views + await self._start_matches(tournament_id, chat)

    async def _after_result(self, tournament_id: int, chat: Chat, line: Text | None) -> list[View]:
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
                views.append(await self._standings_view(tourney, chat, [], stored))
            views.append(await self._standings_view(tourney, chat, lines))
            return views
        if line is not None:
            views.append(self._group(chat, line))
        views.append(await self._standings_view(tourney, chat, [], stored))
        return views + await self._start_matches(tournament_id, chat)

    async def bind_standings(self, tournament_id: int, message: dict[str, Any]) -> None:
        """The adapter posted the tournament's standings picture as ``message``: later
        results edit that message in place."""
        try:
            async with self.storage.transaction() as tx:
                stored = await tx.get_tournament(tournament_id)
                if stored is None:
                    return
                stored.message = message
                await tx.save_tournament(stored, stored.version)
        except StorageError:
            log.warning("could not remember tournament %s's standings", tournament_id)

    async def _start_matches(self, tournament_id: int, chat: Chat) -> list[View]:
        """Start a game for every pairing ready to play, and any game left unstarted."""
        stored = await self.storage.get_tournament(tournament_id)
        if stored is None:
            return []
        tourney = Tournament.from_dict(stored.state)
        views: list[View] = []
        announced: list[Text | str] = []
        for pairing in tourney.ready():
            game = await self._attach_game(tournament_id, pairing.key, chat)
            if game is not None:
                announced.append(self._pairing_line(tourney, pairing))
                views.extend(await self._begin(game, chat))
        for pairing in tourney.in_play():  # attached, but a crash left the game unstarted
            game = await self.storage.get_game(int(pairing.match_ref or 0))
            if game is not None and game.status is GameStatus.CHALLENGE:
                views.extend(await self._begin(game, chat))
        if announced:
            head = t("Tournament matches: you play in this chat, one board per match.")
            views.insert(0, self._group(chat, head, *announced))
        return views

    async def _attach_game(self, tournament_id: int, key: str, chat: Chat) -> GameRecord | None:
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
            self._store(stored, tourney, now, waiting=True)
            await tx.save_tournament(stored, stored.version)
        return game

    async def _begin(self, game: GameRecord, chat: Chat) -> list[View]:
        """Begin an attached game through the service's own start (dice, board, clock)."""
        home, away = [await self.storage.get_user(seat) for seat in game.seats]
        if home is None or away is None:
            return []
        try:
            return await self.service._start(game, [home.name, away.name], chat, home, new=False)
        except StaleVersionError:
            return []  # begun by another worker

    async def _lock_games_in_play(self, tx: Any, tournament_id: int) -> None:
        """Lock the tournament's games in play before the tournament itself: a finishing
        game locks its game, then its tournament, and the same order everywhere keeps two
        workers from waiting for each other forever (PostgreSQL's row locks)."""
        stored = await self.storage.get_tournament(tournament_id)  # unlocked, in this tx
        if stored is None:
            return
        for pairing in Tournament.from_dict(stored.state).in_play():
            await tx.get_game(int(pairing.match_ref or 0))

    async def _stop_pairing_game(self, tx: Any, pairing: Pairing) -> None:
        """End the game of a pairing decided without it (a player left, an award)."""
        if pairing.match_ref is None:
            return
        game = await tx.get_game(int(pairing.match_ref))
        if game is not None:
            await self._stop_game(tx, game, "tournament_decided")

    async def _stop_game(self, tx: Any, game: GameRecord, why: str, **data: Any) -> None:
        """A tournament game that no longer counts: ended unrated, its clock stopped."""
        if game.status not in (GameStatus.ACTIVE, GameStatus.CHALLENGE):
            return
        game.status = GameStatus.ABORTED
        game.rated = False
        game.deadline = None
        game.updated = self.clock()
        await tx.save_game(game, game.version)
        await tx.add_events(game.stored_id, [(why, data)])

    # -- views -----------------------------------------------------------------------

    async def _show(self, stored: TournamentRecord, chat: Chat, user: User) -> View:
        tourney = Tournament.from_dict(stored.state)
        if tourney.stage is Stage.OPEN:
            return self._card(stored, tourney, chat, user)
        # Shown again at the bottom of the chat: this one is edited from now on.
        return await self._standings_view(tourney, chat, [], stored, anew=True)

    def _card(self, stored: TournamentRecord, tourney: Tournament, chat: Chat, user: User) -> View:
        """The entry card: settings, who is in, Join / Leave / Start."""
        settings = tourney.settings
        organiser = next((e.name for e in tourney.entrants if e.player == tourney.organiser), "?")
        lines: list[Text | str] = [self._title(tourney), t("Organiser: {name}", name=organiser)]
        names = ", ".join(e.name for e in tourney.entrants) or "—"
        lines.append(
            t(
                "Players ({n}/{max}): {names}",
                n=len(tourney.entrants),
                max=settings.max_players,
                names=names,
            )
        )
        if settings.starts_at is not None:
            minutes = max(0, round((settings.starts_at - self.clock()) / 60))
            lines.append(t("It starts by itself in {m} minutes.", m=minutes))
        else:
            lines.append(t("The organiser starts it with the Start button or /tournament start."))
        number = stored.stored_id
        buttons = [
            [
                Button(t("Join"), f"{PREFIX}{number}:{JOIN}"),
                Button(t("Leave"), f"{PREFIX}{number}:{LEAVE}"),
                Button(t("Start"), f"{PREFIX}{number}:{START}"),
            ]
        ]
        return View(lines, lang=self._group_lang(chat, user), buttons=buttons)

    def _title(self, tourney: Tournament) -> Text:
        settings = tourney.settings
        pace = t("fast") if settings.pace is Pace.FAST else t("daily")
        fmt: Text = FORMAT_NAMES[settings.format]
        if settings.format is Format.SWISS:
            fmt = t("Swiss, {n} rounds", n=settings.rounds)
        return t(
            "🏆 Tournament: {format} · {game} · matches to {n} · {pace}",
            format=fmt,
            game=GAME_NAMES[settings.game],
            n=settings.match_length,
            pace=pace,
        )

    def _pairing_line(self, tourney: Tournament, pairing: Pairing) -> Text:
        home = tourney.entrant(pairing.home).name if pairing.home is not None else "?"
        away = tourney.entrant(pairing.away).name if pairing.away is not None else "?"
        return t("Round {n}: {home} – {away}", n=pairing.round, home=home, away=away)

    async def _standings_view(
        self,
        tourney: Tournament,
        chat: Chat,
        lines: list[Text | str],
        stored: TournamentRecord | None = None,
        *,
        anew: bool = False,
    ) -> View:
        """The standings picture (a bracket or a table), with the top of the table as text.

        With ``stored``, this is the tournament's live standings: edited in place where it
        was posted before (unless ``anew``), and remembered where the adapter posts it."""
        lang = self._group_lang(chat, None)
        text: list[Text | str] = [self._title(tourney), *lines]
        for row in tourney.standings()[:8]:
            text.append(
                t(
                    "{rank}. {name}: {wins} won, {losses} lost",
                    rank=row.rank,
                    name=row.name,
                    wins=row.wins,
                    losses=row.losses,
                )
            )
        image = None
        if self.service.settings.render_images:
            labels = self._labels(tourney, lang)
            image = await asyncio.to_thread(
                render_standings, tourney, labels, self.service.settings.theme
            )
        view = View(text, lang=lang, image=image)
        if stored is not None:
            if stored.message and not anew:
                view.edit, view.message = True, stored.message
            view.posted = functools.partial(self.bind_standings, stored.stored_id)
        return view

    @staticmethod
    def _labels(tourney: Tournament, lang: str) -> StandingsLabels:
        def tr(text: Text) -> str:
            return translate(text, lang)

        return StandingsLabels(
            title=tr(t("Tournament")),
            # The templates stay templates: their placeholders are filled in by the renderer.
            round=tr(t("Round {n}", n="{n}")),
            round_of=tr(t("Round {n} of {total}", n="{n}", total="{total}")),
            last_rounds=(tr(t("Final")), tr(t("Semi-finals")), tr(t("Quarter-finals"))),
            winner=tr(t("Winner")),
            bye=tr(t("bye")),
            withdrawn=tr(t("left")),
            forfeit=tr(t("w/o")),
            timeout=tr(t("time")),
            award=tr(t("award")),
            finished=tr(t("Final standings")),
            player=tr(t("Player")),
            played=tr(t("P")),
            wins=tr(t("W")),
            losses=tr(t("L")),
            score=tr(t("Pts")),
            buchholz=tr(t("Bch")),
        )

    def _group_lang(self, chat: Chat, user: User | None) -> str:
        return self.service._lang(user, chat, private=False)

    def _group(self, chat: Chat, *lines: Text | str) -> View:
        return View(list(lines), lang=self._group_lang(chat, None))

    def _say(self, user: User, chat: Chat, *lines: Text | str) -> View:
        return View(list(lines), lang=self._group_lang(chat, user))

    # -- inside ----------------------------------------------------------------------

    def _store(
        self,
        stored: TournamentRecord,
        tourney: Tournament,
        now: float,
        waiting: bool = False,
    ) -> None:
        """Write ``tourney`` into its record: state, status and when to look at it next."""
        stored.state = tourney.to_dict()
        stored.status = TournamentStatus(tourney.stage.value)
        stored.updated = now
        if tourney.stage is Stage.OPEN:
            stored.deadline = tourney.settings.starts_at
        elif tourney.stage is Stage.RUNNING and (waiting or tourney.ready()):
            # Matches to start (or just started): should a crash stop them halfway, the
            # deadline rounds start the rest.
            stored.deadline = now + RETRY_AFTER
        else:
            stored.deadline = None

    async def _ratings(self, tx: Any, tourney: Tournament, chat: Chat) -> dict[int, float]:
        """Each entrant's rating in this chat and game, for the seeding (TN-2)."""
        kind = tourney.settings.game
        return {
            e.player: (await tx.get_rating(e.player, chat.scope, kind)).rating
            for e in tourney.entrants
        }

    async def _live(self, chat: Chat) -> TournamentRecord | None:
        found = await self.storage.tournaments_in_chat(chat.platform, chat.chat_id)
        return found[0] if found else None

    async def _latest(self, chat: Chat) -> TournamentRecord | None:
        found = await self.storage.tournaments_in_chat(
            chat.platform, chat.chat_id, tuple(TournamentStatus)
        )
        return found[0] if found else None

    def _parse(self, words: list[str]) -> Settings:
        """The settings of ``/tournament swiss 4 uzun 3 points fast max 8 in 30m``."""
        fmt: Format | None = None
        game = "tavla"
        length: int | None = None
        rounds: int | None = None
        pace = Pace.DAILY
        max_players = 16
        starts_at: float | None = None
        i = 0
        lowered = [w.casefold() for w in words]
        while i < len(lowered):
            word = lowered[i]
            following = lowered[i + 1] if i + 1 < len(lowered) else ""
            relative = _RELATIVE_START.match(word)
            if any(word in forms for forms in FORMAT_WORDS.values()):
                fmt = next(f for f, forms in FORMAT_WORDS.items() if word in forms)
            elif word in GAME_WORDS:
                game = GAME_WORDS[word]
            elif word in FAST_WORDS:
                pace = Pace.FAST
            elif word in DAILY_WORDS:
                pace = Pace.DAILY
            elif word in MAX_WORDS and following.isdigit() and following.isascii():
                max_players = int(following)
                i += 1
            elif word in ("in", "içinde", "через") and _RELATIVE_START.match(following):
                starts_at = self._starts(_RELATIVE_START.match(following))
                i += 1
            elif relative is not None:
                starts_at = self._starts(relative)
            elif word.isascii() and word.isdigit():
                number = int(word)
                if following in ROUND_WORDS:
                    rounds = number
                    i += 1
                elif following in POINT_WORDS:
                    length = number
                    i += 1
                elif fmt is Format.SWISS and rounds is None:
                    rounds = number
                else:
                    length = number
            elif word not in ROUND_WORDS and word not in POINT_WORDS:
                raise self._refuse(
                    t("I didn't understand “{word}”. {usage}", word=words[i], usage=USAGE)
                )
            i += 1
        if fmt is None:
            raise self._refuse(USAGE)
        if fmt is Format.SWISS and rounds is None:
            rounds = DEFAULT_SWISS_ROUNDS
        try:
            return Settings(
                fmt,
                game=game,
                match_length=length if length is not None else 1,
                pace=pace,
                max_players=max_players,
                rounds=rounds if fmt is Format.SWISS else None,
                starts_at=starts_at,
            )
        except TournamentError as exc:
            raise self._refusal(exc) from None

    def _starts(self, match: re.Match[str] | None) -> float:
        assert match is not None
        amount, unit = int(match[1]), match[2]
        return self.clock() + amount * (3600 if unit in ("h", "sa", "ч") else 60)

    @staticmethod
    def _refuse(text: Text) -> Exception:
        """A refusal shown to the player (the service's UserFacingError)."""
        from .service import UserFacingError  # the service imports this module

        return UserFacingError(text)

    def _refusal(self, error: TournamentError) -> Exception:
        template = ERRORS.get(error.code)
        if template is None:
            return self._refuse(t("That can't be done in the tournament now."))
        return self._refuse(Text(template.msgid, dict(error.params)))


__all__ = ["PREFIX", "Tournaments"]
