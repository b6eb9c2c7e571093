"""Whether the computer accepts a resignation (T-9).

It accepts when the offer gives it at least what it expects to win by playing on: the
offered points per cube against its cubeless expectation from the network (with the
bear-off database in a race), or when the offer is already the most the game can still
bring, or enough to win the match. Otherwise it declines and play goes on, so an offer is
always answered at once and never gives the game away cheaply.
"""

from __future__ import annotations

from core.position import Position
from core.variants import Variant

from .network import equity, network_kind, shipped_network
from .race import BearoffEvaluator
from .sim import result_points


def accepts_resignation(
    variant: Variant,
    position: Position,
    offered: int,
    *,
    on_roll: bool,
    needed: int | None = None,
    cube: int = 1,
) -> bool:
    """Whether the side of ``position.mover`` (the one asked) accepts a resignation worth
    ``offered`` points per cube.

    ``on_roll``: whether that side is the one to roll (the network values the side on
    roll); ``needed``: the points it still needs to win the match (None in money play; 1 in
    a single game, where any win is the whole contest); ``cube``: the cube's value.
    """
    if offered >= result_points(variant, position):  # the most the game can still bring
        return True
    if needed is not None and offered * cube >= needed:
        return True
    net = shipped_network(network_kind(variant.name))
    if net is None:
        return False  # no judgement to go on: play on rather than give points away
    judge = BearoffEvaluator(net)
    if on_roll:
        outs = judge.evaluate([position])[0]
        expected = float(equity(outs, True, variant.backgammons))
    else:
        outs = judge.evaluate([position.swapped()])[0]
        expected = -float(equity(outs, True, variant.backgammons))
    return offered >= expected
