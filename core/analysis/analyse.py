"""Replay a contest and score every decision: checker plays, cube actions and the dice's luck.

The replay drives a real :class:`core.game.Game` with the recorded dice, so every rule
(forced plays, the head rule, the Crawford game) is core's own. Before each roll the
position is measured for luck (how much that roll gave against the average of all 36) and,
in Tavla, for the cube; each play with more than one legal choice is scored against the
best play the evaluator finds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.ai.cube import CubeState
from core.ai.lookahead import ROLL_WEIGHTS, ROLLS
from core.ai.race import is_race
from core.dice import FixedDice
from core.errors import TavlaError
from core.game import Game, Phase
from core.gnubg import position_id
from core.movegen import legal_plays
from core.notation import format_play
from core.position import Position
from core.variants import Variant

from .cubeful import lookahead_equities, near_threshold
from .evaluators import Evaluator, evaluator_for
from .ranking import rank_plays
from .records import Action, RecordError, action_lines, from_histories
from .results import Decision, MatchAnalysis, PlayerSummary
from .scoring import CubeEquities, Scoring, Skill, cube_equities

#: Equities closer than this are a tie (the choice made then counts as the best).
TIE = 1e-9

Progress = Callable[[int, int], None]


# -- the replay -------------------------------------------------------------------------


@dataclass
class _Tally:
    loss: float = 0.0
    checker: int = 0
    cube: int = 0
    counts: dict[Skill, int] = field(default_factory=dict)
    luck: float = 0.0
    result: float = 0.0

    def add(self, decision: Decision) -> None:
        self.loss += decision.loss
        if decision.kind == "play":
            self.checker += 1
        else:
            self.cube += 1
        self.counts[decision.skill] = self.counts.get(decision.skill, 0) + 1


class _Analyser:
    def __init__(
        self,
        variant: Variant,
        length: int,
        evaluator: Evaluator,
        jacoby: bool,
        progress: Progress | None,
    ) -> None:
        self.variant = variant
        self.length = length
        self.evaluator = evaluator
        self.jacoby = jacoby
        self.progress = progress
        self.decisions: list[Decision] = []
        self.tally = (_Tally(), _Tally())
        self.score = [0.0, 0.0]
        self.crawford_played = False

    # -- scoring for a seat at the current cube and score --------------------------------

    def cube_state(self, game: Game, seat: int) -> CubeState:
        owner = 0 if game.cube_owner is None else (1 if game.cube_owner == seat else -1)
        return CubeState(
            value=game.cube_value,
            owner=owner,
            match_length=self.length if self.variant.cube else 0,
            my_score=int(self.score[seat]),
            opp_score=int(self.score[1 - seat]),
            crawford=game.crawford,
            jacoby=game.jacoby,
        )

    def scoring(self, game: Game, seat: int) -> Scoring:
        if not self.variant.cube:
            return Scoring.money(backgammons=self.variant.backgammons)
        return Scoring.for_cube(self.cube_state(game, seat), backgammons=self.variant.backgammons)

    # -- games ----------------------------------------------------------------------------

    def run(self, games: Sequence[list[Action]], start: Game | None = None) -> None:
        total = sum(1 for g in games for a in g if a.kind == "roll") or 1
        self.done = 0
        self.total = total
        previous_winner: int | None = None
        for number, actions in enumerate(games, 1):
            first = start if number == 1 else None
            previous_winner = self.game(number, actions, previous_winner, first)
        if self.progress:
            self.progress(total, total)

    def game(
        self, number: int, actions: list[Action], previous_winner: int | None, start: Game | None
    ) -> int | None:
        starter = next((a.seat for a in actions if a.kind in ("roll", "double")), None)
        if starter is None:
            # Nothing played (resigned or timed out before the first roll): no decision,
            # but its points count in the results and in the score of later games.
            ended = previous_winner
            for action in actions:
                if action.kind == "end":
                    self.finish(action)
                    ended = action.seat
            return ended
        crawford = self._crawford_next()
        if crawford:
            self.crawford_played = True
        if start is not None:
            game = Game.from_dict(start.to_dict())
            opening_roll = False
        else:
            game = Game.new(
                self.variant,
                FixedDice([]),
                opening="winner",
                starter=starter,
                crawford=crawford,
                jacoby=self.jacoby and self.length == 0,
            )
            # Tavla's games open with the two single dice: no cube decision, no luck
            # (gnubg's "first move" is not a free choice of dice either).
            opening_roll = not self.variant.head_rule and (
                number == 1 or self.variant.next_game_opening == "roll"
            )
        # Each decision is named by the line of the file its action is written on.
        lines = action_lines(actions)
        auto = False  # core played the roll itself (forced, or no play): skip the record's
        doubled = False
        winner: int | None = previous_winner
        for action, move in zip(actions, lines, strict=True):
            seat = action.seat
            where = f"game {number}, move {move}"
            try:
                if action.kind == "roll":
                    assert seat is not None
                    assert action.dice is not None
                    if not doubled and not opening_roll:
                        self.no_double(game, number, move, seat)
                    doubled = False
                    auto = self.roll(game, number, move, seat, action.dice, opening_roll)
                    opening_roll = False
                    self.done += 1
                    if self.progress:
                        self.progress(self.done, self.total)
                elif action.kind == "play":
                    if auto:
                        auto = False
                        continue
                    self.play(game, number, move, seat, action.play)
                elif action.kind == "pass":
                    if not auto:
                        raise RecordError(f"{where}: a pass where a play was possible")
                    auto = False
                elif action.kind == "double":
                    self.double(game, number, move, seat)
                    doubled = True
                elif action.kind in ("take", "drop"):
                    self.answer(game, number, move, seat, action.kind == "take")
                elif action.kind == "end":
                    winner = seat
                    self.finish(action)
            except RecordError:
                raise
            except (TavlaError, AssertionError, KeyError, ValueError) as exc:
                raise RecordError(f"{where}: cannot replay {action.kind} ({exc})") from exc
        return winner

    def _crawford_next(self) -> bool:
        if not self.variant.cube or self.length <= 1 or self.crawford_played:
            return False
        return any(s == self.length - 1 for s in self.score)

    def finish(self, action: Action) -> None:
        if action.seat is None:
            self.score[0] += 0.5
            self.score[1] += 0.5
            return
        self.score[action.seat] += action.points
        self.tally[action.seat].result += action.points
        self.tally[1 - action.seat].result -= action.points

    # -- rolls and plays --------------------------------------------------------------------

    def roll(
        self, game: Game, number: int, move: int, seat: int, dice: tuple[int, int], opening: bool
    ) -> bool:
        position = game.position(seat)
        first = not game.played_first_turn[seat]
        if not opening:
            self.luck(game, seat, position, dice, first)
        game.roll(seat, FixedDice([dice]))
        return game.phase is not Phase.MOVE or game.turn != seat

    def luck(
        self, game: Game, seat: int, position: Position, dice: tuple[int, int], first: bool
    ) -> None:
        """The roll's value against the average roll (0-ply), in points for ``seat``."""
        scoring = self.scoring(game, seat)
        values = np.empty(len(ROLLS))
        for i, roll in enumerate(ROLLS):
            plays = legal_plays(self.variant, position, roll, first)
            if plays:
                afters = [p.after for p in plays]
                values[i] = float(
                    np.max(self.evaluator.play_values(self.variant, afters, scoring, False))
                )
            else:
                # No play: the position stands with the opponent to roll.
                values[i] = float(
                    self.evaluator.play_values(self.variant, [position], scoring, False)[0]
                )
        rolled = ROLLS.index(tuple(sorted(dice)))
        luck = (values[rolled] - float(ROLL_WEIGHTS @ values)) * game.cube_value
        self.tally[seat].luck += float(luck)
        self.tally[1 - seat].luck -= float(luck)

    def play(self, game: Game, number: int, move: int, seat: int | None, text: str) -> None:
        assert seat is not None
        position = game.position(seat)
        plays = game.legal_plays()
        dice = game.dice
        assert dice is not None
        game.move_text(seat, text)
        played_after = Position(game.sides[seat], game.sides[1 - seat])
        index = next(i for i, p in enumerate(plays) if p.after == played_after)
        state = self.cube_state(game, seat) if self.variant.cube else None
        values = rank_plays(
            self.evaluator, self.variant, position, dice, plays, state, include=index
        )
        # NaN: a play the evaluator's search did not look at as deep as the best.
        best = int(np.nanargmax(values))
        loss = max(0.0, float(values[best]) - float(values[index]))
        if best == index or loss <= TIE:
            best, loss = index, 0.0  # a tie: the play made is as good as any
        self.add(
            Decision(
                game=number,
                move=move,
                player=seat,
                kind="play",
                dice=dice,
                position=position_id(position),
                played=format_play(plays[index]),
                best=format_play(plays[best]),
                loss=loss,
                before=position,
                played_after=plays[index].after,
                best_after=plays[best].after,
                played_play=plays[index],
                best_play=plays[best],
                cube=(game.cube_value, game.cube_owner),
                white=game.white,
                state=state,
            )
        )

    # -- the cube ---------------------------------------------------------------------------

    def _equities(self, game: Game, seat: int, actual: bool) -> CubeEquities:
        """The cube equities of ``seat`` on roll: the cubeful look-ahead for a double
        (``actual``), in a race, where Janowski's model on the evaluator's chances is close
        to a threshold, and where that model finds a missed double; the model elsewhere (a
        no double far from doubling)."""
        position = game.position(seat)
        state = self.cube_state(game, seat)
        bgs = self.variant.backgammons
        if not actual and not is_race(position, False):
            eq = cube_equities(self.evaluator.chances(self.variant, position), state, bgs)
            # A missed double is charged only after the look-ahead confirms it: the model
            # can be far off (at 0-0 in a 3-point match, 69% wins, it gave a missed double
            # of 0.19 where gnubg's 2-ply search and the look-ahead give none).
            if not near_threshold(eq) and not eq.should_double:
                return eq
        return lookahead_equities(self.evaluator, self.variant, position, state, bgs)

    def _cube_decision(
        self, game: Game, number: int, move: int, seat: int, played: str, best: str, loss: float
    ) -> None:
        position = game.position(game.turn)
        if loss <= TIE:
            best, loss = played, 0.0
        self.add(
            Decision(
                game=number,
                move=move,
                player=seat,
                kind="cube",
                dice=None,
                position=position_id(position),
                played=played,
                best=best,
                loss=max(0.0, loss),
                before=position,
                cube=(game.cube_value, game.cube_owner),
                white=game.white,
            )
        )

    def no_double(self, game: Game, number: int, move: int, seat: int) -> None:
        if not game.may_double(seat) or not self._cube_alive(game, seat):
            return
        eq = self._equities(game, seat, actual=False)
        if not eq.close:
            return
        best = "double" if eq.should_double else "no double"
        self._cube_decision(game, number, move, seat, "no double", best, eq.best - eq.no_double)

    def double(self, game: Game, number: int, move: int, seat: int | None) -> None:
        assert seat is not None
        eq = self._equities(game, seat, actual=True)
        best = "double" if eq.should_double else "no double"
        self._cube_decision(game, number, move, seat, "double", best, eq.best - eq.double)
        self._pending = eq
        game.double(seat)

    def answer(self, game: Game, number: int, move: int, seat: int | None, take: bool) -> None:
        assert seat is not None
        eq = self._pending
        best = "take" if eq.should_take else "pass"
        # The taker's loss: the doubler's equity after the answer minus after the best one.
        chosen = eq.double_take if take else eq.double_pass
        self._cube_decision(
            game, number, move, seat, "take" if take else "pass", best, chosen - eq.double
        )
        if take:
            game.take(seat)
        else:
            game.drop(seat)

    def _cube_alive(self, game: Game, seat: int) -> bool:
        """In a match, a double that can't change the outcome is no decision (gnubg)."""
        if self.length == 0:
            return True
        away = self.length - int(self.score[seat])
        return away > game.cube_value

    def add(self, decision: Decision) -> None:
        self.decisions.append(decision)
        self.tally[decision.player].add(decision)

    def summaries(self, names: tuple[str, str]) -> tuple[PlayerSummary, PlayerSummary]:
        out = []
        for seat in (0, 1):
            t = self.tally[seat]
            out.append(
                PlayerSummary(
                    player=seat,
                    name=names[seat],
                    decisions=t.checker + t.cube,
                    checker_decisions=t.checker,
                    cube_decisions=t.cube,
                    total_loss=t.loss,
                    doubtful=t.counts.get(Skill.DOUBTFUL, 0),
                    bad=t.counts.get(Skill.BAD, 0),
                    very_bad=t.counts.get(Skill.VERY_BAD, 0),
                    luck=t.luck,
                    result=t.result,
                )
            )
        return out[0], out[1]


# -- the API ----------------------------------------------------------------------------


def analyse_actions(
    variant: Variant,
    games: Sequence[list[Action]],
    *,
    length: int = 0,
    names: tuple[str, str] = ("Player 0", "Player 1"),
    evaluator: Evaluator | None = None,
    jacoby: bool = False,
    progress: Progress | None = None,
    start: Game | None = None,
) -> MatchAnalysis:
    """Analyse games given as :class:`~core.analysis.records.Action` lists.

    ``start``, a game waiting for its first recorded action, replaces the opening of the
    first game (to study a position; its state is copied, not changed).
    """
    evaluator = evaluator or evaluator_for(variant)
    analyser = _Analyser(variant, length, evaluator, jacoby, progress)
    analyser.run(games, start)
    return MatchAnalysis(
        variant=variant.name,
        length=length,
        games=len(games),
        names=names,
        evaluator=evaluator.name,
        decisions=analyser.decisions,
        players=analyser.summaries(names),
    )


def analyse_match(
    variant: Variant,
    histories: Sequence[list[dict[str, Any]]],
    *,
    length: int = 0,
    names: tuple[str, str] = ("Player 0", "Player 1"),
    evaluator: Evaluator | None = None,
    jacoby: bool = False,
    progress: Progress | None = None,
) -> MatchAnalysis:
    """Analyse a contest from its games' event histories (:attr:`core.game.Game.history`,
    in order, as the bot stores them and :func:`core.export.export_games` takes them).

    ``length`` is the match length (0 money play, 1 a single game); ``progress(done, total)``
    is called after each roll is analysed. Runs for seconds: call it off the event loop.
    """
    return analyse_actions(
        variant,
        from_histories(histories),
        length=length,
        names=names,
        evaluator=evaluator,
        jacoby=jacoby,
        progress=progress,
    )


def analyse_game(
    game: Game,
    *,
    names: tuple[str, str] = ("Player 0", "Player 1"),
    evaluator: Evaluator | None = None,
    progress: Progress | None = None,
) -> MatchAnalysis:
    """Analyse one finished (or running) game as a single game (a match to 1 point)."""
    return analyse_match(
        game.variant,
        [game.history],
        length=1,
        names=names,
        evaluator=evaluator,
        jacoby=game.jacoby,
        progress=progress,
    )
