"""Races: when contact is gone, and exact bear-off chances from the one-sided database.

*Contact gone* (a race) means no checker can ever hit or block an opposing one again:

* Tavla and Turkish tavla: every checker of each side has passed every opposing checker
  (the mover's rearmost point plus the opponent's rearmost point, each in its own numbering
  with the bar as 25, is at most 24);
* Uzun Tavla: both sides travel the same way round, so a race needs every checker of both
  sides in the second half of its route (its own points 1..12). A checker still on points
  13..24 must later cross the other side's first half, or has the other side's checkers
  still to come through; either way they may block each other (U-3, U-6).

In a race, a side with all its checkers in its home board (none on the bar) bears off
exactly as the one-sided database assumes: nothing of the opponent stands on its home
points, and in Uzun Tavla no six-block there can be illegal (every opposing checker has
passed it, U-6). When *both* sides are in that state, :func:`race_outputs` turns the two
one-sided distributions into the five network outputs:

* win: the side on roll wins when it needs no more rolls than the opponent:
  P(N_me <= N_opp);
* gammon (mars), when the loser has borne off nothing yet: the winner finishes before the
  loser's first checker is off. Finishing on my k-th roll, the opponent has had k - 1
  rolls (I am on roll), so I win a gammon with P(N_me = k) P(F_opp >= k) summed over k,
  F being the rolls to bear off a first checker; they win one with P(N_opp = k)
  P(F_me >= k + 1);
* no backgammons: in a race the loser's checkers are all in its own home board.

This is the usual approximation from one-sided tables: each side plays to minimise its
expected rolls (to bear off all, or its first checker) rather than to maximise its chance
against this opponent, which differs only in rare positions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.position import BAR, OFF, Position

from .bearoff import POINTS, BearoffDatabase, bearoff_database
from .network import LOSE_G, N_OUT, WIN, WIN_G, Network

_IDX = np.arange(26)


def is_race_array(arr: np.ndarray, uzun: bool) -> np.ndarray:
    """(N,) bools: contact gone, for an (N, 2, 26) array of positions."""
    me, opp = arr[:, 0, :], arr[:, 1, :]
    if uzun:
        return (me[:, 13:25].sum(axis=1) == 0) & (opp[:, 13:25].sum(axis=1) == 0)
    back_me = ((me[:, 1:] > 0) * _IDX[1:]).max(axis=1)
    back_opp = ((opp[:, 1:] > 0) * _IDX[1:]).max(axis=1)
    return back_me + back_opp <= 24


def is_race(position: Position, uzun: bool) -> bool:
    """Whether contact is gone in ``position`` (see the module doc)."""
    return bool(is_race_array(np.array([position], dtype=np.float64), uzun)[0])


def home_array(sides: np.ndarray) -> np.ndarray:
    """(N,) bools: every checker of the (N, 26) sides is home or off (bar empty)."""
    return sides[:, POINTS + 1 : BAR + 1].sum(axis=1) == 0


def in_bearoff(position: Position, uzun: bool) -> tuple[bool, bool]:
    """(mover, opponent): whether each side's bear-off is covered exactly by the database."""
    if not is_race(position, uzun):
        return False, False
    arr = np.array([position], dtype=np.float64)
    return bool(home_array(arr[:, 0])[0]), bool(home_array(arr[:, 1])[0])


def _survival(dist: np.ndarray) -> np.ndarray:
    """S[:, k] = P(N >= k) for (M, R) distributions."""
    return np.cumsum(dist[:, ::-1], axis=1)[:, ::-1]


def race_chances(
    p_me: np.ndarray, f_me: np.ndarray, p_opp: np.ndarray, f_opp: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(win, win gammon, lose gammon) of the side on roll from (M, R) roll distributions.

    ``p_*``: rolls to bear off all; ``f_*``: rolls to bear off the first checker. The
    gammon figures assume the loser has borne off nothing yet.
    """
    # I roll first: I win when I finish on my k-th roll and the opponent needs >= k.
    win = (p_me * _survival(p_opp)).sum(axis=1)
    # Gammon for me: the opponent has had k - 1 rolls and has not borne off its first.
    win_g = (p_me * _survival(f_opp)).sum(axis=1)
    # Gammon for the opponent: they finish on their k-th roll, after k rolls of mine.
    f_me_after = np.zeros_like(f_me)
    f_me_after[:, :-1] = _survival(f_me)[:, 1:]
    lose_g = (p_opp * f_me_after).sum(axis=1)
    return win, win_g, lose_g


def race_outputs_array(arr: np.ndarray, db: BearoffDatabase | None = None) -> np.ndarray:
    """(N, 5) outputs for the side on roll, for positions where both sides are home in a race.

    The caller checks that (see :func:`both_in_bearoff_array`); a side with everything off
    has a distribution of zero rolls.
    """
    db = db or bearoff_database()
    me, opp = arr[:, 0, :], arr[:, 1, :]
    i_me = db.indices(me[:, 1 : POINTS + 1])
    i_opp = db.indices(opp[:, 1 : POINTS + 1])
    win, win_g, lose_g = race_chances(db.off[i_me], db.first[i_me], db.off[i_opp], db.first[i_opp])
    out = np.zeros((len(arr), N_OUT))
    out[:, WIN] = win
    out[:, WIN_G] = np.where(opp[:, OFF] == 0, win_g, 0.0)
    out[:, LOSE_G] = np.where(me[:, OFF] == 0, lose_g, 0.0)
    return out


def both_in_bearoff_array(arr: np.ndarray, uzun: bool) -> np.ndarray:
    """(N,) bools: race, and both sides home (the database's exact domain for both)."""
    return is_race_array(arr, uzun) & home_array(arr[:, 0]) & home_array(arr[:, 1])


class BearoffEvaluator:
    """A network whose outputs are replaced by the database's where both sides bear off.

    It has the network's evaluation interface (``evaluate_array``, ``evaluate``,
    ``kind``), so the players use it in place of the bare network.
    """

    def __init__(self, net: Network, db: BearoffDatabase | None = None) -> None:
        self.net = net
        self.kind = net.kind
        self.uzun = net.kind.startswith("uzun")
        self._db = db

    @property
    def db(self) -> BearoffDatabase:
        if self._db is None:
            self._db = bearoff_database()
        return self._db

    def evaluate_array(self, arr: np.ndarray) -> np.ndarray:
        """(N, 5) outputs for the side on roll of each (N, 2, 26) position."""
        out = self.net.evaluate_array(arr)
        exact = both_in_bearoff_array(arr, self.uzun)
        if exact.any():
            out[exact] = race_outputs_array(arr[exact], self.db)
        return out

    def evaluate(self, positions: Sequence[Position]) -> np.ndarray:
        """(N, 5) outputs for a sequence of positions."""
        return self.evaluate_array(np.array(positions, dtype=np.float64).reshape(-1, 2, 26))

    def expected_rolls(self, side: Sequence[int]) -> float:
        """Mean rolls for one side (26 slots) that is all home."""
        return self.db.expected_rolls(side[1 : POINTS + 1])
