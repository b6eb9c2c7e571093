"""A roll's answers are kept between turns of it: what a turn says must not depend
on what other turns of the same roll asked before.

Each check walks a turn of a random roll step by step and compares, at every stop, what a
turn sharing the kept answers says with what a turn worked out from nothing says: the legal
steps (the maximum-dice rule and the larger die, common ground; T-3..T-6 and U-3..U-8 through
them), the whole plays left and each checker's moves.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import core.turn
from core.position import Position
from core.turn import Turn
from core.variants import Tavla, Uzun, Variant
from tests.strategies import ALL_ROLLS, any_positions

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def fresh(variant: Variant, position: Position, roll, first: bool, turn: Turn) -> Turn:
    """A turn at the same stop as ``turn`` whose answers are worked out anew."""
    kept = core.turn._roll
    core.turn._roll = core.turn._Roll  # the same call, nothing kept
    try:
        other = Turn(variant, position, roll, first_turn=first)
    finally:
        core.turn._roll = kept
    for step, die in turn.done:
        other.step((step.source, step.dest), die)
    return other


def answers(turn: Turn, limit: int) -> tuple:
    sources = sorted({s.source for s, _ in turn.legal_steps()})
    return (
        turn.legal_steps(),
        turn.completions(limit=limit),
        turn.completions(),
        {p: turn.checker_moves(p) for p in sources},
    )


UZUN = Uzun()


@SETTINGS
# Uzun's first turn may take two checkers off the head with 6-6 (U-5), a later one not.
@example((UZUN, UZUN.start_position(), False), (6, 6), 0, 12)
@example((UZUN, UZUN.start_position(), True), (6, 6), 0, 12)
@given(any_positions(), st.sampled_from(ALL_ROLLS), st.integers(0, 2**32), st.integers(1, 12))
def test_kept_answers_are_the_answers_worked_out_anew(situation, roll, seed, limit) -> None:
    variant, position, first = situation
    rng = random.Random(seed)
    # A first turn fills the kept answers along one path; the second walks another.
    for _ in range(2):
        turn = Turn(variant, position, roll, first_turn=first)
        while True:
            assert answers(turn, limit) == answers(
                fresh(variant, position, roll, first, turn), limit
            )
            legal = turn.legal_steps()
            if not legal:
                break
            step, die = rng.choice(legal)
            turn.step((step.source, step.dest), die)
        assert turn.complete or not turn.can_move


def test_turns_of_one_roll_keep_their_own_steps() -> None:
    """Two turns of the same roll share what the roll allows, never the steps made."""
    variant = Tavla()
    start = variant.start_position()
    one = Turn(variant, start, (6, 5))
    two = Turn(variant, start, (6, 5))
    step, die = one.legal_steps()[0]
    one.step((step.source, step.dest), die)
    assert two.done == []
    assert two.position == start
    assert two.legal_steps() == Turn(variant, start, (6, 5)).legal_steps() != one.legal_steps()
    # Answers handed out are copies: changing them changes nothing kept.
    plays = two.completions()
    assert plays is not None
    plays.clear()
    assert two.completions()
    two.plays.clear()
    assert Turn(variant, start, (6, 5)).plays
