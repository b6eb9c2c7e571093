"""Distilling a teacher's evaluations into a :class:`~core.ai.network.Network`.

The teacher is GNU Backgammon's evaluator (the optional ``gnubg`` extra, used only while
training; the shipped players never need it), or a network's own 1-ply look-ahead
(:func:`one_ply_targets`, for Uzun Tavla, which has no outside teacher). :func:`gnubg_targets` labels positions with
its five cubeless chances for the side on roll, the same convention as the network's
outputs, and :class:`SupervisedTrainer` fits the network to such labels by minibatch Adam
on the cross-entropy of each of the five sigmoid outputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import numpy as np

from core.position import Position
from core.variants import Variant

from .gnubg_player import gnubg_boards
from .lookahead import _THIRD_WEIGHTS, ROLL_WEIGHTS, Evaluates, best_answers
from .network import N_OUT, Network, _sigmoid, flip


def gnubg_targets(
    gnubg: ModuleType, positions: np.ndarray | Sequence[Position], plies: int = 0
) -> np.ndarray:
    """(N, 5) cubeless chances by gnubg at ``plies`` for the side on roll of each position:
    win, win gammon, win backgammon, lose gammon, lose backgammon (as the network's)."""
    arr = np.asarray(positions, dtype=np.int64).reshape(-1, 2, 26)
    cubeinfo = gnubg.cubeinfo()
    context = gnubg.evalcontext(0, plies, 0, 0, 0)
    out = np.empty((len(arr), N_OUT), dtype=np.float64)
    for i, board in enumerate(gnubg_boards(arr)):
        out[i] = gnubg.evaluate(board, cubeinfo, context)[:N_OUT]
    return out


class SupervisedTrainer:
    """Fits a network's five sigmoid outputs to target probabilities (cross-entropy, Adam).

    Works on encoded inputs ``x`` (the network's own encoder applied once beforehand), so
    an epoch costs only the matrix products.
    """

    def __init__(
        self,
        net: Network,
        lr: float = 1e-3,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
        weights: Sequence[float] = (1.0, 1.0, 1.0, 1.0, 1.0),
    ) -> None:
        self.net = net
        self.lr = lr
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        # In the weights' own precision (float32 training stays float32).
        self.out_weights = np.asarray(weights, dtype=net.w1.dtype)
        self._m = [np.zeros_like(p) for p in self.params]
        self._v = [np.zeros_like(p) for p in self.params]
        self.steps = 0

    @property
    def params(self) -> list[np.ndarray]:
        net = self.net
        return [net.w1, net.b1, net.w2, net.b2]

    def step(self, x: np.ndarray, t: np.ndarray) -> float:
        """One Adam step on a minibatch; returns its mean cross-entropy (summed over outputs)."""
        net = self.net
        h = _sigmoid(x @ net.w1.T + net.b1)
        y = _sigmoid(h @ net.w2.T + net.b2)
        n = len(x)
        # d(cross-entropy)/d(logit) of a sigmoid output is simply y - t.
        d2 = (y - t) * self.out_weights / n
        d1 = (d2 @ net.w2) * h * (1.0 - h)
        grads = [d1.T @ x, d1.sum(axis=0), d2.T @ h, d2.sum(axis=0)]
        self.steps += 1
        b1t = 1.0 - self.beta1**self.steps
        b2t = 1.0 - self.beta2**self.steps
        for p, g, m, v in zip(self.params, grads, self._m, self._v, strict=True):
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * g * g
            p -= self.lr * (m / b1t) / (np.sqrt(v / b2t) + self.eps)
        net.weights_changed()
        return float(cross_entropy(y, t))

    def epoch(self, x: np.ndarray, t: np.ndarray, batch: int, rng: np.random.Generator) -> float:
        """One pass over the data in shuffled minibatches; the mean minibatch loss."""
        order = rng.permutation(len(x))
        losses = []
        for start in range(0, len(x), batch):
            idx = order[start : start + batch]
            losses.append(self.step(x[idx], t[idx]))
        return float(np.mean(losses))


def cross_entropy(y: np.ndarray, t: np.ndarray) -> float:
    """Mean over rows of the summed binary cross-entropy of the five outputs."""
    y = np.clip(y, 1e-7, 1.0 - 1e-7)
    return float(-(t * np.log(y) + (1.0 - t) * np.log(1.0 - y)).sum(axis=1).mean())


def one_ply_targets(
    evaluator: Evaluates, variant: Variant, positions: Sequence[Position]
) -> np.ndarray:
    """(N, 5) 1-ply chances of the side on roll of each position, by a network as teacher.

    For each of the 21 rolls the side on roll makes its best play by the teacher's 0-ply
    cubeless equity (a play that bears off the last checker scores the game's result; no
    legal play passes the turn); the five chances after that play, turned to the side on
    roll, are averaged with the rolls' weights. This is the value the ``expert`` player's
    look-ahead gives a board, as five chances instead of an equity: the targets of expert
    iteration when a network is fitted to them. Built on :func:`core.boards_after.boards_after`
    (only the boards are needed, not the plays).
    """
    targets = np.zeros((len(positions), N_OUT))
    for i, best in enumerate(best_answers(evaluator, variant, positions)):
        for weight, (out, _row) in zip(ROLL_WEIGHTS, best, strict=True):
            targets[i] += weight * out
    return targets


def two_ply_targets(
    evaluator: Evaluates, variant: Variant, positions: Sequence[Position], reduced: bool = True
) -> np.ndarray:
    """(N, 5) chances of the side on roll two rolls deep, by a network as teacher.

    For each of its 21 rolls the side on roll makes its best play by the teacher's 0-ply,
    and the board after it is valued by :func:`one_ply_targets` from the other side (its
    best 0-ply answer to each roll), turned back and averaged with the rolls' weights:
    the 1-ply targets of the boards the side on roll would choose. ``reduced`` looks at a
    third of the answering rolls after each roll (``k % 3, k % 3 + 3, ...``, their weights
    scaled to 1, as the players' reduced 2-ply), about a third of the cost.
    """
    firsts = best_answers(evaluator, variant, positions)
    deeper: list[Position] = []
    subsets: list[list[int]] = []
    for best in firsts:
        for k, (_out, row) in enumerate(best):
            if row is not None:
                deeper.append(Position(tuple(row[:26]), tuple(row[26:])))
                subsets.append(list(range(k % 3, 21, 3)) if reduced else list(range(21)))
    seconds = iter(best_answers(evaluator, variant, deeper, subsets))
    targets = np.zeros((len(positions), N_OUT))
    for i, best in enumerate(firsts):
        for k, (out, row) in enumerate(best):
            if row is None:  # the play won at once
                targets[i] += ROLL_WEIGHTS[k] * out
                continue
            answers = next(seconds)
            weights = _THIRD_WEIGHTS[k % 3 :: 3] if reduced else ROLL_WEIGHTS
            theirs = sum(w * a for w, (a, _r) in zip(weights, answers, strict=True))
            targets[i] += ROLL_WEIGHTS[k] * flip(theirs)
    return targets
