"""Hints and the tutor's check (core.learn): the best plays of a roll with their costs,
the cube decision, and the tutor's verdict at gnubg's "bad" (0.08), for all three games."""

from __future__ import annotations

import numpy as np
import pytest

from core.ai.cube import CubeState
from core.analysis import evaluator_for
from core.dice import FixedDice
from core.game import Game
from core.learn import (
    TUTOR_THRESHOLD,
    CubeHint,
    PlayHint,
    cube_hint,
    hint_for,
    judge,
    judge_cube,
    percent,
    play_hint,
    tutor_cube,
    tutor_play,
)
from core.match import Match
from core.movegen import legal_plays
from core.position import BAR, HEAD, Position
from core.variants import variant_by_name

TAVLA = variant_by_name("tavla")
TURKISH = variant_by_name("turkish")
UZUN = variant_by_name("uzun")


def game_at(variant, position: Position, dice: tuple[int, int] | None = None) -> Game:
    """A game of ``variant`` with seat 0 on turn in ``position`` (rolling ``dice``)."""
    game = Game.new(variant, FixedDice([]), opening="winner", starter=0)
    game.sides[0], game.sides[1] = position.mover, position.opponent
    game.played_first_turn = [True, True]
    if dice is not None:
        game.roll(0, FixedDice([dice]))
    return game


@pytest.mark.parametrize("variant", [TAVLA, TURKISH], ids=lambda v: v.name)
def test_the_opening_three_one_makes_the_five_point(variant) -> None:
    hint = play_hint(variant, variant.start_position(), (3, 1))
    assert isinstance(hint, PlayHint)
    assert len(hint.options) == 3
    assert hint.best.text == "8/5 6/5"
    costs = [o.cost for o in hint.options]
    assert costs[0] == 0
    assert costs == sorted(costs)
    for option in hint.options:  # each cost is the equity behind the best
        assert option.cost == pytest.approx(hint.best.equity - option.equity)
    assert hint.evaluator == evaluator_for(variant).name


def test_a_hint_with_a_checker_on_the_bar_enters_first() -> None:
    # T-5: a checker on the bar enters before anything else moves.
    position = Position.from_points(
        {13: 5, 8: 3, 6: 5, 24: 1}, {6: 5, 8: 3, 13: 5, 24: 2}, mover_bar=1
    )
    hint = play_hint(TAVLA, position, (5, 2))
    assert hint is not None
    assert all(o.text.startswith("bar/") for o in hint.options)
    assert all(o.play.steps[0].source == BAR for o in hint.options)


def test_uzun_hints_keep_the_head_rule() -> None:
    # U-4: at most one checker leaves the head per turn (after the first turn).
    position = Position.from_points({HEAD: 13, 18: 1, 15: 1}, {HEAD: 13, 20: 1, 17: 1})
    hint = play_hint(UZUN, position, (4, 2))
    assert hint is not None
    assert len(hint.options) == 3
    for option in hint.options:
        assert sum(1 for s in option.play.steps if s.source == HEAD) <= 1
    assert hint.evaluator.startswith("network")


def test_no_hint_without_a_choice() -> None:
    # U-4 on the first turn with 5-3: one checker off the head is the only play.
    assert len(legal_plays(UZUN, UZUN.start_position(), (5, 3), True)) == 1
    assert play_hint(UZUN, UZUN.start_position(), (5, 3), first_turn=True) is None


def test_hint_for_a_turn_half_played_ranks_the_whole_roll() -> None:
    game = game_at(TAVLA, TAVLA.start_position(), (3, 1))
    game.step(0, 24, 21)  # a step made: the hint still ranks the roll from its start
    hint = hint_for(game)
    assert isinstance(hint, PlayHint)
    assert hint.best.text == "8/5 6/5"


# A last roll: X's one checker on the 5-point bears off with 31 of 36 rolls, Y's last one
# on its 1-point with any (tests/test_analysis_cube.py): double, and pass.
LAST_ROLL = Position.from_points({5: 1}, {1: 1})


def test_the_cube_hint_of_a_last_roll() -> None:
    # T-8: no double is worth 2p - 1 = 26/36; doubling cashes 1.
    hint = cube_hint(TAVLA, LAST_ROLL, CubeState())
    assert isinstance(hint, CubeHint)
    assert hint.kind == "double"
    assert hint.best.action == "double"
    assert hint.options[1].action == "no double"
    assert hint.options[1].cost == pytest.approx(1 - 26 / 36, abs=1e-6)
    answer = cube_hint(TAVLA, LAST_ROLL, CubeState(), answering=True)
    assert answer.best.action == "pass"
    # A take loses 2(2p - 1) - 1 = 16/36 for the taker.
    assert answer.options[1].cost == pytest.approx(16 / 36, abs=1e-6)


def test_hint_for_a_double_is_the_takers() -> None:
    game = game_at(TAVLA, LAST_ROLL)
    assert isinstance(hint_for(game), CubeHint)
    assert hint_for(game).best.action == "double"
    game.double(0)
    hint = hint_for(game)
    assert hint.kind == "take"
    assert hint.best.action == "pass"


def test_a_single_game_has_a_live_cube_T7_T8_M1() -> None:
    """A single game (Tavla, length 1) is scored as the cube times the game's worth (T-7):
    its cube decisions are money play's, not a 1-point match's where doubling is worth
    nothing. At the opening no double is best and doubling costs (it showed both "best")."""
    match = Match(TAVLA, length=1)
    match.start_game(FixedDice([3, 1]))
    game = match.game
    assert game is not None
    game.play(game.turn, legal_plays(TAVLA, game.position(game.turn), (3, 1))[0])
    state = CubeState.from_game(game, game.turn, match)
    assert (state.match_length, state.jacoby) == (0, False)
    hint = hint_for(game, match)
    assert isinstance(hint, CubeHint)
    assert hint.best.action == "no double"
    assert hint.options[1].cost > 0.02
    # A match to 3 keeps its score and length.
    three = Match(TAVLA, length=3, score=[1.0, 0.0])
    three.start_game(FixedDice([3, 1]))
    assert three.game is not None
    state = CubeState.from_game(three.game, 0, three)
    assert (state.match_length, state.my_score, state.opp_score) == (3, 1, 0)


def test_turkish_and_uzun_have_no_cube_hint() -> None:
    for variant in (TURKISH, UZUN):
        game = game_at(variant, variant.start_position())
        assert hint_for(game) is None  # on roll, nothing to decide before the dice


# -- the tutor ----------------------------------------------------------------------------


def test_the_tutors_verdict_is_at_gnubgs_bad() -> None:
    plays = legal_plays(TAVLA, TAVLA.start_position(), (3, 1))
    values = np.full(len(plays), np.nan)
    values[0], values[1], values[2] = 0.20, 0.13, 0.12
    assert TUTOR_THRESHOLD == 0.08
    assert judge(values, plays, 0) is None  # the best
    assert judge(values, plays, 1) is None  # 0.07 behind: only doubtful
    advice = judge(values, plays, 2)
    assert advice is not None
    assert advice.loss == pytest.approx(0.08)
    assert advice.better_play == plays[0]
    assert advice.better == str(plays[0])
    assert advice.percent == 4  # a point of equity is 50% of winning chances
    assert percent(0.001) == 1
    assert percent(0.5) == 25


def test_the_tutor_warns_before_a_bad_opening_play() -> None:
    game = game_at(TAVLA, TAVLA.start_position(), (3, 1))
    bad = next(p for p in game.legal_plays() if str(p) == "24/20")
    advice = tutor_play(game, bad.after)
    assert advice is not None
    assert advice.better == "8/5 6/5"
    assert advice.loss >= 0.08
    good = next(p for p in game.legal_plays() if str(p) == "8/5 6/5")
    assert tutor_play(game, good.after) is None


@pytest.mark.parametrize("variant", [TURKISH, UZUN], ids=lambda v: v.name)
def test_the_tutor_has_the_same_threshold_in_every_game(variant) -> None:
    position = (
        Position.from_points({HEAD: 13, 18: 1, 15: 1}, {HEAD: 13, 20: 1, 17: 1})
        if variant.head_rule
        else variant.start_position()
    )
    game = game_at(variant, position, (4, 2) if variant.head_rule else (3, 1))
    hint = hint_for(game)
    assert isinstance(hint, PlayHint)
    worst = hint.options[-1]
    advice = tutor_play(game, worst.play.after)
    assert (advice is not None) == (worst.cost >= TUTOR_THRESHOLD)
    assert tutor_play(game, hint.best.play.after) is None


def test_the_tutor_on_the_cube() -> None:
    game = game_at(TAVLA, LAST_ROLL)
    advice = tutor_cube(game, "no double")
    assert advice is not None
    assert advice.better == "double"
    assert tutor_cube(game, "double") is None
    game.double(0)
    assert tutor_cube(game, "take").better == "pass"
    assert tutor_cube(game, "pass") is None
    opening = game_at(TAVLA, TAVLA.start_position())
    assert tutor_cube(opening, "double").better == "no double"  # a wrong double


def test_judge_cube_is_pure() -> None:
    hint = cube_hint(TAVLA, LAST_ROLL, CubeState())
    assert judge_cube(hint, "double") is None
    assert judge_cube(hint, "no double", threshold=0.5) is None
    assert judge_cube(hint, "no double").percent == 14


def test_the_best_plays_picture_of_a_double_shows_all_four_dice_played() -> None:
    """The 💡 picture shows the board after the best play: of a double's four dice it drew
    two as played and two as still to play."""
    from bot.service.hints import Hints
    from core.learn import play_hint

    tavla = variant_by_name("tavla")
    match = Match(tavla, length=1)
    match.start_game(FixedDice([6, 5]))
    hint = play_hint(tavla, tavla.start_position(), (4, 4))
    assert hint is not None
    view = Hints._ghost_view(match, ("Ali", "Veli"), match.game.turn, hint, "en")
    assert len(view.dice) in (2, 4)
    assert all(view.die_used(i) for i in range(4))
