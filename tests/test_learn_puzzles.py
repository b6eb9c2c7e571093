"""Puzzles from real games (core.learn.puzzles): a very bad play (>= 0.16) answered by one
clearly best play (>= 0.10 ahead of the second), for all three games; never a player's name.
Every shipped puzzle is checked again at the strongest evaluator available."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.analysis import evaluator_for
from core.dice import FixedDice
from core.game import Game
from core.gnubg import position_from_id
from core.learn.puzzles import (
    LEAST,
    MARGIN,
    MISTAKE,
    Puzzle,
    make_puzzle,
    puzzles_from_games,
    rank_for_puzzle,
)
from core.movegen import legal_plays
from core.variants import variant_by_name

DATA = Path(__file__).resolve().parents[1] / "core" / "learn" / "shipped"
TAVLA = variant_by_name("tavla")
TURKISH = variant_by_name("turkish")
UZUN = variant_by_name("uzun")


def after_of(variant, position, dice, text):
    return next(p.after for p in legal_plays(variant, position, dice) if str(p) == text)


@pytest.mark.parametrize("variant", [TAVLA, TURKISH], ids=lambda v: v.name)
def test_the_opening_three_one_played_thirteen_nine_is_a_puzzle(variant) -> None:
    start = variant.start_position()
    puzzle = make_puzzle(variant, start, (3, 1), after_of(variant, start, (3, 1), "13/9"))
    assert puzzle is not None
    assert puzzle.best.text == "8/5 6/5"
    assert puzzle.candidates[puzzle.played].text == "13/9"
    assert puzzle.loss >= MISTAKE
    assert puzzle.margin >= MARGIN
    assert 3 <= len(puzzle.candidates) <= 4
    texts = [c.text for c in puzzle.candidates]
    assert texts == sorted(texts)  # shown in notation order, not best first
    assert puzzle.evaluator == evaluator_for(variant).name
    assert Puzzle.from_dict(json.loads(json.dumps(puzzle.to_dict()))) == puzzle


def test_a_good_play_or_a_close_choice_is_no_puzzle() -> None:
    start = TAVLA.start_position()
    best = after_of(TAVLA, start, (3, 1), "8/5 6/5")
    assert make_puzzle(TAVLA, start, (3, 1), best) is None  # the play made was the best
    # 6-5 from the start: 24/13 is far ahead, but 24/18 13/8 costs less than 0.16.
    assert make_puzzle(TAVLA, start, (6, 5), after_of(TAVLA, start, (6, 5), "24/18 13/8")) is None


def test_a_games_blunder_becomes_an_anonymous_puzzle() -> None:
    game = Game.new(TAVLA, FixedDice([3, 1]), opening="roll")  # seat 0 opens with 3-1 (T-2)
    game.move_text(0, "13/9")
    names = ("Ayşe Yılmaz", "Boris Ivanov")
    # A single game of Tavla is money play (T-7), as the bot judges its games for puzzles.
    puzzles = puzzles_from_games(TAVLA, [game.history], length=0, names=names)
    assert [p.best.text for p in puzzles] == ["8/5 6/5"]
    text = json.dumps(puzzles[0].to_dict(), ensure_ascii=False)
    assert "Ayşe" not in text
    assert "Boris" not in text
    assert set(puzzles[0].to_dict()) == {
        "variant",
        "position",
        "dice",
        "candidates",
        "answer",
        "played",
        "loss",
        "margin",
        "evaluator",
        "source",
        "state",
    }


def shipped() -> list[Puzzle]:
    return [
        Puzzle.from_dict(json.loads(line))
        for path in sorted(DATA.glob("*.jsonl"))
        for line in path.read_text().splitlines()
        if line.strip()
    ]


def test_puzzles_are_shipped_for_every_game() -> None:
    kinds = {p.variant for p in shipped()}
    assert kinds == {"tavla", "turkish", "uzun"}


@pytest.mark.parametrize("puzzle", shipped(), ids=lambda p: p.key)
def test_every_shipped_puzzle_leads_by_a_clear_margin(puzzle: Puzzle) -> None:
    variant = variant_by_name(puzzle.variant)
    evaluator = evaluator_for(variant)
    if evaluator.name != puzzle.evaluator:
        pytest.skip(f"built with {puzzle.evaluator}, not available here ({evaluator.name})")
    position = position_from_id(puzzle.position)
    from core.ai.lookahead import first_turn

    plays = legal_plays(variant, position, puzzle.dice, first_turn(variant, position))
    ranked = rank_for_puzzle(evaluator, variant, position, puzzle.dice, plays, puzzle.cube_state)
    (best, top), (_, second) = ranked[0], ranked[1]
    assert str(plays[best]) == puzzle.best.text
    assert top - second >= MARGIN
    made = next(i for i, p in enumerate(plays) if str(p) == puzzle.candidates[puzzle.played].text)
    values = dict(
        rank_for_puzzle(evaluator, variant, position, puzzle.dice, plays, puzzle.cube_state, made)
    )
    assert top - values[made] >= MISTAKE
    # One evaluator for the builder and this check: each candidate's equity is the one found
    # here (a play's value does not depend on which others were ranked).
    by_text = {str(plays[i]): v for i, v in values.items()}
    for c in puzzle.candidates:
        assert c.text in by_text
        assert abs(c.equity - by_text[c.text]) < 1e-3, c.text
    # Every candidate is a legal play of the roll, and the answer is among them once.
    texts = {str(p) for p in plays}
    assert all(c.text in texts for c in puzzle.candidates)


@pytest.mark.parametrize("puzzle", shipped(), ids=lambda p: p.key)
def test_every_shipped_puzzle_offers_at_least_three_plays(puzzle: Puzzle) -> None:
    """Two buttons, one of them the blunder, would be a coin toss."""
    assert len(puzzle.candidates) >= LEAST
    assert len({c.text for c in puzzle.candidates}) == len(puzzle.candidates)
    assert puzzle.answer != puzzle.played


def test_a_roll_with_two_plays_is_no_puzzle() -> None:
    """Uzun Tavla, 2-1 with two legal plays only: the loser of the two is no puzzle."""
    position = position_from_id("vl8AAKAAAAAAAA")
    plays = legal_plays(UZUN, position, (2, 1))
    assert len(plays) == 2
    for play in plays:
        assert make_puzzle(UZUN, position, (2, 1), play.after) is None


def test_a_tavla_puzzle_ranks_every_play_with_one_evaluator() -> None:
    """Tavla with GNU Backgammon: its move filter keeps two plays of this 3-3 for its own
    analysis; a puzzle ranks every play at the full depth, so it offers more than the best
    and the blunder, and ranking with or without the play made gives each play one value."""
    evaluator = evaluator_for(TAVLA)
    if not evaluator.name.startswith("gnubg"):
        pytest.skip("GNU Backgammon is not installed")
    from core.ai.cube import CubeState

    position = position_from_id("7rYRAAbvHgMRAA")
    state = CubeState(match_length=1)
    plays = legal_plays(TAVLA, position, (3, 3))
    made = next(i for i, p in enumerate(plays) if str(p) == "15/6 12/9")
    puzzle = make_puzzle(TAVLA, position, (3, 3), plays[made].after, state=state)
    assert puzzle is not None
    assert puzzle.best.text == "15/3"
    assert len(puzzle.candidates) >= LEAST
    alone = dict(rank_for_puzzle(evaluator, TAVLA, position, (3, 3), plays, state))
    both = dict(rank_for_puzzle(evaluator, TAVLA, position, (3, 3), plays, state, made))
    assert alone == both
