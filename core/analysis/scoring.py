"""What a game's outcomes are worth, gnubg's skill thresholds and rating labels, cube equities.

Every figure of the analysis is an *equity normalized to the cube in play*, as GNU Backgammon
reports it: in money play one unit is one point times the cube, in a match it is gnubg's EMG
(the match-winning chances mapped linearly so that losing the cube's value is -1 and winning
it +1). A :class:`Scoring` turns the network's five probabilities into such an equity; it is
linear in them, so averaging probabilities and averaging equities agree.

Cube decisions (Tavla) need cubeful equities, and the networks are cubeless. The cubeful
values come from Janowski's model (R. Janowski, "Take-points in money games", 1993): a mix,
by the cube efficiency ``x``, of the dead-cube equity and the fully live-cube equity, which is
linear in the winning chance between the two sides' cash points.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np

from core.ai.cube import CubeState, match_equity
from core.ai.network import LOSE_BG, LOSE_G, WIN, WIN_BG, WIN_G

#: gnubg's thresholds (equity lost) for a doubtful, bad and very bad decision.
DOUBTFUL, BAD, VERY_BAD = 0.04, 0.08, 0.16
#: gnubg's rating labels and the error per decision (normalized equity) each needs to beat.
RATINGS = (
    ("Awful!", float("inf")),
    ("Beginner", 0.035),
    ("Casual player", 0.026),
    ("Intermediate", 0.018),
    ("Advanced", 0.012),
    ("Expert", 0.008),
    ("World class", 0.005),
    ("Supernatural", 0.002),
)
#: Cube efficiency of Janowski's model (gnubg uses 0.68 for contact positions).
CUBE_EFFICIENCY = 0.68
#: gnubg counts a no-double as a decision only when doubling is at most this much worse.
CLOSE_CUBE = 0.16


class Skill(StrEnum):
    """gnubg's verdict on one decision."""

    NONE = ""
    DOUBTFUL = "doubtful"
    BAD = "bad"
    VERY_BAD = "very_bad"


def skill(loss: float) -> Skill:
    """The verdict for a decision that lost ``loss`` (normalized equity)."""
    if loss >= VERY_BAD:
        return Skill.VERY_BAD
    if loss >= BAD:
        return Skill.BAD
    if loss >= DOUBTFUL:
        return Skill.DOUBTFUL
    return Skill.NONE


def rating(error_per_decision: float) -> str:
    """gnubg's rating label ("Awful!" … "Supernatural") for an error per decision."""
    label = RATINGS[0][0]
    for name, limit in RATINGS:
        if error_per_decision < limit:
            label = name
    return label


@dataclass(frozen=True)
class Scoring:
    """The value, in cube-normalized equity, of each outcome for one player.

    ``outcomes[k]`` for k = 1, 2, 3 is winning a single game, a gammon (mars), a backgammon;
    for k = -1, -2, -3 losing one. With ``cubeful`` (Tavla while the cube is alive) a
    position's value is Janowski's cubeful equity for the cube ``owner`` (1 me, 0 centred,
    -1 the opponent), as gnubg's analysis uses cubeful equities: a live cube makes the
    same change of winning chances worth more.
    """

    outcomes: dict[int, float]
    cubeful: bool = False
    owner: int = 0
    #: 1 if I own a cube whose redouble is free (see :func:`free_redouble`), -1 if the
    #: opponent does; positions are then valued at ``redoubled``, the outcomes at twice
    #: the cube, capped at the cash (the opponent's pass).
    free: int = 0
    redoubled: dict[int, float] | None = None
    #: In a match, the cash points of the live cube come from the cube's next level
    #: (:func:`_match_points`): the outcomes at twice and four times the cube, and how the
    #: cube stands after each side's double ("dead", "free" or "live").
    ladder: tuple[dict[int, float], dict[int, float], str, str] | None = None

    @classmethod
    def money(cls, *, backgammons: bool = True, gammons: bool = True) -> Scoring:
        """Money play (and Turkish tavla, Uzun Tavla): points, per unit of the cube."""
        values = {}
        for k in (1, 2, 3):
            level = k if gammons else 1
            if not backgammons:
                level = min(level, 2)
            values[k], values[-k] = float(level), -float(level)
        return cls(values)

    @classmethod
    def for_cube(
        cls, state: CubeState, *, stake: int | None = None, backgammons: bool = True
    ) -> Scoring:
        """Tavla at a cube and score: ``stake`` (default the cube value) is what is played for.

        In a match the values are EMG at the cube value; with ``stake`` twice the cube (after
        a double is taken) winning a single game is then worth about 2.
        """
        v = state.value
        stake = v if stake is None else stake
        cubeful = stake == v and _cube_alive(state)
        if state.money:
            gammons = not (state.jacoby and stake == 1)
            base = cls.money(backgammons=backgammons, gammons=gammons)
            return cls({k: x * stake / v for k, x in base.outcomes.items()}, cubeful, state.owner)
        values = _match_outcomes(state, stake, backgammons)
        free = free_redouble(state) if stake == v else 0
        if free:
            return cls(values, False, state.owner, free, _match_outcomes(state, 2 * v, backgammons))
        ladder = None
        if cubeful:
            a, b = state.away
            # After my double the opponent holds 2v: dead if its win then wins the match,
            # free if mine would and its wouldn't; the same for me after its double.
            theirs = "dead" if 2 * v >= b else ("free" if a <= 2 * v else "live")
            mine = "dead" if 2 * v >= a else ("free" if b <= 2 * v else "live")
            ladder = (
                _match_outcomes(state, 2 * v, backgammons),
                _match_outcomes(state, 4 * v, backgammons),
                theirs,
                mine,
            )
        return cls(values, cubeful, state.owner, ladder=ladder)

    def value(self, out: np.ndarray) -> np.ndarray:
        """Equity of network outputs ``(5,)`` or ``(N, 5)`` for the side they belong to."""
        u = self.outcomes
        w, wg, wbg = out[..., WIN], out[..., WIN_G], out[..., WIN_BG]
        lg, lbg = out[..., LOSE_G], out[..., LOSE_BG]
        won = u[1] * (w - wg) + u[2] * (wg - wbg) + u[3] * wbg
        lost = u[-1] * (1.0 - w - lg) + u[-2] * (lg - lbg) + u[-3] * lbg
        dead = won + lost
        if self.free and self.redoubled is not None:
            # The holder redoubles when it pays and the opponent takes or passes: the value
            # at twice the cube, at most the cash (one cube for the holder).
            again = replace(self, free=0, redoubled=None, outcomes=self.redoubled).value(out)
            return np.asarray(np.minimum(again, 1.0) if self.free > 0 else np.maximum(again, -1.0))
        if not self.cubeful:
            return np.asarray(dead)
        p = np.clip(w, 1e-6, 1.0 - 1e-6)
        points = _match_points(self.ladder, out, p) if self.ladder is not None else None
        live = _live_array(p, won / p, -lost / (1.0 - p), self.owner, points)
        return np.asarray(CUBE_EFFICIENCY * live + (1.0 - CUBE_EFFICIENCY) * dead)

    def points(self, points: int) -> float:
        """Equity of a finished game won (``points`` > 0) or lost by that many points."""
        return self.outcomes[max(-3, min(3, points))]

    def win_loss(self, out: np.ndarray) -> tuple[float, float, float]:
        """(winning chance, average value of a win, average size of a loss) of outputs."""
        u = self.outcomes
        p = float(out[WIN])
        won = (
            u[1] * (out[WIN] - out[WIN_G]) + u[2] * (out[WIN_G] - out[WIN_BG]) + u[3] * out[WIN_BG]
        )
        lost = (
            u[-1] * (1.0 - out[WIN] - out[LOSE_G])
            + u[-2] * (out[LOSE_G] - out[LOSE_BG])
            + u[-3] * out[LOSE_BG]
        )
        w = float(won) / p if p > 1e-9 else u[1]
        lo = -float(lost) / (1.0 - p) if p < 1.0 - 1e-9 else -u[-1]
        return p, w, lo


def _match_outcomes(state: CubeState, stake: int, backgammons: bool) -> dict[int, float]:
    """The EMG (normalized to ``state``'s cube) of winning or losing 1, 2, 3 times ``stake``."""
    lose, win = _mwc(state, -state.value), _mwc(state, state.value)
    values = {}
    for k in (1, 2, 3):
        level = k if backgammons or k < 3 else 2
        for sign in (1, -1):
            mwc = _mwc(state, sign * level * stake)
            values[sign * k] = 2.0 * (mwc - lose) / (win - lose) - 1.0
    return values


def free_redouble(state: CubeState) -> int:
    """1 if the player of ``state`` owns a cube whose redouble costs nothing, -1 if the
    opponent does, else 0.

    In a match, when the cube's owner is ``a`` away and its opponent ``b`` away with
    ``b <= value < a``, the opponent's win at this cube already wins the match, so a redouble
    can't cost the owner anything (the opponent's cube would be dead) and it doubles the
    owner's win: the owner redoubles at its leisure, by the opponent's pass point at the
    latest, and its cube is fully efficient. GNU Backgammon values such positions at the
    redoubled stake (no double equals double/take); Janowski's 0.68 efficiency would not.
    """
    if state.money or state.crawford or state.post_crawford or state.owner == 0:
        return 0
    a, b = state.away
    v = state.value
    if state.owner > 0:
        return 1 if b <= v < a else 0
    return -1 if a <= v < b else 0


def _mwc(state: CubeState, points: int) -> float:
    """My match-winning chance after I win (points > 0) or lose ``points``."""
    a, b = state.away
    post = state.crawford or state.post_crawford
    if points > 0:
        return match_equity(a - points, b, post)
    return match_equity(a, b + points, post)


def _cube_alive(state: CubeState) -> bool:
    """Whether the cube can still be turned usefully by its holder (or either side)."""
    if state.crawford or state.value >= 64:
        return False
    if state.money:
        return True
    a, b = state.away
    if state.post_crawford:
        return False
    mine, theirs = state.value < a, state.value < b
    if state.owner > 0:
        return mine
    if state.owner < 0:
        return theirs
    return mine and theirs


def _win_loss_at(
    outcomes: dict[int, float], out: np.ndarray, p: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The average win and loss (positive) of outputs ``out`` at ``outcomes``."""
    u = outcomes
    won = u[1] * (out[..., WIN] - out[..., WIN_G]) + u[2] * (out[..., WIN_G] - out[..., WIN_BG])
    won = won + u[3] * out[..., WIN_BG]
    lg, lbg = out[..., LOSE_G], out[..., LOSE_BG]
    lost = u[-1] * (1.0 - out[..., WIN] - lg) + u[-2] * (lg - lbg) + u[-3] * lbg
    return won / p, -lost / (1.0 - p)


def _match_points(
    ladder: tuple[dict[int, float], dict[int, float], str, str], out: np.ndarray, p: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """My cash point and the opponent's (in my winning chances) where the cube's next level
    is dead or a free redouble: there the taker's equity is the dead line at twice (or, free,
    four times) the cube, so the take point is where that line crosses -1 or +1 (in units
    of the present cube). None where the next level's cube is live (Janowski's own)."""
    two, four, theirs, mine = ladder
    lines = {"dead": _win_loss_at(two, out, p), "free": _win_loss_at(four, out, p)}
    cash = low = None
    if theirs in lines:
        w, lo = lines[theirs]
        cash = np.clip((1.0 + lo) / (w + lo), 0.0, 1.0)
    if mine in lines:
        w, lo = lines[mine]
        low = np.clip((lo - 1.0) / (w + lo), 0.0, 1.0)
    return cash, low


def _live_array(
    p: np.ndarray,
    w: np.ndarray,
    lo: np.ndarray,
    owner: int,
    points: tuple[np.ndarray | None, np.ndarray | None] | None = None,
) -> np.ndarray:
    """:func:`_live` on arrays; ``points`` may replace the cash points (a match)."""
    cash = (lo + 1.0) / (w + lo + 0.5)
    low = (lo - 0.5) / (w + lo + 0.5)
    if points is not None:
        cash = cash if points[0] is None else points[0]
        low = low if points[1] is None else points[1]
        low = np.minimum(low, cash - 1e-6)
    # Too good to double: play on for the gammon, from 1 at the cash point up to w at p = 1.
    good = 1.0 + (w - 1.0) * (p - cash) / np.maximum(1.0 - cash, 1e-9)
    # The opponent too good: from -1 at its cash point down to -lo at p = 0.
    bad = -lo + (lo - 1.0) * p / np.maximum(low, 1e-9)
    if owner == 0:
        mid = -1.0 + 2.0 * (p - low) / np.maximum(cash - low, 1e-9)
        return np.asarray(np.where(p >= cash, good, np.where(p <= low, bad, mid)))
    if owner > 0:
        return np.asarray(np.where(p >= cash, good, -lo + (1.0 + lo) * p / np.maximum(cash, 1e-9)))
    rest = -1.0 + (w + 1.0) * (p - low) / np.maximum(1.0 - low, 1e-9)
    return np.asarray(np.where(p <= low, bad, rest))


# -- cube decisions ---------------------------------------------------------------------


def _live(p: float, w: float, lo: float, owner: int) -> float:
    """Janowski's fully live-cube equity (per unit cube) at winning chance ``p``.

    ``owner``: 0 centred, 1 I own the cube, -1 the opponent owns it. Past a cash point the
    side that is too good to double plays on for the gammon: the equity goes on linearly
    from ±1 at the cash point to the average win ``w`` (or loss ``-lo``) at certainty, as in
    GNU Backgammon's money-game conversion.
    """
    cash = (lo + 1.0) / (w + lo + 0.5)  # my cash point
    low = (lo - 0.5) / (w + lo + 0.5)  # the opponent's cash point, in my chances
    if p >= cash and owner >= 0:
        return 1.0 + (w - 1.0) * (p - cash) / max(1.0 - cash, 1e-9)
    if p <= low and owner <= 0:
        return -lo + (lo - 1.0) * p / max(low, 1e-9)
    if owner == 0:
        return -1.0 + 2.0 * (p - low) / (cash - low)
    if owner > 0:
        return -lo + (1.0 + lo) * p / cash
    return -1.0 + (w + 1.0) * (p - low) / (1.0 - low)


def _cubeful(p: float, w: float, lo: float, owner: int, live: bool) -> float:
    dead = p * w - (1.0 - p) * lo
    if not live:
        return dead
    return CUBE_EFFICIENCY * _live(p, w, lo, owner) + (1.0 - CUBE_EFFICIENCY) * dead


@dataclass(frozen=True)
class CubeEquities:
    """No double, double/take and double/pass, for the doubler, normalized to the cube."""

    no_double: float
    double_take: float
    double_pass: float

    @property
    def double(self) -> float:
        """The value of doubling when the opponent answers right."""
        return min(self.double_take, self.double_pass)

    @property
    def best(self) -> float:
        return max(self.no_double, self.double)

    @property
    def should_double(self) -> bool:
        return self.double > self.no_double

    @property
    def should_take(self) -> bool:
        return self.double_take <= self.double_pass

    @property
    def close(self) -> bool:
        """Whether not doubling counts as a decision (gnubg's "close or actual")."""
        return self.double >= self.no_double - CLOSE_CUBE


def cube_equities(out: np.ndarray, state: CubeState, backgammons: bool = True) -> CubeEquities:
    """Cubeful equities of a cube decision; ``out`` and ``state`` from the doubler's side."""
    v = state.value
    now = Scoring.for_cube(state, backgammons=backgammons)
    p, w, lo = now.win_loss(out)
    a, b = state.away if not state.money else (99, 99)
    taken = Scoring.for_cube(state, stake=2 * v, backgammons=backgammons)
    _, w2, lo2 = taken.win_loss(out)
    # Per unit of the new cube (twice the old), the opponent owning it.
    theirs_live = state.money or 2 * v < b
    dt = 2.0 * _cubeful(p, w2 / 2.0, lo2 / 2.0, -1, theirs_live)
    if now.free > 0:
        # A free redouble: holding it is worth redoubling later (see free_redouble).
        return CubeEquities(min(float(dt), 1.0), float(dt), 1.0)
    # A cube is live for its holder only if a redouble could still change the outcome.
    mine_live = state.money or v < a
    if now.ladder is not None:
        nd = float(now.value(out))  # a live cube in a match: the match's cash points
    else:
        nd = _cubeful(p, w, lo, state.owner, mine_live or state.owner < 0)
    return CubeEquities(float(nd), float(dt), 1.0)
