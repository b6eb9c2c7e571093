"""Learning: hints, the tutor's check, puzzles from real games and their ratings.

Pure and synchronous, built on the analysis (:mod:`core.analysis`): the same evaluators,
the same ranking of plays, the same thresholds.
"""

from .hints import CubeHint, CubeOption, Hint, PlayHint, PlayOption, cube_hint, hint_for, play_hint
from .tutor import TUTOR_THRESHOLD, Advice, judge, judge_cube, percent, tutor_cube, tutor_play

__all__ = [
    "TUTOR_THRESHOLD",
    "Advice",
    "CubeHint",
    "CubeOption",
    "Hint",
    "PlayHint",
    "PlayOption",
    "cube_hint",
    "hint_for",
    "judge",
    "judge_cube",
    "percent",
    "play_hint",
    "tutor_cube",
    "tutor_play",
]
