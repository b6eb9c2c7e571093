"""Expert iteration for Uzun Tavla: 1-ply targets from a network (core/ai/distill.py,
tools/distill_lookahead.py) and fitting a network to them (tools/distill_gnubg.py train)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

from core.ai.distill import one_ply_targets, two_ply_targets
from core.ai.lookahead import ROLL_WEIGHTS, ROLLS, first_turn
from core.ai.network import WIN, Network, equity, flip
from core.ai.race import BearoffEvaluator, both_in_bearoff_array
from core.movegen import legal_plays
from core.position import Position, side_from_points
from core.variants import variant_by_name
from tests.ai_reference import one_ply_targets_reference, roll_equity

TOOLS = Path(__file__).resolve().parents[1] / "tools"


@pytest.fixture(scope="module")
def tools():
    sys.path.insert(0, str(TOOLS))
    import distill_gnubg
    import distill_lookahead

    yield distill_lookahead, distill_gnubg
    sys.path.remove(str(TOOLS))


def _teacher() -> BearoffEvaluator:
    net = Network.fresh("uzun", 12, seed=5)
    net.w1 *= 10.0  # outputs spread away from 0.5, so plays differ in value
    net.w2 *= 10.0
    return BearoffEvaluator(net)


def test_last_checker_borne_off_with_every_roll_is_a_sure_mars() -> None:
    """The side on roll has one checker left on its 1-point and the other side has borne
    off none: every roll wins a mars (U-10), so the targets are sure win and sure gammon."""
    uzun = variant_by_name("uzun")
    position = Position(side_from_points({1: 1}), side_from_points({24: 8, 23: 7}))
    targets = one_ply_targets(_teacher(), uzun, [position])
    assert targets[0] == pytest.approx([1.0, 1.0, 0.0, 0.0, 0.0])


def test_targets_carry_the_expert_look_ahead_value() -> None:
    """The targets' cubeless equity is the value the players' look-ahead gives the board
    before rolling (best 0-ply play for each of the 21 rolls), for the opening (U-2: all on
    the head) and for positions met later in a game."""
    uzun = variant_by_name("uzun")
    teacher = _teacher()
    start = uzun.start_position()
    later = Position(
        side_from_points({24: 9, 20: 2, 17: 1, 11: 3}), side_from_points({24: 10, 19: 2, 13: 3})
    )
    targets = one_ply_targets(teacher, uzun, [start, later, later.swapped()])
    values = equity(targets, True, uzun.backgammons)
    for value, position in zip(values, [start, later, later.swapped()], strict=True):
        assert value == pytest.approx(roll_equity(teacher, uzun, position), abs=1e-5)
    assert np.all((targets >= 0.0) & (targets <= 1.0))


def test_labelled_chunks_are_reproducible_and_skip_exact_bearoffs(tools) -> None:
    """The same seed gives the same positions; positions where both sides bear off (the
    database's exact domain) are never stored; labels are chances."""
    distill_lookahead, _ = tools
    teacher = _teacher()
    first = distill_lookahead.game_positions(teacher, 3, 4, 0.1)
    again = distill_lookahead.game_positions(teacher, 3, 4, 0.1)
    assert first == again
    assert len(first) > 20
    arrays, games = distill_lookahead.label_chunk(teacher, 11, 10)
    pos, lab = arrays["positions"], arrays["labels"]
    assert games >= 1
    assert len(pos) == len(lab) >= 10
    assert pos.dtype == np.uint8
    assert pos.shape[1:] == (2, 26)
    assert not both_in_bearoff_array(pos.astype(np.float64), True).any()
    assert np.all((lab >= 0.0) & (lab <= 1.0))


def test_a_net_trained_on_one_ply_chunks_records_its_teacher(tools, tmp_path) -> None:
    """``distill_lookahead.py`` writes chunks that ``distill_gnubg.py train`` fits a Uzun
    network to, starting from given weights; the metadata names the teacher and keeps how
    the starting weights were made."""
    distill_lookahead, distill_gnubg = tools
    init = tmp_path / "init.npz"
    start = _teacher().net
    start.meta = {"games": 123, "runs": []}
    start.save(init)
    data = tmp_path / "data"
    assert (
        distill_lookahead.main(
            [
                "--teacher",
                str(init),
                "--dir",
                str(data),
                "--chunk",
                "10",
                "--chunks",
                "1",
                "--seed",
                "2",
            ]
        )
        == 0
    )
    out = tmp_path / "new.npz"
    args = ["train", "--dir", str(data), "--kind", "uzun", "--init", str(init), "--epochs", "2"]
    assert distill_gnubg.main([*args, "--out", str(out)]) == 0
    net = Network.load(out)
    assert net.kind == "uzun"
    assert net.w1.shape == start.w1.shape
    assert net.meta["teacher"] == "init.npz 1-ply"
    assert net.meta["init_meta"]["games"] == 123
    assert net.meta["label_games"] >= 1
    assert 0.0 <= net.evaluate([variant_by_name("uzun").start_position()])[0][WIN] <= 1.0


def test_widening_keeps_what_the_network_computes(tools) -> None:
    """``train --widen`` starts from the narrower net's exact outputs (new units silent),
    and so does ``--extend uzun2`` (the ``uzun`` net given the 20 more inputs)."""
    _, distill_gnubg = tools
    net = _teacher().net
    uzun = variant_by_name("uzun")
    boards = [uzun.start_position(), _game_positions()[1]]
    before = net.evaluate(boards)
    distill_gnubg.widen(net, 20, seed=1)
    assert net.w1.shape[0] == 20
    assert net.evaluate(boards) == pytest.approx(before, abs=1e-6)
    distill_gnubg.extend(net, "uzun2")
    assert net.kind == "uzun2"
    assert net.w1.shape[1] == 230
    assert net.evaluate(boards) == pytest.approx(before, abs=1e-6)


def test_shipped_uzun_net_says_how_it_was_made() -> None:
    """The shipped Uzun net records its making: TD self-play (the starting weights' games
    and schedule), then two rounds of fitting to a net's own 1-ply values, each round's
    teacher shipped beside it (the first round's as ``uzun-round1.npz``)."""
    from core.ai.network import WEIGHTS_DIR

    net = Network.load(WEIGHTS_DIR / "uzun.npz")
    round1 = Network.load(WEIGHTS_DIR / "uzun-round1.npz")
    selfplay = Network.load(WEIGHTS_DIR / "uzun-selfplay.npz")
    assert net.kind == round1.kind == selfplay.kind == "uzun"
    assert net.meta["teacher"] == "uzun.npz 1-ply"  # the first round's file name then
    assert net.meta["label_games"] == 833
    assert net.meta["init_meta"] == round1.meta
    assert round1.meta["label_games"] == 213
    assert round1.meta["init_meta"]["games"] == selfplay.meta["games"] == 41215
    assert net.meta["positions"] > round1.meta["positions"] > 0


def test_keeping_a_share_of_turns_stores_a_subset_of_the_same_game(tools) -> None:
    """With ``keep`` below 1 the same game is played (its dice and choices do not depend on
    ``keep``) and only some turns' positions are stored, in the same order."""
    distill_lookahead, _ = tools
    teacher = _teacher()
    every = distill_lookahead.game_positions(teacher, 3, 4, 0.1)
    some = distill_lookahead.game_positions(teacher, 3, 4, 0.1, keep=0.3)
    assert 0 < len(some) < len(every) / 2
    rest = iter(every)
    assert all(any(p == q for q in rest) for p in some)  # an ordered subsequence
    assert distill_lookahead.game_positions(teacher, 3, 4, 0.1, keep=0.3) == some


def _game_positions() -> list[Position]:
    """The opening, a middle game, a bear-off with contact gone, and their mirror images."""
    uzun = variant_by_name("uzun")
    later = Position(
        side_from_points({24: 9, 20: 2, 17: 1, 11: 3}), side_from_points({24: 10, 19: 2, 13: 3})
    )
    home = Position(side_from_points({1: 2, 3: 4, 9: 2}), side_from_points({2: 3, 5: 5, 11: 1}))
    boards = [uzun.start_position(), later, home]
    return boards + [b.swapped() for b in boards]


def test_one_ply_targets_are_those_built_play_by_play() -> None:
    """The targets built on the boards alone are the five chances the play-by-play
    reference gives (the best 0-ply play of each roll), not only their equity."""
    uzun = variant_by_name("uzun")
    positions = _game_positions()
    teacher = _teacher()
    assert one_ply_targets(teacher, uzun, positions) == pytest.approx(
        one_ply_targets_reference(teacher, uzun, positions), abs=1e-6
    )


@pytest.mark.parametrize("reduced", [False, True])
def test_two_ply_targets_value_the_chosen_plays_one_ply_deeper(reduced: bool) -> None:
    """Two rolls deep: for each roll the side on roll's best 0-ply play, valued by the
    other side's 1-ply targets turned back (reduced: a third of the answering rolls,
    ``k % 3, k % 3 + 3, ...`` after roll ``k``, their weights scaled to one)."""
    uzun = variant_by_name("uzun")
    teacher = _teacher()
    positions = _game_positions()[:2]
    got = two_ply_targets(teacher, uzun, positions, reduced=reduced)
    for target, position in zip(got, positions, strict=True):
        expected = np.zeros(5)
        for k, (weight, roll) in enumerate(zip(ROLL_WEIGHTS, ROLLS, strict=True)):
            plays = legal_plays(uzun, position, roll, first_turn(uzun, position))
            afters = [p.after.swapped() for p in plays] or [position.swapped()]
            eqs = -equity(teacher.evaluate(afters), True, False)
            after = afters[int(np.argmax(eqs))]
            answers = range(k % 3, 21, 3) if reduced else range(21)
            total = sum(ROLL_WEIGHTS[j] for j in answers)
            theirs = np.zeros(5)
            for j in answers:
                answer = legal_plays(uzun, after, ROLLS[j], first_turn(uzun, after))
                boards = [p.after.swapped() for p in answer] or [after.swapped()]
                outs = teacher.evaluate(boards)
                theirs += (
                    ROLL_WEIGHTS[j] / total * flip(outs[int(np.argmin(equity(outs, True, False)))])
                )
            expected += weight * flip(theirs)
        assert target == pytest.approx(expected, abs=1e-6)


def test_a_game_record_keeps_each_positions_result_from_its_side_on_roll(tools) -> None:
    """The record says which positions were met in the game and the game's result from
    each position's side on roll: the sides alternate ply by ply, so positions an odd
    number of plies apart carry flipped results, and the board after another play of a
    roll (the other side on roll) carries the result of the next position met."""
    distill_lookahead, _ = tools
    record = distill_lookahead.game_record(_teacher(), 3, 4, 0.1)
    assert len(record.positions) == len(record.met) == len(record.plies) == len(record.results)
    results = np.array(record.results)
    assert {tuple(r) for r in results} <= {
        (1, 1, 0, 0, 0),
        (0, 0, 0, 1, 0),
        (1, 0, 0, 0, 0),
        (0, 0, 0, 0, 0),
    }
    first = next(i for i, m in enumerate(record.met) if m)
    for ply, met, result in zip(record.plies, record.met, results, strict=True):
        expected = results[first] if (ply - record.plies[first]) % 2 == 0 else flip(results[first])
        assert result == pytest.approx(expected), (ply, met)
    assert not all(record.met)


def test_lambda_returns_mix_the_games_outcome_into_greedy_games_labels(tools) -> None:
    """Going back from the end of a greedy game, each met position's target is half its
    label and half the next one's target (turned to its side), the last one's next being
    the game's result; positions of games with random plays, and boards after other plays,
    keep their labels."""
    _, distill_gnubg = tools
    labels = np.full((5, 5), 0.5)
    labels[:, 2:] = 0.0
    met = np.array([True, True, False, True, True])
    game = np.array([3, 3, 3, 3, 0])
    ply = np.array([0, 1, 2, 2, 0])
    win, loss = [1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]
    result = np.array([win, loss, loss, win, win])
    out = distill_gnubg.lambda_returns(labels, met, game, ply, result, 0.5)
    # Ply 2: 0.5 * 0.5 + 0.5 * 1 = 0.75; ply 1: 0.5 * 0.5 + 0.5 * 0.25 = 0.375; ply 0:
    # 0.5 * 0.5 + 0.5 * 0.625 = 0.5625 (win chances, each from its side on roll).
    assert out[[3, 1, 0], WIN] == pytest.approx([0.75, 0.375, 0.5625])
    assert out[2] == pytest.approx(labels[2])
    assert out[4] == pytest.approx(labels[4])


def test_lambda_returns_start_afresh_after_a_random_play(tools) -> None:
    """With the random plays recorded, every game counts, but a position followed by a
    random play before the next position met keeps its own label: what followed is not
    the teacher's play."""
    _, distill_gnubg = tools
    labels = np.full((3, 5), 0.5)
    labels[:, 2:] = 0.0
    met = np.array([True, True, True])
    game = np.array([0, 0, 0])
    ply = np.array([0, 1, 2])
    win = [1.0, 0.0, 0.0, 0.0, 0.0]
    result = np.array([win, [0.0] * 5, win])
    randoms_after = np.array([1, 0, 0])  # the play at ply 0 was random
    out = distill_gnubg.lambda_returns(labels, met, game, ply, result, 0.5, randoms_after)
    assert out[[2, 1], WIN] == pytest.approx([0.75, 0.375])
    assert out[0] == pytest.approx(labels[0])


def test_game_records_count_the_random_plays_after_each_position(tools) -> None:
    """``randoms_after`` falls along the game, by one at each random play; a game of the
    teacher's choices alone has none."""
    distill_lookahead, _ = tools
    greedy = distill_lookahead.game_record(_teacher(), 3, 4, 0.0)
    assert set(greedy.randoms_after) == {0}
    wild = distill_lookahead.game_record(_teacher(), 3, 4, 0.5)
    met = [r for r, m in zip(wild.randoms_after, wild.met, strict=True) if m]
    assert met[0] > 0
    assert all(a >= b for a, b in itertools.pairwise(met))


def test_third_round_net_says_how_it_was_made() -> None:
    """``uzun-round3.npz`` (the fourth round's teacher) was fitted, from the shipped second round's net, to
    that net's 1-ply labels of 1,327 self-play games (docs/computer.md)."""
    from core.ai.network import WEIGHTS_DIR

    net = Network.load(WEIGHTS_DIR / "uzun-round3.npz")
    assert net.kind == "uzun"
    assert net.w1.shape == (64, 210)
    assert net.meta["teacher"] == "uzun.npz 1-ply"
    assert net.meta["init"] == "core/ai/weights/uzun.npz"
    assert net.meta["label_games"] == 1327


def test_fourth_round_net_says_how_it_was_made() -> None:
    """``uzun-round4.npz`` (Uzun's club) was fitted, from the third round's net, to that net's
    look-ahead, two rolls deep where the chunk had it (docs/computer.md)."""
    from core.ai.network import WEIGHTS_DIR

    net = Network.load(WEIGHTS_DIR / "uzun-round4.npz")
    assert net.kind == "uzun"
    assert net.w1.shape == (64, 210)
    assert net.meta["teacher"] == "uzun-round3.npz 1-ply"
    assert net.meta["init"] == "core/ai/weights/uzun-round3.npz"
    assert net.meta["deep_labels"] is True
    assert net.meta["label_games"] == 2499


def test_self_play_net_says_how_it_was_made() -> None:
    """``uzun-round4-td.npz`` (the fifth round's teacher) is the fourth round's net
    trained on by 18,673 games of TD(lambda) self-play at a small step (docs/computer.md),
    with the fourth round's making kept."""
    from core.ai.network import WEIGHTS_DIR

    net = Network.load(WEIGHTS_DIR / "uzun-round4-td.npz")
    round4 = Network.load(WEIGHTS_DIR / "uzun-round4.npz")
    assert net.kind == "uzun"
    assert net.w1.shape == round4.w1.shape
    assert net.meta["trained_by"] == "tools/train_td.py"
    assert net.meta["init"] == "core/ai/weights/uzun-round4.npz"
    assert net.meta["init_meta"] == round4.meta
    assert net.meta["runs"] == [{"from": 0, "to": 18673, "alpha": 0.01, "lambda": 0.7}]
    assert net.meta["seed"] == 4
    assert not np.array_equal(net.w1, round4.w1)


@pytest.mark.parametrize(
    ("net_name", "teacher_name", "games", "chunks"),
    [
        ("uzun-round5", "uzun-round4-td", 2544, "chunk_1_uzun-round4-td_9"),
        ("uzun-round6", "uzun-round5", 2550, "chunk_1_uzun-round5_10"),
    ],
)
def test_later_rounds_nets_say_how_they_were_made(
    net_name: str, teacher_name: str, games: int, chunks: str
) -> None:
    """The fifth round's net (the sixth's teacher) and the sixth's (Uzun's club, expert and
    master) were each fitted, from their teacher, to that net's look-ahead of their games,
    two rolls deep where the chunk had it (docs/computer.md), the teacher's making kept."""
    from core.ai.network import WEIGHTS_DIR

    net = Network.load(WEIGHTS_DIR / f"{net_name}.npz")
    teacher = Network.load(WEIGHTS_DIR / f"{teacher_name}.npz")
    assert net.kind == "uzun"
    assert net.w1.shape == teacher.w1.shape
    assert net.meta["teacher"] == f"{teacher_name}.npz 1-ply"
    assert net.meta["init"] == f"core/ai/weights/{teacher_name}.npz"
    assert net.meta["init_meta"] == teacher.meta
    assert net.meta["deep_labels"] is True
    assert net.meta["label_games"] == games
    assert net.meta["data"] == [chunks]


def test_parts_fill_one_folder_with_the_chunks_of_one_process(tools, tmp_path, capsys) -> None:
    """``--part 0/2`` and ``--part 1/2`` make every other chunk each, and together the same
    chunks, with the same positions, as one process; a bad part is refused."""
    distill_lookahead, _ = tools
    init = tmp_path / "init.npz"
    _teacher().net.save(init)

    def label(folder: Path, *extra: str) -> list[str]:
        args = ["--teacher", str(init), "--dir", str(folder), "--chunk", "6"]
        assert distill_lookahead.main([*args, "--chunks", "3", "--seed", "4", *extra]) == 0
        return sorted(p.name for p in folder.glob("chunk_*.npz"))

    whole = label(tmp_path / "one")
    assert label(tmp_path / "parts", "--part", "1/2") == [whole[1]]
    assert label(tmp_path / "parts", "--part", "0/2") == whole
    for name in whole:
        with np.load(tmp_path / "one" / name) as a, np.load(tmp_path / "parts" / name) as b:
            assert np.array_equal(a["positions"], b["positions"])
            assert np.array_equal(a["labels"], b["labels"])
    for bad in ("2/2", "1", "a/2", "-1/2", "1/0"):
        with pytest.raises(SystemExit):
            distill_lookahead.main(
                ["--dir", str(tmp_path / "bad"), "--chunks", "1", f"--part={bad}"]
            )
        assert "want I/N" in capsys.readouterr().err
