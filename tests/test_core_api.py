"""The core's public API: variant names and aliases, and the step-by-step move generator.

:func:`core.variants.find_variant` resolves every name the bot accepts today (``nardy``,
``türk``, ``нарды`` …) through the ``aliases`` of the variant classes;
:class:`core.movegen.MoveGenerator` is what :class:`core.turn.Turn` walks a roll with, so its
steps must lead exactly to the plays of :func:`core.movegen.legal_plays` (rules.md common
ground, T-3..T-6, U-3..U-8) and undo exactly.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from core.movegen import MoveGenerator, Step, legal_plays
from core.position import HEAD, Position, side_from_points
from core.variants import VARIANTS, Tavla, Turkish, Uzun, Variant, find_variant, variant_by_name
from tests.strategies import any_positions, dice

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- names -------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", list(VARIANTS.values()))
def test_each_variant_answers_to_its_name_first_and_all_its_aliases(cls: type[Variant]):
    assert cls.aliases[0] == cls.name
    for alias in cls.aliases:
        assert alias == alias.casefold()
        assert find_variant(alias) is cls
        assert find_variant(f"  {alias.upper()} ") is cls


def test_no_alias_names_two_variants():
    aliases = [alias for cls in VARIANTS.values() for alias in cls.aliases]
    assert len(aliases) == len(set(aliases))


@pytest.mark.parametrize(
    ("word", "cls"),
    [
        # The words the chat commands accept today (bot/service): /tavla turkish, /bot nardy…
        ("tavla", Tavla),
        ("backgammon", Tavla),
        ("turkish", Turkish),
        ("Türk", Turkish),
        ("turk", Turkish),
        ("türkçe", Turkish),
        ("turkce", Turkish),
        ("geleneksel", Turkish),
        ("uzun", Uzun),
        ("nardy", Uzun),
        ("Нарды", Uzun),
        # and what variant_by_name took before the aliases
        ("long_nardy", Uzun),
        ("uzun_tavla", Uzun),
    ],
)
def test_the_names_players_use_resolve_to_their_variant(word: str, cls: type[Variant]):
    assert find_variant(word) is cls


@pytest.mark.parametrize("word", ["", "chess", "tavla turkish", "uzunn", "12"])
def test_an_unknown_name_is_a_value_error(word: str):
    with pytest.raises(ValueError, match="unknown variant"):
        find_variant(word)
    with pytest.raises(ValueError, match="unknown variant"):
        variant_by_name(word)


def test_variant_by_name_takes_an_alias_and_the_options():
    uzun = variant_by_name("nardy", block_needs_home=True)
    assert isinstance(uzun, Uzun)
    assert uzun.options == {"block_needs_home": True, "draw": False}
    assert type(variant_by_name("türk")) is Turkish


# --- the step generator ----------------------------------------------------------------


def _head_limit(variant: Variant, first_turn: bool) -> int:
    if not variant.head_rule:
        return 15
    return 2 if first_turn else 1


@SETTINGS
@given(any_positions(), dice())
def test_the_steps_of_every_legal_play_are_offered_one_by_one_and_undo_exactly(
    drawn: tuple[Variant, Position, bool], roll: tuple[int, int]
):
    variant, position, first_turn = drawn
    for play in legal_plays(variant, position, roll, first_turn):
        gen = MoveGenerator(variant, position, _head_limit(variant, first_turn))
        for step, die in zip(play.steps, play.dice, strict=True):
            assert step in list(gen.steps(die)), (play, step)
            gen.push(step)
        assert gen.board == play.after
        for step in reversed(play.steps):
            gen.pop(step)
        assert gen.board == position
        assert gen.head_left == 0


def test_u4_the_head_closes_after_the_limit():
    uzun = Uzun()
    gen = MoveGenerator(uzun, uzun.start_position(), head_limit=1)
    assert not gen.head_closed
    gen.push(Step(HEAD, HEAD - 3))
    assert gen.head_closed
    assert [s for s in gen.steps(4) if s.source == HEAD] == []


def test_u6_steps_can_be_listed_without_the_six_block_rule():
    # Five points 23..19 held and the opponent all on its head: 24/18 with a 6 would close
    # a sixth point in a row that no opposing checker has passed.
    mover = side_from_points({24: 10, 23: 1, 22: 1, 21: 1, 20: 1, 19: 1})
    opponent = side_from_points({24: 15})
    gen = MoveGenerator(Uzun(), Position(mover, opponent), head_limit=1)
    wall = Step(24, 18)
    assert wall not in list(gen.steps(6))
    assert wall in list(gen.steps(6, block_rule=False))
    assert set(gen.steps(6)) <= set(gen.steps(6, block_rule=False))
