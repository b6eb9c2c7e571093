"""What an analysis finds: each scored :class:`Decision`, each player's
:class:`PlayerSummary` and the whole :class:`MatchAnalysis` (plain, picklable values)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.ai.cube import CubeState
from core.movegen import Play
from core.position import Position

from .scoring import Skill, rating, skill


@dataclass(frozen=True)
class Decision:
    """One scored decision. ``loss`` is the equity given away (0 for the best choice).

    ``kind`` is ``play`` or ``cube``; for a cube decision ``played`` and ``best`` are
    ``double``, ``no double``, ``take`` or ``pass``. ``position`` is gnubg's Position ID
    before the decision with ``player`` on roll (the doubler for a take or pass).
    ``move`` is the number of the line the decision is written on in the game's record
    (the ``N)`` of :mod:`core.export`'s text, one line per exchange of both players:
    :func:`core.export.action_lines`), so a move named in any analysis is found in the file.
    """

    game: int
    move: int
    player: int
    kind: str
    dice: tuple[int, int] | None
    position: str
    played: str
    best: str
    loss: float
    before: Position = field(repr=False, compare=False)
    played_after: Position | None = field(default=None, repr=False, compare=False)
    best_after: Position | None = field(default=None, repr=False, compare=False)
    played_play: Play | None = field(default=None, repr=False, compare=False)
    best_play: Play | None = field(default=None, repr=False, compare=False)
    #: The cube before the decision (value, owning seat or None), for pictures.
    cube: tuple[int, int | None] = field(default=(1, None), repr=False, compare=False)
    #: The seat that plays White in the decision's game (in Uzun Tavla, who started it).
    white: int = field(default=0, repr=False, compare=False)
    #: The cube and score the decision was made at (Tavla's plays; None without a cube).
    state: CubeState | None = field(default=None, repr=False, compare=False)

    @property
    def skill(self) -> Skill:
        return skill(self.loss)

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON line (design.md): the loss in equity, rounded to 1/10000."""
        return {
            "game": self.game,
            "move": self.move,
            "player": self.player,
            "kind": self.kind,
            "dice": list(self.dice) if self.dice else None,
            "position": self.position,
            "played": self.played,
            "best": self.best,
            "loss": round(self.loss, 4),
        }


#: The rating of a player who made no decision.
NO_DECISIONS = "No decisions"


@dataclass(frozen=True)
class PlayerSummary:
    """One player's figures over the analysed games (equities normalized to the cube)."""

    player: int
    name: str
    decisions: int
    checker_decisions: int
    cube_decisions: int
    total_loss: float
    doubtful: int
    bad: int
    very_bad: int
    luck: float
    result: float

    @property
    def error_per_decision(self) -> float:
        """Millipoints lost per decision (gnubg: total loss over unforced decisions)."""
        return 1000.0 * self.total_loss / self.decisions if self.decisions else 0.0

    @property
    def pr(self) -> float:
        """The PR-style figure: mean equity lost per decision times 500."""
        return self.error_per_decision / 2.0

    @property
    def rating(self) -> str:
        """gnubg's rating label, or :data:`NO_DECISIONS` when the player had no choice to
        judge (a game resigned on its first move is no "Supernatural" play)."""
        if not self.decisions:
            return NO_DECISIONS
        return rating(self.error_per_decision / 1000.0)

    @property
    def luck_adjusted(self) -> float:
        """The result with the luck of both players' dice taken out (points)."""
        return self.result - self.luck

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "decisions": self.decisions,
            "error_per_decision": round(self.error_per_decision, 1),
            "pr": round(self.pr, 2),
            "doubtful": self.doubtful,
            "bad": self.bad,
            "very_bad": self.very_bad,
            "luck": round(self.luck, 3),
            "result": self.result,
            "luck_adjusted": round(self.luck_adjusted, 3),
            "rating": self.rating,
        }


@dataclass
class MatchAnalysis:
    """Everything the analysis found: every decision, and both players' summaries.

    ``luck`` per player is the net luck of the contest for that player, in points (each
    roll's luck times the cube): the player's own rolls count for, the opponent's against.
    """

    variant: str
    length: int
    names: tuple[str, str]
    evaluator: str
    decisions: list[Decision]
    players: tuple[PlayerSummary, PlayerSummary]
    #: How many games were analysed (money play of one game is a single game).
    games: int = 0

    def worst(self, count: int = 3, player: int | None = None) -> list[Decision]:
        """The costliest decisions (of one player, or both), worst first."""
        pool = [d for d in self.decisions if player is None or d.player == player]
        return sorted(pool, key=lambda d: -d.loss)[:count]

    def json_lines(self) -> list[str]:
        """The CLI's output: a line per decision, then a summary line per player."""
        import json

        lines = [json.dumps(d.to_json(), ensure_ascii=False) for d in self.decisions]
        lines += [
            json.dumps({"summary": True, **p.to_json()}, ensure_ascii=False) for p in self.players
        ]
        return lines
