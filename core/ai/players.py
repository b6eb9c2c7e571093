"""The computer players: neural (0-ply and 1-ply), noisy beginner, and the Uzun heuristic."""

from __future__ import annotations

import random

import numpy as np

from core.movegen import Play
from core.position import CHECKERS, HEAD, OFF, Position
from core.variants import Variant

from .cube import CubeState, double_decision, take_decision
from .lookahead import Evaluates, Replies, replies, two_ply_values
from .network import Network, equity, flip, positions_array
from .race import BearoffEvaluator, home_array, is_race_array
from .sim import result_points


def _play_equities(net: Evaluates, variant: Variant, plays: list[Play]) -> np.ndarray:
    """0-ply cubeless equity of each play for the player making it."""
    bgs = variant.backgammons
    eqs = np.empty(len(plays))
    rest: list[int] = []
    for i, play in enumerate(plays):
        if play.after.mover[OFF] == CHECKERS:
            eqs[i] = result_points(variant, play.after)
        else:
            rest.append(i)
    if rest:
        arr = positions_array([plays[i].after.swapped() for i in rest])
        eqs[rest] = equity(flip(net.evaluate_array(arr)), True, bgs)
    return eqs


class NeuralPlayer:
    """Plays by the network: 0-ply (club), 1-ply with a move filter (expert), or with
    Gaussian noise on the 0-ply equities (beginner). With ``deep`` >= 2 (master, Uzun
    expert), the best ``deep`` plays by 1-ply, when within ``deep_threshold`` of the best,
    are compared two rolls deep; with ``budget`` only as many of them (in 1-ply order)
    as keep the boards evaluated for the decision (1-ply and 2-ply) within ``budget``.
    Cube decisions from the network.

    ``net`` may be a :class:`~core.ai.race.BearoffEvaluator` around the network: bear-offs
    in a race are then played and doubled by the one-sided database.
    """

    def __init__(
        self,
        net: Network | BearoffEvaluator,
        *,
        plies: int = 0,
        noise: float = 0.0,
        seed: int | None = None,
        name: str = "club",
        candidates: int = 8,
        threshold: float = 0.16,
        deep: int = 0,
        deep_threshold: float = 0.08,
        budget: int = 0,
    ) -> None:
        self.net = net
        self.plies = plies
        self.noise = noise
        self.name = name
        self.candidates = candidates
        self.threshold = threshold
        self.deep = deep
        self.deep_threshold = deep_threshold
        self.budget = budget
        #: Boards evaluated by the last decision's 1-ply look-ahead.
        self.boards = 0
        self._rng = np.random.default_rng(seed)

    def play_equities(self, variant: Variant, plays: list[Play]) -> np.ndarray:
        return _play_equities(self.net, variant, plays)

    def bearoff_play(self, variant: Variant, position: Position, plays: list[Play]) -> Play | None:
        """The play that bears off fastest, when the database decides alone.

        That is when the net is a :class:`BearoffEvaluator`, contact is gone, the mover is
        home and the opponent is not (with both home the evaluator's chances are exact and
        the ordinary search uses them). The mover's every play then keeps it home, and its
        best play is the one needing fewest rolls on average, whatever the opponent does.
        """
        if not isinstance(self.net, BearoffEvaluator):
            return None
        arr = positions_array([position])
        if not (is_race_array(arr, self.net.uzun)[0] and home_array(arr[:, 0])[0]):
            return None
        if home_array(arr[:, 1])[0]:
            return None
        rolls = [self.net.expected_rolls(play.after.mover) for play in plays]
        return plays[int(np.argmin(rolls))]

    def choose_play(self, variant: Variant, position: Position, plays: list[Play]) -> Play:
        if len(plays) == 1:
            return plays[0]
        race_play = self.bearoff_play(variant, position, plays)
        if race_play is not None:
            return race_play
        eqs = self.play_equities(variant, plays)
        if self.noise:
            eqs = eqs + self._rng.normal(0.0, self.noise, len(eqs))
        if self.plies < 1:
            return plays[int(np.argmax(eqs))]
        order = np.argsort(-eqs)
        best = eqs[order[0]]
        if best >= 1.0 and plays[order[0]].after.mover[OFF] == CHECKERS:
            return plays[order[0]]
        keep = [i for i in order[: self.candidates] if eqs[i] >= best - self.threshold]
        self.boards = 0
        if len(keep) == 1:
            return plays[keep[0]]
        i = self._look_ahead(variant, [plays[i].after for i in keep])
        return plays[keep[i]]

    def _look_ahead(self, variant: Variant, afters: list[Position]) -> int:
        """Index in ``afters`` of the best board by 1-ply, or by 2-ply among the best few."""
        bgs = variant.backgammons

        def value(outs: np.ndarray) -> np.ndarray:
            return equity(outs, True, bgs)

        won = [i for i, after in enumerate(afters) if after.mover[OFF] == CHECKERS]
        if won:  # a play that bears off the last checker ends the game: the best one
            return max(won, key=lambda i: result_points(variant, afters[i]))
        answers = replies(self.net, variant, afters, value, float)
        ones = np.array([a.value for a in answers])
        self.boards = sum(a.boards for a in answers)
        ranked = [int(j) for j in np.argsort(-ones, kind="stable")]
        top = [j for j in ranked[: self.deep] if ones[j] >= ones[ranked[0]] - self.deep_threshold]
        if self.deep < 2 or len(top) < 2:
            return ranked[0]
        # With a budget, the 2-ply looks stop where the boards evaluated would exceed it.
        limit = self.budget - self.boards if self.budget else None
        chosen: list[Replies] = [answers[j] for j in top]
        twos = two_ply_values(self.net, variant, chosen, value, float, limit)
        if len(twos) < 2:
            return ranked[0]
        return top[int(np.argmax(twos))]

    # -- cube ------------------------------------------------------------------------------

    def evaluate(self, position: Position) -> np.ndarray:
        """Cubeless chances of the side on roll in ``position`` (before rolling)."""
        return self.net.evaluate([position])[0]

    def should_double(
        self, variant: Variant, position: Position, cube: CubeState | None = None
    ) -> bool:
        if not variant.cube:
            return False
        return double_decision(self.evaluate(position), cube or CubeState(), variant.backgammons)

    def should_take(
        self, variant: Variant, position: Position, cube: CubeState | None = None
    ) -> bool:
        if not variant.cube:
            return True
        # ``position`` is seen from the taker; the doubler is the one on roll.
        out = flip(self.evaluate(position.swapped()))
        return take_decision(out, cube or CubeState(), variant.backgammons)


class HeuristicUzunPlayer:
    """A hand-written Uzun Tavla player, the baseline for the neural one.

    It scores each board after the move: pips still to go, checkers left on the head
    (take one off whenever possible), points held in the opponent's path just in front of
    their rearmost checkers and the longest such barrier, spread over many points with few
    big stacks, and once the sides have passed each other, home and borne-off checkers.
    """

    name = "heuristic"

    def __init__(self, noise: float = 0.0, seed: int | None = None) -> None:
        self.noise = noise
        self._rng = random.Random(seed)

    @staticmethod
    def score(variant: Variant, after: Position) -> float:
        me, opp = after
        if me[OFF] == CHECKERS:
            return 1e9
        opposite = variant.opposite
        pips = sum(p * me[p] for p in range(1, 25))
        race = not any(me[p] for p in range(13, 25)) and not any(opp[q] for q in range(13, 25))
        s = -pips + 4.0 * me[OFF]
        if race:
            s += 1.5 * sum(me[p] for p in range(1, 7))
            s -= 0.5 * sum(max(0, me[p] - 3) for p in range(1, 7))
            return s
        # The opponent's rearmost checker, in their numbering.
        rear = max((q for q in range(1, 25) if opp[q]), default=0)
        held_in_front = 0
        run = best_run = 0
        # Walk the opponent's route from their point 23 down to 1 (their numbering).
        for q in range(24, 0, -1):
            p = _mover_point(opposite, q)
            held = me[p] > 0
            if held and q < rear and rear - q <= 12:
                held_in_front += 1
            run = run + 1 if held else 0
            best_run = max(best_run, run)
        points = sum(1 for p in range(1, 24) if me[p])
        stacks = sum(max(0, me[p] - 3) for p in range(1, 24))
        s += 3.0 * held_in_front + 2.5 * max(0, best_run - 1) ** 1.5
        s += 2.0 * points - 2.0 * stacks - 3.0 * me[HEAD]
        # Keep some checkers moving into home once most have gathered.
        s += 0.5 * sum(me[p] for p in range(1, 7))
        return s

    def choose_play(self, variant: Variant, position: Position, plays: list[Play]) -> Play:
        if len(plays) == 1:
            return plays[0]
        scored = [
            (self.score(variant, p.after) + (self._rng.gauss(0, self.noise) if self.noise else 0))
            for p in plays
        ]
        return plays[max(range(len(plays)), key=scored.__getitem__)]

    def should_double(
        self, variant: Variant, position: Position, cube: CubeState | None = None
    ) -> bool:
        return False

    def should_take(
        self, variant: Variant, position: Position, cube: CubeState | None = None
    ) -> bool:
        return True


_MOVER_POINT: dict[int, tuple[int, ...]] = {}


def _mover_point(opposite: tuple[int, ...], q: int) -> int:
    table = _MOVER_POINT.get(id(opposite))
    if table is None:
        inv = [0] * 26
        for p in range(1, 25):
            inv[opposite[p]] = p
        table = _MOVER_POINT[id(opposite)] = tuple(inv)
    return table[q]
