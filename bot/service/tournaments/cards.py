"""The tournament's pictures and cards: the entry card, the standings picture (a bracket or
a table) posted once and edited in place, and the lines that name the pairings."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from bot.i18n import Text, t, translate
from bot.storage.base import Chat, StorageError, TournamentRecord, User
from core.tournament import Format, Pace, Pairing, Stage, Tournament
from renderers.standings import StandingsLabels, render_standings

from ..views import Button, View
from .base import JOIN, LEAVE, PREFIX, START, TournamentsBase, log
from .words import FORMAT_NAMES, GAME_NAMES


class CardsMixin(TournamentsBase):
    """Cards and standings."""

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
