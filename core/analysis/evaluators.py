"""The evaluators an analysis scores plays with: the project's networks or GNU Backgammon.

An evaluator answers two questions, always from one player's side:

* :meth:`~Evaluator.play_values`: the equity (under a :class:`~core.analysis.scoring.Scoring`)
  of each board after a play of that player, quickly (``deep=False``: 0-ply, used to filter
  candidates and to measure luck) or with look-ahead (``deep=True``: used to rank the
  candidates left, as gnubg does with its move filters);
* :meth:`~Evaluator.chances`: the five cubeless probabilities of the side on roll before it
  rolls, for cube decisions;
* :meth:`~Evaluator.outputs_array`: the same for many boards at once, for the
  cubeful look-ahead (:mod:`core.analysis.cubeful`), whose leaves lie two rolls down.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any, Protocol

import numpy as np

from core.ai.cube import CubeState
from core.ai.gnubg_player import gnubg_board, gnubg_boards, load_gnubg, use_terms
from core.ai.lookahead import ROLL_WEIGHTS, ROLLS, first_turn, one_ply
from core.ai.network import (
    Network,
    equity,
    flip,
    network_kind,
    positions_array,
    shipped_network,
)
from core.ai.sim import outcome_vector, result_points
from core.movegen import Play, legal_plays
from core.position import CHECKERS, OFF, Position
from core.variants import Variant

from .scoring import DOUBTFUL, Scoring

#: gnubg's move filter for ``analyse match`` (1.07's default for analysis, its "large"
#: filter), as (accept, extra, threshold) for each level of a search of so many plies:
#: after 0-ply the best and up to 15 more within 0.32 go on, no 1-ply step before 2-ply
#: (accept -1 skips a level). gnubg's ``hint`` filter (what its Python interface uses by
#: default) is narrower and keeps a 1-ply step: the plays it drops there keep 1-ply scores.
ANALYSIS_FILTER: dict[int, tuple[tuple[int, int, float], ...]] = {
    1: ((0, 16, 0.32),),
    2: ((0, 16, 0.32), (-1, 0, 0.0)),
    3: ((0, 16, 0.32), (-1, 0, 0.0), (0, 4, 0.08)),
    4: ((0, 16, 0.32), (-1, 0, 0.0), (0, 4, 0.08), (-1, 0, 0.0)),
}


class Evaluator(Protocol):
    """Scores boards for the analysis (see the module doc)."""

    name: str

    def play_values(
        self, variant: Variant, afters: Sequence[Position], scoring: Scoring, deep: bool
    ) -> np.ndarray:
        """Equity for the mover of each board after the mover's play (opponent to roll)."""
        ...

    def chances(self, variant: Variant, position: Position) -> np.ndarray:
        """Cubeless outputs (5,) of the side on roll of ``position``, before rolling."""
        ...

    def outputs_array(self, variant: Variant, arr: np.ndarray) -> np.ndarray:
        """Cubeless outputs (N, 5) of the side on roll of each board of ``arr`` (N, 2, 26,
        side on roll first), in one batch, as deep as the leaves of the cube look-ahead,
        two rolls down, can afford (0-ply for the network and for gnubg at 2-ply)."""
        ...


def _split_finished(
    variant: Variant, afters: Sequence[Position], scoring: Scoring
) -> tuple[np.ndarray, list[int]]:
    """Values of the boards where the mover has borne off (the rest marked to evaluate)."""
    values = np.empty(len(afters))
    rest: list[int] = []
    for i, after in enumerate(afters):
        if after.mover[OFF] == CHECKERS:
            values[i] = scoring.points(result_points(variant, after))
        else:
            rest.append(i)
    return values, rest


class NetworkEvaluator:
    """The project's network: 0-ply, and a 1-ply look-ahead (every reply to every roll)."""

    def __init__(self, net: Network, name: str = "network 1-ply") -> None:
        self.net = net
        self.name = name

    def play_values(
        self, variant: Variant, afters: Sequence[Position], scoring: Scoring, deep: bool
    ) -> np.ndarray:
        values, rest = _split_finished(variant, afters, scoring)
        if not rest:
            return values
        if not deep:
            theirs = positions_array([afters[i].swapped() for i in rest])
            values[rest] = scoring.value(flip(self.net.evaluate_array(theirs)))
            return values
        for i in rest:
            values[i] = one_ply(self.net, variant, afters[i], scoring.value, scoring.points)
        return values

    def chances(self, variant: Variant, position: Position) -> np.ndarray:
        """The outputs after each roll's best play (by cubeless equity), averaged: the
        network's own pre-roll value is least sure in the rare positions cubes are turned in.
        """
        first = first_turn(variant, position)
        total = np.zeros(5)
        bgs = variant.backgammons
        for weight, roll in zip(ROLL_WEIGHTS, ROLLS, strict=True):
            plays = legal_plays(variant, position, roll, first)
            if not plays:
                total += weight * flip(self.net.evaluate([position.swapped()])[0])
                continue
            won = [p for p in plays if p.after.mover[OFF] == CHECKERS]
            if won:
                best = max(result_points(variant, p.after) for p in won)
                total += weight * np.array(outcome_vector(best))
                continue
            arr = positions_array([p.after.swapped() for p in plays])
            outs = flip(self.net.evaluate_array(arr))
            total += weight * outs[int(np.argmax(equity(outs, True, bgs)))]
        return total

    def outputs_array(self, variant: Variant, arr: np.ndarray) -> np.ndarray:
        """The network at 0-ply, in one batch."""
        return np.asarray(self.net.evaluate_array(arr))


class GnubgEvaluator:
    """GNU Backgammon's evaluator (Tavla only): 0-ply to filter, ``plies`` to rank.

    Checker plays are ranked as gnubg's own ``analyse match`` ranks them
    (:meth:`rank_plays`): gnubg's move search with its move filters, cubeful at the match
    score and cube, so a play is judged by what it does to the cube's value too.
    """

    def __init__(self, gnubg: ModuleType, plies: int = 2) -> None:
        self.gnubg = gnubg
        self.plies = plies
        self.name = f"gnubg {plies}-ply"
        self._cube = gnubg.cubeinfo()
        # (cubeful, plies, deterministic, prune, noise): cubeless, gnubg's pruning nets on.
        self._quick = gnubg.evalcontext(0, 0, 1, 1, 0)
        self._deep = gnubg.evalcontext(0, plies, 1, 1, 0)
        # The cube look-ahead's leaves, two rolls down: two plies less, so the whole is as
        # deep as gnubg's own cubeful search at ``plies``.
        self._leaf = gnubg.evalcontext(0, max(0, plies - 2), 1, 1, 0)
        self._cubeful = [gnubg.evalcontext(1, n, 1, 1, 0) for n in range(plies + 1)]
        # gnubg's move filters: its analysis's own, and one with every play kept at every depth.
        self._filters = [
            {"ply": ply, "level": level, "acceptmoves": a, "extramoves": e, "threshold": t}
            for ply, levels in ANALYSIS_FILTER.items()
            for level, (a, e, t) in enumerate(levels)
        ]
        self._wide_filters = [
            dict(f, extramoves=99, threshold=9.0) for f in gnubg.get_eval_hint_filter()
        ]

    def _outputs(self, position: Position, deep: bool) -> np.ndarray:
        context = self._deep if deep else self._quick
        return np.array(self.gnubg.evaluate(gnubg_board(position), self._cube, context)[:5])

    def play_values(
        self, variant: Variant, afters: Sequence[Position], scoring: Scoring, deep: bool
    ) -> np.ndarray:
        values, rest = _split_finished(variant, afters, scoring)
        for i in rest:
            values[i] = float(scoring.value(flip(self._outputs(afters[i].swapped(), deep))))
        return values

    def chances(self, variant: Variant, position: Position) -> np.ndarray:
        return self._outputs(position, True)

    def outputs_array(self, variant: Variant, arr: np.ndarray) -> np.ndarray:
        """gnubg at two plies less than the analysis (0-ply at its 2-ply): the cube
        look-ahead's leaves lie two rolls down."""
        evaluate, cube, leaf = self.gnubg.evaluate, self._cube, self._leaf
        out = [evaluate(board, cube, leaf)[:5] for board in gnubg_boards(arr)]
        return np.array(out, dtype=np.float64).reshape(-1, 5)

    def cubeinfo(self, state: CubeState) -> dict[str, Any]:
        """gnubg's cube information for the side on roll (gnubg's player 0)."""
        owner = {0: -1, 1: 0, -1: 1}[state.owner]
        info: dict[str, Any] = self.gnubg.cubeinfo(
            state.value,
            owner,
            0,
            max(0, state.match_length),
            (int(state.my_score), int(state.opp_score)),
            int(state.crawford),
        )
        info["jacoby"] = int(state.jacoby)
        return info

    def rank_plays(
        self,
        variant: Variant,
        position: Position,
        dice: tuple[int, int],
        plays: Sequence[Play],
        state: CubeState,
        played: int,
    ) -> np.ndarray | None:
        """The cubeful equity (normalized to the cube) of each of ``plays`` of ``dice`` from
        ``position`` as gnubg's ``analyse match`` finds it, NaN for the plays it does not
        look at as deep as the best; None where a play bears off (see :func:`_after_board`).

        gnubg's method (its ``FindnSaveBestMoves`` with the play made as the key move): every
        play at 0-ply; its analysis filter (:data:`ANALYSIS_FILTER`) sends the best and up
        to 15 more within 0.32 to 2-ply, and the play made too if it was left out; the best
        is the best of those. When the filter keeps one play alone, the search stops at
        0-ply, and the play made is compared at 0-ply, unless it lies more than the doubtful
        threshold behind: then it and the 0-ply best are both looked at 2-ply deep.
        """
        board = gnubg_board(position)
        info = self.cubeinfo(state)
        use_terms(self.gnubg, info)
        quick = self.gnubg.find_best_moves(board, info, self._cubeful[0], tuple(dice))
        scores: dict[Any, float] = {}
        for m in quick:
            key = _after_board(board, m["move"])
            if key is None:
                return None  # a play bears off: rank with the cubeless look-ahead instead
            scores[key] = float(m["score"])
        keys = [gnubg_board(play.after) for play in plays]
        mine = keys[played]
        top = _after_board(board, quick[0]["move"])
        kept = _filtered([float(m["score"]) for m in quick], ANALYSIS_FILTER[self.plies][0])
        values = np.array([scores[key] for key in keys])
        if kept == 1:
            if abs(scores[top] - scores[mine]) <= DOUBTFUL:
                return values  # every play at 0-ply, as gnubg leaves them
            deep = self._deep_scores(board, info, dice, wide=True)
            looked = {top, mine}
        else:
            deep = self._deep_scores(board, info, dice, wide=False)
            looked = {_after_board(board, m["move"]) for m in quick[:kept]}
            if mine not in looked:
                deep[mine] = self._deep_scores(board, info, dice, wide=True)[mine]
                looked.add(mine)
        return np.array([deep[key] if key in looked else np.nan for key in keys])

    def every_play(
        self,
        variant: Variant,
        position: Position,
        dice: tuple[int, int],
        plays: Sequence[Play],
        state: CubeState,
    ) -> np.ndarray | None:
        """The cubeful equity (normalized to the cube) of every one of ``plays`` at the full
        depth, none left out by a move filter: a play's value then does not depend on which
        others are looked at (puzzles rank their candidates so). None where a play bears off
        (see :func:`_after_board`). gnubg's cache is emptied first: its entries, made at
        another cube or score, could come back as this one's (``use_terms``)."""
        board = gnubg_board(position)
        info = self.cubeinfo(state)
        use_terms(self.gnubg, info, fresh=True)
        deep = self._deep_scores(board, info, dice, wide=True)
        if None in deep:
            return None
        keys = [gnubg_board(play.after) for play in plays]
        if any(key not in deep for key in keys):
            return None
        return np.array([deep[key] for key in keys])

    def _deep_scores(
        self, board: Any, info: dict[str, Any], dice: tuple[int, int], wide: bool
    ) -> dict[Any, float]:
        """gnubg's scores at full depth with its analysis filter (the plays it drops keep
        their 0-ply scores), or with every play looked at full depth (``wide``)."""
        filters = self._wide_filters if wide else self._filters
        found = self.gnubg.find_best_moves(board, info, self._cubeful[-1], tuple(dice), filters)
        return {_after_board(board, m["move"]): float(m["score"]) for m in found}


def _filtered(sorted_scores: list[float], level: tuple[int, int, float]) -> int:
    """How many of the plays (scores best first) one level of a gnubg move filter keeps:
    the first ``accept``, then up to ``extra`` more while within ``threshold`` of the best."""
    accept, extra, threshold = level
    count = min(accept, len(sorted_scores))
    limit = min(len(sorted_scores), count + extra)
    while count < limit and sorted_scores[count] >= sorted_scores[0] - threshold:
        count += 1
    return count


def _after_board(
    board: tuple[tuple[int, ...], tuple[int, ...]], move: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """gnubg's board after ``move`` ((from, to) pairs, 25 the bar) by the side on roll, or
    None for a play that bears off: gnubg's Python interface cuts the pairs off at the first
    "off" (0), so those can't be told apart."""
    if len(move) % 2:
        return None
    theirs, mine = list(board[0]), list(board[1])
    for a, b in zip(move[::2], move[1::2], strict=True):
        mine[a - 1] -= 1
        mine[b - 1] += 1
        # The opponent's own number for my point b is 25 - b: a blot there is hit.
        if theirs[24 - b] == 1:
            theirs[24 - b] = 0
            theirs[24] += 1
    return tuple(theirs), tuple(mine)


def evaluator_for(variant: Variant, level: str = "best") -> Evaluator:
    """The evaluator for ``variant`` at ``level``.

    ``best`` (the default): for Tavla GNU Backgammon 2-ply when the ``gnubg`` extra is
    installed, else the network with look-ahead; for Turkish tavla and Uzun Tavla the
    network with look-ahead. ``network`` forces the network; ``gnubg`` demands gnubg.
    """
    level = level.strip().lower()
    if level not in ("best", "network", "gnubg"):
        raise ValueError(f"unknown analysis level {level!r}; choose best, network or gnubg")
    if variant.name == "tavla" and level in ("best", "gnubg"):
        module = load_gnubg()
        if module is not None:
            return GnubgEvaluator(module)
        if level == "gnubg":
            raise ValueError("the gnubg level needs the optional gnubg package")
    elif level == "gnubg":
        raise ValueError("gnubg analyses Tavla only")
    net = shipped_network(network_kind(variant.name))
    if net is None:
        raise ValueError(f"no trained network for {variant.title}")
    return NetworkEvaluator(net)
