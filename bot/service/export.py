"""``/export``: a contest as a GNU Backgammon match file, from the game's event log."""

from __future__ import annotations

from typing import Any

from core.export import export_games, split_games
from core.match import Match


def export_match(match: Match, names: list[str], core_events: list[dict[str, Any]]) -> str:
    """The ``.mat`` text of ``match`` from the core events logged for it."""
    return export_games(names, match.length, split_games(core_events))
