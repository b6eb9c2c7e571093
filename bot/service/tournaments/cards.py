"""The tournament's pictures and cards: the entry card, the standings picture (a bracket or
a table) posted once and edited in place, and the lines that name the pairings."""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

from bot.i18n import Text, t, tn, translate
from bot.storage.base import Chat, Storage, StorageError, TournamentRecord, User
from core.tournament import Format, Pace, Pairing, Stage, Tournament
from renderers.standings import StandingsLabels, render_standings

from ..mentions import Mention
from ..settings import ServiceSettings
from ..views import Button, MessageRef, View
from .base import JOIN, LEAVE, PREFIX, START, group_lang, log
from .words import FORMAT_NAMES, GAME_NAMES


@dataclass(eq=False)
class Cards:
    """Cards and standings (the storage, the settings for the pace and the pictures, the
    clock for the countdown)."""

    storage: Storage
    settings: ServiceSettings
    clock: Callable[[], float]

    async def show(self, stored: TournamentRecord, chat: Chat, user: User) -> list[View]:
        """The card (before the start) or the standings, posted again at the bottom of the
        chat: that one is the live one from now on, and the one before becomes a pointer to
        it, without buttons, so the group sees one card that tells the truth."""
        tourney = Tournament.from_dict(stored.state)
        if tourney.stage is Stage.OPEN:
            shown = self.card(stored, tourney, chat, user)
        else:
            shown = await self.standings_view(tourney, chat, [], stored, anew=True)
        return [*self.retire(stored, chat), shown]

    def retire(self, stored: TournamentRecord, chat: Chat) -> list[View]:
        """The tournament's message posted before (card or standings), edited into a pointer
        to the one about to be posted, with no buttons."""
        if not stored.message:
            return []
        pointer = View(
            [t("⬇️ This card is out of date: the tournament's current one is below.")],
            lang=group_lang(chat, None),
            edit=True,
            edit_only=True,
            caption_only=True,
            message=stored.message,
        )
        return [pointer]

    def card(
        self,
        stored: TournamentRecord,
        tourney: Tournament,
        chat: Chat,
        user: User | None,
        *,
        closed: Text | None = None,
    ) -> View:
        """The entry card: settings, who is in, the countdown to the start time, Join /
        Leave / Start. Posted anew, it is the card later edited in place (the countdown);
        ``closed`` says why entries are over, on a card without buttons."""
        settings = tourney.settings
        organiser = next((e.name for e in tourney.entrants if e.player == tourney.organiser), "?")
        lines: list[Text | str] = [self.title(tourney), t("Organiser: {name}", name=organiser)]
        names = ", ".join(e.name for e in tourney.entrants) or "—"
        lines.append(
            t(
                "Players ({n}/{max}): {names}",
                n=len(tourney.entrants),
                max=settings.max_players,
                names=names,
            )
        )
        if settings.timeouts_to_withdraw:
            out = t(
                "Matches lost on time that put a player out: {n}.", n=settings.timeouts_to_withdraw
            )
        else:
            out = t("A match lost on time never puts a player out.")
        lines.append(out)
        number = stored.stored_id
        if closed is not None:
            return View([*lines, closed], lang=group_lang(chat, user))
        if settings.starts_at is not None:
            lines.append(self.countdown(settings.starts_at))
            lines.append(
                tn(
                    "At least {n} player is needed to start.",
                    "At least {n} players are needed to start.",
                    settings.min_players,
                )
            )
        else:
            lines.append(t("The organiser starts it with the Start button or /tournament start."))
        buttons = [
            [
                Button(t("Join"), f"{PREFIX}{number}:{JOIN}"),
                Button(t("Leave"), f"{PREFIX}{number}:{LEAVE}"),
                Button(t("Start"), f"{PREFIX}{number}:{START}"),
            ]
        ]
        return View(
            lines,
            lang=group_lang(chat, user),
            buttons=buttons,
            posted=functools.partial(self.bind_message, number),
        )

    def countdown(self, starts_at: float) -> Text:
        """The time left to the start, in whole minutes rounded up (hours from two on)."""
        minutes = max(0, math.ceil((starts_at - self.clock()) / 60))
        if minutes >= 120:
            return t("It starts by itself in {h} h {m} min.", h=minutes // 60, m=minutes % 60)
        return tn(
            "It starts by itself in {n} minute.", "It starts by itself in {n} minutes.", minutes
        )

    def card_edits(
        self, stored: TournamentRecord, tourney: Tournament, chat: Chat, closed: Text | None
    ) -> list[View]:
        """The card posted before, edited in place (the countdown refreshed, or closed);
        nothing when the adapter never said where it is."""
        if not stored.message:
            return []
        card = self.card(stored, tourney, chat, None, closed=closed)
        card.edit, card.message = True, stored.message
        return [card]

    def title(self, tourney: Tournament) -> Text:
        settings = tourney.settings
        limits = self.settings
        if settings.pace is Pace.FAST:
            pace = t("fast: {m} min per move", m=max(1, round(limits.fast_turn_limit / 60)))
        else:
            pace = t("daily: {h} h per move", h=max(1, round(limits.turn_limit / 3600)))
        fmt: Text = FORMAT_NAMES[settings.format]
        if settings.format is Format.SWISS:
            fmt = tn("Swiss, {n} round", "Swiss, {n} rounds", settings.rounds or 0)
        return t(
            "🏆 Tournament: {format} · {game} · matches to {n} · {pace}",
            format=fmt,
            game=GAME_NAMES[settings.game],
            n=settings.match_length,
            pace=pace,
        )

    async def pairing_line(self, tourney: Tournament, pairing: Pairing) -> Text:
        """``Round 2: Ali – Veli``, both players mentioned (the platform notifies them)."""
        home = await self.mention(tourney, pairing.home)
        away = await self.mention(tourney, pairing.away)
        return t("Round {n}: {home} – {away}", n=pairing.round, home=home, away=away)

    async def mention(self, tourney: Tournament, player: int | None) -> Mention | str:
        """An entrant as a mention (by the name they joined with)."""
        if player is None:
            return "?"
        name = tourney.entrant(player).name
        user = await self.storage.get_user(player)
        return Mention(user.platform, user.platform_id, name) if user is not None else name

    async def standings_view(
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
        lang = group_lang(chat, None)
        text: list[Text | str] = [self.title(tourney), *lines]
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
        if self.settings.render_images:
            labels = self.labels(tourney, lang)
            image = await asyncio.to_thread(render_standings, tourney, labels, self.settings.theme)
        view = View(text, lang=lang, image=image)
        if stored is not None:
            if stored.message and not anew:
                view.edit, view.message = True, stored.message
            view.posted = functools.partial(self.bind_message, stored.stored_id)
        return view

    @staticmethod
    def labels(tourney: Tournament, lang: str) -> StandingsLabels:
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

    async def bind_message(self, tournament_id: int, message: MessageRef) -> None:
        """The adapter posted the tournament's card (before the start) or its standings
        picture (after it) as ``message``: later changes edit that message in place, and
        the deadline rounds post in its channel (a Discord server has several)."""
        try:
            async with self.storage.transaction() as tx:
                stored = await tx.get_tournament(tournament_id)
                if stored is None:
                    return
                stored.message = message
                await tx.save_tournament(stored, stored.version)
        except StorageError:
            log.warning("could not remember tournament %s's standings", tournament_id)
