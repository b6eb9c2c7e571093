"""Turn.checker_moves against core's legal-move generator (the web board's targets).

The oracle enumerates every sequence of single-die steps (any order of the dice, any
checker, the head rule left to the final board) and keeps those that end in one of
:func:`core.movegen.legal_plays`'s boards after as many dice as the best play uses. A
checker's move from a turn's state is then a run of the next steps of such a sequence, each
from where the one before landed. checker_moves must offer exactly those moves (by the board
and the dice they leave): nothing illegal (common ground: maximum dice and the larger die;
T-3..T-6 landing, hitting, entering, bearing off; U-3..U-6 no hitting, the head rule and its
first-turn exception, the six-block rule) and nothing missing.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from core.movegen import MoveGenerator, Step, legal_plays
from core.position import OFF, Position
from core.turn import Turn
from core.variants import Tavla, Turkish, Uzun, Variant
from tests.strategies import ALL_ROLLS, reachable

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

State = tuple[Position, tuple[int, ...]]
Seq = tuple[tuple[Step, int], ...]


def legal_sequences(
    variant: Variant, position: Position, dice: tuple[int, int], first: bool
) -> list[Seq]:
    """Every order of steps that makes a legal play of ``dice`` (per legal_plays)."""
    plays = legal_plays(variant, position, dice, first)
    if not plays:
        return []
    best = len(plays[0].steps)
    finals = {p.after for p in plays}
    gen = MoveGenerator(variant, position, head_limit=15)
    a, b = dice
    out: list[Seq] = []
    path: list[tuple[Step, int]] = []

    def walk(left: list[int]) -> None:
        if len(path) == best:
            if gen.board in finals:
                out.append(tuple(path))
            return
        for die in sorted(set(left)):
            rest = list(left)
            rest.remove(die)
            for step in list(gen.steps(die)):
                gen.push(step)
                path.append((step, die))
                walk(rest)
                path.pop()
                gen.pop(step)

    walk([a, a, a, a] if a == b else [a, b])
    return out


def board_after(variant: Variant, position: Position, steps) -> Position:
    gen = MoveGenerator(variant, position)
    for step, _ in steps:
        gen.push(step)
    return gen.board


def dice_left(dice: tuple[int, int], used) -> tuple[int, ...]:
    a, b = dice
    left = [a, a, a, a] if a == b else [a, b]
    for die in used:
        left.remove(die)
    return tuple(sorted(left))


def check(variant: Variant, position: Position, first: bool, dice, rng: random.Random) -> None:
    seqs = legal_sequences(variant, position, dice, first)
    turn = Turn(variant, position, dice, first_turn=first)
    assert bool(seqs) == turn.can_move
    if not seqs:
        return
    # A random point of the turn: the steps of a legal sequence made so far.
    chosen = rng.choice(seqs)
    made = rng.randrange(len(chosen))
    for step, _ in chosen[:made]:
        # The die as the board's tap picks it: a bear-off that either die makes takes the
        # larger (the same boards follow either way).
        turn.step((step.source, step.dest))
    here = (turn.position, tuple(sorted(turn.remaining_dice)))

    def state(seq: Seq, k: int) -> State:
        return board_after(variant, position, seq[:k]), dice_left(dice, (d for _, d in seq[:k]))

    # The oracle's moves from here: per source, {(dest, board after)}. (A bear-off that
    # either die makes is offered once, with the larger die: both leave the same boards.)
    expected: dict[int, set[tuple[int, Position]]] = {}
    for seq in seqs:
        if state(seq, made) != here:
            continue
        source = seq[made][0].source
        at = source
        for k in range(made, len(seq)):
            step, _ = seq[k]
            if step.source != at:
                break
            board, _ = state(seq, k + 1)
            expected.setdefault(source, set()).add((step.dest, board))
            if step.dest == OFF:
                break
            at = step.dest
    sources = {s.source for s, _ in turn.legal_steps()}
    assert sources == set(expected)
    for source in sources:
        offered = set()
        for move in turn.checker_moves(source):
            at = source
            before = len(turn.done)
            for step, die in move:
                assert step.source == at, move
                at = step.dest
                turn.step((step.source, step.dest), die)
            offered.add((at, turn.position))
            while len(turn.done) > before:
                turn.undo()
        assert offered == expected[source], (source, offered ^ expected[source])


def positions(variant: Variant, max_plies: int):
    return reachable(variant, max_plies)


@seed(20261204)
@SETTINGS
@given(positions(Tavla(), 120), st.sampled_from(ALL_ROLLS), st.integers(0, 2**32 - 1))
def test_tavla_checker_moves_are_the_legal_runs_T3_T6(drawn, dice, salt) -> None:
    check(*drawn, dice, random.Random(salt))


@seed(20261205)
@SETTINGS
@given(positions(Turkish(), 120), st.sampled_from(ALL_ROLLS), st.integers(0, 2**32 - 1))
def test_turkish_checker_moves_are_the_legal_runs_T3_T6(drawn, dice, salt) -> None:
    check(*drawn, dice, random.Random(salt))


@seed(20261206)
@SETTINGS
@given(positions(Uzun(), 160), st.sampled_from(ALL_ROLLS), st.integers(0, 2**32 - 1))
def test_uzun_checker_moves_are_the_legal_runs_U3_U8(drawn, dice, salt) -> None:
    check(*drawn, dice, random.Random(salt))


@seed(20261207)
@SETTINGS
@given(
    positions(Uzun(block_needs_home=True), 160),
    st.sampled_from(ALL_ROLLS),
    st.integers(0, 2**32 - 1),
)
def test_uzun_block_needs_home_checker_moves_are_the_legal_runs_U6(drawn, dice, salt) -> None:
    check(*drawn, dice, random.Random(salt))


@seed(20261208)
@SETTINGS
@given(st.integers(0, 3), st.sampled_from(ALL_ROLLS), st.integers(0, 2**32 - 1))
def test_uzun_first_turns_checker_moves_U4_U5(plies, dice, salt) -> None:
    from tests.strategies import play_out

    variant = Uzun()
    position, first = play_out(variant, salt, plies)
    check(variant, position, first, dice, random.Random(salt))


def test_uzun_opening_double_sixes_two_head_checkers_U5() -> None:
    """U-5: 6-6 on the first turn: the head checker runs 24/18 only (Black's 12 blocks
    24/12), and after one has left, a second still may."""
    variant = Uzun()
    turn = Turn(variant, variant.start_position(), (6, 6), first_turn=True)
    runs = {tuple((s.source, s.dest) for s, _ in m) for m in turn.checker_moves(24)}
    assert runs == {((24, 18),)}
    turn.step((24, 18), 6)
    assert {m[-1][0].dest for m in turn.checker_moves(24)} == {18}
    turn.step((24, 18), 6)
    assert turn.checker_moves(24) == []
    check(variant, variant.start_position(), True, (6, 6), random.Random(1))
