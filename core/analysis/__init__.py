"""After the game: every decision of a contest scored against the best one found.

Pure and synchronous (no I/O): give it a finished game's or match's event histories and an
evaluator, get a :class:`MatchAnalysis` back. ``python -m core analyse`` reads a ``.mat``
file; :mod:`renderers.analysis_card` draws the card.

>>> analysis = analyse_match(variant, histories, length=5, progress=print)  # doctest: +SKIP
>>> analysis.players[0].error_per_decision, analysis.worst(3)  # doctest: +SKIP
"""

from .analyse import analyse_actions, analyse_game, analyse_match
from .evaluators import Evaluator, GnubgEvaluator, NetworkEvaluator, evaluator_for
from .records import Action, Record, RecordError, from_histories, parse_mat
from .results import Decision, MatchAnalysis, PlayerSummary
from .scoring import BAD, DOUBTFUL, VERY_BAD, Scoring, Skill, cube_equities, rating, skill

__all__ = [
    "BAD",
    "DOUBTFUL",
    "VERY_BAD",
    "Action",
    "Decision",
    "Evaluator",
    "GnubgEvaluator",
    "MatchAnalysis",
    "NetworkEvaluator",
    "PlayerSummary",
    "Record",
    "RecordError",
    "Scoring",
    "Skill",
    "analyse_actions",
    "analyse_game",
    "analyse_match",
    "cube_equities",
    "evaluator_for",
    "from_histories",
    "parse_mat",
    "rating",
    "skill",
]
