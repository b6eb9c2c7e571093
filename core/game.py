"""One game as a state machine: opening roll, turns, the cube, resignations and the result.

The two players are *seats* 0 and 1 (who sits where is the caller's business). Colours are
only for display: in Tavla seat 0 plays White; in Uzun Tavla the player who starts plays
White (U-2). Each seat's checkers are kept in its own numbering.

Every action names the seat that makes it and checks that it is that seat's move, so a
caller cannot play for the wrong player. Actions that need chance take a dice source.
A :class:`Game` serializes to JSON and back losslessly, including a half-played turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .cube import MAX_CUBE, Cube
from .dice import DiceSource
from .errors import (
    ErrorCode,
    GameOverError,
    IllegalActionError,
    IllegalPlayError,
    NotYourTurnError,
)
from .events import Event, EventType, dice_record
from .movegen import Play, Step
from .notation import format_steps
from .position import BAR, CHECKERS, OFF, Position, Side
from .turn import DoneStep, Turn
from .variants import Variant, variant_by_name


class Phase(StrEnum):
    """What the game waits for."""

    ROLL = "roll"  # the seat on turn may double (Tavla) or roll
    MOVE = "move"  # dice rolled, the seat on turn plays
    DOUBLED = "doubled"  # the seat on turn offered a double; the other takes or passes
    OVER = "over"


class ResultKind(StrEnum):
    """How a game was won (T-7, U-9)."""

    SINGLE = "single"  # oyun
    GAMMON = "gammon"  # mars
    BACKGAMMON = "backgammon"  # katmerli mars
    DRAW = "draw"  # U-draw


class ResultReason(StrEnum):
    """Why a game ended (stored with its result)."""

    BEAR_OFF = "bear_off"
    PASS = "pass"  # the cube refused
    RESIGN = "resign"
    FORFEIT = "forfeit"
    TIMEOUT = "timeout"  # the player to act ran out of time


LEVEL_VALUE = {ResultKind.SINGLE: 1, ResultKind.GAMMON: 2, ResultKind.BACKGAMMON: 3}


@dataclass(frozen=True)
class Result:
    """The end of a game: the winner (None for a draw), how, the points and why."""

    winner: int | None
    kind: ResultKind
    points: int
    reason: ResultReason

    def __post_init__(self) -> None:
        # A reason given as its stored string becomes the enum member.
        object.__setattr__(self, "reason", ResultReason(self.reason))

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "kind": self.kind.value,
            "points": self.points,
            "reason": self.reason.value,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        return cls(
            data["winner"], ResultKind(data["kind"]), data["points"], ResultReason(data["reason"])
        )


@dataclass
class Game:
    """A game of one variant between seats 0 and 1. Create it with :meth:`new`."""

    variant: Variant
    sides: list[Side]
    phase: Phase = Phase.ROLL
    turn: int = 0
    dice: tuple[int, int] | None = None
    white: int = 0
    played_first_turn: list[bool] = field(default_factory=lambda: [False, False])
    cube_value: int = 1
    cube_owner: int | None = None
    #: No doubling this game (the Crawford game of a match, M-2).
    crawford: bool = False
    #: Money play with the Jacoby rule (M-3): gammons count only once the cube has turned.
    jacoby: bool = False
    resign_offer: tuple[int, ResultKind] | None = None
    #: U-draw: the second player's one last roll after the starter has borne off.
    last_roll: bool = False
    result: Result | None = None
    history: list[Event] = field(default_factory=list)
    #: A move confirmed with ``undoable``: what :meth:`take_back` restores, while the
    #: opponent has not acted since ({"seat", "sides", "dice", "first", "history"}).
    takeback: dict[str, Any] | None = None
    _turn: Turn | None = field(default=None, repr=False)

    # -- creation ------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        variant: Variant,
        dice: DiceSource,
        *,
        opening: str = "roll",
        starter: int | None = None,
        crawford: bool = False,
        jacoby: bool = False,
    ) -> Game:
        """Start a game and make its opening.

        ``opening`` is ``"roll"`` (each player rolls one die, ties re-rolled: T-2, U-2),
        ``"winner_rolls"`` or ``"winner"`` (``starter`` opens by rolling both dice: the
        Turkish custom and U-2 for later games of a match).
        """
        start = variant.start_position()
        game = cls(
            variant, [start.mover, start.mover], crawford=crawford and variant.cube, jacoby=jacoby
        )
        if opening == "roll":
            while True:
                first, second = dice.roll_one(), dice.roll_one()
                game.history.append({"type": EventType.OPENING, "dice": [first, second]})
                if first != second:
                    break
            starter = 0 if first > second else 1
            game.turn = starter
            if variant.head_rule:
                # U-2: the higher die plays White and rolls both dice for the first move.
                game.white = starter
                game.phase = Phase.ROLL
            else:
                # T-2: the starter plays the two numbers just rolled.
                game._set_dice((first, second) if starter == 0 else (second, first), opening=True)
        elif opening in ("winner_rolls", "winner"):
            if starter not in (0, 1):
                raise ValueError("this opening needs the starting seat")
            game.turn = starter
            game.white = starter if variant.head_rule else 0
            game.phase = Phase.ROLL
        else:
            raise ValueError(f"unknown opening {opening!r}")
        game.history.insert(0, {"type": EventType.START, "opening": opening, "starter": game.turn})
        return game

    # -- views ---------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def awaiting(self) -> int:
        """The seat whose action the game waits for."""
        return 1 - self.turn if self.phase is Phase.DOUBLED else self.turn

    def position(self, seat: int | None = None) -> Position:
        """The board seen from ``seat`` (default: the seat on turn), steps made so far included."""
        seat = self.turn if seat is None else seat
        if self._turn is not None and self._turn.done:
            current = self._turn.position
            if seat == self.turn:
                return current
            return current.swapped()
        return Position(self.sides[seat], self.sides[1 - seat])

    @property
    def current_turn(self) -> Turn | None:
        """The turn being played (phase MOVE), for step-by-step play and highlights."""
        return self._turn

    def pips(self) -> tuple[int, int]:
        """Pip counts of seats 0 and 1 (rules.md: the bar counts 25)."""
        pos = self.position(0)
        return pos.pips()

    def legal_plays(self) -> list[Play]:
        """The legal plays of the roll being played (empty outside phase MOVE)."""
        return self._turn.plays if self._turn else []

    @property
    def cube(self) -> Cube:
        """The cube as a value object."""
        return Cube(self.cube_value, self.cube_owner)

    def may_double(self, seat: int) -> bool:
        """T-8 and M-2: may ``seat`` double now?"""
        return self.phase is Phase.ROLL and seat == self.turn and self.cube_open_to(seat)

    def cube_open_to(self, seat: int) -> bool:
        """T-8 and M-2: whether ``seat`` may double before its rolls in this game as it
        stands (a cube in the variant, not the Crawford game, centred or its own and below
        64, not U-draw's last roll), whoever is on turn now."""
        return (
            self.variant.cube
            and not self.crawford
            and self.cube.may_double(seat)
            and not self.last_roll
        )

    # -- actions -------------------------------------------------------------------------

    def roll(self, seat: int, dice: DiceSource) -> tuple[int, int]:
        """Roll for the turn. A roll that cannot be played passes the turn at once."""
        self._expect(seat, Phase.ROLL)
        rolled = dice.roll()
        self._set_dice(rolled)
        return rolled

    def double(self, seat: int) -> None:
        """Offer the cube (T-8): only before rolling, with a centred or own cube."""
        if not self.variant.cube:
            raise IllegalActionError(
                f"{self.variant.title} has no doubling cube", ErrorCode.NO_CUBE
            )
        self._expect(seat, Phase.ROLL)
        if self.crawford:
            raise IllegalActionError("Nobody may double in the Crawford game", ErrorCode.CRAWFORD)
        if self.cube_owner not in (None, seat):
            raise IllegalActionError("Your opponent owns the cube", ErrorCode.CUBE_NOT_YOURS)
        if self.cube_value >= MAX_CUBE:
            raise IllegalActionError("The cube is already at 64", ErrorCode.CUBE_MAX)
        self.phase = Phase.DOUBLED
        self.history.append({"type": EventType.DOUBLE, "seat": seat, "value": self.cube_value * 2})

    def take(self, seat: int) -> None:
        """Accept the double: the cube doubles and belongs to the taker."""
        self._expect(seat, Phase.DOUBLED)
        self.cube_value, self.cube_owner = self.cube.taken(seat)
        self.phase = Phase.ROLL
        self.history.append({"type": EventType.TAKE, "seat": seat, "value": self.cube_value})

    def drop(self, seat: int) -> Result:
        """Refuse the double: the game is lost at the cube value before the double."""
        self._expect(seat, Phase.DOUBLED)
        self.history.append({"type": EventType.DROP, "seat": seat})
        return self._finish(Result(1 - seat, ResultKind.SINGLE, self.cube_value, ResultReason.PASS))

    def step(self, seat: int, source: int, dest: int) -> DoneStep:
        """Move one checker by one die (buttons); the turn waits for :meth:`confirm`."""
        turn = self._expect_move(seat)
        return turn.step((source, dest))

    def undo(self, seat: int) -> DoneStep | None:
        """Take back the last step of the turn being played."""
        return self._expect_move(seat).undo()

    def move_text(self, seat: int, text: str, *, confirm: bool = True) -> list[DoneStep]:
        """Play typed notation, whole or part of the turn; a finished turn is confirmed."""
        turn = self._expect_move(seat)
        steps = turn.apply_text(text)
        if confirm and turn.complete:
            self.confirm(seat)
        return steps

    def play(self, seat: int, play: Play) -> None:
        """Make a whole legal play (e.g. chosen by the computer) and end the turn."""
        turn = self._expect_move(seat)
        turn.apply_play(play)
        self.confirm(seat)

    def confirm(self, seat: int, *, undoable: bool = False) -> None:
        """End the turn with the steps made; they must form a whole legal play.

        ``undoable``: the player may still :meth:`take_back` the move until the opponent
        acts (a move confirmed by itself, at the player's wish)."""
        turn = self._expect_move(seat)
        if not turn.complete:
            raise IllegalPlayError(
                "The move is not finished: play the rest of the dice", ErrorCode.PLAY_UNFINISHED
            )
        before = {
            "seat": seat,
            "sides": [list(s) for s in self.sides],
            "dice": list(turn.dice),
            "first": self.played_first_turn[seat],
            "history": len(self.history),
        }
        self._end_turn(turn.play(), forced=False)
        self.takeback = before if undoable else None

    def may_take_back(self, seat: int) -> bool:
        """Whether ``seat`` may take back the move it just confirmed (see :meth:`confirm`):
        the opponent has not rolled, doubled or resigned since, and the game goes on."""
        back = self.takeback
        return (
            back is not None
            and back["seat"] == seat
            and not self.over
            and not self.last_roll
            and self.phase is Phase.ROLL
            and self.turn == 1 - seat
            and self.resign_offer is None
            and len(self.history) == back["history"] + 1
        )

    def take_back(self, seat: int) -> None:
        """Undo ``seat``'s move confirmed by itself: the same dice, to be played again."""
        if not self.may_take_back(seat):
            raise IllegalActionError(
                "That move can no longer be taken back", ErrorCode.TAKE_BACK_TOO_LATE
            )
        back = self.takeback
        assert back is not None
        self.sides = [tuple(s) for s in back["sides"]]
        self.played_first_turn[seat] = back["first"]
        del self.history[back["history"] :]
        self.turn = seat
        self.phase = Phase.MOVE
        self.dice = (back["dice"][0], back["dice"][1])
        self.takeback = None
        self._turn = Turn(
            self.variant,
            Position(self.sides[seat], self.sides[1 - seat]),
            self.dice,
            first_turn=not back["first"],
        )

    def resign(self, seat: int, kind: ResultKind = ResultKind.SINGLE) -> None:
        """Offer to resign at a level (T-9); the opponent accepts or declines."""
        self._expect_not_over()
        if seat not in (0, 1):
            raise NotYourTurnError("You are not a player in this game")
        if kind is ResultKind.DRAW or (
            kind is ResultKind.BACKGAMMON and not self.variant.backgammons
        ):
            raise IllegalActionError(
                "That resignation level does not exist here", ErrorCode.RESIGN_LEVEL
            )
        self.resign_offer = (seat, kind)
        self.history.append({"type": EventType.RESIGN, "seat": seat, "kind": kind.value})

    def resign_levels(self) -> list[tuple[ResultKind, int]]:
        """The levels a player may resign at here (T-9; no backgammon where the variant has
        none, U-9) with the points each gives the opponent if accepted (times the cube; a
        gammon counts as a single under the Jacoby rule until the cube has turned, M-3)."""
        kinds = [ResultKind.SINGLE, ResultKind.GAMMON]
        if self.variant.backgammons:
            kinds.append(ResultKind.BACKGAMMON)
        single = self.jacoby and not self.cube.turned
        return [
            (kind, LEVEL_VALUE[ResultKind.SINGLE if single else kind] * self.cube_value)
            for kind in kinds
        ]

    def resign_result(self) -> tuple[ResultKind, int]:
        """The level and points the pending resignation ends the game at if accepted."""
        if self.resign_offer is None:
            raise IllegalActionError("Nobody has offered to resign", ErrorCode.NO_RESIGN_OFFER)
        kind = self.resign_offer[1]
        if self.jacoby and not self.cube.turned:
            kind = ResultKind.SINGLE  # M-3: gammons count only once the cube has turned
        return kind, LEVEL_VALUE[kind] * self.cube_value

    def accept_resign(self, seat: int) -> Result:
        """Accept the opponent's resignation: the game ends at its level times the cube."""
        self._expect_resign_answer(seat)
        kind, points = self.resign_result()
        self.history.append({"type": EventType.RESIGN_ACCEPT, "seat": seat})
        return self._finish(Result(seat, kind, points, ResultReason.RESIGN))

    def decline_resign(self, seat: int) -> None:
        """Decline the resignation: play goes on."""
        self._expect_resign_answer(seat)
        self.resign_offer = None
        self.history.append({"type": EventType.RESIGN_DECLINE, "seat": seat})

    def forfeit(self, loser: int, reason: ResultReason | str = ResultReason.FORFEIT) -> Result:
        """End the game against ``loser`` (timeout claimed, abandonment): a single game."""
        self._expect_not_over()
        reason = ResultReason(reason)
        self.history.append({"type": EventType.FORFEIT, "seat": loser, "reason": reason.value})
        return self._finish(Result(1 - loser, ResultKind.SINGLE, self.cube_value, reason))

    # -- internals -----------------------------------------------------------------------

    def _expect_not_over(self) -> None:
        if self.over:
            raise GameOverError("This game is already over")

    def _expect(self, seat: int, phase: Phase) -> None:
        self._expect_not_over()
        if seat != self.awaiting:
            raise NotYourTurnError("It is not your turn")
        if self.phase is not phase:
            raise IllegalActionError(
                f"That can't be done now (the game waits for: {self.phase.value})",
                ErrorCode.WRONG_PHASE,
                phase=self.phase.value,
            )

    def _expect_move(self, seat: int) -> Turn:
        self._expect(seat, Phase.MOVE)
        assert self._turn is not None
        return self._turn

    def _expect_resign_answer(self, seat: int) -> tuple[int, ResultKind]:
        self._expect_not_over()
        if self.resign_offer is None:
            raise IllegalActionError("Nobody has offered to resign", ErrorCode.NO_RESIGN_OFFER)
        if seat != 1 - self.resign_offer[0]:
            raise NotYourTurnError("Only the opponent can answer a resignation")
        return self.resign_offer

    def _set_dice(self, dice: tuple[int, int], *, opening: bool = False) -> None:
        self.dice = dice
        self.phase = Phase.MOVE
        event: Event = {"type": EventType.ROLL, "seat": self.turn, "dice": list(dice)}
        if opening:
            event["opening"] = True  # the opening dice, not a new draw
        self.history.append(event)
        seat = self.turn
        first = not self.played_first_turn[seat]
        self._turn = Turn(self.variant, self.position(seat), dice, first_turn=first)
        if not self._turn.can_move:
            self._end_turn(None, forced=True)
        elif self._turn.forced is not None:
            self._turn.apply_play(self._turn.forced)
            self._end_turn(self._turn.play(), forced=True)

    def _end_turn(self, play: Play | None, *, forced: bool) -> None:
        seat = self.turn
        event: Event = {"type": EventType.PLAY if play else EventType.PASS, "seat": seat}
        if play is not None:
            assert self._turn is not None  # a play comes from the turn under way
            event["play"] = format_steps(play.steps, play.dice)
            event["steps"] = [[s.source, s.dest, int(s.hit), d] for s, d in self._turn.done]
            event["forced"] = forced
            self.sides[seat] = play.after.mover
            self.sides[1 - seat] = play.after.opponent
        self.history.append(event)
        self.played_first_turn[seat] = True
        self._turn = None
        self.dice = None
        if self.last_roll:
            self._finish_after_last_roll()
            return
        if self.sides[seat][OFF] == CHECKERS:
            if (
                self.variant.head_rule
                and getattr(self.variant, "draw", False)
                and seat == self.white
            ):
                # U-draw: the second player gets one last roll.
                self.last_roll = True
                self.turn = 1 - seat
                self.phase = Phase.ROLL
                return
            self._finish(self._bear_off_result(seat))
            return
        self.turn = 1 - seat
        self.phase = Phase.ROLL

    def _finish_after_last_roll(self) -> None:
        black = 1 - self.white
        if self.sides[black][OFF] == CHECKERS:
            self._finish(Result(None, ResultKind.DRAW, 0, ResultReason.BEAR_OFF))
        else:
            self._finish(self._bear_off_result(self.white))

    def _bear_off_result(self, winner: int) -> Result:
        """T-7 / U-9: single, gammon (mars) or backgammon, times the cube."""
        loser_side = self.sides[1 - winner]
        kind = ResultKind.SINGLE
        if loser_side[OFF] == 0:
            kind = ResultKind.GAMMON
            # Backgammon: a checker on the bar or in the winner's home board (the loser's
            # points that face the winner's 1..6).
            in_winner_home = any(loser_side[self.variant.opposite[p]] for p in range(1, 7))
            if self.variant.backgammons and (loser_side[BAR] or in_winner_home):
                kind = ResultKind.BACKGAMMON
        if self.jacoby and not self.cube.turned:
            kind = ResultKind.SINGLE
        return Result(winner, kind, LEVEL_VALUE[kind] * self.cube_value, ResultReason.BEAR_OFF)

    def _finish(self, result: Result) -> Result:
        self.result = result
        self.phase = Phase.OVER
        self.resign_offer = None
        self._turn = None
        self.history.append({"type": EventType.END, **result.to_dict()})
        return result

    # -- records -------------------------------------------------------------------------

    def dice_record(self) -> list[tuple[int, ...]]:
        """Every draw of the dice in order, as :func:`core.dice.verify_game_rolls` wants."""
        return dice_record(self.history)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict from which :meth:`from_dict` rebuilds the same game."""
        return {
            "variant": self.variant.name,
            "options": self.variant.options,
            "sides": [list(s) for s in self.sides],
            "phase": self.phase.value,
            "turn": self.turn,
            "dice": list(self.dice) if self.dice else None,
            "white": self.white,
            "played_first_turn": list(self.played_first_turn),
            "cube_value": self.cube_value,
            "cube_owner": self.cube_owner,
            "crawford": self.crawford,
            "jacoby": self.jacoby,
            "resign_offer": (
                [self.resign_offer[0], self.resign_offer[1].value] if self.resign_offer else None
            ),
            "last_roll": self.last_roll,
            "result": self.result.to_dict() if self.result else None,
            "history": self.history,
            "takeback": self.takeback,
            "steps": [[s.source, s.dest, int(s.hit), d] for s, d in self._turn.done]
            if self._turn
            else [],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game saved with :meth:`to_dict`."""
        variant = variant_by_name(data["variant"], **data.get("options", {}))
        offer = data.get("resign_offer")
        game = cls(
            variant,
            [tuple(s) for s in data["sides"]],
            phase=Phase(data["phase"]),
            turn=data["turn"],
            dice=tuple(data["dice"]) if data.get("dice") else None,
            white=data.get("white", 0),
            played_first_turn=list(data.get("played_first_turn", [False, False])),
            cube_value=data.get("cube_value", 1),
            cube_owner=data.get("cube_owner"),
            crawford=data.get("crawford", False),
            jacoby=data.get("jacoby", False),
            resign_offer=(offer[0], ResultKind(offer[1])) if offer else None,
            last_roll=data.get("last_roll", False),
            result=Result.from_dict(data["result"]) if data.get("result") else None,
            history=list(data.get("history", [])),
            takeback=data.get("takeback"),
        )
        if game.phase is Phase.MOVE and game.dice:
            seat = game.turn
            game._turn = Turn(
                variant,
                Position(game.sides[seat], game.sides[1 - seat]),
                game.dice,
                first_turn=not game.played_first_turn[seat],
            )
            for source, dest, hit, die in data.get("steps", []):
                game._turn._push(Step(source, dest, bool(hit)), die)
        return game


def winner_points(result: Result) -> tuple[int, int]:
    """Points won by seats 0 and 1 in a game (a draw gives nothing; see the match)."""
    if result.winner is None:
        return (0, 0)
    pts = [0, 0]
    pts[result.winner] = result.points
    return pts[0], pts[1]
