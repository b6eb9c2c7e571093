"""Numba's compiler for the computer's hot loops, unless the environment turns it off.

``TAVLA_NUMBA=off`` keeps Numba out of the process: about 100 MB less memory in each process
that plays the computer, for the Python search and the NumPy inputs (the same moves, two to
three times slower). ``njit`` is then missing here, so ``from core.jit import njit`` fails
as if Numba were not installed and the modules that compile fall back the way they already
know. Read when core is first imported: the bot loads its ``.env`` before that.
"""

from __future__ import annotations

import os

#: The environment setting (unset or empty means ``on``).
SETTING = "TAVLA_NUMBA"


def wanted(value: str | None) -> bool:
    """Whether the setting's ``value`` asks for the compiled code: ``on`` or ``off`` in any
    case, unset or empty being ``on``; ValueError for anything else."""
    text = (value or "on").strip().lower()
    if text not in ("on", "off"):
        raise ValueError(f"{value!r} is neither on nor off")
    return text == "on"


try:
    WANTED = wanted(os.environ.get(SETTING))
except ValueError:  # the bot's configuration check refuses it; a tool runs as installed
    WANTED = True

if WANTED:
    from numba import njit as njit  # imported from here by the compiled modules
