"""Move notation (rules.md "Notation"): reading every written form, playing it through
core.turn.Turn (whole or step by step, with undo), every error, and canonical writing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import AmbiguousPlayError, IllegalPlayError, NotationError
from core.movegen import Step, legal_plays
from core.notation import BAR_WORDS, OFF_WORDS, Leg, format_play, format_steps, parse_legs
from core.position import BAR, OFF, Position, side_from_points
from core.turn import Turn
from core.variants import Tavla, Uzun
from tests.strategies import dice, tavla_positions, uzun_positions

TAVLA = Tavla()
UZUN = Uzun()
START = TAVLA.start_position()


def board(
    mover: dict[int, int], opponent: dict[int, int], *, bar: int = 0, variant=TAVLA
) -> Position:
    """A position; the opponent's checkers are given at the *mover's* point numbers."""
    position = Position.from_points(
        mover, {variant.opposite[p]: n for p, n in opponent.items()}, mover_bar=bar
    )
    variant.validate(position)
    return position


# Start, but with an opposing blot on our 5 (its 20) instead of a checker on its 24.
BLOT_ON_5 = board({24: 2, 13: 5, 8: 3, 6: 5}, {1: 1, 5: 1, 12: 5, 17: 3, 19: 5})
# One of ours on the bar; the opponent holds our 19 and 12.
ON_BAR = board({24: 1, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5}, bar=1)
# All home, ready to bear off.
BEAR_OFF = board({6: 2, 5: 2, 4: 3, 1: 1}, {12: 5, 17: 3, 19: 5, 24: 2})
# Blots on our 18 and 19: 24/13 with 6-5 hits one of them on the way, but which?
TWO_BLOTS = board({24: 2, 13: 5, 8: 3, 6: 5}, {18: 1, 19: 1, 17: 3, 12: 5, 1: 2, 20: 3})


def play_text(position: Position, dice: tuple[int, int], text: str, **kw) -> Turn:
    turn = Turn(kw.get("variant", TAVLA), position, dice, kw.get("first_turn", False))
    turn.apply_text(text)
    return turn


def after_of(position: Position, dice, canonical: str, variant=TAVLA, first_turn=False):
    """The board after the legal play whose canonical notation is ``canonical``."""
    plays = {format_play(p): p for p in legal_plays(variant, position, dice, first_turn)}
    return plays[canonical].after


# -- parsing the written forms ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "legs"),
    [
        ("13/8 6/5*", [Leg((13, 8), (False,)), Leg((6, 5), (True,))]),
        ("24/18/16", [Leg((24, 18, 16), (False, False))]),
        ("24/16", [Leg((24, 16), (False,))]),
        ("24/18(2)", [Leg((24, 18), (False,))] * 2),
        ("bar/22", [Leg((BAR, 22), (False,))]),
        ("6/off", [Leg((6, OFF), (False,))]),
        ("24/18*/13", [Leg((24, 18, 13), (True, False))]),
        ("bar/20*/14", [Leg((BAR, 20, 14), (True, False))]),
        ("25/22", [Leg((BAR, 22), (False,))]),
        ("6/0", [Leg((6, OFF), (False,))]),
        ("13/8(2) 6/1(2)", [Leg((13, 8), (False,))] * 2 + [Leg((6, 1), (False,))] * 2),
    ],
)
def test_notation_forms(text: str, legs: list[Leg]) -> None:
    assert parse_legs(text) == legs


@pytest.mark.parametrize(
    "text",
    [
        "13/8 6/5*",
        "13/8,6/5*",
        "13/8, 6/5*",
        "13/8 , 6/5*",
        "13/8;6/5*",
        "  13/8    6/5*  ",
        "13 / 8 6 / 5*",
        "13/8 6/5 *",
        "13/8\t6/5*",
    ],
)
def test_notation_spaces_and_commas(text: str) -> None:
    assert parse_legs(text) == [Leg((13, 8), (False,)), Leg((6, 5), (True,))]


@pytest.mark.parametrize(
    ("dashed", "slashed"),
    [
        ("13-8", "13/8"),
        ("13-8 8-5", "13/8 8/5"),
        ("24-18(2)", "24/18(2)"),
        ("24-18-16", "24/18/16"),
        ("13-8 6-5*", "13/8 6/5*"),
        ("13 - 8, 6 - 5", "13/8 6/5"),
        ("bar-22 6-off", "bar/22 6/off"),
        ("13/8 6-5", "13/8 6/5"),
        ("13\u20138 6\u22125", "13/8 6/5"),  # an en dash, a minus sign (phones put them)
    ],
)
def test_notation_dash_reads_as_slash(dashed: str, slashed: str) -> None:
    """A move written with dashes (13-8), as many players and books write it, is the same
    move as with slashes (rules.md, Notation: from/to)."""
    assert parse_legs(dashed) == parse_legs(slashed)


@pytest.mark.parametrize("text", ["-3", "13--8", "13-", "8-13", "13-bar"])
def test_notation_dash_errors(text: str) -> None:
    with pytest.raises(NotationError):
        parse_legs(text)


def test_notation_repeat_with_spaces() -> None:
    assert parse_legs("24/18 (2)") == parse_legs("24/18( 2 )") == parse_legs("24/18(2)")


@pytest.mark.parametrize("word", sorted(BAR_WORDS))
def test_notation_bar_words(word: str) -> None:
    for form in (word, word.upper(), word.title()):
        assert parse_legs(f"{form}/22") == [Leg((BAR, 22), (False,))]


@pytest.mark.parametrize("word", sorted(OFF_WORDS))
def test_notation_off_words(word: str) -> None:
    for form in (word, word.upper(), word.title()):
        assert parse_legs(f"6/{form}") == [Leg((6, OFF), (False,))]


def test_notation_turkish_capitals() -> None:
    """Upper-case Turkish (dotless I, dotted İ) reads as the same words."""
    assert parse_legs("KIRIK/22") == parse_legs("KİRİK/22") == [Leg((BAR, 22), (False,))]
    for word in ("ÇIK", "ÇIKIŞ", "DIŞ", "DIŞARI", "DİŞARİ", "TOPLA"):
        assert parse_legs(f"6/{word}") == [Leg((6, OFF), (False,))]


def test_notation_upper_case() -> None:
    assert parse_legs("BAR/22 6/OFF") == parse_legs("bar/22 6/off")
    assert parse_legs("Bar/22 6/Off") == parse_legs("bar/22 6/off")


# -- playing the forms ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "dice", "text", "canonical"),
    [
        (BLOT_ON_5, (5, 1), "13/8 6/5*", "13/8 6/5*"),
        (BLOT_ON_5, (5, 1), "13/8 6/5", "13/8 6/5*"),  # the hit is forced: '*' may be left out
        (BLOT_ON_5, (5, 1), "6/5* 13/8", "13/8 6/5*"),
        (BLOT_ON_5, (5, 1), "6/5*, 13/8", "13/8 6/5*"),
        (START, (6, 2), "24/18/16", "24/16"),
        (START, (6, 2), "24/16", "24/16"),
        (START, (6, 2), "24/22/16", "24/16"),
        (START, (6, 2), "24/18 18/16", "24/16"),
        (START, (6, 6), "24/18(2) 13/7(2)", "24/18(2) 13/7(2)"),
        (START, (6, 6), "24/18 24/18 13/7 13/7", "24/18(2) 13/7(2)"),
        (START, (6, 6), "24/18(2), 13/7(2)", "24/18(2) 13/7(2)"),
        (START, (6, 5), "24/13", "24/13"),
        (START, (6, 5), "13/8 13/7", "13/8 13/7"),
        (START, (3, 1), "8/5 6/5", "8/5 6/5"),
        (ON_BAR, (3, 1), "bar/22 24/23", "bar/22 24/23"),
        (ON_BAR, (3, 1), "BAR/22 24/23", "bar/22 24/23"),
        (ON_BAR, (3, 1), "kırık/22 24/23", "bar/22 24/23"),
        (ON_BAR, (3, 1), "Orta/22, 24/23", "bar/22 24/23"),
        (ON_BAR, (3, 1), "25/22 24/23", "bar/22 24/23"),
        (ON_BAR, (3, 1), "bar/21", "bar/21"),
        (ON_BAR, (3, 1), "bar/22/21", "bar/21"),
        (BEAR_OFF, (6, 4), "6/off 4/off", "6/off 4/off"),
        (BEAR_OFF, (6, 4), "6/OFF 4/Off", "6/off 4/off"),
        (BEAR_OFF, (6, 4), "6/çık 4/topla", "6/off 4/off"),
        (BEAR_OFF, (6, 4), "6/dış, 4/cikis", "6/off 4/off"),
        (BEAR_OFF, (6, 4), "6/0 4/0", "6/off 4/off"),
        (BEAR_OFF, (6, 4), "6/2 6/off", "6/2 6/off"),
        (TWO_BLOTS, (6, 5), "24/18*/13", "24/18*/13"),
        (TWO_BLOTS, (6, 5), "24/19*/13", "24/19*/13"),
        (TWO_BLOTS, (6, 5), "24/18/13", "24/18*/13"),  # the written stop decides
        (START, (6, 5), "24-18 18-13", "24/13"),
        (START, (6, 6), "24-18(2) 13-7(2)", "24/18(2) 13/7(2)"),
        (BLOT_ON_5, (5, 1), "13-8 6-5*", "13/8 6/5*"),
    ],
)
def test_notation_apply_text_gives_the_complete_play(position, dice, text, canonical) -> None:
    turn = play_text(position, dice, text)
    assert turn.complete
    assert turn.position == after_of(position, dice, canonical)
    assert turn.play().after == turn.position
    assert turn.notation() == canonical


def test_notation_uzun_uses_the_same_notation() -> None:
    start = UZUN.start_position()
    turn = play_text(start, (6, 6), "24/18(2)", variant=UZUN, first_turn=True)
    assert turn.complete
    assert turn.notation() == "24/18(2)"
    turn = play_text(start, (6, 5), "24/18/13", variant=UZUN)
    assert turn.complete
    assert turn.notation() == "24/13"


# -- partial input, step by step, undo --------------------------------------------------


def test_notation_partial_then_the_other_die() -> None:
    turn = Turn(TAVLA, START, (6, 5))
    steps = turn.apply_text("13/8")
    assert steps == [(Step(13, 8), 5)]
    assert not turn.complete
    assert turn.remaining_dice == [6]
    assert turn.notation() == "13/8"
    assert {die for _, die in turn.legal_steps()} == {6}
    assert (Step(8, 2), 6) in turn.legal_steps()
    turn.apply_text("13/7")
    assert turn.complete
    assert turn.notation() == "13/8 13/7"


def test_notation_partial_continues_the_same_checker() -> None:
    turn = Turn(TAVLA, START, (6, 5))
    turn.apply_text("13/8")
    turn.apply_text("8/2")
    assert turn.complete
    assert turn.notation() == "13/2"
    assert turn.position == after_of(START, (6, 5), "13/2")


def test_notation_step_by_step_and_undo() -> None:
    turn = Turn(TAVLA, START, (6, 5))
    assert turn.undo() is None
    assert turn.step((24, 18)) == (Step(24, 18), 6)
    assert turn.remaining_dice == [5]
    assert turn.undo() == (Step(24, 18), 6)
    assert turn.position == START
    assert turn.remaining_dice == [6, 5]
    turn.apply_text("24/18")
    turn.apply_text("18/13")
    assert turn.complete
    turn.undo()
    assert not turn.complete
    assert turn.notation() == "24/18"
    turn.apply_text("13/8")
    assert turn.complete
    assert turn.notation() == "24/18 13/8"
    turn.reset()
    assert turn.done == []
    assert turn.position == START


def test_notation_after_a_complete_play_asks_for_the_confirm() -> None:
    """Not "more moves than dice left" when none is left: the turn only waits for Confirm."""
    turn = play_text(START, (6, 5), "24/13")
    with pytest.raises(IllegalPlayError) as error:
        turn.apply_text("6/1")
    assert error.value.code == "no_dice_left"
    assert turn.notation() == "24/13"


# -- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "notation_empty"),
        ("   ", "notation_empty"),
        ("13/8 " * 50, "notation_too_long"),
        ("13", "notation_syntax"),
        ("/8", "notation_syntax"),
        ("13/8)", "notation_syntax"),
        ("13/8*(2", "notation_syntax"),
        ("x/3", "notation_bad_point"),
        ("13/eight", "notation_bad_point"),
        ("13/26", "notation_no_point"),
        ("30/20", "notation_no_point"),
        ("13/8(5)", "notation_repeat"),
        ("13/8(0)", "notation_repeat"),
        ("13/8(3) 6/5(2)", "notation_too_many"),
        ("13/8 13/8 13/8 13/8 13/8", "notation_too_many"),
        ("off/3", "notation_from_off"),
        ("13/bar", "notation_to_bar"),
        ("6/off/3", "notation_after_off"),
        ("8/13", "notation_backwards"),
        ("13/13", "notation_backwards"),
        ("13/8/10", "notation_backwards"),
    ],
)
def test_notation_syntax_errors(text: str, code: str) -> None:
    with pytest.raises(NotationError) as error:
        parse_legs(text)
    assert error.value.code == code
    with pytest.raises(NotationError):
        Turn(TAVLA, START, (6, 5)).apply_text(text)


MUST_USE_BOTH = board({24: 1, 8: 1, 1: 13}, {19: 2, 3: 2, 20: 11})  # only 24/13 plays 6-5
ONLY_ONE_DIE = board({24: 1, 1: 14}, {23: 6, 22: 7, 13: 2})  # gnubg: 6-5 is 24/18 only
UZUN_START = UZUN.start_position()
UZUN_WALL = board({24: 5, 22: 2, 21: 2, 20: 2, 19: 2, 18: 2}, {12: 15}, variant=UZUN)
UZUN_AFTER_55 = legal_plays(UZUN, UZUN_START, (5, 5), True)[0].after.swapped()


@pytest.mark.parametrize(
    ("variant", "position", "dice", "text", "code"),
    [
        (TAVLA, ON_BAR, (3, 1), "13/10 6/5", "must_enter_first"),
        (TAVLA, START, (6, 5), "20/15", "no_checker"),
        (TAVLA, START, (6, 5), "bar/20", "no_checker_on_bar"),
        (TAVLA, START, (6, 5), "19/13", "opponents_checker"),
        (TAVLA, ON_BAR, (3, 2), "bar/22 bar/23", "no_checker_on_bar"),
        (TAVLA, START, (6, 5), "13/10", "no_die"),
        (TAVLA, START, (6, 5), "13/8(2)", "no_die"),
        (TAVLA, START, (6, 5), "6/1", "blocked"),
        (TAVLA, START, (6, 5), "24/19", "blocked"),
        (TAVLA, ON_BAR, (6, 5), "bar/19", "blocked"),
        (TAVLA, START, (6, 5), "6/off", "bear_off_not_home"),
        (TAVLA, BEAR_OFF, (6, 4), "5/off", "bear_off_higher_first"),
        (UZUN, UZUN_START, (6, 5), "24/18 24/19", "head_rule"),
        (UZUN, UZUN_WALL, (2, 1), "24/23", "six_block"),
        (TAVLA, ONLY_ONE_DIE, (6, 5), "24/19", "must_play_larger"),
        (UZUN, UZUN_AFTER_55, (6, 2), "24/22", "must_play_larger"),
        (TAVLA, MUST_USE_BOTH, (6, 5), "8/2", "must_use_dice"),
        (TAVLA, START, (6, 5), "13/8 13/7 8/2", "too_many_moves"),
        (TAVLA, START, (6, 6), "24/18(2) 13/7(2) 8/2", "notation_too_many"),
    ],
)
def test_notation_illegal_moves(variant, position, dice, text, code) -> None:
    turn = Turn(variant, position, dice)
    with pytest.raises((IllegalPlayError, NotationError)) as error:
        turn.apply_text(text)
    assert error.value.code == code
    assert turn.done == []  # nothing was made
    assert turn.position == position


def test_a_leg_after_one_that_used_both_dice_is_too_many() -> None:
    """Nothing was made, so not "confirm the move": the 6/1 has no die left after 24/13."""
    turn = Turn(TAVLA, START, (6, 5))
    with pytest.raises(IllegalPlayError) as error:
        turn.apply_text("24/13 6/1")
    assert error.value.code == "too_many_moves"
    assert turn.done == []


def test_a_checker_that_just_hit_is_not_called_the_opponents() -> None:
    """T-4: 14/11* puts the mover's checker on 11; 11/8 fails because the 6 would go
    unplayed (the maximum-dice rule of the common ground), not because 11 held the
    opponent's blot."""
    mover = side_from_points({1: 3, 2: 5, 3: 5, 6: 1, 14: 1})
    opponent = side_from_points({2: 5, 3: 2, 5: 1, 6: 1, 10: 3, 14: 1, 20: 2})
    turn = Turn(TAVLA, Position(mover, opponent), (3, 6))
    with pytest.raises(IllegalPlayError) as error:
        turn.apply_text("14/11* 11/8")
    assert error.value.code == "must_use_dice"


def test_notation_illegal_step_in_the_middle_of_a_turn() -> None:
    turn = Turn(UZUN, UZUN_START, (6, 5))
    turn.apply_text("24/18")
    with pytest.raises(IllegalPlayError) as error:
        turn.apply_text("24/19")
    assert error.value.code == "head_rule"
    with pytest.raises(IllegalPlayError) as error:
        turn.step((24, 19))
    assert error.value.code == "head_rule"
    assert turn.notation() == "24/18"


def test_notation_ambiguous_hit_on_the_way() -> None:
    """24/13 with 6-5 past blots on 18 and 19: it hits one of them, the writer must say."""
    with pytest.raises(AmbiguousPlayError) as error:
        Turn(TAVLA, TWO_BLOTS, (6, 5)).apply_text("24/13")
    assert error.value.code == "ambiguous_play"
    assert sorted(error.value.params["options"]) == ["24/18*/13", "24/19*/13"]
    with pytest.raises(AmbiguousPlayError):
        Turn(TAVLA, TWO_BLOTS, (6, 5)).apply_text("24/13*")


def test_notation_unwritten_stop_does_not_hit() -> None:
    """With a blot on 18 only, 24/13 is the play through the empty 19 (as gnubg writes)."""
    position = board({24: 2, 13: 5, 8: 3, 6: 5}, {18: 1, 17: 3, 12: 5, 1: 2, 20: 4})
    turn = play_text(position, (6, 5), "24/13")
    assert turn.notation() == "24/13"
    assert turn.position.opponent[BAR] == 0
    turn = play_text(position, (6, 5), "24/18*/13")
    assert turn.position.opponent[BAR] == 1


# -- canonical writing ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("steps", "dice", "text"),
    [
        ([(6, 5, False), (13, 8, False)], (5, 1), "13/8 6/5"),  # highest first
        ([(6, 5, True), (13, 8, False)], (5, 1), "13/8 6/5*"),
        ([(24, 18, False), (24, 18, False)], (6, 6), "24/18(2)"),
        (
            [(13, 7, False), (24, 18, False), (13, 7, False), (24, 18, False)],
            (6, 6),
            "24/18(2) 13/7(2)",
        ),
        ([(24, 18, False), (18, 13, False)], (6, 5), "24/13"),  # one checker's steps joined
        ([(18, 13, False), (24, 18, False)], (6, 5), "24/13"),
        ([(24, 18, True), (18, 13, False)], (6, 5), "24/18*/13"),  # a hit stop is kept
        ([(24, 18, False), (18, 13, True)], (6, 5), "24/13*"),
        ([(BAR, 22, False), (22, 18, False)], (4, 3), "bar/18"),
        ([(BAR, 22, True), (22, 18, False)], (4, 3), "bar/22*/18"),
        ([(BAR, 20, False), (BAR, 20, False)], (5, 5), "bar/20(2)"),
        ([(6, OFF, False), (4, OFF, False)], (6, 4), "6/off 4/off"),
        ([(4, 3, False), (3, OFF, False)], (6, 1), "4/3/off"),  # not a plain 6 from 4
        ([(7, 1, False), (1, OFF, False)], (6, 1), "7/off"),
        ([(13, 8, False), (13, 7, False)], (6, 5), "13/8 13/7"),
        ([(24, 22, False), (22, 20, False), (20, 18, False), (18, 16, False)], (2, 2), "24/16"),
        ([], (6, 5), ""),
    ],
)
def test_notation_canonical_format(steps, dice, text) -> None:
    assert format_steps(steps, dice) == text
    assert format_steps([Step(*s) for s in steps], dice) == text


def test_notation_format_play_of_the_gnubg_style_plays() -> None:
    texts = {format_play(p) for p in legal_plays(TAVLA, START, (6, 6))}
    assert "24/18(2) 13/7(2)" in texts
    assert "13/1(2)" not in texts  # 1 is closed
    assert {format_play(p) for p in legal_plays(TAVLA, ON_BAR, (4, 3))} >= {"bar/18"}
    assert str(legal_plays(TAVLA, START, (6, 5))[0]) == format_play(
        legal_plays(TAVLA, START, (6, 5))[0]
    )


# -- round trip: format -> parse -> the same play ---------------------------------------

ROUND_TRIP = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_round_trip(variant, position: Position, roll, first_turn: bool) -> None:
    for play in legal_plays(variant, position, roll, first_turn):
        text = format_play(play)
        turn = Turn(variant, position, roll, first_turn)
        turn.apply_text(text)
        assert turn.complete, text
        assert turn.position == play.after, text
        assert turn.notation() == text
        # Every step written out on its own reads as the same play too.
        each = " ".join(
            f"{'bar' if s.source == BAR else s.source}/{'off' if s.dest == OFF else s.dest}"
            + ("*" if s.hit else "")
            for s in play.steps
        )
        turn = Turn(variant, position, roll, first_turn)
        turn.apply_text(each)
        assert turn.complete, each
        assert turn.position == play.after, each


@ROUND_TRIP
@given(tavla_positions(), dice())
def test_notation_round_trip_tavla(drawn, roll) -> None:
    variant, position, first_turn = drawn
    assert_round_trip(variant, position, roll, first_turn)


@ROUND_TRIP
@given(st.one_of(uzun_positions(), uzun_positions(block_needs_home=True)), dice())
def test_notation_round_trip_uzun(drawn, roll) -> None:
    variant, position, first_turn = drawn
    assert_round_trip(variant, position, roll, first_turn)


@pytest.mark.parametrize(
    ("dice", "text", "said"),
    [
        # 13/8 takes the 5: it is 6/5 that no die left fits.
        ((5, 3), "13/8 6/5", "None of the dice left to play (3) fits 6/5."),
        ((6, 5), "13/8(2)", "None of the dice left to play (6) fits 13/8."),
        ((5, 3), "24/20", "None of the dice left to play (5 3) fits 24/20."),
    ],
)
def test_a_move_no_die_fits_is_named_with_the_dice_left(dice, text, said) -> None:
    """A player told "None of your dice fits that move" for ``13/8 6/5`` with 5-3 read it as
    false (the 5 fits 13/8): the answer names the move no die fits and the dice left."""
    from bot.i18n import translate
    from bot.service.errors import error_text

    with pytest.raises(IllegalPlayError) as error:
        Turn(TAVLA, START, dice).apply_text(text)
    assert error.value.code == "no_die"
    assert translate(error_text(error.value), "en") == said
