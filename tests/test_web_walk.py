"""The turn a web page walks by itself (bot/web/walk.py) against core and the service.

A page moves the checkers of its turn on its own board, from node to node of the walk the
server gave it, and sends the steps at the end. Whatever it walks must be what the service
then makes: every node is the board core reaches by the steps that lead there (made as a
MOVE button's steps are, a forced rest of the turn included), its moves are core's moves
from there (:func:`bot.web.walk.checker_moves`, each leading to a legal play: T-3..T-6,
U-3..U-6), its dice and pips are that board's; a move that plays the turn out leads to no node (the
page sends the steps). The walk is bounded, and leaves the turn as it found it.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from bot.service.keypad import make_steps_on_turn
from bot.service.presenter import dice_used_flags
from bot.web.walk import MOST_NODES, checker_moves, turn_walk
from core.position import pip_count
from core.turn import Turn
from core.variants import Tavla, Turkish, Uzun, Variant
from tests.strategies import ALL_ROLLS, reachable

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(variant: Variant, position, first: bool, dice, rng: random.Random) -> None:
    turn = Turn(variant, position, dice, first)
    if not turn.plays or turn.forced is not None:
        return  # core passes or plays such a roll itself: no walk is offered
    # Sometimes from a turn already under way (steps the chat or the page sent before).
    steps = turn.legal_steps()
    if steps and rng.random() < 0.3:
        step, _ = rng.choice(steps)
        make_steps_on_turn(turn, [(step.source, step.dest)])
    made_before = list(turn.done)
    walk = turn_walk(turn)
    assert list(turn.done) == made_before  # the turn is left as it was
    assert 1 <= len(walk) <= MOST_NODES
    # Each node from every path to it: replay the steps on a fresh turn, as the service does.
    paths: dict[int, list[tuple[int, int]]] = {0: []}
    queue = [0]
    while queue:
        at = queue.pop()
        here = Turn(variant, position, dice, first)
        for step, die in made_before:
            here.step((step.source, step.dest), die)
        if paths[at]:
            make_steps_on_turn(here, paths[at])
        node = walk[at]
        expected = checker_moves(here)
        assert set(node["moves"]) == set(expected)
        assert at == 0 or not here.complete  # a move that plays the turn out leads to none
        assert node["dice_used"] == list(dice_used_flags(here))
        assert node["pips"] == [pip_count(here.position.mover), pip_count(here.position.opponent)]
        for source, ways in node["moves"].items():
            listed = {m["to"] for m in expected[source]}
            assert {w["to"] for w in ways} == listed
            if at:  # past the start, the same moves as the chat's, in the same order
                assert [(w["to"], w["steps"]) for w in ways] == [
                    (m["to"], m["steps"]) for m in expected[source]
                ]
            for way in ways:
                pairs = [(a, b) for a, b in way["steps"]]
                assert pairs[0][0] == int(source)
                after = Turn(variant, position, dice, first)
                for step, die in made_before:
                    after.step((step.source, step.dest), die)
                make_steps_on_turn(after, paths[at] + pairs)  # the service accepts them
                child = way["next"]
                if child is None:
                    # Played out (a forced rest made by the service), or past the nodes given.
                    assert after.complete or len(walk) == MOST_NODES
                    continue
                # The page moves the checkers as the steps say, nothing more: on the way to
                # a node that is all the service makes.
                literal = Turn(variant, position, dice, first)
                for step, die in made_before:
                    literal.step((step.source, step.dest), die)
                for pair in paths[at] + pairs:
                    literal.step(pair)
                assert literal.position == after.position
                if child not in paths:
                    paths[child] = paths[at] + pairs
                    queue.append(child)
                # The node it leads to is that board, whichever path reached it first.
                target = Turn(variant, position, dice, first)
                for step, die in made_before:
                    target.step((step.source, step.dest), die)
                make_steps_on_turn(target, paths[child])
                assert target.position == after.position
    assert set(paths) == set(range(len(walk)))  # every node is reached from the start


@seed(20261215)
@SETTINGS
@given(reachable(Tavla(), 120), st.sampled_from(ALL_ROLLS), st.integers(0, 2**32 - 1))
def test_tavla_walk_nodes_are_the_boards_the_service_makes_T3_T6(drawn, dice, salt) -> None:
    check(*drawn, dice, random.Random(salt))


@seed(20261216)
@SETTINGS
@given(reachable(Turkish(), 120), st.sampled_from(ALL_ROLLS), st.integers(0, 2**32 - 1))
def test_turkish_walk_nodes_are_the_boards_the_service_makes_T3_T6(drawn, dice, salt) -> None:
    check(*drawn, dice, random.Random(salt))


@seed(20261217)
@SETTINGS
@given(reachable(Uzun(), 160), st.sampled_from(ALL_ROLLS), st.integers(0, 2**32 - 1))
def test_uzun_walk_nodes_are_the_boards_the_service_makes_U3_U6(drawn, dice, salt) -> None:
    check(*drawn, dice, random.Random(salt))


def test_a_run_over_both_dice_leads_to_a_finished_turn_T3() -> None:
    """Tavla's opening 6-1: 13/7/6 (or 13/12/6), one tap, plays the whole roll: its node is
    no node: the page sends the turn at once."""
    variant = Tavla()
    turn = Turn(variant, variant.start_position(), (6, 1))
    walk = turn_walk(turn)
    runs = [w for w in walk[0]["moves"]["13"] if w["to"] == 6]
    assert runs
    assert all(w["next"] is None for w in runs)
    singles = [w for w in walk[0]["moves"]["13"] if w["to"] == 7]
    assert singles
    assert singles[0]["next"] is not None


def test_a_double_is_given_in_part_and_the_rest_from_where_the_page_sends() -> None:
    """A double in the opening reaches more boards than a state carries: the walk stops at
    MOST_NODES; a move beyond has no node (the page sends its steps, and the answer's walk
    goes on from there)."""
    variant = Tavla()
    turn = Turn(variant, variant.start_position(), (1, 1))
    walk = turn_walk(turn, most=4)
    assert len(walk) == 4
    beyond = [w for node in walk for ws in node["moves"].values() for w in ws if w["next"] is None]
    assert beyond
