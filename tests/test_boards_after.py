"""core.boards_after against core.movegen and the brute-force reference.

The look-ahead of the computer and of the analysis takes the opponent's replies from
:func:`core.boards_after.boards_after`, which keeps only the boards. It must give exactly
the boards of :func:`core.movegen.legal_plays` (same rules: common ground's maximum-dice
and larger-die rules, T-3 landing, T-4 hitting, T-5 the bar, T-6 bearing off), in the same
order, for every roll.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core.boards_after as boards_after_module
from core.ai.lookahead import ROLLS
from core.boards_after import boards_after, boards_after_rolls
from core.movegen import legal_plays
from core.position import Position
from core.variants import Turkish, Uzun, Variant
from tests.reference import reference_results
from tests.strategies import ALL_ROLLS, reachable, tavla_positions, uzun_positions

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    # The search fixture is set once a test, the same for each example.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


# The compiled search (Numba) and the Python one: each must give the boards of legal_plays.
@pytest.fixture(autouse=True, params=[True, False], ids=["compiled", "python"])
def search(request, monkeypatch) -> None:
    """Every test here runs with each search."""
    if request.param:
        pytest.importorskip("numba")
        assert boards_after_module.COMPILED  # installed, so the compiled search must import
    monkeypatch.setattr(boards_after_module, "USE_COMPILED", request.param)


def _expected(variant: Variant, position: Position, roll, first_turn: bool) -> list[tuple]:
    return [
        bytes(p.after.opponent + p.after.mover)
        for p in legal_plays(variant, position, roll, first_turn)
    ]


def _check_every_roll(variant: Variant, position: Position, first_turn: bool) -> None:
    for roll in (*ALL_ROLLS, *((b, a) for a, b in ALL_ROLLS)):
        got = boards_after(variant, position, roll, first_turn)
        assert got == _expected(variant, position, roll, first_turn), (position, roll)


@SETTINGS
@given(tavla_positions())
def test_tavla_boards_match_legal_plays_in_order(drawn) -> None:
    """Common ground, T-3..T-6: the same boards in the same order as legal_plays."""
    _check_every_roll(*drawn)


@SETTINGS
@given(reachable(Turkish(), 120))
def test_turkish_boards_match_legal_plays(drawn) -> None:
    _check_every_roll(*drawn)


@SETTINGS
@given(st.one_of(uzun_positions(), uzun_positions(block_needs_home=True)))
def test_uzun_boards_match_legal_plays_in_order(drawn) -> None:
    """U-3..U-8 (no hitting, the head rule and its first-turn exception, the six-block
    rule): the same boards in the same order as legal_plays."""
    _check_every_roll(*drawn)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.one_of(tavla_positions(), uzun_positions()))
def test_boards_match_the_reference(drawn) -> None:
    """Against the brute-force reference, independent of movegen's search."""
    variant, position, first_turn = drawn
    for roll in ALL_ROLLS:
        got = {
            Position(tuple(row[26:]), tuple(row[:26]))
            for row in boards_after(variant, position, roll, first_turn)
        }
        assert got == reference_results(variant, position, roll, first_turn), (position, roll)


def test_bar_and_bear_off_corners() -> None:
    """T-5: only the entering checker moves while one is on the bar; a closed board leaves
    no play at all. T-6: a larger die bears off from the highest point only; common ground:
    with one die playable the larger one is played."""
    tavla = Turkish()
    closed = Position.from_points({6: 2, 5: 2}, dict.fromkeys(range(1, 7), 2), mover_bar=1)
    assert boards_after(tavla, closed, (3, 5)) == []
    home = Position.from_points({3: 1, 1: 1}, {24: 15})
    boards = boards_after(tavla, home, (6, 5))
    assert boards == _expected(tavla, home, (6, 5), False)
    assert all(row[26] == 15 for row in boards)  # both checkers off
    uzun = Uzun()
    assert boards_after(uzun, uzun.start_position(), (6, 6), True) == _expected(
        uzun, uzun.start_position(), (6, 6), True
    )


def _uzun_board(variant: Uzun, mover: dict[int, int], opponent: dict[int, int]) -> Position:
    """An Uzun position with the opponent's checkers given at the mover's point numbers."""
    return Position.from_points(mover, {variant.opposite[p]: n for p, n in opponent.items()})


@pytest.mark.parametrize("needs_home", [False, True])
@pytest.mark.parametrize(
    ("mover", "opponent"),
    [
        ({24: 5, 22: 2, 21: 2, 20: 2, 19: 2, 18: 2}, {12: 15}),  # nobody passed
        ({24: 5, 22: 2, 21: 2, 20: 2, 19: 2, 18: 2}, {12: 14, 15: 1}),  # one passed
        ({24: 5, 21: 2, 20: 2, 19: 2, 18: 2, 17: 2}, {12: 14, 23: 1}),  # one ahead of it
        ({24: 3, 16: 2, 14: 2, 13: 2, 12: 2, 11: 2, 10: 2}, {8: 15}),  # 12 and 13
        ({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 11: 5}, {22: 1, 8: 14}),  # passed, not home
        ({24: 3, 19: 2, 17: 2, 16: 2, 15: 2, 14: 2, 13: 2}, {9: 14, 21: 1}),
    ],
)
def test_uzun_six_block_positions(needs_home: bool, mover: dict, opponent: dict) -> None:
    """U-6 (and its block_needs_home option), where doubles must be searched in every
    order: the same boards as legal_plays for every roll."""
    variant = Uzun(block_needs_home=needs_home)
    _check_every_roll(variant, _uzun_board(variant, mover, opponent), False)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.one_of(tavla_positions(), uzun_positions(), reachable(Turkish(), 60)))
def test_all_rolls_at_once_are_each_rolls_boards(drawn) -> None:
    """boards_after_rolls, the look-ahead's one call for many rolls, stacks each roll's
    boards_after in the order of the rolls given (U-5's first turn included)."""
    variant, position, first_turn = drawn
    for rolls in (ROLLS, ROLLS[1::3], ((6, 5), (5, 6), (2, 2))):
        rows, offsets = boards_after_rolls(variant, position, rolls, first_turn)
        assert rows.dtype == np.uint8
        assert rows.shape == (offsets[-1], 52)
        for k, roll in enumerate(rolls):
            got = [row.tobytes() for row in rows[offsets[k] : offsets[k + 1]]]
            assert got == boards_after(variant, position, roll, first_turn), (position, roll)


def test_bad_dice_are_refused_by_both_entry_points() -> None:
    uzun = Uzun()
    with pytest.raises(ValueError, match=r"dice must be 1\.\.6"):
        boards_after(uzun, uzun.start_position(), (0, 3))
    with pytest.raises(ValueError, match=r"dice must be 1\.\.6"):
        boards_after_rolls(uzun, uzun.start_position(), ((1, 2), (3, 7)))


@pytest.mark.parametrize("without", ["not installed", "TAVLA_NUMBA=off"])
def test_without_numba_the_python_search_and_encoding_give_the_same(without: str) -> None:
    """Where Numba cannot be installed, or is turned off to save memory, the bot still
    plays, the same plays: the Python search and the NumPy encoding stand in (run in a
    process that cannot import Numba, or that is told not to)."""
    script = """
import sys
if sys.argv[1] == "not installed":
    sys.modules["numba"] = None  # an import of numba now fails
import hashlib
import core.boards_after as ba
from core.ai import network
from core.ai.lookahead import ROLLS
from core.variants import Uzun, Turkish
assert not ba.COMPILED and not network.COMPILED
assert sys.modules.get("numba") is None  # never loaded: its memory saved
digest = hashlib.sha256()
for variant in (Uzun(), Turkish()):
    rows, offsets = ba.boards_after_rolls(variant, variant.start_position(), ROLLS, True)
    digest.update(rows.tobytes() + offsets.tobytes())
    digest.update(network.encode_uzun(rows.reshape(-1, 2, 26)).tobytes())
print(digest.hexdigest())
"""
    import hashlib
    import subprocess
    import sys

    from core.ai import network
    from core.variants import Uzun

    env = {**os.environ, "TAVLA_NUMBA": "off" if without.startswith("TAVLA") else "on"}
    done = subprocess.run(
        [sys.executable, "-c", script, without],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
    )
    digest = hashlib.sha256()
    for variant in (Uzun(), Turkish()):
        rows, offsets = boards_after_rolls(variant, variant.start_position(), ROLLS, True)
        digest.update(rows.tobytes() + offsets.tobytes())
        digest.update(network.encode_uzun(rows.reshape(-1, 2, 26)).tobytes())
    assert done.stdout.strip() == digest.hexdigest()
