"""Compiling the Numba kernels before the first decision needs them.

Numba compiles a kernel at its first call (about ten seconds of CPU for the move search
and the Uzun inputs together) and caches the machine code on disk; later processes load
it in about a second. The bot warms up at start, and the container image at build, so
that no player waits for a compilation.
"""

from __future__ import annotations

import time

from core.boards_after import COMPILED, boards_after
from core.variants import VARIANTS

from .lookahead import ROLLS, rolls_leaves
from .network import encode_uzun


def warm_up() -> float:
    """Runs the compiled move search for every game and the Uzun inputs once (compiling
    them, or loading them from Numba's cache); returns the seconds it took (0 without
    Numba)."""
    if not COMPILED:
        return 0.0
    start = time.perf_counter()
    for variant in VARIANTS.values():
        position = variant().start_position()
        leaves = rolls_leaves(variant(), position, ROLLS, True)
        encode_uzun(leaves.rows.reshape(-1, 2, 26))
        boards_after(variant(), position, (6, 5))
    return time.perf_counter() - start
