"""The ``uzun`` inputs (:func:`core.ai.network.encode_uzun`) compiled with Numba.

A look-ahead evaluates tens of thousands of boards a decision; NumPy builds the inputs in
a dozen passes over temporaries, this in one pass a board, with the same float32
arithmetic, so the inputs are equal bit for bit (tests compare the two).
"""

from __future__ import annotations

import numpy as np

from core.jit import njit

_F15 = np.float32(1 / 15)


@njit(cache=True, nogil=True)
def _run_upto6(mask: int) -> int:
    # Longest run of set bits, capped at 6 (as network._runs_upto6).
    run = 0
    for _ in range(6):
        if mask == 0:
            break
        run += 1
        mask = mask & (mask >> 1)
    return run


@njit(cache=True, nogil=True)
def fill_uzun(a: np.ndarray, out: np.ndarray, opp: np.ndarray, opp_inv: np.ndarray) -> None:
    """Fills ``out[:, :210]`` with the ``uzun`` inputs of the uint8 boards ``a`` (N, 2, 26);
    ``opp`` maps the mover's points to the opponent's and ``opp_inv`` back (1-based)."""
    f15 = _F15
    for i in range(a.shape[0]):
        pips = np.zeros(2, np.float32)
        occupied = np.zeros(2, np.int64)
        races = 0
        for s in range(2):
            base = s * 100
            passed = 0
            home = 0
            far = 0
            count = 0
            pip = np.float32(0.0)
            for j in range(24):
                n = a[i, s, j + 1]
                out[i, base + j] = 1.0 if n >= 1 else 0.0
                out[i, base + 24 + j] = 1.0 if n >= 2 else 0.0
                out[i, base + 48 + j] = 1.0 if n >= 3 else 0.0
                out[i, base + 72 + j] = np.float32(max(n - 3, 0) / 4.0)
                passed += n
                if j == 5:
                    home = passed
                if j == 11:
                    far = passed
                if n:
                    count += 1
                pip += np.float32(n) * np.float32(j + 1)
            pip += np.float32(a[i, s, 25]) * np.float32(25.0)
            out[i, base + 96] = np.float32(a[i, s, 0]) * f15
            out[i, base + 97] = np.float32(a[i, s, 24]) * f15
            out[i, base + 98] = np.float32(home) * f15
            out[i, base + 99] = np.float32(far) * f15
            pips[s] = pip
            occupied[s] = count
            if passed == far:
                races += 1
        mine = 0
        theirs = 0
        for c in range(24):
            if a[i, 0, opp_inv[c]]:
                mine |= 1 << c
            if a[i, 1, opp[c]]:
                theirs |= 1 << c
        pip_me = pips[0]
        pip_opp = pips[1]
        lead = pip_opp - pip_me
        race = races == 2
        out[i, 200] = np.float32(_run_upto6(mine)) / np.float32(6.0)
        out[i, 201] = np.float32(_run_upto6(theirs)) / np.float32(6.0)
        out[i, 202] = pip_me / np.float32(200.0)
        out[i, 203] = pip_opp / np.float32(200.0)
        out[i, 204] = min(max(lead / np.float32(40.0), np.float32(-3.0)), np.float32(3.0))
        flag = np.float32(1.0) if race else np.float32(0.0)
        out[i, 205] = flag
        # A product, as NumPy's: out of a race a negative lead gives -0.0.
        out[i, 206] = flag * min(max(lead / np.float32(20.0), np.float32(-3.0)), np.float32(3.0))
        out[i, 207] = np.float32(occupied[0] / 12.0)
        out[i, 208] = np.float32(occupied[1] / 12.0)
        out[i, 209] = 1.0 if a[i, 0, 0] == 0 else 0.0
