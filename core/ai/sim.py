"""Fast game simulation for self-play, benchmarks and tests (no Game object, no cube).

Positions are always seen from the player on roll. A game is a cubeless money game: the
winner scores 1, 2 for a gammon (mars) and 3 for a backgammon where the variant has them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from core.dice import DiceSource
from core.movegen import Play, legal_plays
from core.position import BAR, CHECKERS, OFF, Position
from core.variants import Variant


def opening(variant: Variant, dice: DiceSource) -> tuple[int, tuple[int, int]]:
    """Who starts (0 or 1) and the first roll (T-2: the two opening dice; U-2: a new roll)."""
    while True:
        a, b = dice.roll_one(), dice.roll_one()
        if a != b:
            break
    starter = 0 if a > b else 1
    if variant.head_rule:
        return starter, dice.roll()
    return starter, (a, b) if starter == 0 else (b, a)


def result_points(variant: Variant, after: Position) -> int:
    """Points won by the mover of ``after``, who has just borne off the last checker (or
    would now: the most the game can still bring it, T-7)."""
    loser = after.opponent
    if loser[OFF]:
        return 1
    if variant.backgammons and (loser[BAR] or any(loser[q] for q in range(19, 25))):
        return 3
    return 2


def outcome_vector(points: int) -> list[float]:
    """The five network targets for the winner of a game worth ``points``."""
    return [1.0, float(points >= 2), float(points >= 3), 0.0, 0.0]


class ChoosesPlays(Protocol):
    """What :func:`play_game` asks of a player (every :class:`core.ai.Player` does it)."""

    def choose_play(self, variant: Variant, position: Position, plays: list[Play]) -> Play: ...


@dataclass
class GameRecord:
    winner: int
    points: int
    plies: int
    times: list[list[float]] = field(default_factory=lambda: [[], []])


def play_game(
    variant: Variant,
    players: Sequence[ChoosesPlays],
    dice: DiceSource,
    *,
    max_plies: int = 2000,
    timed: bool = False,
    clock: Callable[[], float] = time.perf_counter,
) -> GameRecord:
    """Play one cubeless game between ``players[0]`` and ``players[1]``.

    Each player needs ``choose_play(variant, position, plays)``. Decision times (seconds, by
    ``clock``: wall time, or ``time.process_time`` for the CPU time of this process, which
    on a busy machine is what one free core would take) are recorded only for rolls with
    more than one legal play.
    """
    starter, roll = opening(variant, dice)
    seat = starter
    side = variant.start_position()
    first = [True, True]
    times: list[list[float]] = [[], []]
    for ply in range(max_plies):
        plays = legal_plays(variant, side, roll, first[seat])
        first[seat] = False
        if plays:
            if len(plays) == 1:
                play: Play = plays[0]
            elif timed:
                t0 = clock()
                play = players[seat].choose_play(variant, side, plays)
                times[seat].append(clock() - t0)
            else:
                play = players[seat].choose_play(variant, side, plays)
            after = play.after
            if after.mover[OFF] == CHECKERS:
                return GameRecord(seat, result_points(variant, after), ply + 1, times)
            side = after.swapped()
        else:
            side = side.swapped()
        seat = 1 - seat
        roll = dice.roll()
    raise RuntimeError("game did not finish")
