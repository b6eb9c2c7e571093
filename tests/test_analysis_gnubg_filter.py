"""Tavla plays judged as gnubg's own ``analyse match`` judges them: its analysis move filter.

gnubg's analysis looks at every play at 0-ply, sends the best and up to 15 more within 0.32
to 2-ply, adds the play made, and takes the best of those. Its Python interface's default
("hint") filter drops plays after a 1-ply step instead, and returns them with their 1-ply
scores among the 2-ply ones: in a gammonish position 1-ply is optimistic, so a dropped play
looked better than the best at 2-ply. That made match 7 of ``bench/analysis.py`` charge
``club`` 0.036 more than gnubg over two plays (7.4 mEMG against gnubg's 6.1).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.ai.cube import CubeState
from core.ai.gnubg_player import gnubg_board, load_gnubg
from core.analysis.evaluators import ANALYSIS_FILTER, GnubgEvaluator, _after_board, _filtered
from core.gnubg import position_from_id
from core.movegen import legal_plays
from core.notation import format_play
from core.variants import variant_by_name

needs_gnubg = pytest.mark.skipif(load_gnubg() is None, reason="needs the gnubg Python extra")


def test_one_level_of_gnubgs_move_filter() -> None:
    large = ANALYSIS_FILTER[2][0]
    assert large == (0, 16, 0.32)
    assert _filtered([1.0, 0.9, 0.7, 0.6], large) == 3  # 0.6 is more than 0.32 behind
    assert _filtered([1.0, 0.5], large) == 1  # the best alone: the search stops at 0-ply
    assert _filtered([0.0] * 40, large) == 16  # up to 16, the best among them
    assert _filtered([1.0, 0.0, -1.0], (2, 0, 0.0)) == 2  # accepted whatever their score


@given(
    st.lists(st.floats(-3, 3), min_size=1, max_size=60).map(lambda s: sorted(s, reverse=True)),
    st.integers(0, 4),
    st.integers(0, 20),
    st.floats(0, 1),
)
def test_the_filter_keeps_a_prefix_within_its_limits(
    scores: list[float], accept: int, extra: int, threshold: float
) -> None:
    kept = _filtered(scores, (accept, extra, threshold))
    assert min(accept, len(scores)) <= kept <= min(len(scores), accept + extra)
    assert all(s >= scores[0] - threshold for s in scores[accept:kept])
    if kept < min(len(scores), accept + extra):
        assert scores[kept] < scores[0] - threshold


def _plays(position_id: str, dice: tuple[int, int]):
    variant = variant_by_name("tavla")
    position = position_from_id(position_id)
    plays = legal_plays(variant, position, dice, False)
    return variant, position, plays, [format_play(p) for p in plays]


def _wide(evaluator: GnubgEvaluator, position, state: CubeState, dice) -> dict:
    """Every play at 2-ply: the reference for scores at full depth."""
    board = gnubg_board(position)
    info = evaluator.cubeinfo(state)
    found = evaluator.gnubg.find_best_moves(
        board, info, evaluator._cubeful[2], dice, evaluator._wide_filters
    )
    return {_after_board(board, m["move"]): m["score"] for m in found}


@needs_gnubg
def test_a_play_dropped_at_1_ply_is_not_the_best_at_2_ply() -> None:
    """Match 7, game 1 of the anchor: club (on roll) 0-0 in a 3-point match, a 2-cube its
    opponent owns (T-8), 5-2 to play in a gammonish position. gnubg -t 1.07's analyse match
    (2-ply) scores 13/8 6/4 (played) 1.1697 and 15/10 6/4 1.1691: the play made is its best.
    Through the hint filter 15/10 6/4 kept its 1-ply score and looked 0.026 better."""
    variant, position, plays, names = _plays("hh8ABl522wEpAA", (2, 5))
    evaluator = GnubgEvaluator(load_gnubg())
    state = CubeState(2, -1, 3, 0, 0)
    played = names.index("13/8 6/4")
    values = evaluator.rank_plays(variant, position, (2, 5), plays, state, played)
    assert values is not None
    assert values[played] == pytest.approx(1.1697, abs=0.002)
    assert values[names.index("15/10 6/4")] == pytest.approx(1.1691, abs=0.002)
    assert float(np.nanmax(values)) - values[played] < 0.002  # gnubg: no error at all
    # The 16 plays within 0.32 at 0-ply are looked at 2-ply deep, exactly as a search of
    # every play at 2-ply scores them; the last one (16/11 4/2, 0.35 behind) is not.
    wide = _wide(evaluator, position, state, (2, 5))
    looked = [i for i in range(len(plays)) if not np.isnan(values[i])]
    assert len(looked) == 16
    assert np.isnan(values[names.index("16/11 4/2")])
    for i in looked:
        assert values[i] == pytest.approx(wide[gnubg_board(plays[i].after)])
    # A play the filter dropped, when made, is looked at as deep and judged against the best.
    dropped = names.index("16/11 4/2")
    again = evaluator.rank_plays(variant, position, (2, 5), plays, state, dropped)
    assert again is not None
    assert again[dropped] == pytest.approx(wide[gnubg_board(plays[dropped].after)])
    assert int(np.nanargmax(again)) == int(np.nanargmax(values))


@needs_gnubg
def test_one_play_through_the_filter_stops_at_0_ply_unless_the_play_made_is_an_error() -> None:
    """Match 7, game 1: 6-2 with a centred cube, where 24/16* is over 0.32 ahead of every
    other play at 0-ply. gnubg then looks no deeper (its list is all 0-ply): the play made
    is judged at 0-ply, unless it is more than the doubtful threshold (0.04) behind; then it
    and the 0-ply best are both looked at 2-ply deep."""
    variant, position, plays, names = _plays("hk/JwQDg88IBMA", (2, 6))
    evaluator = GnubgEvaluator(load_gnubg())
    state = CubeState(1, 0, 3, 0, 0)
    best = names.index("24/16*")
    values = evaluator.rank_plays(variant, position, (2, 6), plays, state, best)
    assert values is not None
    assert not np.isnan(values).any()
    board = gnubg_board(position)
    quick = evaluator.gnubg.find_best_moves(
        board, evaluator.cubeinfo(state), evaluator._cubeful[0], (2, 6)
    )
    zero = {_after_board(board, m["move"]): m["score"] for m in quick}
    for i, play in enumerate(plays):
        assert values[i] == pytest.approx(zero[gnubg_board(play.after)])
    assert int(np.argmax(values)) == best
    worse = names.index("24/18 6/4")
    again = evaluator.rank_plays(variant, position, (2, 6), plays, state, worse)
    assert again is not None
    assert sorted(i for i in range(len(plays)) if not np.isnan(again[i])) == sorted([best, worse])
    wide = _wide(evaluator, position, state, (2, 6))
    for i in (best, worse):
        assert again[i] == pytest.approx(wide[gnubg_board(plays[i].after)])
    assert again[best] - again[worse] > 0.16  # a very bad play at 2-ply too
