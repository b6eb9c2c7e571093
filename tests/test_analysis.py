"""The analysis (core/analysis): known positions, cube blunders, forced moves, all three
games, the .mat reader and the ``python -m core analyse`` command."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.__main__ import main
from core.ai import player_for
from core.ai.cube import CubeState
from core.ai.gnubg_player import load_gnubg
from core.ai.network import flip, network_kind, shipped_network
from core.analysis import (
    BAD,
    DOUBTFUL,
    VERY_BAD,
    Action,
    MatchAnalysis,
    NetworkEvaluator,
    RecordError,
    Scoring,
    analyse_actions,
    analyse_game,
    analyse_match,
    cube_equities,
    evaluator_for,
    from_histories,
    parse_mat,
    rating,
    skill,
)
from core.analysis.selfplay import play_match
from core.dice import FixedDice, RandomDice
from core.export import export_games
from core.game import Game
from core.gnubg import position_from_id
from core.movegen import legal_plays
from core.position import OFF, Position
from core.variants import Variant, variant_by_name
from tests.gnubg_anchor import compare, gnubg_analyse, gnubg_binary, seeded_matches

VARIANTS = ("tavla", "turkish", "uzun")


def network(variant: Variant) -> NetworkEvaluator:
    net = shipped_network(network_kind(variant.name))
    assert net is not None
    return NetworkEvaluator(net)


class QuickEvaluator(NetworkEvaluator):
    """The network at 0-ply only: the same accounting, far less time (for long games)."""

    def play_values(self, variant, afters, scoring, deep):  # type: ignore[override]
        return super().play_values(variant, afters, scoring, False)


class FlatEvaluator:
    """Every board even (no decision costs anything, nothing is close to a double): for
    tests of the record and its numbering rather than the judgement, in little time."""

    name = "flat"

    def play_values(self, variant, afters, scoring, deep):
        return np.zeros(len(afters))

    def chances(self, variant, position):
        return np.array([0.5, 0.0, 0.0, 0.0, 0.0])

    def outputs_array(self, variant, arr):
        return np.tile(self.chances(variant, None), (len(arr), 1))


def game_at(variant: Variant, position: Position, seat: int = 0) -> Game:
    """A game waiting for ``seat`` to roll (or double) in ``position`` (``seat`` on roll)."""
    game = Game.new(variant, FixedDice([]), opening="winner", starter=seat)
    game.sides[seat], game.sides[1 - seat] = position.mover, position.opponent
    game.played_first_turn = [True, True]
    return game


def plays_of(analysis: MatchAnalysis, player: int) -> list:
    return [d for d in analysis.decisions if d.kind == "play" and d.player == player]


# -- known positions ---------------------------------------------------------------------


@pytest.mark.parametrize("name", VARIANTS)
def test_a_play_that_throws_away_a_won_game_loses_two_points(name: str) -> None:
    """Two checkers left on 4 and 3 and a 4-3 to play; the opponent bears off its last
    checker on any roll. 4/off 3/off wins (+1); 4/1 3/off leaves a checker and loses (-1):
    the loss is exactly 2 in every game (no gammon: the loser has borne off)."""
    variant = variant_by_name(name)
    start = game_at(variant, Position.from_points({4: 1, 3: 1}, {1: 1}))
    actions = [
        Action("roll", 0, (4, 3)),
        Action("play", 0, play="4/1 3/off"),
        Action("roll", 1, (2, 1)),
        Action("play", 1, play="1/off"),
        Action("end", 1, points=1),
    ]
    analysis = analyse_actions(variant, [actions], evaluator=network(variant), start=start)
    [decision] = plays_of(analysis, 0)
    assert decision.loss == pytest.approx(2.0)
    assert decision.best_after is not None
    assert decision.best_after.mover[OFF] == 15
    assert decision.skill.value == "very_bad"
    assert analysis.players[0].very_bad == 1
    assert analysis.players[0].error_per_decision == pytest.approx(
        1000.0 * analysis.players[0].total_loss / analysis.players[0].decisions
    )
    # The opponent's last roll had one legal play: no decision of theirs.
    assert plays_of(analysis, 1) == []


@pytest.mark.parametrize("name", VARIANTS)
def test_the_winning_play_loses_nothing(name: str) -> None:
    variant = variant_by_name(name)
    start = game_at(variant, Position.from_points({4: 1, 3: 1}, {1: 1}))
    actions = [Action("roll", 0, (4, 3)), Action("play", 0, play="4/off 3/off")]
    analysis = analyse_actions(variant, [actions], evaluator=network(variant), start=start)
    [decision] = plays_of(analysis, 0)
    assert decision.loss == 0.0
    assert decision.played == decision.best


def test_forced_moves_and_dances_are_not_decisions() -> None:
    """T-5 / maximum-dice rule: 6-5 with only 24/18 playable (gnubg-checked position), and a
    6-6 against a closed board (no play at all): neither counts for anybody."""
    variant = variant_by_name("tavla")
    start = game_at(variant, position_from_id("fn8AAwD/PwAAIA"))
    actions = [Action("roll", 0, (6, 5)), Action("play", 0, play="24/18")]
    analysis = analyse_actions(variant, [actions], evaluator=network(variant), start=start)
    assert [d for d in analysis.decisions if d.kind == "play"] == []
    dance = game_at(variant, position_from_id("27Y5AADg8+ADQA"))
    analysis = analyse_actions(
        variant,
        [[Action("roll", 0, (6, 6)), Action("pass", 0)]],
        evaluator=network(variant),
        start=dance,
    )
    assert analysis.players[0].checker_decisions == 0


@pytest.mark.parametrize("name", VARIANTS)
def test_a_forced_move_is_no_decision_in_any_game(name: str) -> None:
    """A lone checker far from home with every other one on the 1-point (no bearing off yet,
    rules.md's bear-off rule): each roll has one distinct play. Neither player's forced
    moves count, in errors or in the number of decisions."""
    variant = variant_by_name(name)
    position = Position.from_points({24: 1, 1: 14}, {24: 15} if name == "uzun" else {6: 15})
    assert [str(p) for p in legal_plays(variant, position, (6, 5), False)] == ["24/13"]
    start = game_at(variant, position)
    actions = [Action("roll", 0, (6, 5)), Action("play", 0, play="24/13")]
    analysis = analyse_actions(variant, [actions], evaluator=network(variant), start=start)
    assert [d for d in analysis.decisions if d.kind == "play"] == []
    assert analysis.players[0].checker_decisions == 0
    # Tavla's cube may still be a decision (whether to double before the roll).
    assert analysis.players[0].decisions == analysis.players[0].cube_decisions


def test_a_pass_where_a_play_was_possible_is_refused() -> None:
    variant = variant_by_name("tavla")
    start = game_at(variant, variant.start_position())
    with pytest.raises(RecordError):
        analyse_actions(
            variant,
            [[Action("roll", 0, (3, 1)), Action("pass", 0)]],
            evaluator=network(variant),
            start=start,
        )


def test_a_game_resigned_before_its_first_roll_counts_in_the_result_and_score() -> None:
    """A match whose first game was resigned at once (nothing played: only its end is
    written) still counts that game: in each player's result, and in the score that makes
    the next game the Crawford game (rule M-2)."""
    turkish = variant_by_name("turkish")
    analysis = analyse_actions(
        turkish,
        [
            [Action("end", 1, points=1)],
            [
                Action("roll", 1, (4, 2)),
                Action("play", 1, play="8/4 6/4"),
                Action("end", 1, points=2),
            ],
        ],
        length=3,
        evaluator=FlatEvaluator(),
    )
    assert [p.result for p in analysis.players] == [-3, 3]
    tavla = variant_by_name("tavla")
    crawford_double = [
        Action("roll", 0, (3, 1)),
        Action("play", 0, play="8/5 6/5"),
        Action("double", 1),
    ]
    with pytest.raises(RecordError, match="double"):
        analyse_actions(
            tavla,
            [[Action("end", 1, points=2)], crawford_double],
            length=3,
            evaluator=FlatEvaluator(),
        )


# -- the cube (Tavla) -------------------------------------------------------------------

#: The cube is scored on the chances of each evaluator Tavla may use: the network, and GNU
#: Backgammon 2-ply where the gnubg extra is installed.
CUBE_EVALUATORS = [
    "network",
    pytest.param(
        "gnubg", marks=pytest.mark.skipif(load_gnubg() is None, reason="needs the gnubg extra")
    ),
]


def cube_evaluator(level: str):
    return evaluator_for(variant_by_name("tavla"), level)


@pytest.mark.parametrize("level", CUBE_EVALUATORS)
def test_taking_a_certain_loss_is_a_very_bad_take(level: str) -> None:
    """T-8: the doubler bears off both last checkers on any roll, so a take loses twice the
    stake where a pass loses it once: a wrong take of about one point."""
    variant = variant_by_name("tavla")
    start = game_at(variant, Position.from_points({1: 2}, {6: 1}))
    actions = [
        Action("double", 0),
        Action("take", 1),
        Action("roll", 0, (2, 1)),
        Action("play", 0, play="1/off(2)"),
        Action("end", 0, points=2),
    ]
    analysis = analyse_actions(variant, [actions], evaluator=cube_evaluator(level), start=start)
    take = next(d for d in analysis.decisions if d.played == "take")
    assert take.player == 1
    assert take.best == "pass"
    assert take.loss == pytest.approx(1.0, abs=0.05)
    assert take.skill.value == "very_bad"
    double = next(d for d in analysis.decisions if d.played == "double")
    assert double.loss < DOUBTFUL
    assert analysis.players[1].cube_decisions == 1
    assert analysis.players[0].result == 2
    assert analysis.players[1].result == -2


@pytest.mark.parametrize("level", CUBE_EVALUATORS)
def test_doubling_a_certain_gammon_is_a_wrong_double_of_one_point(level: str) -> None:
    """Too good to double: the doubler bears off both last checkers on any roll while the
    opponent has borne off none (a gammon, 2 points, no Jacoby rule). Doubling lets the
    opponent pass for 1 point: a wrong double that gives away exactly one point (per cube),
    and the pass is right."""
    variant = variant_by_name("tavla")
    start = game_at(variant, Position.from_points({1: 2}, {13: 15}))
    actions = [Action("double", 0), Action("drop", 1), Action("end", 0, points=1)]
    analysis = analyse_actions(variant, [actions], evaluator=cube_evaluator(level), start=start)
    double, drop = analysis.decisions
    assert (double.kind, double.played, double.best) == ("cube", "double", "no double")
    assert double.loss == pytest.approx(1.0, abs=0.01)
    assert double.skill.value == "very_bad"
    assert (drop.played, drop.best, drop.loss) == ("pass", "pass", 0.0)


def test_doubling_at_the_start_and_passing_are_both_blunders() -> None:
    """At the opening position nobody is near a double: the double is wrong (the opponent
    gets a cheap take and the cube), and passing it gives away a point."""
    variant = variant_by_name("tavla")
    start = game_at(variant, variant.start_position())
    actions = [Action("double", 0), Action("drop", 1), Action("end", 0, points=1)]
    analysis = analyse_actions(variant, [actions], evaluator=network(variant), start=start)
    double, drop = analysis.decisions
    assert (double.played, double.best) == ("double", "no double")
    assert (drop.played, drop.best) == ("pass", "take")
    assert double.loss >= BAD
    assert drop.loss >= VERY_BAD


def test_match_equity_decides_a_take_at_the_end_of_a_match() -> None:
    """A take of a 4-cube at 0-0 in a match to 3 decides the match: with 24% to win, passing
    (1-away against 3-away, about 25%) is right by match equity, though money would take."""
    out = np.array([0.76, 0.05, 0.0, 0.02, 0.0])
    state = CubeState(value=2, owner=1, match_length=3)
    eq = cube_equities(out, state)
    assert not eq.should_take
    money = cube_equities(out, CubeState(value=2, owner=1))
    assert money.should_take


# -- scoring --------------------------------------------------------------------------------

outputs = st.tuples(*[st.floats(0.0, 1.0) for _ in range(5)]).map(
    lambda t: np.array(
        [t[0], t[0] * t[1], t[0] * t[1] * t[2], (1 - t[0]) * t[3], (1 - t[0]) * t[3] * t[4]]
    )
)


@settings(max_examples=60, deadline=None)
@given(outputs, st.booleans(), st.integers(0, 6), st.integers(0, 6), st.sampled_from([1, 2, 4]))
def test_scoring_is_zero_sum(out, backgammons, mine, theirs, cube) -> None:
    """An equity seen by the other player is its negative in money play, and in a match
    both players' EMG put winning and losing the cube at +1 and -1."""
    money = Scoring.money(backgammons=backgammons)
    assert money.value(out) == pytest.approx(-money.value(flip(out)), abs=1e-9)
    state = CubeState(value=cube, match_length=7, my_score=mine, opp_score=theirs)
    if state.away[0] > cube and state.away[1] > cube:
        scoring = Scoring.for_cube(state, backgammons=backgammons)
        assert scoring.points(1) == pytest.approx(1.0)
        assert scoring.points(-1) == pytest.approx(-1.0)
        assert scoring.points(2) >= scoring.points(1) >= scoring.points(-1) >= scoring.points(-2)
    eq = cube_equities(out, CubeState(value=1))
    assert eq.double_pass == 1.0
    assert eq.best >= eq.no_double


@given(st.floats(0.0, 2.0))
def test_skill_and_rating_follow_gnubgs_thresholds(loss: float) -> None:
    verdict = skill(loss).value
    assert (verdict == "very_bad") == (loss >= 0.16)
    assert (verdict in ("bad", "very_bad")) == (loss >= 0.08)
    assert (verdict != "") == (loss >= 0.04)
    assert rating(loss / 100) in {
        "Awful!",
        "Beginner",
        "Casual player",
        "Intermediate",
        "Advanced",
        "Expert",
        "World class",
        "Supernatural",
    }


def test_rating_labels() -> None:
    assert rating(0.001) == "Supernatural"
    assert rating(0.004) == "World class"
    assert rating(0.030) == "Beginner"
    assert rating(0.050) == "Awful!"


# -- whole contests -------------------------------------------------------------------------


def selfplay(name: str, length: int, seed: int):
    variant = variant_by_name(name)
    players = [player_for(name, "beginner", seed), player_for(name, "club")]
    return variant, play_match(variant, players, RandomDice(seed), length=length)


def check_accounting(analysis: MatchAnalysis, histories: Sequence[list[dict]], match) -> None:
    """What a reader of the figures relies on, whatever the evaluator thinks."""
    for seat in (0, 1):
        unforced = sum(
            1
            for events in histories
            for e in events
            if e["type"] == "play" and e["seat"] == seat and not e["forced"]
        )
        mine = plays_of(analysis, seat)
        assert len(mine) == unforced
        summary = analysis.players[seat]
        losses = [d.loss for d in analysis.decisions if d.player == seat]
        assert summary.decisions == len(losses)
        assert summary.total_loss == pytest.approx(sum(losses))
        assert summary.very_bad == sum(1 for x in losses if x >= VERY_BAD)
        assert summary.bad == sum(1 for x in losses if BAD <= x < VERY_BAD)
        assert summary.doubtful == sum(1 for x in losses if DOUBTFUL <= x < BAD)
        assert summary.result == match.score[seat] - match.score[1 - seat]
    for d in analysis.decisions:
        assert d.loss >= 0.0
        if d.played == d.best:
            assert d.loss == 0.0
    assert analysis.players[0].luck == pytest.approx(-analysis.players[1].luck)


@pytest.mark.parametrize(("name", "length"), [("tavla", 3), ("turkish", 3), ("uzun", 1)])
def test_every_unforced_play_of_a_match_is_scored(name: str, length: int) -> None:
    variant, (match, histories) = selfplay(name, length, seed=11)
    seen: list[tuple[int, int]] = []
    analysis = analyse_match(
        variant,
        histories,
        length=length,
        evaluator=QuickEvaluator(network(variant).net),
        progress=lambda done, total: seen.append((done, total)),
    )
    check_accounting(analysis, histories, match)
    assert seen[-1][0] == seen[-1][1]
    assert len(seen) > 10
    if not variant.cube:
        assert all(d.kind == "play" for d in analysis.decisions)


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 10_000))
def test_accounting_holds_for_any_seeded_tavla_match(seed: int) -> None:
    variant, (match, histories) = selfplay("tavla", 3, seed)
    evaluator = QuickEvaluator(network(variant).net)
    analysis = analyse_match(variant, histories, length=3, evaluator=evaluator)
    check_accounting(analysis, histories, match)


def test_the_beginner_makes_more_errors_than_the_club_player() -> None:
    variant, (_match, histories) = selfplay("tavla", 1, seed=3)
    analysis = analyse_match(variant, histories, length=1, evaluator=network(variant))
    beginner, club = analysis.players
    assert beginner.error_per_decision > club.error_per_decision


# -- the .mat record and the command line -------------------------------------------------


@pytest.mark.parametrize(("name", "length"), [("tavla", 3), ("turkish", 3), ("uzun", 1)])
def test_mat_export_reads_back_as_the_same_actions(name: str, length: int) -> None:
    _variant, (_match, histories) = selfplay(name, length, seed=5)
    text = export_games(["ayşe", "bob"], length, histories, variant=name)
    record = parse_mat(text)
    assert record.length == length
    assert record.names == ("ayşe", "bob")
    assert record.variant == (None if name == "tavla" else name)
    assert record.games == from_histories(histories)


def test_tavla_export_has_no_variant_line() -> None:
    _variant, (_match, histories) = selfplay("tavla", 1, seed=5)
    assert export_games(["a", "b"], 1, histories).startswith(" 1 point match")


def test_cli_prints_a_line_per_decision_and_a_summary_per_player(tmp_path, capsys) -> None:
    _variant, (_match, histories) = selfplay("tavla", 1, seed=8)
    path = tmp_path / "match.mat"
    path.write_text(export_games(["ayşe", "bob"], 1, histories), encoding="utf-8")
    assert main(["analyse", "--variant", "tavla", str(path), "--level", "network"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    decisions, summaries = lines[:-2], lines[-2:]
    keys = {"game", "move", "player", "kind", "dice", "position", "played", "best", "loss"}
    assert decisions
    assert all(set(d) == keys for d in decisions)
    assert all(d["kind"] in ("play", "cube") and d["loss"] >= 0 for d in decisions)
    for seat, summary in enumerate(summaries):
        assert summary["summary"] is True
        assert summary["player"] == seat
        for key in ("error_per_decision", "pr", "doubtful", "bad", "very_bad", "luck", "rating"):
            assert key in summary
        mine = [d for d in decisions if d["player"] == seat]
        assert summary["very_bad"] == sum(1 for d in mine if d["loss"] >= VERY_BAD)
    assert summaries[0]["name"] == "ayşe"


def test_cli_refuses_a_file_of_another_game(tmp_path, capsys) -> None:
    _variant, (_match, histories) = selfplay("uzun", 1, seed=8)
    path = tmp_path / "match.mat"
    path.write_text(export_games(["a", "b"], 1, histories, variant="uzun"), encoding="utf-8")
    assert main(["analyse", "--variant", "tavla", str(path)]) == 2
    assert "Uzun Tavla match, not Tavla" in capsys.readouterr().err
    path.write_text("not a match\n")
    assert main(["analyse", "--variant", "uzun", str(path)]) == 2


def test_uzun_cli_analyses_with_the_uzun_network(tmp_path, capsys) -> None:
    """U-1..U-9: an Uzun game read from its .mat replays under the head rule (its first 20
    turns, to keep the test short); every decision is a checker play (no cube)."""
    _, (_match, histories) = selfplay("uzun", 1, seed=2)
    path = tmp_path / "uzun.mat"
    opening = [e for e in histories[0] if e["type"] != "end"][:45]
    path.write_text(export_games(["a", "b"], 1, [opening], variant="uzun"), encoding="utf-8")
    assert main(["analyse", "--variant", "uzun", str(path), "--level", "network"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert all(line.get("kind", "play") == "play" for line in lines[:-2])
    assert {line["player"] for line in lines[:-2]} == {0, 1}


# -- the anchor: GNU Backgammon's own analysis ------------------------------------------------


@pytest.mark.skipif(
    gnubg_binary() is None or load_gnubg() is None,
    reason="needs Debian's gnubg program and the gnubg Python extra",
)
def test_analysis_agrees_with_gnubgs_analyse_match() -> None:
    """Two seeded 3-point matches between the computer's levels, analysed by gnubg -t and
    by the project (gnubg 2-ply evaluator, the default for Tavla with the extra): the same
    unforced plays, gnubg's very bad decisions found (>= 85%) and the players' error per
    decision within 20% of gnubg's on average."""
    variant = variant_by_name("tavla")
    pairs = []
    for names, histories, text in seeded_matches(2, 3):
        ours = analyse_match(variant, histories, length=3, names=names)
        theirs = gnubg_analyse(text)
        assert theirs.unforced == tuple(p.checker_decisions for p in ours.players)
        pairs.append((ours, theirs))
    comparison = compare(pairs)
    assert comparison.matched_plays == comparison.gnubg_plays
    assert comparison.overlap >= 0.85
    assert comparison.mean_rate_gap <= 0.20


def test_a_single_game_object_is_analysed_as_a_one_point_match() -> None:
    variant, (match, histories) = selfplay("turkish", 1, seed=13)
    assert match.game is not None
    evaluator = QuickEvaluator(network(variant).net)
    whole = analyse_game(match.game, names=("a", "b"), evaluator=evaluator)
    again = analyse_match(variant, histories, length=1, names=("a", "b"), evaluator=evaluator)
    assert whole.decisions == again.decisions
    assert whole.players == again.players
    check_accounting(whole, histories, match)


@pytest.mark.skipif(load_gnubg() is None, reason="needs the gnubg Python extra")
def test_gnubg_ranks_plays_cubeful_and_looks_at_the_play_made_as_deep() -> None:
    """Tavla plays are ranked as gnubg's analyse match ranks them: cubeful at the cube and
    score, and the play made looked at 2-ply deep even when gnubg's move filters dropped
    it (a dropped play keeps a shallower score, not comparable with the best's)."""
    from core.ai.gnubg_player import gnubg_board
    from core.analysis import GnubgEvaluator
    from core.analysis.evaluators import _after_board
    from core.movegen import legal_plays

    module = load_gnubg()
    evaluator = GnubgEvaluator(module)
    variant = variant_by_name("tavla")
    position = position_from_id("7g4AAHbrGQAUAg")  # a 2-2 with a clear best and poor plays
    dice = (2, 2)
    plays = legal_plays(variant, position, dice, False)
    centred = CubeState(1, 0, 3, 0, 0)
    board = gnubg_board(position)
    info = evaluator.cubeinfo(centred)
    # Every play at 2-ply: the reference for the values at full depth.
    wide = module.find_best_moves(board, info, evaluator._cubeful[2], dice, evaluator._wide_filters)
    deep = {_after_board(board, m["move"]): m["score"] for m in wide}
    keys = [gnubg_board(p.after) for p in plays]
    worst = keys.index(_after_board(board, wide[-1]["move"]))
    again = evaluator.rank_plays(variant, position, dice, plays, centred, worst)
    assert again is not None
    best = int(np.nanargmax(again))
    # gnubg's own choice, and the worst play looked at as deep though the filter drops it:
    # its loss is measured against the best at the same depth.
    assert keys[best] == _after_board(board, wide[0]["move"])
    assert again[worst] == pytest.approx(deep[keys[worst]])
    assert again[best] == pytest.approx(deep[keys[best]])
    # The cube changes the values: owning it is worth more than the opponent owning it.
    mine = evaluator.rank_plays(variant, position, dice, plays, CubeState(2, 1, 3, 0, 0), best)
    theirs = evaluator.rank_plays(variant, position, dice, plays, CubeState(2, -1, 3, 0, 0), best)
    assert mine is not None
    assert theirs is not None
    assert mine[best] > theirs[best] + 0.1


def test_a_gnubg_move_that_bears_off_is_not_guessed() -> None:
    """gnubg's Python interface cuts a move's pairs at the first "off": such a move can't be
    told from others, so the ranking leaves those positions to the cubeless look-ahead."""
    from core.analysis.evaluators import _after_board

    board = (tuple([0] * 25), tuple([0] * 5 + [2] + [0] * 19))
    assert _after_board(board, (6,)) is None
    assert _after_board(board, (6, 4, 6)) is None
    # A hit: the opponent's blot on my 4-point (its 21-point) goes to its bar.
    theirs = [0] * 25
    theirs[20] = 1
    after = _after_board((tuple(theirs), board[1]), (6, 4))
    assert after is not None
    assert after[0][20] == 0
    assert after[0][24] == 1
    assert after[1][5] == 1
    assert after[1][3] == 1


def test_a_gnubg_ranking_does_not_depend_on_the_terms_ranked_before() -> None:
    """gnubg's cache does not tell money play from a double-match-point game: a play
    ranked at money and then at 4-4 of a 5-point match must come out as ranked alone (T-8:
    gammons count for nothing there). One gnubg module serves every evaluator."""
    gnubg = load_gnubg()
    if gnubg is None:
        pytest.skip("GNU Backgammon is not installed")
    from core.ai.gnubg_player import flush_cache
    from core.analysis.evaluators import GnubgEvaluator

    tavla = variant_by_name("tavla")
    position, dice = position_from_id("4HPwATDgc/ABMA"), (4, 2)
    plays = legal_plays(tavla, position, dice)
    money, dmp = CubeState(), CubeState(match_length=5, my_score=4, opp_score=4)
    for first, then in ((money, dmp), (dmp, money)):
        flush_cache(gnubg)
        alone = GnubgEvaluator(gnubg).rank_plays(tavla, position, dice, plays, then, 0)
        flush_cache(gnubg)
        GnubgEvaluator(gnubg).rank_plays(tavla, position, dice, plays, first, 0)
        after = GnubgEvaluator(gnubg).rank_plays(tavla, position, dice, plays, then, 0)
        assert alone is not None
        assert after is not None
        np.testing.assert_allclose(after, alone, atol=1e-6)
