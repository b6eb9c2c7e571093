"""Tests of the look-ahead built on core.boards_after (core/ai/lookahead.py) and of the
Uzun Tavla expert that uses it: 1-ply over a few plays, then a reduced 2-ply within a
budget of boards."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.ai import EXPERT_FILTER, MASTER_FILTER, player_for
from core.ai.lookahead import one_ply, replies, two_ply, two_ply_values
from core.ai.network import Network, equity, shipped_network
from core.ai.players import NeuralPlayer
from core.ai.race import BearoffEvaluator
from core.movegen import legal_plays
from core.position import CHECKERS, OFF, Position
from core.variants import variant_by_name
from tests.ai_reference import best_replies, one_ply_equity, roll_equity, two_ply_equity
from tests.test_ai import _random_positions

TOOLS = Path(__file__).resolve().parents[1] / "tools"


def _net(kind: str) -> BearoffEvaluator:
    # An untrained net gives varied values; the database makes bear-offs exact.
    return BearoffEvaluator(Network.fresh(kind, 16, seed=5))


def _value(variant):
    bgs = variant.backgammons
    return lambda outs: equity(outs, True, bgs)


def _afters(variant_name: str, count: int, seed: int) -> list[Position]:
    """Boards after a play (the opponent to roll), from random games, none already won."""
    variant = variant_by_name(variant_name)
    out = []
    for side, dice, first in _random_positions(variant_name, count, seed):
        for play in legal_plays(variant, side, dice, first)[:2]:
            if play.after.mover[OFF] != CHECKERS:
                out.append(play.after)
    return out


@pytest.mark.parametrize("variant_name", ["tavla", "turkish", "uzun"])
def test_two_ply_from_boards_after_equals_two_ply_equity(variant_name: str) -> None:
    """The 2-ply from boards alone gives the values of ``players.two_ply_equity``, which
    builds every play (same rolls, same reduced thirds, same best replies), and its 1-ply
    part those of ``one_ply_equity``."""
    variant = variant_by_name(variant_name)
    net = _net("uzun" if variant_name == "uzun" else "tavla")
    value = _value(variant)
    afters = _afters(variant_name, 8, seed=31)
    assert len(afters) >= 10
    for after in afters:
        old = two_ply_equity(net, variant, after)
        assert two_ply(net, variant, after, value, float) == pytest.approx(old, abs=1e-6)
        one = one_ply(net, variant, after, value, float)
        assert one == pytest.approx(one_ply_equity(net, variant, after), abs=1e-9)
    # Many boards in one call give each board's own values: the same up to float32's
    # rounding, since the BLAS of some machines sums a larger batch in another order.
    answers = replies(net, variant, afters, value, float)
    many = two_ply_values(net, variant, answers, value, float)
    for after, answer, v in zip(afters, answers, many, strict=True):
        assert answer.value == pytest.approx(one_ply_equity(net, variant, after), abs=1e-6)
        assert v == pytest.approx(two_ply_equity(net, variant, after), abs=1e-6)
        assert answer.boards > 0


@pytest.mark.parametrize("variant_name", ["tavla", "uzun"])
def test_the_full_two_ply_looks_at_every_roll_and_counts_its_boards(variant_name: str) -> None:
    """``full`` (the reference the expert's filter is tuned against) values all 21 of the
    mover's rolls after each reply, as ``roll_equity`` over every roll does; ``sizes`` gets
    each board's count of boards evaluated, about three times the reduced search's."""
    variant = variant_by_name(variant_name)
    net = _net("uzun" if variant_name == "uzun" else "tavla")
    value = _value(variant)
    afters = _afters(variant_name, 4, seed=37)
    answers = replies(net, variant, afters, value, float)
    full_sizes: list[int] = []
    reduced_sizes: list[int] = []
    full = two_ply_values(net, variant, answers, value, float, full=True, sizes=full_sizes)
    two_ply_values(net, variant, answers, value, float, sizes=reduced_sizes)
    for after, v in zip(afters, full, strict=True):
        reference = sum(
            weight if mine is None else weight * roll_equity(net, variant, mine)
            for weight, mine in best_replies(net, variant, after.swapped())
        )
        assert v == pytest.approx(reference, abs=1e-6)
    assert len(full_sizes) == len(reduced_sizes) == len(afters)
    assert sum(full_sizes) > 2 * sum(reduced_sizes) > 0


def test_two_ply_in_an_exact_bearoff_is_the_databases_value() -> None:
    """U-8: with both sides bearing off the database is exact, so 2-ply gives it back
    (within the reduced search's sampling and the one-sided approximation)."""
    uzun = variant_by_name("uzun")
    net = _net("uzun")
    after = Position.from_points({6: 3, 5: 3, 4: 3}, {6: 3, 5: 3, 4: 3})
    zero = -float(equity(net.evaluate([after.swapped()]), True, False)[0])
    assert two_ply(net, uzun, after, _value(uzun), float) == pytest.approx(zero, abs=0.02)


def test_two_ply_values_stop_at_the_limit_of_boards() -> None:
    """With a limit, the boards valued are a prefix of those asked, each valued as without
    the limit; a limit of none values nothing."""
    uzun = variant_by_name("uzun")
    net = _net("uzun")
    value = _value(uzun)
    answers = replies(net, uzun, _afters("uzun", 4, seed=8), value, float)
    full = two_ply_values(net, uzun, answers, value, float)
    assert two_ply_values(net, uzun, answers, value, float, limit=0) == []
    assert two_ply_values(net, uzun, answers, value, float, limit=10**9) == full
    partial = two_ply_values(net, uzun, answers, value, float, limit=4000)
    assert len(partial) < len(full)
    # Fewer boards go to the net in one batch: equal up to float32's rounding (see above).
    assert partial == pytest.approx(full[: len(partial)], abs=1e-6)


def _oracle(player: NeuralPlayer, variant, position: Position, dice) -> Position:
    """The expert's choice recomputed from the old per-play functions, without a budget."""
    plays = legal_plays(variant, position, dice)
    eqs = player.play_equities(variant, plays)
    order = list(np.argsort(-eqs))
    keep = [i for i in order[: player.candidates] if eqs[i] >= eqs[order[0]] - player.threshold]
    if len(keep) == 1:
        return plays[keep[0]].after
    ones = [one_ply_equity(player.net, variant, plays[i].after) for i in keep]
    ranked = list(np.argsort(-np.array(ones), kind="stable"))
    top = [
        keep[j] for j in ranked[: player.deep] if ones[j] >= ones[ranked[0]] - player.deep_threshold
    ]
    if len(top) < 2:
        return plays[keep[ranked[0]]].after
    twos = [two_ply_equity(player.net, variant, plays[i].after) for i in top]
    return plays[top[int(np.argmax(twos))]].after


def test_uzun_expert_looks_two_rolls_deep_within_its_budget() -> None:
    """The Uzun expert: 1-ply over its filter, then 2-ply over the best few within its
    threshold; with no budget it chooses as the old per-play functions do, and with a
    budget too small for any 2-ply look it plays its 1-ply choice."""
    uzun = variant_by_name("uzun")
    net = _net("uzun")
    settings = {k: v for k, v in EXPERT_FILTER["uzun"].items() if k != "budget"}
    unlimited = NeuralPlayer(net, plies=1, name="expert", **settings)  # type: ignore[arg-type]
    starved = NeuralPlayer(net, plies=1, name="expert", budget=1, **settings)  # type: ignore[arg-type]
    filter_only = {k: settings[k] for k in ("candidates", "threshold")}
    one = NeuralPlayer(net, plies=1, name="expert", **filter_only)  # type: ignore[arg-type]
    looked = 0
    for side, dice, first in _random_positions("uzun", 12, seed=44):
        if first:
            continue
        plays = legal_plays(uzun, side, dice)
        assert unlimited.choose_play(uzun, side, plays).after == _oracle(
            unlimited, uzun, side, dice
        )
        assert starved.choose_play(uzun, side, plays) == one.choose_play(uzun, side, plays)
        looked += unlimited.boards > 0
    assert looked >= 3


def test_uzun_expert_and_master_levels() -> None:
    """The levels' interface: the Uzun expert looks 2-ply within a budget, and the master
    is at least as deep everywhere (more plays, wider thresholds, no budget)."""
    if shipped_network("uzun") is None:
        pytest.skip("no shipped weights")
    uzun = variant_by_name("uzun")
    expert = player_for("uzun", "expert")
    master = player_for("uzun", "master")
    assert isinstance(expert, NeuralPlayer)
    assert isinstance(master, NeuralPlayer)
    assert expert.plies == 1
    assert expert.deep >= 2
    assert expert.budget > 0
    assert master.deep == MASTER_FILTER["uzun"]["deep"] >= expert.deep
    assert master.budget == 0
    assert master.candidates == MASTER_FILTER["uzun"]["candidates"] >= expert.candidates
    assert master.threshold >= expert.threshold
    assert master.deep_threshold >= expert.deep_threshold
    # Tavla's expert stays 1-ply.
    assert player_for("tavla", "expert").deep < 2
    for side, dice, first in _random_positions("uzun", 4, seed=12):
        plays = legal_plays(uzun, side, dice, first)
        assert expert.choose_play(uzun, side, plays) in plays
    start = uzun.start_position()
    assert expert.should_double(uzun, start) is False  # no cube in long nardy
    assert expert.should_take(uzun, start) is True


def test_tuning_tool_replays_the_experts_filter() -> None:
    """``tools/tune_lookahead.py grid`` replays the filter as the player does: 1-ply over
    the candidates, then 2-ply over the best few by 1-ply while the boards fit the budget."""
    sys.path.insert(0, str(TOOLS))
    try:
        import tune_lookahead
    finally:
        sys.path.remove(str(TOOLS))
    record = {
        "eqs": np.array([0.30, 0.25, 0.20, 0.0]),  # 0-ply, best first
        "ones": np.array([0.10, 0.12, 0.11, 0.50]),  # 1-ply
        "b1": np.array([100, 100, 100, 100]),
        "red": np.array([0.05, 0.02, 0.08, 0.90]),  # reduced 2-ply
        "b2": np.array([1000, 1000, 1000, 1000]),
        "full": np.array([0.05, 0.02, 0.08, 0.90]),
    }
    # 1-ply alone: the best 1-ply of the three within 0.16 (the fourth is 0.30 behind).
    assert tune_lookahead.choose(record, (5, 0.16, 0, 0.0, 0)) == (1, 300)
    # 2-ply over all three: the third play.
    assert tune_lookahead.choose(record, (3, 0.16, 3, 0.16, 0)) == (2, 3300)
    # A budget for two 2-ply looks: the best two by 1-ply (plays 1 and 2), play 2 again.
    assert tune_lookahead.choose(record, (3, 0.16, 3, 0.16, 2500)) == (2, 2300)
    # A budget for one look only: the 1-ply choice.
    assert tune_lookahead.choose(record, (3, 0.16, 3, 0.16, 1500)) == (1, 300)


def test_compile_command_readies_the_compiled_search(capsys) -> None:
    """``python -m core compile`` compiles (or loads from Numba's cache) the move search
    and the Uzun inputs, and says how long it took; without Numba it says so."""
    from core import boards_after
    from core.__main__ import main

    assert main(["compile"]) == 0
    said = capsys.readouterr().out
    if boards_after.COMPILED:
        assert said.startswith("compiled in ")
        assert said.rstrip().endswith(" s")
    else:
        assert "Numba is not installed" in said


@given(
    st.lists(
        st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.25, 1.0]), min_size=1, max_size=6),
        max_size=8,
    )
)
def test_each_rolls_worst_answer_is_found_as_by_argmin(runs) -> None:
    """The look-ahead finds every roll's worst answer in one pass over the rows: the same
    value and the same (first, on ties) answer as argmin over each roll's rows."""
    from core.ai.lookahead import _first_minima

    values = np.array([v for run in runs for v in run])
    starts = list(np.cumsum([0] + [len(run) for run in runs])[:-1])
    lows, where = _first_minima(values, [int(s) for s in starts])
    assert lows == [min(run) for run in runs]
    assert where == [int(s) + int(np.argmin(run)) for s, run in zip(starts, runs, strict=True)]


def test_the_python_search_plays_while_the_compiled_one_compiles(monkeypatch) -> None:
    """At the bot's start the computer plays at once with the Python search and NumPy
    inputs (the same plays) while the compiled ones compile, then with the compiled ones;
    if compiling fails, the Python ones go on playing."""
    import core.boards_after as ba
    from core.ai import network, warm

    pytest.importorskip("numba")
    assert ba.COMPILED
    assert network.COMPILED  # installed, so the compiled code must import
    monkeypatch.setattr(ba, "USE_COMPILED", ba.USE_COMPILED)  # restored after the test
    monkeypatch.setattr(network, "USE_COMPILED", network.USE_COMPILED)
    during: list[tuple[object, bool]] = []

    def compiling() -> float:
        during.append((ba.USE_COMPILED, network.USE_COMPILED))
        return 2.5

    monkeypatch.setattr(warm, "warm_up", compiling)
    assert warm.play_python_until_compiled() == 2.5
    assert during == [(False, False)]
    assert ba.USE_COMPILED
    assert network.USE_COMPILED

    # Compiled elsewhere first (the bot's child process), then loaded: Python plays meanwhile.
    during.clear()

    def elsewhere() -> None:
        during.append(("elsewhere", ba.USE_COMPILED or network.USE_COMPILED))

    assert warm.play_python_until_compiled(elsewhere) == 2.5
    assert during == [("elsewhere", False), (False, False)]
    assert ba.USE_COMPILED
    assert network.USE_COMPILED

    def failing() -> float:
        raise RuntimeError("no compiler")

    monkeypatch.setattr(warm, "warm_up", failing)
    with pytest.raises(RuntimeError):
        warm.play_python_until_compiled()
    assert not ba.USE_COMPILED
    assert not network.USE_COMPILED
