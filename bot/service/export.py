"""``/export``: a contest as a file, from the game's event log.

Tavla is written as GNU Backgammon's ``.mat``; Turkish tavla and Uzun Tavla in Tavla's own
notation (docs/notation.md), under a name that does not claim to be gnubg's.
"""

from __future__ import annotations

from typing import Any

from core.export import export_contest, split_games
from core.match import Match

#: The file name's stem and suffix for each game's record.
_FILES = {
    "tavla": ("tavla", ".mat"),
    "turkish": ("turkish-tavla", ".txt"),
    "uzun": ("uzun-tavla", ".txt"),
}


def export_match(
    match: Match,
    names: list[str],
    core_events: list[dict[str, Any]],
    comments: list[str] | None = None,
) -> str:
    """The text of ``match`` from the core events logged for it (``comments`` in its header)."""
    return export_contest(match, names, split_games(core_events), comments=comments or ())


def record_file_name(variant: str, game_id: int | None, *, analysed: bool = False) -> str:
    """The name the record of game ``game_id`` is sent under: ``tavla-42.mat``,
    ``uzun-tavla-42.txt``, ``turkish-tavla-42-analysed.txt``."""
    stem, suffix = _FILES.get(variant, _FILES["tavla"])
    return f"{stem}-{game_id}{'-analysed' if analysed else ''}{suffix}"
