"""TD(lambda) self-play training of a :class:`~core.ai.network.Network`.

The value of a state is the network's output for the player on roll before rolling. Each
player moves greedily by 0-ply cubeless equity; after every ply the net is moved towards
the (flipped) value of the next state, or towards the game's outcome at the end. Traces are
kept per output and converted to the new mover's point of view at every ply, so one chain of
traces covers both players' states.
"""

from __future__ import annotations

import numpy as np

from core.dice import DiceSource
from core.movegen import legal_plays
from core.position import CHECKERS, OFF, Position
from core.variants import Variant

from .network import FLIP_PERM, FLIP_SIGN, Network, equity, flip, positions_array
from .sim import opening, outcome_vector, result_points


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))


class TDTrainer:
    def __init__(self, net: Network, alpha: float = 0.1, lam: float = 0.7) -> None:
        self.net = net
        self.alpha = alpha
        self.lam = lam

    def _value_and_grads(
        self, x: np.ndarray
    ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        net = self.net
        h = _sigmoid(net.w1 @ x + net.b1)
        y = _sigmoid(net.w2 @ h + net.b2)
        dy = y * (1.0 - y)
        k = len(y)
        g_w2 = np.zeros((k, k, len(h)))
        g_w2[np.arange(k), np.arange(k), :] = dy[:, None] * h[None, :]
        g_b2 = np.diag(dy)
        g_b1 = dy[:, None] * net.w2 * (h * (1.0 - h))[None, :]
        g_w1 = g_b1[:, :, None] * x[None, None, :]
        return y, (g_w1, g_b1, g_w2, g_b2)

    def play_game(
        self, variant: Variant, dice: DiceSource, max_plies: int = 20000
    ) -> tuple[int, int]:
        """One self-play game with learning; returns (winner seat, points)."""
        net = self.net
        gammons = True
        bgs = variant.backgammons
        starter, roll = opening(variant, dice)
        seat = starter
        state: Position = variant.start_position()
        first = [True, True]
        traces = None
        for _ply in range(max_plies):
            x = net.encode(positions_array([state]))[0]
            y, grads = self._value_and_grads(x)
            if traces is None:
                traces = [g.copy() for g in grads]
            else:
                traces = [
                    self.lam * (FLIP_SIGN.reshape((-1,) + (1,) * (e.ndim - 1)) * e[FLIP_PERM]) + g
                    for e, g in zip(traces, grads, strict=True)
                ]
            plays = legal_plays(variant, state, roll, first[seat])
            first[seat] = False
            done = False
            if plays:
                afters = [p.after for p in plays]
                finished = [a for a in afters if a.mover[OFF] == CHECKERS]
                if finished:
                    points = max(result_points(variant, a) for a in finished)
                    target = np.array(outcome_vector(points))
                    done = True
                else:
                    nxt = [a.swapped() for a in afters]
                    outs = net.forward_x(net.encode(positions_array(nxt)))
                    mine = flip(outs)
                    best = int(np.argmax(equity(mine, gammons, bgs)))
                    target = mine[best]
                    state = nxt[best]
            else:
                state = state.swapped()
                target = flip(net.forward_x(net.encode(positions_array([state])))[0])
            delta = self.alpha * (target - y)
            net.w1 += np.tensordot(delta, traces[0], axes=1)
            net.b1 += delta @ traces[1]
            net.w2 += np.tensordot(delta, traces[2], axes=1)
            net.b2 += delta @ traces[3]
            net.weights_changed()
            if done:
                return seat, points
            seat = 1 - seat
            roll = dice.roll()
        raise RuntimeError("self-play game did not finish")
