"""A contest: a match to N points, a single game, or money play (M-1..M-3).

A :class:`Match` keeps the score, starts each game with the right opening for its variant
(who opens the next game: T-2, the Turkish custom, U-2) and marks the Crawford game (M-2).
A single game is a match to 1 point; ``length`` 0 is money play, which has no end of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .dice import DiceSource
from .errors import ErrorCode, GameOverError, IllegalActionError
from .game import Game, Phase, Result, ResultReason
from .gnubg import GAME_DROP, GAME_OVER, GAME_PLAYING, GAME_RESIGNED, MatchIdInfo, match_id
from .variants import Variant, variant_by_name


@dataclass
class Match:
    """A series of games between seats 0 and 1 of one variant."""

    variant: Variant
    #: Points needed to win; 1 is a single game; 0 is money play (M-3).
    length: int = 1
    jacoby: bool = False
    score: list[float] = field(default_factory=lambda: [0.0, 0.0])
    results: list[Result] = field(default_factory=list)
    crawford_played: bool = False
    game: Game | None = None

    def __post_init__(self) -> None:
        if self.length < 0:
            raise ValueError("a match length can't be negative")

    @property
    def money(self) -> bool:
        return self.length == 0

    def terms(self) -> tuple[int, bool]:
        """The length and Jacoby rule the contest's games are played on (M-1, M-3, T-7).

        A single game with the cube (Tavla's ``length`` 1) is one game of money play: the
        cube is live and the winner scores the cube times the game's worth (T-7), where a
        1-point match would make the cube and gammons worthless. No Jacoby rule unless money
        play has it."""
        if self.length == 1 and self.variant.cube:
            return 0, False
        return self.length, self.jacoby and self.length == 0

    @property
    def winner(self) -> int | None:
        """The seat that has won the match (M-1), if any."""
        if self.money:
            return None
        for seat in (0, 1):
            if self.score[seat] >= self.length:
                return seat
        return None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def start_game(self, dice: DiceSource) -> Game:
        """Start the next game (the current one must be over)."""
        if self.over:
            raise GameOverError("The match is over")
        if self.game is not None:
            if not self.game.over:
                raise IllegalActionError("The current game is not finished", ErrorCode.GAME_RUNNING)
            self.record_game()  # a no-op when the caller has recorded it already
        previous = self.results[-1] if self.results else None
        opening = "roll"
        starter = None
        if (
            previous is not None
            and previous.winner is not None
            and self.variant.next_game_opening != "roll"
        ):
            opening = self.variant.next_game_opening
            starter = previous.winner
        crawford = self._next_is_crawford()
        if crawford:
            self.crawford_played = True
        self.game = Game.new(
            self.variant,
            dice,
            opening=opening,
            starter=starter,
            crawford=crawford,
            jacoby=self.jacoby and self.money,
        )
        return self.game

    def _next_is_crawford(self) -> bool:
        """M-2: the game right after a player first reaches N-1 (cube games only)."""
        if not self.variant.cube or self.length <= 1 or self.crawford_played:
            return False
        return any(s == self.length - 1 for s in self.score)

    def record_game(self) -> Result:
        """Add the finished current game's result to the score."""
        game = self.game
        if game is None or game.result is None:
            raise IllegalActionError("The game is not finished", ErrorCode.GAME_RUNNING)
        if self.results and self.results[-1] is game.result:
            return game.result
        result = game.result
        self.results.append(result)
        if result.winner is None:
            # U-draw: half a point each.
            self.score[0] += 0.5
            self.score[1] += 0.5
        else:
            self.score[result.winner] += result.points
        return result

    def match_id(self) -> str:
        """GNU Backgammon's Match ID of the current state."""
        return match_id(self.match_id_info())

    def match_id_info(self) -> MatchIdInfo:
        game = self.game
        if game is None:
            return MatchIdInfo(
                match_length=self.length, score=self._int_score(), game_state=0, jacoby=self.jacoby
            )
        state = GAME_PLAYING
        if game.over:
            reason = game.result.reason if game.result else None
            state = (
                GAME_RESIGNED
                if reason is ResultReason.RESIGN
                else GAME_DROP
                if reason is ResultReason.PASS
                else GAME_OVER
            )
        resigned = 0
        if game.resign_offer:
            resigned = {"single": 1, "gammon": 2, "backgammon": 3}[game.resign_offer[1].value]
        return MatchIdInfo(
            cube_value=min(game.cube_value, 1 << 15),
            cube_owner=game.cube_owner,
            on_roll=game.turn,
            crawford=game.crawford and not self.money,
            game_state=state,
            turn=game.awaiting,
            doubled=game.phase is Phase.DOUBLED,
            resigned=resigned,
            dice=game.dice or (0, 0),
            match_length=self.length,
            score=self._int_score(),
            jacoby=self.jacoby,
        )

    def _int_score(self) -> tuple[int, int]:
        cap = self.length if self.length else 32767
        s0, s1 = (min(int(s), cap) for s in self.score)
        return s0, s1

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant.name,
            "options": self.variant.options,
            "length": self.length,
            "jacoby": self.jacoby,
            "score": list(self.score),
            "results": [r.to_dict() for r in self.results],
            "crawford_played": self.crawford_played,
            "game": self.game.to_dict() if self.game else None,
            # Whether the current game's result is already in the score (record_game).
            "game_recorded": bool(
                self.game is not None and self.results and self.results[-1] is self.game.result
            ),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        match = cls(
            variant_by_name(data["variant"], **data.get("options", {})),
            length=data["length"],
            jacoby=data.get("jacoby", False),
            score=[float(s) for s in data["score"]],
            results=[Result.from_dict(r) for r in data.get("results", [])],
            crawford_played=data.get("crawford_played", False),
        )
        if data.get("game"):
            match.game = Game.from_dict(data["game"])
            result = match.game.result
            if data.get("game_recorded") and match.results and result is not None:
                # Keep record_game idempotent: it recognises the recorded result by identity.
                match.results[-1] = result
        return match
