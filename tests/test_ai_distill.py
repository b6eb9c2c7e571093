"""Distillation of GNU Backgammon into the network (core/ai/distill.py, tools/distill_gnubg.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.ai.distill import SupervisedTrainer, cross_entropy, gnubg_targets
from core.ai.network import WIN, WIN_G, Network, flip, positions_array
from core.position import Position, side_from_points
from core.variants import variant_by_name


def _racing_leader() -> Position:
    """The side on roll has two checkers left on its 1-point; the other has all fifteen
    far from home: the side on roll wins at once, the other is gammoned."""
    return Position(side_from_points({1: 2}), side_from_points({19: 8, 20: 7}))


def test_gnubg_boards_of_position_arrays_are_the_positions_boards() -> None:
    """The batch conversion the analysis's cube leaves and the labelling use gives, for
    each position array, gnubg's board of that position (side not on roll first, then
    the side on roll, each points 1..24 and the bar)."""
    from core.ai.gnubg_player import gnubg_board, gnubg_boards

    start = variant_by_name("tavla").start_position()
    hit = Position(side_from_points({6: 5, 13: 4}, bar=1), side_from_points({24: 2, 1: 3}))
    positions = [start, _racing_leader(), hit, hit.swapped()]
    arr = positions_array(positions)
    assert gnubg_boards(arr) == [gnubg_board(p) for p in positions]
    assert gnubg_boards(arr[2]) == [gnubg_board(hit)]  # one (2, 26) array
    assert gnubg_boards(arr.astype(np.uint8)) == gnubg_boards(arr)
    assert gnubg_board(hit)[1][24] == 1  # the checker on the bar, last


def test_gnubg_labels_are_for_the_side_on_roll() -> None:
    """The labels follow the network's convention: the five chances of the side on roll,
    the same numbers gnubg gives for that board, and their flip for the swapped board."""
    gnubg = pytest.importorskip("gnubg")
    from core.ai.gnubg_player import gnubg_board

    start = variant_by_name("tavla").start_position()
    leader = _racing_leader()
    labels = gnubg_targets(gnubg, [start, leader, leader.swapped()])
    direct = gnubg.evaluate(gnubg_board(start), gnubg.cubeinfo(), gnubg.evalcontext(0, 0, 0, 0, 0))
    assert labels[0] == pytest.approx(direct[:5], abs=1e-6)
    assert 0.5 < labels[0][WIN] < 0.56  # the side on roll at the start is a little ahead
    assert labels[1][WIN] > 0.999
    assert labels[1][WIN_G] > 0.999
    assert flip(labels[2]) == pytest.approx(labels[1], abs=1e-3)
    # Position arrays (as the labelled chunks store them) give the same labels.
    assert gnubg_targets(gnubg, positions_array([leader]).astype(np.uint8)) == pytest.approx(
        labels[1:2]
    )


def test_supervised_training_fits_the_targets() -> None:
    """Adam on the cross-entropy brings a fresh network close to a teacher network's outputs."""
    rng = np.random.default_rng(7)
    teacher = Network.fresh("tavla", 16, seed=3)
    teacher.w1 *= 20.0  # a teacher with outputs spread away from 0.5
    x = rng.random((512, teacher.w1.shape[1]))
    targets = teacher.forward_x(x)
    student = Network.fresh("tavla", 16, seed=4)
    trainer = SupervisedTrainer(student, lr=3e-3)
    before = cross_entropy(student.forward_x(x), targets) - cross_entropy(targets, targets)
    for _ in range(60):
        trainer.epoch(x, targets, 64, rng)
    after = cross_entropy(student.forward_x(x), targets) - cross_entropy(targets, targets)
    assert after < 0.2 * before


def test_tavla2_inputs_count_the_rolls_that_hit() -> None:
    """The extra inputs of the ``tavla2`` encoding: the share of the 36 rolls that hit a
    blot (blocks ignored) for each side, and each side's longest prime."""
    from core.ai.network import ENCODERS, encode_tavla

    # The side on roll has 15 checkers on its 13-point; the other side a blot on its
    # 18-point (the mover's 7-point, 6 pips away: 11 rolls with a six, 5-1, 1-5, 4-2,
    # 2-4, 3-3 and 2-2) and 14 checkers on its 1-point, behind the mover's checkers.
    position = Position(side_from_points({13: 15}), side_from_points({18: 1, 1: 14}))
    primed = Position(side_from_points({4: 3, 5: 3, 6: 3, 7: 3, 8: 3}), side_from_points({24: 15}))
    arr = positions_array([position, primed, variant_by_name("tavla").start_position()])
    x = ENCODERS["tavla2"](arr)
    assert x.shape == (3, encode_tavla(arr).shape[1] + 4)
    assert x[0, -4:] * [36, 36, 6, 6] == pytest.approx([17, 0, 1, 1])
    assert x[1, -2] == pytest.approx(5 / 6)  # five points in a row
    assert x[2, -4:-2] == pytest.approx([0, 0])  # no blots at the start
    # The swapped board sees the same shots from the other side.
    assert ENCODERS["tavla2"](positions_array([position.swapped()]))[0, -4:-2] == pytest.approx(
        x[0, -3:-5:-1]
    )


def test_tavla3_inputs_count_the_rolls_that_escape() -> None:
    """The ``tavla3`` encoding adds to ``tavla2`` each side's escapes (the share of rolls
    that carry its rearmost checker the whole roll onto an open point) and how well it is
    contained (1 less the fewest escapes from its points 15..24)."""
    from core.ai.network import ENCODERS

    start = variant_by_name("tavla").start_position()
    x = ENCODERS["tavla3"](positions_array([start]))
    assert x.shape == (1, ENCODERS["tavla2"](positions_array([start])).shape[1] + 4)
    # From the 24-point the other side's 6, 8 and 13 points stand 5, 7 and 12 pips ahead:
    # the 4 rolls of 5, the 6 of 7, 5-5 and 6-6 are stopped; 24 escape.
    assert x[0, -4] * 36 == pytest.approx(24)
    assert x[0, -2] * 36 == pytest.approx(24)  # the same for the other side
    assert x[0, -3] == pytest.approx(x[0, -1])
    # No checker left behind: nothing to escape.
    raced = Position(side_from_points({1: 15}), side_from_points({1: 15}))
    assert ENCODERS["tavla3"](positions_array([raced]))[0, -4] == pytest.approx(1.0)


def _escaping_rolls(back: int, made: set[int]) -> int:
    """Ordered rolls carrying a checker on ``back`` the whole roll onto an open point, by
    trying each die order (a double: two steps); points below 1 are open."""

    def open_(point: int) -> bool:
        return point not in made

    count = 0
    for a in range(1, 7):
        for b in range(1, 7):
            steps = [(a, a)] if a == b else [(a, b), (b, a)]
            count += any(open_(back - s) and open_(back - s - t) for s, t in steps)
    return count


@settings(max_examples=200, deadline=None)
@given(back=st.integers(2, 25), made=st.sets(st.integers(2, 24), max_size=7))
def test_tavla3_escapes_match_trying_every_roll(back: int, made: set[int]) -> None:
    """Escapes and containment agree with trying each of the 36 rolls on the board."""
    from core.ai.network import ENCODERS

    made.discard(back)
    mover = {back: 1, 1: 14} if back < 25 else {1: 14}
    other = {25 - p: 2 for p in made}  # the mover's point p is the other's 25 - p
    position = Position(
        side_from_points(mover, bar=1 if back == 25 else 0), side_from_points(other)
    )
    x = ENCODERS["tavla3"](positions_array([position]))
    assert x[0, -4] * 36 == pytest.approx(_escaping_rolls(back, made))
    fewest = min(_escaping_rolls(point, made) for point in range(15, 25))
    assert x[0, -3] * 36 == pytest.approx(36 - fewest)  # how well the mover is contained


def test_play_in_float32_follows_the_trained_weights() -> None:
    """evaluate_array (float32, for play) matches the float64 forward pass used in
    training, and sees new weights once a trainer reports the change."""
    from core.ai.network import tidy

    net = Network.fresh("tavla", 16, seed=5)
    net.w1 *= 10.0
    arr = positions_array([_racing_leader(), variant_by_name("tavla").start_position()])
    exact = tidy(net.forward_x(net.encode(arr)))
    assert net.evaluate_array(arr) == pytest.approx(exact, abs=1e-5)
    trainer = SupervisedTrainer(net, lr=0.05)
    trainer.step(net.encode(arr), np.ones((2, 5)) * 0.9)
    moved = tidy(net.forward_x(net.encode(arr)))
    assert not np.allclose(moved, exact, atol=1e-3)
    assert net.evaluate_array(arr) == pytest.approx(moved, abs=1e-5)


def test_distilled_weights_load_and_say_how_they_were_made() -> None:
    """The shipped Tavla net is the one distilled from GNU Backgammon: it plays through the
    usual interface and its metadata records its teacher and data."""
    from core.ai import player_for
    from core.ai.network import WEIGHTS_DIR
    from core.movegen import legal_plays

    net = Network.load(WEIGHTS_DIR / "tavla.npz")
    assert net.kind == "tavla"
    assert net.meta["teacher"] == "gnubg 0-ply cubeless"
    assert net.meta["trained_by"] == "tools/distill_gnubg.py"
    variant = variant_by_name("tavla")
    start = variant.start_position()
    out = net.evaluate([start, _racing_leader()])
    assert 0.45 < out[0][WIN] < 0.6
    assert out[1][WIN] > 0.95
    # It makes the points every modern opening book makes with these rolls.
    club = player_for("tavla", "club", net=net)
    for dice, best in (((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4"), ((6, 1), "13/7 8/7")):
        assert str(club.choose_play(variant, start, legal_plays(variant, start, dice))) == best
