"""The pool's pairing rule (core/pool.py): property-based, no database."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.pool import (
    LIFETIME,
    Seeker,
    choose,
    extra_wait,
    fits,
    new_seeker,
    pair_waiting,
)

NOW = 1_000_000.0

buckets = st.tuples(
    st.sampled_from(["tavla", "turkish", "uzun"]),
    st.sampled_from([1, 3, 5]),
    st.sampled_from(["fast", "daily"]),
)


@st.composite
def seekers(draw: st.DrawFn, player: int | None = None) -> Seeker:
    variant, length, pace = draw(buckets)
    joined = NOW - draw(st.floats(0, 4000))
    return Seeker(
        player=draw(st.integers(1, 40)) if player is None else player,
        variant=variant,
        length=length,
        pace=pace,
        rating=draw(st.floats(1000, 2200)),
        joined=joined,
        eligible=joined + draw(st.sampled_from([0.0, 0.0, 60.0, 5000.0])),
        expires=joined + draw(st.sampled_from([LIFETIME["fast"], 10.0, LIFETIME["daily"]])),
    )


@st.composite
def pools(draw: st.DrawFn) -> tuple[Seeker, list[Seeker], set[frozenset[int]]]:
    """A newcomer, the entries waiting (one per player, not the newcomer) and some blocks."""
    waiting = draw(st.lists(seekers(), max_size=25, unique_by=lambda s: s.player))
    newcomer = draw(seekers(player=99))
    players = [s.player for s in waiting] + [99]
    blocks = draw(
        st.sets(
            st.tuples(st.sampled_from(players), st.sampled_from(players)).map(frozenset),
            max_size=10,
        )
    )
    return newcomer, waiting, blocks


@given(pools())
def test_the_choice_fits_and_is_the_nearest_rating(pool) -> None:
    newcomer, waiting, blocks = pool
    chosen = choose(newcomer, waiting, NOW, blocks)
    fitting = [w for w in waiting if fits(newcomer, w, NOW, blocks)]
    if not fitting:
        assert chosen is None
        return
    assert chosen is not None
    assert chosen.bucket == newcomer.bucket  # same game, length and pace
    assert frozenset((chosen.player, newcomer.player)) not in blocks  # never a blocked pair
    assert chosen.live(NOW)
    gap = abs(chosen.rating - newcomer.rating)
    assert all(gap <= abs(w.rating - newcomer.rating) for w in fitting)


@given(pools())
def test_the_choice_does_not_depend_on_the_order_of_the_rows(pool) -> None:
    newcomer, waiting, blocks = pool
    assert choose(newcomer, waiting, NOW, blocks) == choose(
        newcomer, list(reversed(waiting)), NOW, blocks
    )


@given(st.lists(seekers(), max_size=30, unique_by=lambda s: s.player), st.data())
def test_pairing_the_waiting_takes_each_player_once_and_only_fitting_pairs(entries, data) -> None:
    players = [s.player for s in entries] or [1]
    blocks = data.draw(
        st.sets(st.tuples(st.sampled_from(players), st.sampled_from(players)).map(frozenset))
    )
    pairs = pair_waiting(entries, NOW, blocks)
    seen = [p.player for pair in pairs for p in pair]
    assert len(seen) == len(set(seen))  # one pairing per player
    for a, b in pairs:
        assert fits(a, b, NOW, blocks)
    # Nobody is left waiting who fits another one left waiting.
    left = [e for e in entries if e.player not in seen]
    assert not any(fits(a, b, NOW, blocks) for a in left for b in left)


def test_among_several_the_nearest_rating_then_the_longest_waiting() -> None:
    newcomer = new_seeker(9, "tavla", 1, "fast", 1600, NOW)
    far = new_seeker(1, "tavla", 1, "fast", 1900, NOW - 50)
    near_late = new_seeker(2, "tavla", 1, "fast", 1550, NOW - 10)
    near_early = new_seeker(3, "tavla", 1, "fast", 1650, NOW - 20)
    assert choose(newcomer, [far, near_late, near_early], NOW) == near_early


def test_other_game_length_or_pace_never_fits() -> None:
    me = new_seeker(9, "tavla", 3, "daily", 1500, NOW)
    for other in (
        new_seeker(1, "uzun", 3, "daily", 1500, NOW),
        new_seeker(2, "tavla", 5, "daily", 1500, NOW),
        new_seeker(3, "tavla", 3, "fast", 1500, NOW),
    ):
        assert choose(me, [other], NOW) is None


def test_a_blocked_player_is_skipped_for_the_next_one() -> None:
    me = new_seeker(9, "tavla", 1, "fast", 1500, NOW)
    blocked = new_seeker(1, "tavla", 1, "fast", 1500, NOW)
    other = new_seeker(2, "tavla", 1, "fast", 2000, NOW)
    assert choose(me, [blocked, other], NOW, {frozenset((1, 9))}) == other
    assert choose(me, [blocked], NOW, {frozenset((9, 1))}) is None


def test_entries_expire() -> None:
    old = new_seeker(1, "tavla", 1, "fast", 1500, NOW - LIFETIME["fast"] - 1)
    me = new_seeker(9, "tavla", 1, "fast", 1500, NOW)
    assert choose(me, [old], NOW) is None
    daily = new_seeker(2, "tavla", 1, "daily", 1500, NOW - LIFETIME["fast"] - 1)
    assert choose(new_seeker(9, "tavla", 1, "daily", 1500, NOW), [daily], NOW) == daily


def test_a_player_who_left_many_games_in_a_row_waits_longer() -> None:
    assert extra_wait(0) == extra_wait(2) == 0
    waits = [extra_wait(n) for n in range(3, 12)]
    assert waits[0] > 0
    assert waits == sorted(waits)  # never shorter for more games left
    assert max(waits) <= 30 * 60
    leaver = new_seeker(1, "tavla", 1, "fast", 1500, NOW, left_in_a_row=5)
    me = new_seeker(9, "tavla", 1, "fast", 1500, NOW)
    assert choose(me, [leaver], NOW) is None  # not yet
    later = leaver.eligible
    assert choose(new_seeker(9, "tavla", 1, "fast", 1500, later), [leaver], later) == leaver


def test_a_player_never_plays_themselves() -> None:
    me = new_seeker(9, "tavla", 1, "fast", 1500, NOW)
    assert choose(me, [new_seeker(9, "tavla", 1, "fast", 1500, NOW - 5)], NOW) is None


def test_bad_entries_are_refused() -> None:
    with pytest.raises(ValueError, match="pace"):
        new_seeker(1, "tavla", 1, "slow", 1500, NOW)
    with pytest.raises(ValueError, match="point"):
        new_seeker(1, "tavla", 0, "fast", 1500, NOW)
