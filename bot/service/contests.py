"""One action on a contest from the press to the answer, and the start of a contest.

:meth:`Contests.commit` is where every action that changes a game ends: the computer's turns
and the automatic presses (:class:`~bot.service.turns.Turns`), then one transaction that
saves the game over the version the action was made against with its events (and, at the end
of the contest, its ratings and result, and its tournament's), then the board and, at the
end, the final message, the tournament's next step, the chat's analysis and the search for
puzzles.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from bot.i18n import t
from bot.storage.base import Chat, GameRecord, GameStatus, Storage, Transaction, User
from core.dice import SeededDice
from core.match import Match
from core.variants import variant_by_name

from . import lessons
from .analysis import Analysis
from .boards import Boards
from .lang import language
from .mining import Mining
from .results import Results
from .store import ActionContext, GameStore, picture_state, seat_names
from .tournaments import Tournaments
from .turns import Turns
from .views import View


@dataclass(eq=False)
class Contests:
    """Actions saved and answered (the storage, the store, the boards, what follows an
    action, the end of a contest and what follows it: tournaments, analysis and puzzles; a dice
    source for each new contest)."""

    storage: Storage
    store: GameStore
    boards: Boards
    turns: Turns
    results: Results
    tournaments: Tournaments
    analysis: Analysis
    mining: Mining
    dice_factory: Callable[[], SeededDice]

    async def commit(
        self, ctx: ActionContext, chat: Chat, user: User, *, shown: tuple[Any, ...] | None = None
    ) -> list[View]:
        """Save the action and answer with the board. ``shown``: what the picture showed
        before the action (:func:`picture_state`); when the action changed none of it (a
        move confirmed, a resignation offered), only the caption and buttons change."""
        await self.turns.advance(ctx)
        ctx.taught = lessons.due(ctx)  # a guided game's new moments, marked told in the save
        async with self.storage.transaction() as tx:
            if ctx.finished:
                await self.results.decide_rated(tx, ctx)
            saved = await self.store.save(tx, ctx)
            await tx.add_events(saved.stored_id, ctx.events)
            if ctx.finished:
                await self.results.finish(tx, ctx)
        ctx.record = saved
        same = shown is not None and not ctx.finished and shown == picture_state(ctx.game)
        views = [await self.boards.board(ctx, chat, edit=True, caption_only=same)]
        if ctx.finished:
            views.append(self.results.final_view(ctx, chat, user))
            views.extend(await self.tournaments.after_game(saved, chat))
            views.extend(await self.analysis.auto(saved, chat))
            self.mining.after_game(saved)
        return lessons.around(ctx, chat, views)

    async def start(
        self, record: GameRecord, names: list[str], chat: Chat, user: User, *, new: bool
    ) -> list[View]:
        """Begin the contest of a challenge: seed the dice, open the first game, save."""
        # The computer's first moves are made before the transaction, which keeps other
        # writers waiting (on SQLite, every one) while it is open.
        ctx = await self.prepare(record, names)
        async with self.storage.transaction() as tx:
            await self.save_opened(tx, ctx, new=new)
        return await self.opening(ctx, chat, user, new=new)

    async def prepare(self, record: GameRecord, names: list[str]) -> ActionContext:
        """Seed the dice and open the contest's first game (nothing saved yet)."""
        dice = self.dice_factory()
        variant = variant_by_name(record.variant)
        match = Match(variant, length=record.settings.length)
        record.commitment = dice.commitment
        record.status = GameStatus.ACTIVE
        record.settings = replace(record.settings, names=tuple(names))
        ctx = ActionContext(record, match, dice, seat_names(record))
        match.start_game(dice)
        ctx.events.append(("start", {"commitment": dice.commitment, "seats": record.seats}))
        await self.turns.advance(ctx)
        ctx.taught = lessons.due(ctx)
        return ctx

    async def save_opened(self, tx: Transaction, ctx: ActionContext, *, new: bool) -> None:
        """Save a contest :meth:`prepare` opened, in ``tx`` (the caller's transaction, so that
        what made the game, a pairing in the pool, is kept with it or undone with it)."""
        record = ctx.record
        if ctx.finished:
            await self.results.decide_rated(tx, ctx)
        if new:
            record.match = ctx.match.to_dict()
            record.dice = ctx.dice.to_dict()
            record = await tx.insert_game(record)
            ctx.record = record
        else:
            record = await self.store.save(tx, ctx)
        assert record.id is not None
        await tx.add_events(record.id, ctx.events)
        if ctx.finished:
            await self.results.finish(tx, ctx)
        ctx.record = record

    async def opening(self, ctx: ActionContext, chat: Chat, user: User, *, new: bool) -> list[View]:
        """The first views of a contest opened by :meth:`open`: the dice's seal and the board."""
        record = ctx.record
        board = await self.boards.board(ctx, chat, edit=False)
        # A match's games share one seed: it is revealed when the match ends, not the game.
        sealed = (
            t(
                "The dice are sealed: SHA-256 of this match's secret seed is {c}. /dice shows "
                "it; the seed is revealed when the match ends.",
                c=ctx.dice.commitment,
            )
            if ctx.match.length > 1
            else t(
                "The dice are sealed: SHA-256 of this game's secret seed is {c}. /dice shows it; "
                "the seed is revealed when the game ends.",
                c=ctx.dice.commitment,
            )
        )
        intro = View(
            [sealed],
            lang=language(user, chat, private=False),
            game_id=record.id,
            replace_pressed=not new,  # an accepted challenge becomes the game's first line
        )
        return [intro, *lessons.around(ctx, chat, [board])]
