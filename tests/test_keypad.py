"""Fewer taps: whole plays, checker runs and forced rests stay within the rules.

Every shortcut a button offers must be a legal play or part of one (the maximum-dice rule,
the larger die, entering, bearing off: common ground, T-3..T-6; U-3..U-8 for Uzun Tavla),
and every legal play must stay reachable by the buttons.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.service import actions as A
from bot.service import keypad
from bot.service.keypad import DISCORD_LIMITS, KeypadLimits, move_rows
from core.position import OFF, Position
from core.turn import Turn
from core.variants import Tavla, Uzun, Variant
from tests.strategies import ALL_ROLLS, tavla_positions, uzun_positions

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
rolls = st.sampled_from(ALL_ROLLS)


def boards_of(turn: Turn, steps) -> Position:
    for step, die in steps:
        turn.step((step.source, step.dest), die)
    board = turn.position
    turn.reset()
    return board


def check_completions(variant: Variant, position: Position, first: bool, roll) -> None:
    turn = Turn(variant, position, roll, first_turn=first)
    if not turn.can_move:
        return
    completions = turn.completions()
    assert completions is not None
    # One per legal play, each a legal play, from the start...
    assert {boards_of(turn, c) for c in completions} == set(turn.finals)
    assert len(completions) == len(turn.finals)
    # ...and, after any first step, exactly the plays that begin with it.
    step, die = turn.legal_steps()[0]
    turn.step((step.source, step.dest), die)
    rest = turn.completions()
    assert rest
    finals = set()
    for completion in rest:
        for s, d in completion:
            turn.step((s.source, s.dest), d)
        assert turn.complete
        finals.add(turn.position)
        for _ in completion:
            turn.undo()
    assert finals <= set(turn.finals)
    # A limit answers None once there are more completions than it allows.
    if len(rest) > 1:
        assert turn.completions(limit=len(rest) - 1) is None
        assert turn.completions(limit=len(rest)) is not None


def check_checker_moves(variant: Variant, position: Position, first: bool, roll) -> None:
    turn = Turn(variant, position, roll, first_turn=first)
    if not turn.can_move:
        return
    sources = {s.source for s, _ in turn.legal_steps()}
    for source in sources:
        moves = turn.checker_moves(source)
        singles = {(s.source, s.dest) for s, _ in turn.targets(source)}
        # Every single step of the checker is offered, and every run is one checker's.
        assert singles <= {(m[0][0].source, m[0][0].dest) for m in moves if len(m) == 1}
        for move in moves:
            at = source
            for step, die in move:
                assert step.source == at
                at = step.dest
                turn.step((step.source, step.dest), die)
            # The run still leads to a legal play (it can be finished).
            assert turn.completions(limit=0) is None or turn.complete
            turn.reset()


@SETTINGS
@given(tavla_positions(), rolls)
def test_tavla_completions_are_exactly_the_legal_plays_max_dice_rule(drawn, roll) -> None:
    check_completions(*drawn, roll)


@SETTINGS
@given(uzun_positions(), rolls)
def test_uzun_completions_are_exactly_the_legal_plays_U3_U8(drawn, roll) -> None:
    check_completions(*drawn, roll)


@SETTINGS
@given(tavla_positions(), rolls)
def test_tavla_checker_runs_lead_to_legal_plays_T3_T6(drawn, roll) -> None:
    check_checker_moves(*drawn, roll)


@SETTINGS
@given(uzun_positions(), rolls)
def test_uzun_checker_runs_lead_to_legal_plays_U4_U6(drawn, roll) -> None:
    check_checker_moves(*drawn, roll)


def test_opening_runs_include_both_dice_for_one_checker() -> None:
    """T-2 opening 6-5: 24/13 is one button (the run over both dice; 24/19 is blocked)."""
    turn = Turn(Tavla(), Tavla().start_position(), (6, 5))
    runs = {tuple((s.source, s.dest) for s, _ in m) for m in turn.checker_moves(24)}
    assert runs == {((24, 18),), ((24, 18), (18, 13))}


def test_uzun_head_rule_allows_one_head_checker_U4() -> None:
    """U-4: in a later turn only one checker leaves the head, so no button moves two."""
    variant = Uzun()
    start = variant.start_position()
    turn = Turn(variant, start, (3, 3), first_turn=False)
    for completion in turn.completions() or []:
        assert sum(1 for s, _ in completion if s.source == 24) <= 1


def rows_of(turn: Turn, limits: KeypadLimits = keypad.DEFAULT_LIMITS, selected=None):
    return [A.decode(b.action) for row in move_rows(7, 3, turn, selected, limits) for b in row]


@SETTINGS
@given(tavla_positions(), rolls)
def test_every_legal_play_is_reachable_with_the_buttons(drawn, roll) -> None:
    """Whatever the layout shows, following buttons can end in any legal play."""
    variant, position, first = drawn
    turn = Turn(variant, position, roll, first_turn=first)
    if not turn.can_move:
        return
    reached: set[Position] = set()
    stack = [(None, ())]
    seen = set()
    while stack:
        selected, made = stack.pop()
        turn.reset()
        for pair in made:
            turn.step(pair)
        if turn.complete:
            reached.add(turn.position)
            continue
        key = (turn.position, tuple(turn.remaining_dice), selected)
        if key in seen:
            continue
        seen.add(key)
        for action in rows_of(turn, selected=selected):
            turn.reset()
            for pair in made:
                turn.step(pair)
            if action.code == A.MOVE:
                keypad.make_steps_on_turn(turn, keypad.decode_steps(action.arg))
                stack.append((None, tuple((s.source, s.dest) for s, _ in turn.done)))
            elif action.code == A.SELECT:
                only = keypad.select(turn, int(action.arg))
                if only is None:
                    stack.append((int(action.arg), made))
                else:
                    keypad.make_steps_on_turn(turn, [(s.source, s.dest) for s, _ in only])
                    stack.append((None, tuple((s.source, s.dest) for s, _ in turn.done)))
            elif action.code == A.BACK:
                stack.append((None, made))
    assert reached == set(turn.finals)


def test_few_plays_are_buttons_of_whole_plays() -> None:
    """A checker on the bar against a five-point board enters with the 6 only (T-5): the
    few plays left are each one press."""
    variant = Tavla()
    me = [0] * 26
    opp = [0] * 26
    me[25] = 1
    me[13] = 5
    me[6] = 5
    me[8] = 4
    for p in (1, 2, 3, 4, 5):  # opponent's points 20..24 seen from me: my entry points
        opp[p] = 2
    opp[12], opp[OFF] = 3, 2
    position = Position(tuple(me), tuple(opp))
    turn = Turn(variant, position, (6, 3))
    actions = rows_of(turn)
    assert actions
    assert all(a.code == A.MOVE for a in actions)
    assert len(actions) == len(turn.finals)
    for action in actions:  # each one is a whole play
        keypad.make_steps_on_turn(turn, keypad.decode_steps(action.arg))
        assert turn.complete
        turn.reset()


def test_discord_limits_fit_five_rows() -> None:
    """Discord shows at most 5 rows of 5: moves, Back/Undo/Confirm always fit."""
    turn = Turn(Tavla(), Tavla().start_position(), (4, 2))
    rows = move_rows(1, 1, turn, None, DISCORD_LIMITS)
    assert len(rows) <= 4
    assert all(len(r) <= 5 for r in rows)


def test_a_bear_off_is_one_press() -> None:
    variant = Tavla()
    me = [0] * 26
    me[1], me[2] = 5, 10
    opp = [0] * 26
    opp[OFF] = 15
    turn = Turn(variant, Position(tuple(me), tuple(opp)), (6, 5))
    assert len(turn.finals) == 1 or rows_of(turn)
    # 6-5 with everything on 1 and 2: the play is forced (2/off 2/off) or one button.
    actions = rows_of(turn)
    assert all(a.code == A.MOVE for a in actions)
