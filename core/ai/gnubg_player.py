"""The ``master`` level for Tavla: GNU Backgammon's evaluator, when its package is installed.

gnubg's own ``findbestmove`` stops a play at the first bear-off, so the legal plays come
from core and gnubg only scores each resulting board (``gnubg.evaluate``, cubeless, from
the side that moves next). Cube decisions stay with our network player.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import sys
from types import ModuleType
from typing import Any

import numpy as np

from core.movegen import Play
from core.position import BAR, Position
from core.variants import Variant

from .cube import CubeState
from .players import NeuralPlayer


def load_gnubg() -> ModuleType | None:
    """The ``gnubg`` module, or None when the optional package is not installed."""
    try:
        return importlib.import_module("gnubg")
    except ImportError:
        return None


#: gnubg's evaluation cache, in entries, as it starts (about 30 MB).
CACHE_ENTRIES = 1 << 19


def flush_cache(gnubg: ModuleType) -> None:
    """Empty gnubg's evaluation cache. Its entries do not tell one cube and score from
    another: a cubeful evaluation at money play, cached, comes back for the same position
    in a 1-point match. Resizing the cache empties it; gnubg says so on the standard output
    from C, which is silenced here (its C buffer flushed while pointed at the null device)."""
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    libc.fflush(None)
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        gnubg.command("set cache 0")
        gnubg.command(f"set cache {CACHE_ENTRIES}")
        libc.fflush(None)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


#: The cube and score gnubg's cache was filled at, by gnubg module: see :func:`use_terms`.
_TERMS: dict[int, tuple[Any, ...]] = {}


def use_terms(gnubg: ModuleType, info: dict[str, Any], fresh: bool = False) -> None:
    """Empty gnubg's cache when a cubeful evaluation comes at other terms (cube, owner,
    score, match length) than the last one. Its entries do not tell money play from a
    double-match-point game: one ranked at the other's terms came back as much as 1.2
    equity off. One cache serves every user of the module in the process (the analysis,
    hints, puzzles), so the terms are kept by module, not by evaluator. ``fresh`` empties it
    whatever the terms (a value that must not depend on what ran before)."""
    terms = tuple(sorted(info.items()))
    if fresh or _TERMS.get(id(gnubg)) != terms:
        flush_cache(gnubg)
        _TERMS[id(gnubg)] = terms


def gnubg_board(position: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """gnubg's board: (side not on roll, side on roll), each points 1..24 then the bar."""
    mover, opponent = position
    return tuple(opponent[1 : BAR + 1]), tuple(mover[1 : BAR + 1])


def gnubg_boards(arr: np.ndarray) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """gnubg's boards (as :func:`gnubg_board`) of position arrays, shaped (2, 26) or (N, 2, 26)."""
    sides = np.asarray(arr).reshape(-1, 2, 26)[:, :, 1 : BAR + 1].astype(np.int64).tolist()
    return [(tuple(opponent), tuple(mover)) for mover, opponent in sides]


class GnubgPlayer:
    """Chooses the play after which gnubg rates the opponent's chances lowest."""

    name = "master"

    def __init__(self, gnubg: ModuleType, cube_player: NeuralPlayer, plies: int = 0) -> None:
        self.gnubg = gnubg
        self.cube_player = cube_player
        self.cubeinfo = gnubg.cubeinfo()
        self.context = gnubg.evalcontext(0, plies, 0, 0, 0)

    def equity_after(self, play: Play) -> float:
        """The mover's cubeless equity after ``play`` (the opponent then on roll)."""
        after = play.after
        if after.mover[0] == 15:
            return 3.0  # the game is won: nothing rates higher
        board = gnubg_board(after.swapped())
        return -float(self.gnubg.evaluate(board, self.cubeinfo, self.context)[5])

    def choose_play(self, variant: Variant, position: Position, plays: list[Play]) -> Play:
        if len(plays) == 1:
            return plays[0]
        return max(plays, key=self.equity_after)

    def should_double(
        self, variant: Variant, position: Position, cube: CubeState | None = None
    ) -> bool:
        return self.cube_player.should_double(variant, position, cube)

    def should_take(
        self, variant: Variant, position: Position, cube: CubeState | None = None
    ) -> bool:
        return self.cube_player.should_take(variant, position, cube)
