"""Computer players: one interface for every kind of player.

Every player implements :class:`Player`. The kinds (see :func:`player_for`):

* ``random`` — a random legal play (:class:`RandomPlayer`);
* ``pubeval`` — Tesauro's public linear evaluator for Tavla (:mod:`core.ai.pubeval`);
* ``heuristic`` — a hand-written Uzun Tavla player (:class:`HeuristicUzunPlayer`);
* ``beginner`` — the network's 0-ply choice with Gaussian noise on the equities;
* ``club`` — the network, 0-ply;
* ``expert`` — the network with a 1-ply look-ahead over the best few plays (Uzun Tavla:
  then a reduced 2-ply over the best few of those, within a budget of boards a decision);
* ``master`` — for Tavla, GNU Backgammon's evaluator when its Python package (the optional
  ``gnubg`` extra) is installed (:mod:`core.ai.gnubg_player`); otherwise, and for Turkish
  tavla and Uzun Tavla, the network with a 1-ply look-ahead over more plays and a reduced
  2-ply one over the best three when they are within 0.06 equity (Uzun: the best five
  within 0.16, at least what its expert looks at 2-ply).

Above beginner, bear-offs in a race are played (and doubled) by the one-sided bear-off
database (:mod:`core.ai.bearoff`, :mod:`core.ai.race`). Every level answers a resignation
offered to it by :func:`core.ai.resign.accepts_resignation` (T-9).

The networks (:mod:`core.ai.network`) are small NumPy nets trained by TD(lambda) self-play
(``tools/train_td.py``), except the Tavla net (``weights/tavla.npz``), which is fitted to
GNU Backgammon's 0-ply evaluations (``tools/distill_gnubg.py``, :mod:`core.ai.distill`);
the self-play Tavla net it replaced is kept as ``weights/tavla-selfplay.npz`` for
comparison. The Uzun net (``weights/uzun.npz``) is fitted in two rounds to a net's own 1-ply
look-ahead (``tools/distill_lookahead.py``), starting from the self-play net; both earlier
nets ship as the teachers (``uzun-selfplay.npz``, ``uzun-round1.npz``); Uzun's ``beginner``
plays the first round's, ``club``, ``expert`` and ``master`` the sixth round's
(``uzun-round6.npz``, fitted to the look-ahead of ``uzun-round5.npz``, itself fitted to that
of ``uzun-round4-td.npz``: the fourth round's net trained on by 18,673 games of
TD(lambda); :data:`LEVEL_NETS`).
Turkish tavla uses the Tavla net. Cube decisions (Tavla only) take an optional
:class:`~core.ai.cube.CubeState` with the cube and the match score.
"""

from __future__ import annotations

import random
from typing import Protocol, TypedDict

from core.movegen import Play
from core.position import Position
from core.variants import Variant

from .cube import CubeState
from .network import Network

LEVELS = ("random", "beginner", "club", "expert", "master")


class LookFilter(TypedDict, total=False):
    """A level's look-ahead settings, as :class:`~core.ai.players.NeuralPlayer` takes them."""

    candidates: int
    threshold: float
    deep: int
    deep_threshold: float
    budget: int


#: The expert's 1-ply move filter: at most ``candidates`` plays within ``threshold`` equity
#: of the best 0-ply play. Uzun Tavla's move generation costs several times Tavla's, so
#: its expert looks at fewer plays, but then two rolls deep: a reduced 2-ply over the best
#: ``deep`` by 1-ply within ``deep_threshold``, as many of them (best first) as keep the
#: boards evaluated for the decision within ``budget`` (p95 under 100 ms).
EXPERT_FILTER: dict[str, LookFilter] = {
    "tavla": {"candidates": 8, "threshold": 0.16},
    "uzun": {
        "candidates": 3,
        "threshold": 0.16,
        "deep": 3,
        "deep_threshold": 0.16,
        "budget": 12000,
    },
}
#: The master's 1-ply filter, and how many of the best 1-ply plays it looks at 2-ply
#: (those within ``deep_threshold`` equity of the best: a clear choice is not looked at
#: deeper), with no budget. Uzun's master looks at least as deep as its expert.
MASTER_FILTER: dict[str, LookFilter] = {
    "tavla": {"candidates": 12, "threshold": 0.24, "deep": 3, "deep_threshold": 0.06},
    "uzun": {"candidates": 12, "threshold": 0.24, "deep": 5, "deep_threshold": 0.16},
}
#: Levels that play a shipped net other than their game's, by (variant, level).
#: Uzun's ``club``, ``expert`` and ``master`` play the sixth distillation round's net, the
#: strongest (each round fitted to the last one's look-ahead, 2-ply labels where it had
#: them, the fourth's also trained on by self-play; at 0-ply each gained +0.06 to +0.09 a
#: game on the net before it); ``beginner`` keeps the first round's. The analysis, hints
#: and puzzles keep the game's net (``uzun.npz``, the second round's): the shipped puzzles
#: were checked with it. Tavla's own ``master`` (without gnubg) plays the wider net fitted
#: to twice the gnubg-labelled data (``tavla-256``); its other levels, Turkish tavla, the
#: cube and the analysis keep ``tavla.npz``.
LEVEL_NETS: dict[tuple[str, str], str] = {
    ("uzun", "beginner"): "uzun-round1",
    ("uzun", "club"): "uzun-round6",
    ("uzun", "expert"): "uzun-round6",
    ("uzun", "master"): "uzun-round6",
    ("tavla", "master"): "tavla-256",
}


class Player(Protocol):
    """Chooses plays and cube actions for the side on roll."""

    name: str

    def choose_play(self, variant: Variant, position: Position, plays: list[Play]) -> Play:
        """One of ``plays`` (all legal plays of the roll, never empty)."""
        ...

    def should_double(
        self, variant: Variant, position: Position, cube: CubeState | None = None
    ) -> bool:
        """Whether to offer the cube before rolling (only asked when doubling is allowed).

        ``cube`` gives the cube and match score from this player's side; without it a
        centred cube in money play is assumed.
        """
        ...

    def should_take(
        self, variant: Variant, position: Position, cube: CubeState | None = None
    ) -> bool:
        """Whether to take a double; ``position`` is seen from the player asked (the
        doubler is on roll), ``cube`` from this player's side with the value before the
        double."""
        ...


class RandomPlayer:
    """Picks a legal play at random; never doubles, always takes. A baseline, not a foe."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose_play(self, variant: Variant, position: Position, plays: list[Play]) -> Play:
        return self._rng.choice(plays)

    def should_double(
        self, variant: Variant, position: Position, cube: CubeState | None = None
    ) -> bool:
        return False

    def should_take(
        self, variant: Variant, position: Position, cube: CubeState | None = None
    ) -> bool:
        return True


def player_for(
    variant_name: str,
    level: str,
    seed: int | None = None,
    net: Network | None = None,
    use_gnubg: bool = True,
) -> Player:
    """The computer player of ``level`` for the variant called ``variant_name``.

    Levels: random, beginner, club, expert, master (gnubg for Tavla when installed, else
    2-ply; see the module doc);
    also ``pubeval`` (Tavla) and ``heuristic`` (Uzun) baselines. Without trained weights
    the network levels fall back on pubeval (Tavla, Turkish) or the heuristic (Uzun).
    ``net`` replaces the shipped network (to compare new weights with the shipped ones);
    without it a level plays its net in :data:`LEVEL_NETS`, else the game's.
    ``use_gnubg=False`` makes Tavla's ``master`` our own look-ahead even where gnubg is
    installed (what a player without the extra meets; to measure it against gnubg).
    """
    from .network import network_kind
    from .players import HeuristicUzunPlayer, NeuralPlayer
    from .pubeval import PubevalPlayer
    from .race import BearoffEvaluator

    level = level.strip().lower()
    variant = variant_name.strip().lower()
    kind = network_kind(variant)
    given = net
    if level == "random":
        return RandomPlayer(seed)
    if level == "pubeval":
        return PubevalPlayer()
    if level == "heuristic":
        return HeuristicUzunPlayer(seed=seed)
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")
    if net is None:
        net = _level_network(variant, kind, level)
    if net is None:
        if kind == "uzun":
            return HeuristicUzunPlayer(noise=8.0 if level == "beginner" else 0.0, seed=seed)
        return PubevalPlayer()
    if level == "beginner":
        return NeuralPlayer(net, noise=0.1, seed=seed, name="beginner")
    # Above beginner, bear-offs in a race come from the one-sided database.
    exact = BearoffEvaluator(net)
    if level == "club":
        return NeuralPlayer(exact, name="club")
    if level == "expert":
        return NeuralPlayer(exact, plies=1, name="expert", **EXPERT_FILTER[kind])
    if use_gnubg and variant == "tavla":
        from .gnubg_player import GnubgPlayer, load_gnubg

        gnubg = load_gnubg()
        if gnubg is not None:
            # gnubg's cube comes from the expert's net: its allowances were tuned on it.
            cube_net = given if given is not None else _level_network(variant, kind, "expert")
            cube = NeuralPlayer(
                BearoffEvaluator(cube_net or net), plies=1, name="expert", **EXPERT_FILTER[kind]
            )
            return GnubgPlayer(gnubg, cube_player=cube)
    return NeuralPlayer(exact, plies=1, name="master", **MASTER_FILTER[kind])


def _level_network(variant: str, kind: str, level: str) -> Network | None:
    """The shipped net ``level`` plays in ``variant`` (whose network is ``kind``): its own
    in :data:`LEVEL_NETS` when that file is there, else the game's."""
    from .network import shipped_network

    own = LEVEL_NETS.get((variant, level))
    net = shipped_network(own) if own is not None else None
    return net if net is not None else shipped_network(kind)


__all__ = ["LEVELS", "LEVEL_NETS", "CubeState", "Player", "RandomPlayer", "player_for"]
