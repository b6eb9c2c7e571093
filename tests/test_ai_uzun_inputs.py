"""The Uzun network's inputs (core/ai/network.py): the table-driven encoder gives the
values of the first, comparison-based one, and the ``uzun2`` inputs add what a long-nardy
player looks at (mobility by die, the opponent's blocks in front, the head's way out)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.ai import network
from core.ai.network import encode_uzun, positions_array
from core.position import Position, side_from_points
from core.variants import variant_by_name
from tests.ai_reference import encode_uzun_reference
from tests.strategies import uzun_positions


@settings(max_examples=40, deadline=None)
@given(st.lists(uzun_positions(), min_size=1, max_size=8))
def test_uzun_inputs_match_the_reference_encoding(drawn) -> None:
    """For reachable positions (and each seen from the other side) the fast encoder's
    inputs equal the reference's, to float32 precision."""
    positions = [p for _v, p, _f in drawn] + [p.swapped() for _v, p, _f in drawn]
    arr = positions_array(positions)
    fast = encode_uzun(arr)
    assert fast.shape == (len(positions), 210)
    assert np.allclose(fast, encode_uzun_reference(arr), atol=1e-6)
    assert np.array_equal(encode_uzun(arr.astype(np.uint8)), fast)


@settings(max_examples=40, deadline=None)
@given(st.lists(uzun_positions(), min_size=1, max_size=8))
def test_compiled_uzun_inputs_equal_numpys_bit_for_bit(drawn) -> None:
    """The compiled encoder (Numba) gives the NumPy encoder's float32 inputs exactly, so
    a net plays the same with either."""
    pytest.importorskip("numba")
    assert network.COMPILED  # installed, so the compiled encoder must import
    positions = [p for _v, p, _f in drawn] + [p.swapped() for _v, p, _f in drawn]
    arr = positions_array(positions)
    numpy_made = np.empty((len(positions), 210), dtype=np.float32)
    network._uzun_base(arr, numpy_made)
    assert encode_uzun(arr).tobytes() == numpy_made.tobytes()  # -0.0 included


def _uzun2_extra(position: Position) -> np.ndarray:
    """The 20 ``uzun2`` inputs beyond the ``uzun`` ones, as (2 sides, 10)."""
    from core.ai.network import encode_uzun2

    return encode_uzun2(positions_array([position]))[0, 210:].reshape(2, 10) * np.array(
        [15, 15, 15, 15, 15, 15, 6, 90, 15, 15]
    )


def test_uzun2_inputs_see_the_other_sides_points_in_front() -> None:
    """At the start (U-1) every die moves one checker off the head (U-4) and nothing is in
    front. With the other side's checkers on six points in a row in front of ours, the
    count of moving checkers by die, the points held ahead, the trapped checkers and the
    checkers behind that run follow the rules' geometry (U-3: held points are closed)."""
    start = variant_by_name("uzun").start_position()
    extra = _uzun2_extra(start)
    assert extra[:, :6] == pytest.approx(np.ones((2, 6)))
    assert extra[:, 6:] == pytest.approx(np.zeros((2, 4)))
    # The other side holds its points 1..6 (our 13..18: our p is their (p + 11) % 24 + 1).
    # We have 3 checkers on 20, 2 on 22 and 10 on the head.
    prime = Position(
        side_from_points({24: 10, 22: 2, 20: 3}),
        side_from_points({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 3}),
    )
    mine = _uzun2_extra(prime)[0]
    # Die 1: from 24 (once) to 23, 22 to 21, 20 to 19: 1 + 2 + 3. Die 2: 24->22, 22->20,
    # 20->18 (held): 1 + 2. Die 3: 24->21, 22->19, 20->17 (held): 1 + 2. Dice 4 and 5:
    # only the head's checker. Die 6: 24->18, 22->16 and 20->14 are all held: 0.
    assert mine[:6] == pytest.approx([6, 3, 3, 1, 1, 0])
    assert mine[6] == pytest.approx(1)  # of our 18..23 only 18 is held
    # Held points ahead: head 24 sees 18 (1); 22 sees 18, 17, 16 (3); 20 sees 18..14 (5).
    assert mine[7] == pytest.approx(10 * 1 + 2 * 3 + 3 * 5)
    assert mine[8] == pytest.approx(3)  # the three on 20 have five held points in front
    assert mine[9] == pytest.approx(15)  # all fifteen are behind the run 13..18
    trapped = Position(side_from_points({19: 2, 24: 13}), prime.opponent)
    assert _uzun2_extra(trapped)[0, 8] == pytest.approx(2)  # 19 sees 13..18, all held


def test_a_uzun2_net_plays_uzun_with_its_race_rules() -> None:
    """A net with the ``uzun2`` inputs is an Uzun net: the bear-off database applies Uzun
    Tavla's race rule to it, and the levels play with it, saved and loaded."""
    from core.ai import player_for
    from core.ai.network import Network
    from core.ai.race import BearoffEvaluator
    from core.movegen import legal_plays

    net = Network.fresh("uzun2", 8, seed=1)
    assert BearoffEvaluator(net).uzun
    uzun = variant_by_name("uzun")
    start = uzun.start_position()
    plays = legal_plays(uzun, start, (6, 5), True)
    for level in ("club", "expert"):
        assert player_for("uzun", level, net=net).choose_play(uzun, start, plays) in plays
