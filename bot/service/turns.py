"""What follows every action on a game: the computer's turns, the presses a player leaves to
the bot (:mod:`bot.service.autoplay`), core's events logged, and the next deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.storage.base import GameStatus, PlayerPrefs
from core.ai import Player
from core.ai.cube import CubeState
from core.ai.resign import accepts_resignation
from core.game import Phase

from .autoplay import BUSY, play_automatic
from .presenter import result_line
from .settings import ServiceSettings
from .store import ActionContext, GameStore, alone


@dataclass(eq=False)
class Turns:
    """Moves a game on after an action (the store for the players' settings, the computer
    players by game and level, the clock for deadlines, the settings for their length)."""

    store: GameStore
    computer: Callable[[str, str], Player]
    clock: Callable[[], float]
    settings: ServiceSettings

    async def advance(self, ctx: ActionContext) -> None:
        """:meth:`after_action`, in a thread when the computer may think there (between
        two people it takes microseconds, less than the hop to a thread)."""
        await self.store.prefs(ctx)  # the rolls and confirmations the players leave to the bot
        if ctx.record.settings.computer:
            await asyncio.to_thread(self.after_action, ctx)
        else:
            self.after_action(ctx)

    def after_action(self, ctx: ActionContext) -> None:
        """Let the computer act, move on to the next game, log core's events, set deadlines.

        ``settings.logged`` remembers how far core's history of the current game has
        been copied into the event log, so every event is logged exactly once.
        """
        match, record = ctx.match, ctx.record
        number, count = record.settings.logged or (0, 0)
        computer = record.settings.computer
        humans = [seat for seat in (0, 1) if seat != computer]
        prefs = ctx.prefs or (PlayerPrefs(), PlayerPrefs())
        busy, own_rolls = BUSY.get(), record.settings.own_rolls or ()
        while True:
            game = ctx.game
            self.computer_turns(ctx)
            # Rolls with no choice, and the players' "by itself" settings; each may hand
            # the turn to the computer again.
            while play_automatic(game, ctx.dice, prefs, humans, busy=busy, own_rolls=own_rolls):
                self.computer_turns(ctx)
            current = len(match.results)
            first = count if current == number else 0
            if not game.over:
                break
            ctx.events.extend(("core", {"game": current, **e}) for e in game.history[first:])
            match.record_game()
            number, count = current + 1, 0
            if match.over:
                ctx.finished = True
                record.status = GameStatus.FINISHED
                record.deadline = None
                return
            ctx.ended.append(result_line(game, ctx.names))
            match.start_game(ctx.dice)
        game = ctx.game
        number = len(match.results)
        ctx.events.extend(("core", {"game": number, **e}) for e in game.history[first:])
        record.settings = replace(record.settings, logged=(number, len(game.history)))
        fast = record.settings.fast
        limit = self.settings.fast_turn_limit if fast else self.settings.turn_limit
        # Nobody waits for a player who plays both sides: no clock, no claim.
        record.deadline = None if alone(record) else self.clock() + limit
        record.reminded = False
        record.settings = replace(record.settings, claimable_since=None, abort_by=None)

    def computer_turns(self, ctx: ActionContext) -> None:
        """Play every action that waits for the computer seat, if there is one."""
        if not ctx.record.settings.computer:
            return
        seat = ctx.record.settings.computer
        player = self.computer(ctx.record.variant, ctx.record.settings.level or "club")
        game = ctx.game
        for _ in range(1000):  # a bound, not a limit anyone reaches
            if game.over:
                return
            # A resignation may be offered on the offerer's own turn; the computer answers
            # it at once, or the player would wait for an answer that never came.
            if game.resign_offer and game.resign_offer[0] != seat:
                answer_resignation(ctx, seat)
            elif game.awaiting != seat:
                return
            elif game.phase is Phase.DOUBLED:
                cube = CubeState.from_game(game, seat, ctx.match)
                if player.should_take(game.variant, game.position(seat), cube):
                    game.take(seat)
                else:
                    game.drop(seat)
            elif game.phase is Phase.ROLL:
                if game.may_double(seat) and player.should_double(
                    game.variant, game.position(seat), CubeState.from_game(game, seat, ctx.match)
                ):
                    game.double(seat)
                else:
                    game.roll(seat, ctx.dice)
            elif game.phase is Phase.MOVE:
                game.play(
                    seat, player.choose_play(game.variant, game.position(seat), game.legal_plays())
                )


def answer_resignation(ctx: ActionContext, seat: int) -> None:
    """The computer at ``seat`` accepts the resignation if it gives at least what
    playing on is worth to it (:func:`core.ai.resign.accepts_resignation`). Games
    against the computer are matches (1 point or more), never money play, so the
    Jacoby rule never applies here."""
    game, match = ctx.game, ctx.match
    _, points = game.resign_result()
    needed = None if match.money else match.length - int(match.score[seat])
    if accepts_resignation(
        game.variant,
        game.position(seat),
        points // game.cube_value,
        on_roll=game.turn == seat,
        needed=needed,
        cube=game.cube_value,
    ):
        game.accept_resign(seat)
    else:
        game.decline_resign(seat)
