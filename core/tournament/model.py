"""The values a tournament is made of: its settings, its entrants and its pairings.

Players are the bot's user ids (ints); names and ratings are copied in when they join so the
tournament can be drawn and seeded without asking anyone. Times are seconds since the epoch
(floats), always passed in by the caller: core never reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..errors import IllegalActionError

PlayerId = int

#: Game kinds a tournament can be played in (the names of core.variants' variants).
GAME_KINDS = ("tavla", "turkish", "uzun")
MAX_MATCH_LENGTH = 25
MAX_PLAYERS = 256
MAX_SWISS_ROUNDS = 30


class TournamentError(IllegalActionError):
    """An action the tournament's state or settings do not allow (see ``code``)."""

    code = "tournament"


class Format(StrEnum):
    KNOCKOUT = "knockout"
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"


class Pace(StrEnum):
    """How long a player has per move in the tournament's matches (the match's business)."""

    FAST = "fast"  # minutes per move
    DAILY = "daily"  # 24 hours per move


class Stage(StrEnum):
    OPEN = "open"  # taking entries
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"  # the start time came with too few players, or the organiser


class Outcome(StrEnum):
    """How a pairing was decided."""

    PLAYED = "played"  # the match was played to its end (or resigned)
    TIMEOUT = "timeout"  # the loser's clock ran out
    AWARD = "award"  # the organiser decided it
    FORFEIT = "forfeit"  # the loser had left the tournament
    BYE = "bye"  # no opponent: a free win


@dataclass(frozen=True)
class Settings:
    """What the organiser chose when opening the tournament."""

    format: Format
    game: str = "tavla"
    match_length: int = 3
    pace: Pace = Pace.DAILY
    max_players: int = 16
    min_players: int = 2
    #: Swiss only: the number of rounds wanted (fewer are played if the field is too small).
    rounds: int | None = None
    #: When it starts by itself (epoch seconds), or None to wait for the organiser.
    starts_at: float | None = None
    #: After this many lost-on-time matches a player is withdrawn (0: never).
    timeouts_to_withdraw: int = 1

    def __post_init__(self) -> None:
        def bad(message: str, code: str, **params: Any) -> TournamentError:
            return TournamentError(message, code, **params)

        if self.game not in GAME_KINDS:
            raise bad(f"unknown game {self.game!r}", "tournament_bad_game", game=self.game)
        if not 1 <= self.match_length <= MAX_MATCH_LENGTH:
            raise bad("match length out of range", "tournament_bad_length", max=MAX_MATCH_LENGTH)
        if not 2 <= self.min_players <= self.max_players <= MAX_PLAYERS:
            raise bad("player limits out of range", "tournament_bad_limits", max=MAX_PLAYERS)
        if self.format is Format.SWISS:
            if self.rounds is None or not 1 <= self.rounds <= MAX_SWISS_ROUNDS:
                raise bad("a Swiss needs 1 to 30 rounds", "tournament_bad_rounds")
        elif self.rounds is not None:
            raise bad("only a Swiss has a chosen number of rounds", "tournament_bad_rounds")
        if self.timeouts_to_withdraw < 0:
            raise bad("negative timeout limit", "tournament_bad_limits", max=MAX_PLAYERS)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format.value,
            "game": self.game,
            "match_length": self.match_length,
            "pace": self.pace.value,
            "max_players": self.max_players,
            "min_players": self.min_players,
            "rounds": self.rounds,
            "starts_at": self.starts_at,
            "timeouts_to_withdraw": self.timeouts_to_withdraw,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        return cls(
            format=Format(data["format"]),
            game=data["game"],
            match_length=data["match_length"],
            pace=Pace(data["pace"]),
            max_players=data["max_players"],
            min_players=data["min_players"],
            rounds=data.get("rounds"),
            starts_at=data.get("starts_at"),
            timeouts_to_withdraw=data.get("timeouts_to_withdraw", 1),
        )


@dataclass
class Entrant:
    """A player in the tournament."""

    player: PlayerId
    name: str
    rating: float
    joined_at: float
    #: 1 is the strongest; given at the start (rating, then who joined first).
    seed: int | None = None
    #: When they left a running tournament (None: still in).
    withdrawn_at: float | None = None
    timeouts: int = 0

    @property
    def withdrawn(self) -> bool:
        return self.withdrawn_at is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "rating": self.rating,
            "joined_at": self.joined_at,
            "seed": self.seed,
            "withdrawn_at": self.withdrawn_at,
            "timeouts": self.timeouts,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entrant:
        return cls(**data)


@dataclass(frozen=True)
class Result:
    """How a pairing ended. ``winner`` None is a double forfeit (both players had left)."""

    winner: PlayerId | None
    outcome: Outcome
    #: Match points of (home, away), when the match was played (or cut short) with a score.
    points: tuple[float, float] | None = None
    at: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "outcome": self.outcome.value,
            "points": list(self.points) if self.points is not None else None,
            "at": self.at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        points = data.get("points")
        return cls(
            winner=data["winner"],
            outcome=Outcome(data["outcome"]),
            points=(float(points[0]), float(points[1])) if points is not None else None,
            at=data.get("at", 0.0),
        )


@dataclass
class Pairing:
    """One match of the tournament: ``home`` against ``away`` in a round.

    In a knockout, a later round's pairing exists from the start with its players unknown
    (None) until the matches feeding it are decided. ``bye`` marks a pairing without an
    opponent (``away`` is None and ``home`` wins it at once).
    """

    round: int  # 1-based
    table: int  # 1-based position in the round (the bracket slot in a knockout)
    home: PlayerId | None = None
    away: PlayerId | None = None
    bye: bool = False
    result: Result | None = None
    #: The bot's id of the match played for it, once started (opaque to core).
    match_ref: str | None = None
    created_at: float | None = None

    @property
    def key(self) -> str:
        """A stable id of the pairing within its tournament: ``"round.table"``."""
        return f"{self.round}.{self.table}"

    @property
    def players(self) -> tuple[PlayerId, ...]:
        return tuple(p for p in (self.home, self.away) if p is not None)

    @property
    def complete(self) -> bool:
        """Both players known (or a bye): the pairing can be decided."""
        return self.home is not None and (self.away is not None or self.bye)

    @property
    def decided(self) -> bool:
        return self.result is not None

    @property
    def loser(self) -> PlayerId | None:
        if self.result is None:
            return None
        if self.bye:
            return self.home if self.result.winner is None else None
        if self.result.winner is None:
            return None  # a double forfeit: both lose
        return self.away if self.result.winner == self.home else self.home

    def opponent(self, player: PlayerId) -> PlayerId | None:
        if player == self.home:
            return self.away
        if player == self.away:
            return self.home
        raise TournamentError("not in this pairing", "tournament_not_in_pairing")

    def points_of(self, player: PlayerId) -> tuple[float, float] | None:
        """(for, against) match points of ``player`` in this pairing, if a score is known."""
        if self.result is None or self.result.points is None:
            return None
        home, away = self.result.points
        return (home, away) if player == self.home else (away, home)

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "table": self.table,
            "home": self.home,
            "away": self.away,
            "bye": self.bye,
            "result": self.result.to_dict() if self.result else None,
            "match_ref": self.match_ref,
            "created_at": self.created_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Pairing:
        result = data.get("result")
        return cls(
            round=data["round"],
            table=data["table"],
            home=data.get("home"),
            away=data.get("away"),
            bye=data.get("bye", False),
            result=Result.from_dict(result) if result else None,
            match_ref=data.get("match_ref"),
            created_at=data.get("created_at"),
        )


@dataclass(frozen=True)
class Standing:
    """One row of the standings (best first)."""

    rank: int
    player: PlayerId
    name: str
    seed: int
    played: int  # pairings decided, byes included
    wins: int  # byes and forfeit wins included
    losses: int
    score: float  # 1 a win, 0 a loss
    buchholz: float
    points_for: float
    points_against: float
    withdrawn: bool = False
    #: Knockout: the round in which the player lost (None: still in, or the winner).
    out_in_round: int | None = None

    @property
    def point_diff(self) -> float:
        return self.points_for - self.points_against
