"""Cubeless rollouts (core/ai/rollout.py, ``python -m core rollout``): seeded, luck-adjusted,
the same dice for every play of a roll, for all three games."""

from __future__ import annotations

import json

import pytest

from core.__main__ import main
from core.ai import player_for
from core.ai.network import network_kind, shipped_network
from core.ai.race import BearoffEvaluator
from core.ai.rollout import roll_luck, rollout, rollout_plays
from core.gnubg import position_id
from core.movegen import legal_plays
from core.position import Position, side_from_points
from core.variants import variant_by_name


def _luck(variant_name: str) -> BearoffEvaluator:
    net = shipped_network(network_kind(variant_name))
    if net is None:
        pytest.skip("no shipped network")
    return BearoffEvaluator(net)


def _race(variant_name: str) -> Position:
    """A short race in which the side on roll is a little behind: luck decides it."""
    if variant_name == "uzun":
        return Position(
            side_from_points({1: 3, 2: 3, 4: 2, 6: 2, 9: 1}), side_from_points({1: 4, 3: 3, 5: 3})
        )
    return Position(
        side_from_points({1: 3, 2: 3, 4: 2, 6: 3}), side_from_points({1: 4, 3: 3, 5: 4})
    )


@pytest.mark.parametrize("variant_name", ["tavla", "turkish", "uzun"])
def test_a_won_race_rolls_out_to_its_points(variant_name: str) -> None:
    """Two checkers on the 1-point against an opponent who has borne off some checkers:
    every roll wins at once, one point a game, whatever the dice."""
    variant = variant_by_name(variant_name)
    won = Position(side_from_points({1: 2}), side_from_points({1: 5, 2: 5}))
    club = player_for(variant_name, "club")
    result = rollout(variant, won, [club, club], games=36, seed=3, luck=_luck(variant_name))
    assert result.equity == pytest.approx(1.0)
    assert result.plain == pytest.approx(1.0)
    assert result.win == 1.0
    assert result.win_gammon == 0.0


@pytest.mark.parametrize("variant_name", ["tavla", "turkish", "uzun"])
def test_rollouts_are_seeded(variant_name: str) -> None:
    """The same seed plays the same games (the same figures); another seed other games."""
    variant = variant_by_name(variant_name)
    club = player_for(variant_name, "club")
    luck = _luck(variant_name)
    race = _race(variant_name)
    once = rollout(variant, race, [club, club], games=40, seed=5, luck=luck)
    again = rollout(variant, race, [club, club], games=40, seed=5, luck=luck)
    other = rollout(variant, race, [club, club], games=40, seed=6, luck=luck)
    assert once == again
    assert other.plain != once.plain or other.equity != once.equity


@pytest.mark.parametrize("variant_name", ["tavla", "uzun"])
def test_luck_adjustment_agrees_with_the_plain_average_and_is_steadier(variant_name: str) -> None:
    """Taking each roll's luck away changes the estimate only within its noise (a roll's
    luck averages to zero) and narrows its interval several times."""
    variant = variant_by_name(variant_name)
    club = player_for(variant_name, "club")
    result = rollout(
        variant, _race(variant_name), [club, club], games=360, seed=3, luck=_luck(variant_name)
    )
    assert abs(result.equity - result.plain) < result.plain_ci95
    assert result.ci95 < 0.5 * result.plain_ci95
    # A roll's luck over the 36 dice averages to zero.
    luck = _luck(variant_name)
    race = _race(variant_name)
    rolls = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    assert sum(roll_luck(luck, variant, race, r) for r in rolls) == pytest.approx(0.0, abs=1e-9)
    assert roll_luck(luck, variant, race, (6, 6)) > 0 > roll_luck(luck, variant, race, (2, 1))


def test_plays_of_a_roll_are_rolled_out_on_the_same_dice() -> None:
    """Each play's rollout plays the same games' dice: one play given twice gets the same
    figures, and a play that bears off the last checker is worth its points."""
    tavla = variant_by_name("tavla")
    club = player_for("tavla", "club")
    race = _race("tavla")
    plays = legal_plays(tavla, race, (6, 5))
    results = rollout_plays(tavla, [plays[0], plays[0]], [club, club], games=20, seed=2)
    assert results[0] == results[1]
    ending = Position(side_from_points({1: 1}), side_from_points({20: 15}))
    last = legal_plays(tavla, ending, (2, 1))
    (won,) = rollout_plays(tavla, last[:1], [club, club], games=20, seed=2)
    assert won.equity == 3.0  # a backgammon: the loser is still in the winner's home board


def test_cli_rolls_out_each_play_of_an_opening_roll(capsys) -> None:
    """``python -m core rollout --variant uzun ID --dice 6 5``: the plays of the first roll
    with their rollout figures, the level's own choice marked."""
    uzun = variant_by_name("uzun")
    pid = position_id(uzun.start_position())
    status = main(
        ["rollout", "--variant", "uzun", pid, "--dice", "6", "5", "--games", "2", "--json"]
    )
    assert status == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["dice"] == [6, 5]
    assert sum(p["chosen"] for p in answer["plays"]) == 1
    assert {p["play"] for p in answer["plays"]} <= {"24/13", "24/18 24/19", "24/18/13", "24/19/13"}
    assert all(-3 <= p["equity"] <= 3 for p in answer["plays"])


def test_cli_rollout_of_a_position_and_a_bad_one(capsys) -> None:
    """A position's rollout prints its value for the side on roll; a malformed position
    is refused with a message, not a traceback."""
    won = Position(side_from_points({1: 2}), side_from_points({1: 5, 2: 5}))
    assert main(["rollout", "--variant", "tavla", position_id(won), "--games", "3"]) == 0
    assert "+1.000" in capsys.readouterr().out
    assert main(["rollout", "--variant", "tavla", "not-an-id"]) == 2
    assert "error:" in capsys.readouterr().err
