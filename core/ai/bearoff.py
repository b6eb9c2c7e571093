"""One-sided bear-off database: how many rolls one side needs to bear off, exactly.

Every way to spread up to 15 checkers over the six home points (C(21, 6) = 54,264 spreads,
the empty board included) gets the probability distribution of the number of rolls it needs
to bear everything off, playing each roll to minimise the expected number of rolls (the
usual one-sided criterion, as in GNU Backgammon's one-sided database). A second table gives,
for spreads of all 15 checkers, the distribution of the number of rolls to bear off the
*first* checker, played to minimise that; it gives gammon (mars) chances.

The database is exact for a side whose checkers are all in its home board when the other
side can no longer touch them: T-6 (Tavla and Turkish) and U-8 (Uzun Tavla, "then as T-6")
bear off alike, and with contact gone no point of the home board can be closed and no hit
is possible (see :mod:`core.ai.race` for when that holds in each game). Inside the home
board a die can always be played (a checker moves down or one is borne off), so every roll
uses all its dice until the last checker is off.

The build is dynamic programming over the spreads in order of pip count (every step lowers
it), vectorised with NumPy: about a second of CPU, done once at first use and kept in memory
(28 MB of float64 tables).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import cache

import numpy as np

from core.position import CHECKERS

POINTS = 6
#: Rolls counted in a distribution; the slowest spread (15 checkers on the 6-point, always
#: rolling 2-1) needs fewer.
MAX_ROLLS = 32
_KEY_BASE = 16  # more than 15: a spread's key is its counts as base-16 digits

# The 21 distinct rolls (non-doubles first) and their weights out of 36.
_NON_DOUBLES = tuple((a, b) for a in range(1, 7) for b in range(a + 1, 7))
_DOUBLES = tuple(range(1, 7))


class BearoffDatabase:
    """Roll distributions of every home-board spread of up to ``max_checkers`` checkers.

    Use :func:`bearoff_database` for the shared full database (15 checkers).
    """

    def __init__(self, max_checkers: int = CHECKERS) -> None:
        self.max_checkers = max_checkers
        self.counts = _spreads(max_checkers)
        self.keys = self.counts @ (_KEY_BASE ** np.arange(POINTS))
        children = _children(self.counts, self.keys)
        n = len(self.keys)
        empty = self.counts.sum(axis=1) == 0
        #: ``off[i, k]``: probability that spread i needs exactly k rolls to bear off all.
        self.off, self.mean = _solve(self.counts, children, empty)
        full = self.counts.sum(axis=1) == max_checkers
        #: ``first[i, k]``: probability that spread i (all ``max_checkers`` on the board)
        #: bears off its first checker in exactly k rolls; other spreads have 0 rolls.
        self.first, self.first_mean = _solve(self.counts, children, ~full)
        self.size = n

    # -- lookup -----------------------------------------------------------------------

    def index(self, home: Sequence[int]) -> int:
        """The row of a spread given as counts on points 1..6."""
        key = sum(int(c) * _KEY_BASE**i for i, c in enumerate(home))
        i = int(np.searchsorted(self.keys, key))
        if i >= self.size or self.keys[i] != key:
            raise KeyError(f"no spread {tuple(home)} in the database")
        return i

    def indices(self, homes: np.ndarray) -> np.ndarray:
        """Rows of an (N, 6) array of spreads (all assumed present)."""
        keys = homes.astype(np.int64) @ (_KEY_BASE ** np.arange(POINTS))
        return np.searchsorted(self.keys, keys)

    def distribution(self, home: Sequence[int]) -> np.ndarray:
        """P(exactly k rolls to bear off all), k = 0 .. MAX_ROLLS-1."""
        return self.off[self.index(home)]

    def expected_rolls(self, home: Sequence[int]) -> float:
        """Mean number of rolls to bear off every checker of the spread."""
        return float(self.mean[self.index(home)])


def _spreads(max_checkers: int) -> np.ndarray:
    """All (n1..n6) with n1+..+n6 <= max_checkers, sorted by key, as an (N, 6) int array."""
    rows = []
    # Stars and bars: 6 bars among max_checkers + 6 places; the seventh bin is the rest.
    for bars in itertools.combinations(range(max_checkers + POINTS), POINTS):
        prev = -1
        row = []
        for b in bars:
            row.append(b - prev - 1)
            prev = b
        rows.append(row)
    counts = np.array(rows, dtype=np.int64)
    keys = counts @ (_KEY_BASE ** np.arange(POINTS))
    return counts[np.argsort(keys)]


def _children(counts: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``children[d-1, i, p-1]``: the spread after playing die d from point p (T-6), or -1.

    Die d moves a checker from p > d down to p - d, bears one off from p = d, and bears
    off from p < d only when p is the highest occupied point.
    """
    n = len(counts)
    above = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]  # checkers on p and higher
    out = np.full((6, n, POINTS), -1, dtype=np.int64)
    for d in range(1, 7):
        for p in range(1, POINTS + 1):
            higher = above[:, p] if p < POINTS else np.zeros(n, dtype=np.int64)
            ok = counts[:, p - 1] > 0
            if p < d:
                ok &= higher == 0
            child = counts[ok].copy()
            child[:, p - 1] -= 1
            if p > d:
                child[:, p - d - 1] += 1
            ckeys = child @ (_KEY_BASE ** np.arange(POINTS))
            out[d - 1, ok, p - 1] = np.searchsorted(keys, ckeys)
    return out


def _solve(
    counts: np.ndarray, children: np.ndarray, done: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Roll distributions to reach a ``done`` spread, each roll minimising the mean.

    ``g[k][d][x]``: the least mean over the spreads reachable from x with k steps of die d
    (a spread that is done stays put: the goal was reached during the roll), with ``fin``
    the spread reached. Every step lowers the pip count, so handling the spreads level by
    level of pips finds every child already solved.
    """
    n = len(counts)
    inf = np.inf
    mean = np.zeros(n + 1)
    mean[n] = inf  # the sentinel row for "no such step"
    dist = np.zeros((n + 1, MAX_ROLLS))
    dist[np.flatnonzero(done), 0] = 1.0
    ident = np.arange(n + 1)
    g = np.zeros((5, 6, n + 1))
    fin = np.tile(ident, (5, 6, 1))
    g[:, :, n] = inf
    kids = np.where(children < 0, n, children)  # (6, n, 6)
    pips = counts @ np.arange(1, POINTS + 1)
    order = np.argsort(pips, kind="stable")
    bounds = np.searchsorted(pips[order], np.arange(pips.max() + 2))
    for level in range(1, pips.max() + 1):
        idx = order[bounds[level] : bounds[level + 1]]
        idx = idx[~done[idx]]
        if not len(idx):
            continue
        rows = np.arange(len(idx))
        for d in range(6):
            kid = kids[d, idx]  # (m, 6)
            for k in range(1, 5):
                prev = mean if k == 1 else g[k - 1, d]
                cand = prev[kid]
                j = np.argmin(cand, axis=1)
                g[k, d, idx] = cand[rows, j]
                fin[k, d, idx] = (ident if k == 1 else fin[k - 1, d])[kid[rows, j]]
        total_mean = np.zeros(len(idx))
        total_dist = np.zeros((len(idx), MAX_ROLLS))
        for a, b in _NON_DOUBLES:
            # a then b, or b then a: the better of the two orders.
            cands, finals = [], []
            for first, second in ((a, b), (b, a)):
                kid = kids[first - 1, idx]
                cand = g[1, second - 1][kid]
                j = np.argmin(cand, axis=1)
                cands.append(cand[rows, j])
                finals.append(fin[1, second - 1][kid[rows, j]])
            better = cands[1] < cands[0]
            value = np.where(better, cands[1], cands[0])
            final = np.where(better, finals[1], finals[0])
            total_mean += 2.0 * value
            total_dist += 2.0 * dist[final]
        for d in _DOUBLES:
            total_mean += g[4, d - 1, idx]
            total_dist += dist[fin[4, d - 1, idx]]
        mean[idx] = 1.0 + total_mean / 36.0
        dist[idx, 1:] = total_dist[:, :-1] / 36.0
    return dist[:n], mean[:n]


@cache
def bearoff_database() -> BearoffDatabase:
    """The full one-sided database (15 checkers), built once per process."""
    return BearoffDatabase(CHECKERS)
