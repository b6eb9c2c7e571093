"""Results: a finished contest's ratings, statistics and final message (rules.md Ratings)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.i18n import Text, t
from bot.storage.base import Chat, ResultRow, User
from core.game import ResultKind, ResultReason
from core.ratings import Rating, update_ratings

from .lang import language
from .settings import DAY, POOL_SCOPE, ServiceSettings
from .store import ActionContext
from .tournaments import Tournaments
from .views import View


@dataclass(eq=False)
class Results:
    """The end of a contest (the clock, the settings for the daily limit of rated games,
    the tournaments that a tournament game's result belongs to)."""

    clock: Callable[[], float]
    settings: ServiceSettings
    tournaments: Tournaments

    async def decide_rated(self, tx: Any, ctx: ActionContext) -> None:
        """Whether a finished contest counts for the ratings, set on its record before the
        record is saved (so the stored game says the same as its result row)."""
        record, match = ctx.record, ctx.match
        seats = record.seats
        # Only contests between two different people count (rules.md Ratings).
        human = (
            not record.settings.computer
            and seats[0] != seats[1]
            and record.platform not in self.settings.unrated_platforms
        )
        rated = bool(record.rated and human and match.winner is not None)
        if rated:
            since = self.clock() - DAY
            recent = await tx.count_rated_between(seats[0], seats[1], record.variant, since)
            if recent >= self.settings.max_rated_per_day:
                rated = False
                ctx.notes.append(
                    t(
                        "You have played enough rated games against each other today: "
                        "this one is not rated."
                    )
                )
        record.rated = rated

    async def finish(self, tx: Any, ctx: ActionContext) -> None:
        """Ratings and statistics of a finished contest (FIBS, rules.md Ratings); its
        ratedness was decided by :meth:`decide_rated` before the save."""
        record, match = ctx.record, ctx.match
        now = self.clock()
        winner = match.winner
        seats = record.seats
        rated = record.rated
        length = max(match.length, 1)
        if rated and winner is not None:
            w, l_ = seats[winner], seats[1 - winner]
            for scope in ("global", record.settings.scope):
                rw = await tx.get_rating(w, scope, record.variant)
                rl = await tx.get_rating(l_, scope, record.variant)
                new_w, new_l = update_ratings(
                    Rating(rw.rating, rw.experience), Rating(rl.rating, rl.experience), length
                )
                rw.rating, rw.experience, rw.games = new_w.rating, new_w.experience, rw.games + 1
                rl.rating, rl.experience, rl.games = new_l.rating, new_l.experience, rl.games + 1
                await tx.put_rating(rw, now)
                await tx.put_rating(rl, now)
                if scope == "global":
                    ctx.notes.append(
                        t(
                            "Ratings: {w} {wr} · {l} {lr}",
                            w=ctx.names[winner],
                            wr=round(new_w.rating),
                            l=ctx.names[1 - winner],
                            lr=round(new_l.rating),
                        )
                    )
        wins = [r for r in match.results if winner is not None and r.winner == winner]
        await tx.add_result(
            ResultRow(
                game_id=record.stored_id,
                scope=record.settings.scope,
                kind=record.variant,
                winner_id=seats[winner] if winner is not None else None,
                loser_id=seats[1 - winner] if winner is not None else None,
                length=match.length,
                winner_points=match.score[winner] if winner is not None else match.score[0],
                loser_points=match.score[1 - winner] if winner is not None else match.score[1],
                gammons=sum(r.kind is ResultKind.GAMMON for r in wins),
                backgammons=sum(r.kind is ResultKind.BACKGAMMON for r in wins),
                rated=rated,
                finished=now,
            )
        )
        await tx.add_events(
            record.stored_id,
            [("finish", {"winner": winner, "seed": ctx.dice.seed_hex, "rated": rated})],
        )
        if record.settings.scope == POOL_SCOPE and winner is not None:
            # Leaving pool games in a row (losing them on time) makes a player wait longer.
            last = match.game.result if match.game is not None else None
            timed_out = last is not None and last.reason is ResultReason.TIMEOUT
            for seat, user_id in enumerate(seats):
                if user_id is not None:
                    await tx.pool.game_over(user_id, timed_out and seat != winner, now)
        await self.tournaments.game_finished(tx, record, match)

    def final_view(self, ctx: ActionContext, chat: Chat, user: User) -> View:
        """The message that ends a contest: who won, and the dice seed to check."""
        match = ctx.match
        winner = match.winner
        lines: list[Text | str] = []
        if winner is None:
            lines.append(t("The match is over."))
        elif match.length == 1:  # one game: its result line already gave the points
            lines.append(t("🏆 {name} wins!", name=ctx.names[winner]))
        else:
            lines.append(
                t(
                    "🏆 {name} wins the match {a}–{b}!",
                    name=ctx.names[winner],
                    a=int(match.score[winner]),
                    b=int(match.score[1 - winner]),
                )
            )
        lines.append(t("Dice seed: {seed}. Check every roll with /dice.", seed=ctx.dice.seed_hex))
        return View(lines, lang=language(user, chat, private=False), game_id=ctx.record.id)
