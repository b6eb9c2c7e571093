"""Tournaments: knockout, round robin and Swiss, as a pure state machine.

:class:`Tournament` holds one tournament (serializable to JSON like :class:`core.match.Match`);
:mod:`.pairing` makes the pairings and :mod:`.standings` ranks the players. No I/O and no
clock: the caller passes the time in.
"""

from .model import (
    GAME_KINDS,
    Entrant,
    Format,
    Outcome,
    Pace,
    Pairing,
    PlayerId,
    Result,
    Settings,
    Stage,
    Standing,
    TournamentError,
)
from .pairing import berger_rounds, bracket_size, knockout_first_round, seed_order, swiss_pairs
from .standings import standings
from .tournament import Tournament

__all__ = [
    "GAME_KINDS",
    "Entrant",
    "Format",
    "Outcome",
    "Pace",
    "Pairing",
    "PlayerId",
    "Result",
    "Settings",
    "Stage",
    "Standing",
    "Tournament",
    "TournamentError",
    "berger_rounds",
    "bracket_size",
    "knockout_first_round",
    "seed_order",
    "standings",
    "swiss_pairs",
]
