"""Compiling the Numba kernels before the first decision needs them.

Numba compiles a kernel at its first call (about ten seconds of CPU for the move search
and the Uzun inputs together) and caches the machine code on disk; later processes load
it in about a second. The container image compiles at build (``python -m core compile``);
the bot compiles at start in a child process (so that the compiler does not hold the
bot's interpreter lock while players wait for answers) and plays with the Python search and
the NumPy inputs (the same plays, 2-3 times slower) until it is done, so that no player
waits for a compilation, not even on a new installation.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import core.boards_after as boards_after
from core.variants import VARIANTS

from . import network
from .lookahead import ROLLS


def warm_up() -> float:
    """Runs the compiled move search for every game and the compiled Uzun inputs once
    (compiling them, or loading them from Numba's cache); returns the seconds it took (0
    without Numba)."""
    if not boards_after.COMPILED or not network.COMPILED:
        return 0.0
    from core.ai.encode_compiled import fill_uzun

    start = time.perf_counter()
    for cls in VARIANTS.values():
        variant = cls()
        position = variant.start_position()
        rows, _offsets = boards_after.compiled_rolls(variant, position, ROLLS, True)
        boards = rows.reshape(-1, 2, 26)
        out = np.empty((len(boards), network.UZUN_INPUTS), dtype=np.float32)
        fill_uzun(boards, out, network._UZUN_OPP, network._UZUN_OPP_INV)
    return time.perf_counter() - start


def play_python() -> bool:
    """The Python search and the NumPy inputs from now on (the same plays), until
    :func:`play_python_until_compiled` has the compiled ones ready; False without Numba."""
    if not boards_after.COMPILED or not network.COMPILED:
        return False
    boards_after.USE_COMPILED = network.USE_COMPILED = False
    return True


def play_python_until_compiled(compile_elsewhere: Callable[[], object] | None = None) -> float:
    """Plays with the Python search and the NumPy inputs while the kernels compile, then
    with the compiled ones; returns :func:`warm_up`'s seconds. ``compile_elsewhere``, when
    given, compiles them outside this interpreter first (a child process filling Numba's
    cache), so that :func:`warm_up` only loads them; if it did not, :func:`warm_up`
    compiles them in the calling thread. If compiling fails the Python code goes on
    playing and the error is raised."""
    if not play_python():
        return 0.0
    if compile_elsewhere is not None:
        compile_elsewhere()
    seconds = warm_up()
    boards_after.USE_COMPILED = network.USE_COMPILED = True
    return seconds
