"""Whole contests between two computer players, with the cube, as core records them.

For benchmarks, checks against GNU Backgammon and tests: the games go through
:class:`core.match.Match` and :class:`core.game.Game`, so their histories are exactly what
the bot stores for a played match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.ai import CubeState, Player
from core.dice import DiceSource
from core.game import Phase
from core.match import Match
from core.variants import Variant


def play_match(
    variant: Variant,
    players: Sequence[Player],
    dice: DiceSource,
    *,
    length: int = 1,
    max_games: int = 50,
) -> tuple[Match, list[list[dict[str, Any]]]]:
    """Play a match (``length`` 0: ``max_games`` money games) between ``players[0]`` and
    ``players[1]``; returns the match and each game's history."""
    match = Match(variant, length=length)
    histories: list[list[dict[str, Any]]] = []
    while not match.over and len(histories) < max_games:
        game = match.start_game(dice)
        while not game.over:
            seat = game.awaiting
            me = players[seat]
            if game.phase is Phase.DOUBLED:
                cube = CubeState.from_game(game, seat, match)
                if me.should_take(variant, game.position(seat), cube):
                    game.take(seat)
                else:
                    game.drop(seat)
            elif game.phase is Phase.ROLL:
                cube = CubeState.from_game(game, seat, match)
                if game.may_double(seat) and me.should_double(variant, game.position(seat), cube):
                    game.double(seat)
                else:
                    game.roll(seat, dice)
            else:
                play = me.choose_play(variant, game.position(seat), game.legal_plays())
                game.play(seat, play)
        match.record_game()
        histories.append(list(game.history))
    return match, histories
