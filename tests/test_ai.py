"""Tests of the computer players (core/ai): legality, pubeval, networks, cube, CLI, levels."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.ai import CubeState, RandomPlayer, player_for
from core.ai.bearoff import bearoff_database
from core.ai.cube import double_decision, match_equity, take_decision
from core.ai.lookahead import one_ply, two_ply
from core.ai.network import Network, equity, flip
from core.ai.players import HeuristicUzunPlayer, NeuralPlayer
from core.ai.pubeval import PubevalPlayer, is_race, score
from core.ai.race import BearoffEvaluator, race_outputs_array
from core.ai.sim import play_game
from core.dice import RandomDice
from core.gnubg import position_from_id, position_id
from core.movegen import legal_plays
from core.position import Position
from core.variants import variant_by_name
from tests.ai_reference import roll_equity

ROOT = Path(__file__).resolve().parent.parent
TAVLA_START = "4HPwATDgc/ABMA"


def _random_positions(variant_name: str, count: int, seed: int) -> list[tuple]:
    """(position, dice, first_turn) samples met along random games, plays never empty."""
    variant = variant_by_name(variant_name)
    rng = random.Random(seed)
    samples = []
    while len(samples) < count:
        side = variant.start_position()
        first = [True, True]
        seat = 0
        for _ in range(400):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            plays = legal_plays(variant, side, dice, first[seat])
            if plays and rng.random() < 0.15:
                samples.append((side, dice, first[seat]))
            first[seat] = False
            if not plays:
                side = side.swapped()
            else:
                after = rng.choice(plays).after
                if after.mover[0] == 15:
                    break
                side = after.swapped()
            seat = 1 - seat
    return samples[:count]


def _fresh(kind: str) -> Network:
    return Network.fresh(kind, 16, seed=3)


def _players(variant_name: str) -> list:
    kind = "uzun" if variant_name == "uzun" else "tavla"
    players = [
        RandomPlayer(seed=1),
        NeuralPlayer(_fresh(kind), name="club"),
        NeuralPlayer(_fresh(kind), noise=0.3, seed=2, name="beginner"),
        NeuralPlayer(_fresh(kind), plies=1, name="expert"),
    ]
    players += [player_for(variant_name, level, seed=4) for level in ("beginner", "club")]
    if kind == "uzun":
        players.append(HeuristicUzunPlayer())
    else:
        players.append(PubevalPlayer())
    return players


@pytest.mark.parametrize("variant_name", ["tavla", "turkish", "uzun"])
def test_every_player_returns_a_legal_play(variant_name: str) -> None:
    variant = variant_by_name(variant_name)
    players = _players(variant_name)
    for i, (side, dice, first) in enumerate(_random_positions(variant_name, 24, seed=7)):
        plays = legal_plays(variant, side, dice, first)
        for player in players:
            if player.name == "expert" and i % 4:
                continue  # the look-ahead is slower; a quarter of the positions suffice
            assert player.choose_play(variant, side, plays) in plays


def test_single_play_and_no_play_positions() -> None:
    variant = variant_by_name("tavla")
    # One checker left on the 1-point: every roll has exactly one play (bear it off).
    last = Position.from_points({1: 1}, {24: 2, 13: 5})
    plays = legal_plays(variant, last, (6, 5))
    assert len(plays) == 1
    for player in [*_players("tavla"), player_for("tavla", "expert")]:
        assert player.choose_play(variant, last, plays) is plays[0]
    # Dancing on a closed board: no play; a game simulation passes the turn.
    closed = Position.from_points({1: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}, mover_bar=2)
    assert legal_plays(variant, closed, (6, 6)) == []


def test_pubeval_scores_are_fixed() -> None:
    start = variant_by_name("tavla").start_position()
    assert not is_race(start)
    assert score(False, start) == pytest.approx(6.84055, abs=1e-6)
    assert score(True, start) == pytest.approx(9.93903, abs=1e-6)
    race = Position.from_points({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5})
    assert is_race(race)
    variant = variant_by_name("tavla")
    plays = legal_plays(variant, race, (6, 5))
    chosen = PubevalPlayer().choose_play(variant, race, plays)
    assert chosen.after == PubevalPlayer().choose_play(variant, race, list(reversed(plays))).after


@pytest.mark.parametrize("kind", ["tavla", "uzun"])
def test_network_outputs_are_consistent_probabilities(kind: str) -> None:
    variant_name = "uzun" if kind == "uzun" else "tavla"
    positions = [s for s, _, _ in _random_positions(variant_name, 30, seed=11)]
    nets = [Network.fresh(kind, 8, seed=s) for s in range(3)]
    from core.ai.network import shipped_network

    if shipped_network(kind) is not None:
        nets.append(shipped_network(kind))
    for net in nets:
        out = net.evaluate(positions)
        assert out.shape == (len(positions), 5)
        assert np.all((out >= 0) & (out <= 1))
        assert np.all(out[:, 1] <= out[:, 0] + 1e-12)  # gammon <= win
        assert np.all(out[:, 2] <= out[:, 1] + 1e-12)
        assert np.all(out[:, 3] <= 1 - out[:, 0] + 1e-12)  # lose gammon <= lose
        assert np.all(out[:, 4] <= out[:, 3] + 1e-12)
        # Flipping twice gives the outputs back; equity flips sign.
        assert np.allclose(flip(flip(out)), out)
        assert np.allclose(equity(flip(out)), -equity(out))


def test_weights_round_trip(tmp_path: Path) -> None:
    net = Network.fresh("tavla", 12, seed=5)
    net.meta["games"] = 123
    path = tmp_path / "net.npz"
    net.save(path)
    back = Network.load(path)
    assert back.kind == "tavla"
    assert back.meta["games"] == 123
    start = variant_by_name("tavla").start_position()
    assert np.allclose(back.evaluate([start]), net.evaluate([start]), atol=1e-5)


def test_match_equity_table() -> None:
    assert match_equity(1, 1) == 0.5
    assert match_equity(2, 4) == pytest.approx(0.6687)
    assert match_equity(4, 2) == pytest.approx(1 - 0.6687, abs=1e-4)
    assert match_equity(1, 2, post_crawford=True) == pytest.approx(1 - 0.48803)
    assert match_equity(0, 3) == 1.0
    assert match_equity(3, 0) == 0.0


def _out(win: float, win_gammon: float = 0.0, lose_gammon: float = 0.0) -> np.ndarray:
    return np.array([win, win_gammon, 0.0, lose_gammon, 0.0])


def test_money_cube_thresholds() -> None:
    money = CubeState()
    assert not double_decision(_out(0.55), money)
    # Without gammons the window (tuned against gnubg) runs from 74% to the pass at 77%.
    assert not double_decision(_out(0.72), money)  # a take far from a pass: wait
    assert not double_decision(_out(0.739), money)  # just outside the window
    assert double_decision(_out(0.741), money)  # in the window, a take
    assert double_decision(_out(0.75), money)
    assert double_decision(_out(0.85), money)  # a pass: cash it
    assert take_decision(_out(0.30), money)
    assert take_decision(_out(0.235), money)  # cube ownership is worth a little (23%)
    assert not take_decision(_out(0.15), money)
    # Lots of gammons: too good to double; with gammons at stake a take needs more.
    assert not double_decision(_out(0.85, win_gammon=0.6), money)
    assert not take_decision(_out(0.27, lose_gammon=0.25), money)


def test_cube_respects_ownership_crawford_and_jacoby() -> None:
    strong = _out(0.75)
    assert double_decision(strong, CubeState())
    assert not double_decision(strong, CubeState(value=2, owner=-1))  # their cube
    assert double_decision(strong, CubeState(value=2, owner=1))
    assert not double_decision(strong, CubeState(value=64, owner=1))
    # The Crawford game: never; after it the trailer doubles at once.
    crawford = CubeState(match_length=5, my_score=2, opp_score=4, crawford=True)
    assert not double_decision(strong, crawford)
    post = CubeState(match_length=5, my_score=2, opp_score=4)
    assert post.post_crawford
    assert double_decision(_out(0.4), post)
    # The leader never doubles post-Crawford; a 2-cube that already wins the match is dead.
    assert not double_decision(strong, post.swapped())
    assert not double_decision(strong, CubeState(value=2, owner=1, match_length=5, my_score=3))
    # Jacoby: with a centred cube gammons don't count, so a gammonish position is cashed.
    gammonish = _out(0.85, win_gammon=0.6)
    assert not double_decision(gammonish, CubeState())
    assert double_decision(gammonish, CubeState(jacoby=True))


def test_match_take_uses_score() -> None:
    # At 2-away/2-away a take needs only about 30% in a gammonless game (cube dead for
    # the taker); at -1/-2 post-Crawford the trailer's double is always taken by ~50%.
    two_two = CubeState(match_length=5, my_score=3, opp_score=3)
    assert take_decision(_out(0.35), two_two)
    assert not take_decision(_out(0.2), two_two)


def test_neural_cube_interface() -> None:
    variant = variant_by_name("tavla")
    start = variant.start_position()
    player = NeuralPlayer(_fresh("tavla"))
    assert isinstance(player.should_double(variant, start), bool)
    assert isinstance(player.should_take(variant, start, CubeState()), bool)
    uzun = variant_by_name("uzun")
    assert not player.should_double(uzun, uzun.start_position())
    assert player.should_take(uzun, uzun.start_position())
    # The random player still answers the old two-argument calls.
    assert RandomPlayer().should_double(variant, start) is False
    assert RandomPlayer().should_take(variant, start) is True


def test_player_for_levels() -> None:
    assert player_for("tavla", "random").name == "random"
    assert player_for("uzun", "heuristic").name == "heuristic"
    assert player_for("tavla", "pubeval").name == "pubeval"
    for variant_name in ("tavla", "turkish", "uzun"):
        for level in ("beginner", "club", "expert", "master"):
            player = player_for(variant_name, level)
            assert callable(player.choose_play)
    from core.ai.network import shipped_network

    if shipped_network("tavla") is not None:
        assert isinstance(player_for("tavla", "club"), NeuralPlayer)
        assert player_for("tavla", "expert").plies == 1
        # Above beginner the net is wrapped by the bear-off database; beginner plays it bare.
        assert player_for("turkish", "club").net.net is shipped_network("tavla")
        assert player_for("tavla", "beginner").net is shipped_network("tavla")
    with pytest.raises(ValueError, match="unknown level"):
        player_for("tavla", "grandmaster")


def test_uzun_levels_play_their_rounds_nets() -> None:
    """Uzun's beginner plays ``uzun-round1``, club, expert and master the stronger
    ``uzun-round6``, the analysis the game's net; a given net replaces each."""
    from core.ai.network import shipped_network

    game_net = shipped_network("uzun")
    round1, strong = shipped_network("uzun-round1"), shipped_network("uzun-round6")
    if game_net is None or round1 is None or strong is None:
        pytest.skip("no shipped weights")
    assert len({id(game_net), id(round1), id(strong)}) == 3
    assert player_for("uzun", "club").net.net is strong
    assert player_for("uzun", "beginner").net is round1
    for level in ("expert", "master"):
        assert player_for("uzun", level).net.net is strong
    from core.analysis.evaluators import evaluator_for
    from core.variants import variant_by_name

    assert evaluator_for(variant_by_name("uzun")).net is game_net  # type: ignore[attr-defined]
    # Tavla and Turkish levels all play the Tavla net.
    assert player_for("turkish", "club").net.net is shipped_network("tavla")
    given = _fresh("uzun")
    assert player_for("uzun", "club", net=given).net.net is given
    assert player_for("uzun", "beginner", net=given).net is given


def test_tavla_own_master_plays_the_wide_net() -> None:
    """Tavla's master without gnubg plays ``tavla-256`` (fitted to twice the gnubg data,
    then trained on); Tavla's other levels, every Turkish level, gnubg's cube and the
    analysis keep the game's net, and a given net replaces it."""
    from core.ai.network import shipped_network

    game_net, wide = shipped_network("tavla"), shipped_network("tavla-256")
    if game_net is None:
        pytest.skip("no shipped weights")
    assert wide is not None
    assert wide is not game_net
    assert wide.w1.shape[0] == 256
    assert wide.meta["teacher"] == "gnubg 0-ply cubeless"
    # Trained on past its first fit (0.0504 from gnubg's equity on the held-out positions).
    assert wide.meta["init_meta"]["held_equity_rmse"] == 0.0504
    assert wide.meta["held_equity_rmse"] < 0.0504
    assert player_for("tavla", "master", use_gnubg=False).net.net is wide
    assert player_for("tavla", "club").net.net is game_net
    assert player_for("tavla", "expert").net.net is game_net
    assert player_for("tavla", "beginner").net is game_net
    assert player_for("turkish", "master").net.net is game_net
    gnubg_master = player_for("tavla", "master")
    if hasattr(gnubg_master, "cube_player"):
        assert gnubg_master.cube_player.net.net is game_net
    from core.analysis.evaluators import evaluator_for
    from core.variants import variant_by_name

    analysis = evaluator_for(variant_by_name("tavla"), "network")
    assert analysis.net is game_net  # type: ignore[attr-defined]
    given = _fresh("tavla")
    assert player_for("tavla", "master", net=given, use_gnubg=False).net.net is given


def test_a_level_whose_net_is_missing_plays_the_games_net(monkeypatch) -> None:
    from core.ai import LEVEL_NETS
    from core.ai.network import shipped_network

    if shipped_network("uzun") is None:
        pytest.skip("no shipped weights")
    monkeypatch.setitem(LEVEL_NETS, ("uzun", "club"), "no-such-net")
    assert player_for("uzun", "club").net.net is shipped_network("uzun")


def _bearoff_players(variant_name: str) -> list[NeuralPlayer]:
    # An untrained net: any good bear-off play must come from the database.
    kind = "uzun" if variant_name == "uzun" else "tavla"
    net = BearoffEvaluator(_fresh(kind))
    return [NeuralPlayer(net, name="club"), NeuralPlayer(net, plies=1, name="expert")]


@pytest.mark.parametrize("variant_name", ["tavla", "turkish", "uzun"])
def test_bearoff_plays_come_from_the_database(variant_name: str) -> None:
    """T-6 / U-8: in a race, bear-offs are played by the one-sided database."""
    variant = variant_by_name(variant_name)
    db = bearoff_database()
    players = _bearoff_players(variant_name)
    # The opponent is still on its way home, on its points 7..12, past all my checkers:
    # the play needing the fewest rolls on average is the best one.
    far = {7: 5, 10: 5, 12: 5}
    rng = random.Random(11)
    checked = 0
    for _ in range(60):
        home = {p: rng.randint(0, 2) for p in range(1, 7)}
        pos = Position.from_points(home, far)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(variant, pos, dice, False)
        best = min(db.expected_rolls(p.after.mover[1:7]) for p in plays)
        for player in players:
            chosen = player.choose_play(variant, pos, plays)
            assert db.expected_rolls(chosen.after.mover[1:7]) == pytest.approx(best)
        checked += len({db.expected_rolls(p.after.mover[1:7]) for p in plays}) > 1
    assert checked >= 20  # most of these rolls had a wrong choice to avoid
    # Both sides home: the play leaving the opponent the lowest chances from the database.
    for _ in range(30):
        pos = Position.from_points(
            {p: rng.randint(0, 2) for p in range(1, 7)}, {p: rng.randint(0, 2) for p in range(1, 7)}
        )
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = [p for p in legal_plays(variant, pos, dice, False) if p.after.mover[0] < 15]
        if len(plays) < 2:
            continue
        arr = np.array([p.after.swapped() for p in plays], dtype=np.float64)
        theirs = equity(race_outputs_array(arr, db), True, variant.backgammons)
        chosen = players[0].choose_play(variant, pos, plays)
        assert theirs[plays.index(chosen)] == pytest.approx(theirs.min())


def test_race_cube_from_the_database() -> None:
    tavla = variant_by_name("tavla")
    club = _bearoff_players("tavla")[0]
    # One checker on my 1-point against two on their 6-point: I win for sure, with no
    # gammon: I double and the opponent (asked from its side) passes.
    sure = Position.from_points({1: 1}, {6: 2})
    assert club.should_double(tavla, sure)
    assert not club.should_take(tavla, sure.swapped())
    # Four checkers each on the 6-, 5- and 4-points, I am on roll: about 60%, no gammons:
    # no double yet, and a clear take.
    close = Position.from_points({6: 4, 5: 4, 4: 4}, {6: 4, 5: 4, 4: 4})
    win = race_outputs_array(np.array([close], dtype=np.float64))[0][0]
    assert 0.55 < win < 0.7
    assert not club.should_double(tavla, close)
    assert club.should_take(tavla, close.swapped())


def test_deeper_searches_agree_with_an_exact_bearoff() -> None:
    """With both sides bearing off (T-6) the database's chances are exact, so looking one
    or two rolls deeper must give back about the same equity (not to the last digit: the
    database plays for the fewest rolls, the search for the best equity)."""
    tavla = variant_by_name("tavla")
    ev = BearoffEvaluator(_fresh("tavla"))

    def value(outs: np.ndarray) -> np.ndarray:
        return equity(outs, True, tavla.backgammons)

    for mine, theirs in [
        ({6: 3, 5: 3, 4: 3}, {6: 3, 5: 3, 4: 3}),
        ({6: 2, 3: 2, 1: 3}, {5: 4, 2: 4}),
        ({6: 5, 5: 5, 4: 5}, {6: 3, 5: 3, 4: 3, 3: 3}),
    ]:
        after = Position.from_points(mine, theirs)  # my move made, the opponent to roll
        zero = -float(equity(ev.evaluate([after.swapped()]), True, False)[0])
        assert one_ply(ev, tavla, after, value, float) == pytest.approx(zero, abs=1e-3)
        assert -roll_equity(ev, tavla, after.swapped()) == pytest.approx(zero, abs=1e-3)
        # The reduced 2-ply samples a third of the second rolls: close, not equal.
        assert two_ply(ev, tavla, after, value, float) == pytest.approx(zero, abs=0.02)


@pytest.mark.parametrize("variant_name", ["turkish", "uzun"])
def test_master_level_looks_two_rolls_deep(variant_name: str) -> None:
    from core.ai.network import shipped_network

    variant = variant_by_name(variant_name)
    master = player_for(variant_name, "master")
    if shipped_network("uzun" if variant_name == "uzun" else "tavla") is None:
        pytest.skip("no shipped weights")
    assert isinstance(master, NeuralPlayer)
    assert master.deep >= 2
    assert master.plies == 1
    for side, dice, first in _random_positions(variant_name, 3, seed=21):
        plays = legal_plays(variant, side, dice, first)
        assert master.choose_play(variant, side, plays) in plays
    start = variant.start_position()
    assert master.should_double(variant, start) is False  # no cube in these games
    assert master.should_take(variant, start) is True


def test_heuristic_uzun_beats_random() -> None:
    variant = variant_by_name("uzun")
    heuristic, rand = HeuristicUzunPlayer(), RandomPlayer(seed=5)
    wins = 0
    for g in range(10):
        seat = g % 2
        players = [heuristic, rand] if seat == 0 else [rand, heuristic]
        record = play_game(variant, players, RandomDice(100 + g))
        wins += record.winner == seat
    assert wins >= 9


def test_cli_ai_answers_each_line_at_once() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "core", "ai", "--variant", "tavla", "--level", "club", "--jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdin
    assert proc.stdout
    try:
        variant = variant_by_name("tavla")
        start = position_from_id(TAVLA_START)
        for dice in ([3, 1], [6, 6], [2, 1]):
            # One line in, one answer out, before the next line is written: it flushes.
            proc.stdin.write(json.dumps({"position": TAVLA_START, "dice": dice}) + "\n")
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline())
            assert answer["position"] == TAVLA_START
            assert answer["dice"] == dice
            afters = {position_id(p.after) for p in legal_plays(variant, start, tuple(dice))}
            assert answer["after"] in afters
            assert answer["play"]
        proc.stdin.write(json.dumps({"position": TAVLA_START, "cube": True}) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        assert set(answer) == {"position", "double", "take"}
        assert answer["double"] is False
        assert answer["take"] is True
        proc.stdin.write('{"position": "nonsense", "dice": [1, 2]}\n')
        proc.stdin.flush()
        assert "error" in json.loads(proc.stdout.readline())
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_cli_ai_uzun_first_turn() -> None:
    uzun = variant_by_name("uzun")
    pid = position_id(uzun.start_position())
    lines = "".join(
        json.dumps({"position": pid, "dice": d, "first_turn": True}) + "\n"
        for d in ([6, 6], [3, 1])
    )
    out = subprocess.run(
        [sys.executable, "-m", "core", "ai", "--variant", "uzun", "--level", "beginner", "--jsonl"],
        input=lines,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout.splitlines()
    answers = [json.loads(line) for line in out]
    assert [a["dice"] for a in answers] == [[6, 6], [3, 1]]
    assert answers[0]["play"] == "24/18(2)"


def test_td_self_play_game_learns_and_resumes(tmp_path: Path) -> None:
    from core.ai.td import TDTrainer

    net = Network.fresh("uzun", 8, seed=1)
    before = net.w1.copy()
    winner, points = TDTrainer(net, alpha=0.1, lam=0.7).play_game(
        variant_by_name("uzun"), RandomDice(9)
    )
    assert winner in (0, 1)
    assert points in (1, 2)
    assert not np.allclose(before, net.w1)
    out = subprocess.run(
        [
            sys.executable,
            "tools/train_td.py",
            "--variant",
            "uzun",
            "--games",
            "2",
            "--hidden",
            "8",
            "--out",
            str(tmp_path / "u.npz"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert '"games": 2' in out
    assert Network.load(tmp_path / "u.npz").meta["games"] == 2


def test_td_from_a_given_net_starts_a_new_file_and_keeps_its_making(tmp_path: Path) -> None:
    """``train_td.py --init`` trains a copy of another net by self-play: the new file names
    its start and keeps the start's metadata; the same seed and games give the same weights;
    it refuses to start over a file it would otherwise train on, or a net of another game."""
    start = Network.fresh("uzun", 8, seed=3)
    start.meta = {"teacher": "made for the test"}
    start.save(tmp_path / "start.npz")

    def run(out: str, *extra: str) -> subprocess.CompletedProcess[str]:
        args = ["--variant", "uzun", "--games", "2", "--alpha", "0.05", "--seed", "6", *extra]
        return subprocess.run(
            [sys.executable, "tools/train_td.py", *args, "--out", str(tmp_path / out)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )

    assert run("a.npz", "--init", str(tmp_path / "start.npz")).returncode == 0
    assert run("b.npz", "--init", str(tmp_path / "start.npz")).returncode == 0
    a, b = Network.load(tmp_path / "a.npz"), Network.load(tmp_path / "b.npz")
    assert a.meta["init"] == str(tmp_path / "start.npz")
    assert a.meta["init_meta"]["teacher"] == "made for the test"
    assert a.meta["trained_by"] == "tools/train_td.py"
    assert a.meta["games"] == 2
    assert a.meta["seed"] == 6
    assert np.array_equal(a.w1, b.w1)
    assert not np.array_equal(a.w1, start.w1.astype(np.float32))
    again = run("a.npz", "--init", str(tmp_path / "start.npz"))
    assert again.returncode != 0
    assert "exists" in again.stderr
    assert run("c.npz", "--variant", "tavla", "--init", str(tmp_path / "start.npz")).returncode != 0


def _strength_line(*args: str) -> dict[str, str]:
    """The name=value pairs of ``bench/ai_strength.py``'s last line, run with ``args``."""
    out = subprocess.run(
        [sys.executable, "bench/ai_strength.py", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout.strip()
    return dict(item.split("=", 1) for item in out.splitlines()[-1].split())


def test_bench_ends_with_name_value_line() -> None:
    pairs = _strength_line("--variant", "uzun", "--a", "heuristic", "--b", "random", "--games", "2")
    assert pairs["games"] == "2"
    assert {"ppg", "ci95", "win", "gammon_win", "a_ms", "a_p95_ms"} <= set(pairs)


def test_bench_progress_lines_carry_the_decision_times() -> None:
    """A long bench stopped early still has its figures: each running-score line carries
    the last line's name=value pairs, decision times included."""
    out = subprocess.run(
        [
            *(sys.executable, "bench/ai_strength.py", "--variant", "uzun", "--a", "club"),
            *("--b", "random", "--games", "4", "--progress", "2"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    running = [line for line in out.splitlines() if line.startswith("2 games: ")]
    assert len(running) == 1
    pairs = dict(item.split("=", 1) for item in running[0].removeprefix("2 games: ").split())
    assert pairs["games"] == "2"
    assert {"ppg", "ci95", "win", "a_ms", "a_p95_ms", "b_p95_ms"} <= set(pairs)


def test_bench_filter_replaces_the_levels_look_ahead() -> None:
    """--a-filter gives A's look-ahead the filter named: with one candidate the expert
    plays its best 0-ply play, as club does, so the games are club's; the line says so."""

    def figures(*args: str) -> dict[str, str]:
        match = ["--variant", "uzun", "--b", "club", "--games", "4", "--seed", "3", *args]
        return _strength_line(*match)

    narrowed = figures("--a", "expert", "--a-filter", "1,0.16,0,0.16,0")
    assert narrowed["a_filter"] == "1,0.16,0,0.16,0"
    same = ("ppg", "win", "gammon_win", "gammon_loss")
    club = figures("--a", "club")
    assert {k: narrowed[k] for k in same} == {k: club[k] for k in same}


def test_bench_jobs_play_the_same_games() -> None:
    """--jobs spreads the games over processes; the game numbers fix the dice and the
    seats, so deterministic players give the figures of one process."""

    def figures(*extra: str) -> dict[str, str]:
        match = ["--variant", "uzun", "--a", "club", "--b", "heuristic", "--games", "6"]
        pairs = _strength_line(*match, "--seed", "5", *extra)
        return {k: v for k, v in pairs.items() if not k.endswith("ms")}

    assert figures("--jobs", "2") == figures()


def test_cube_bench_compares_with_the_stored_gnubg_answers() -> None:
    """bench/cube_gnubg.py reads gnubg's stored cube actions (no gnubg needed) and ends
    with a name=value line of agreement figures for the positions it compared."""
    out = subprocess.run(
        [
            sys.executable,
            "bench/cube_gnubg.py",
            "--reference",
            "bench/reference/cube_gnubg_2027.json",
            "--limit",
            "40",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout.strip()
    pairs = dict(item.split("=", 1) for item in out.splitlines()[-1].split())
    assert pairs["positions"] == "40"
    assert 0.0 <= float(pairs["agree"]) <= float(pairs["agree_double"]) <= 1.0


def test_master_level_uses_gnubg_when_installed():
    """The optional gnubg extra: legal plays from core, each board scored by gnubg."""
    pytest.importorskip("gnubg")
    from core.ai import player_for
    from core.ai.gnubg_player import GnubgPlayer
    from core.gnubg import position_from_id
    from core.movegen import legal_plays
    from core.notation import format_play
    from core.variants import variant_by_name

    variant = variant_by_name("tavla")
    master = player_for("tavla", "master")
    assert isinstance(master, GnubgPlayer)
    start = variant.start_position()
    assert (
        format_play(master.choose_play(variant, start, legal_plays(variant, start, (3, 1))))
        == "8/5 6/5"
    )
    # A bear-off that gnubg's own findbestmove would cut short: core's plays, one chosen.
    position = position_from_id("AAD8/wESAAAAAA")
    plays = legal_plays(variant, position, (6, 1))
    assert master.choose_play(variant, position, plays) in plays
    assert not isinstance(player_for("turkish", "master"), GnubgPlayer)
    # Our own look-ahead on request: what a player without the extra meets.
    own = player_for("tavla", "master", use_gnubg=False)
    assert not isinstance(own, GnubgPlayer)
    assert own.name == "master"
