"""The Uzun network's inputs (core/ai/network.py): the table-driven encoder gives the
values of the first, comparison-based one, and the ``uzun2`` inputs add what a long-nardy
player looks at (mobility by die, the opponent's blocks in front, the head's way out)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from core.ai.network import encode_uzun, positions_array
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
