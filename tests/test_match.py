"""Tests of core.match: match length, Crawford, next-game openings, JSON, Match ID (M-1..M-3)."""

from __future__ import annotations

import json

import pytest

from core.dice import FixedDice
from core.errors import GameOverError, IllegalActionError
from core.game import Phase, ResultKind
from core.gnubg import GAME_NONE, GAME_PLAYING, GAME_RESIGNED, match_id_info
from core.match import Match
from core.variants import variant_by_name


def match(name: str = "tavla", length: int = 5, **kwargs) -> Match:
    return Match(variant_by_name(name), length, **kwargs)


def start(m: Match, script=(6, 3)):
    """Start the next game; ``script`` serves an opening roll when one is needed."""
    return m.start_game(FixedDice(list(script)))


def win(m: Match, winner: int, kind: ResultKind = ResultKind.SINGLE, cube: int = 1) -> None:
    """Finish the current game for ``winner`` by an accepted resignation and record it."""
    game = m.game
    assert game is not None
    if cube > 1:
        game.cube_value, game.cube_owner = cube, winner
    game.resign(1 - winner, kind)
    game.accept_resign(winner)
    m.record_game()


def roundtrip(m: Match) -> Match:
    data = json.loads(json.dumps(m.to_dict()))
    again = Match.from_dict(data)
    assert json.loads(json.dumps(again.to_dict())) == data
    return again


# -- M-1 ---------------------------------------------------------------------------------


def test_m1_match_ends_as_soon_as_a_player_has_n_points():
    m = match(length=3)
    start(m)
    win(m, 0)
    assert (m.score, m.over, m.winner) == ([1.0, 0.0], False, None)
    start(m)
    win(m, 1, ResultKind.GAMMON)
    assert m.score == [1.0, 2.0]
    assert not m.over
    start(m)  # Crawford game (seat 1 is at 2 = N-1)
    win(m, 1)
    assert m.score == [1.0, 3.0]
    assert m.over
    assert m.winner == 1
    with pytest.raises(GameOverError):
        start(m)


def test_m1_overshoot_still_wins():
    m = match(length=3)
    start(m)
    win(m, 0, ResultKind.GAMMON, cube=2)
    assert m.score == [4.0, 0.0]
    assert m.winner == 0


@pytest.mark.parametrize("name", ["tavla", "turkish", "uzun"])
def test_m1_single_game_is_length_one(name):
    m = Match(variant_by_name(name))
    assert m.length == 1
    game = start(m, (3, 5))
    assert not game.crawford
    win(m, 1)
    assert m.over
    assert m.winner == 1


def test_m1_money_play_never_ends():
    m = match(length=0)
    assert m.money
    for i in range(6):
        start(m)
        win(m, i % 2, ResultKind.BACKGAMMON, cube=4)
        assert not m.over
        assert m.winner is None
    assert m.score == [36.0, 36.0]
    assert {r.kind for r in m.results} == {ResultKind.BACKGAMMON}
    assert len(m.results) == 6


def test_cannot_start_while_game_runs_or_record_unfinished():
    m = match()
    start(m)
    with pytest.raises(IllegalActionError) as err:
        start(m)
    assert err.value.code == "game_running"
    with pytest.raises(IllegalActionError):
        m.record_game()
    with pytest.raises(ValueError, match="negative"):
        match(length=-1)


def test_record_game_twice_counts_once():
    m = match()
    start(m)
    win(m, 0)
    m.record_game()
    assert m.score == [1.0, 0.0]
    assert len(m.results) == 1


def test_record_game_after_json_roundtrip_counts_once():
    m = match()
    start(m)
    win(m, 0)
    m = roundtrip(m)
    m.record_game()
    assert m.score == [1.0, 0.0]


# -- M-2 Crawford --------------------------------------------------------------------------


def test_m2_crawford_exactly_once_after_first_reaching_n_minus_1():
    m = match(length=5)
    game = start(m)
    assert not game.crawford
    win(m, 0, ResultKind.SINGLE, cube=2)  # 2-0
    game = start(m)
    assert not game.crawford
    win(m, 0, ResultKind.GAMMON)  # 4-0: seat 0 reaches N-1
    game = start(m)
    assert game.crawford
    assert m.crawford_played
    game.move_text(0, "24/18 13/10")  # seat 0 opened 6-3; seat 1 is to roll
    assert game.phase is Phase.ROLL
    assert not game.may_double(1)
    with pytest.raises(IllegalActionError) as err:
        game.double(1)
    assert err.value.code == "crawford"
    win(m, 1, ResultKind.GAMMON)  # 4-2
    game = start(m)
    assert not game.crawford  # post-Crawford: doubling allowed again
    game.move_text(0, "24/18 13/10")
    assert game.may_double(1)
    game.double(1)
    game.take(0)
    assert game.cube_value == 2
    win(m, 1)  # 2 points at cube 2: 4-4, seat 1 also at N-1, but no second Crawford game
    assert m.score == [4.0, 4.0]
    game = start(m)
    assert not game.crawford


def test_m2_crawford_survives_json_roundtrip():
    m = match(length=3)
    start(m)
    win(m, 1, ResultKind.GAMMON)
    m = roundtrip(m)
    game = start(m)
    assert game.crawford
    win(m, 0)
    m = roundtrip(m)
    assert not start(m).crawford


@pytest.mark.parametrize("name", ["turkish", "uzun"])
def test_m2_no_crawford_without_cube(name):
    m = match(name, length=3)
    start(m, (5, 2))
    win(m, 0, ResultKind.GAMMON)
    assert not start(m).crawford


def test_m2_no_crawford_in_money_play():
    m = match(length=0)
    start(m)
    win(m, 0)
    assert not start(m).crawford


def test_m3_jacoby_only_in_money_play():
    money = match(length=0, jacoby=True)
    assert start(money).jacoby
    in_match = match(length=5, jacoby=True)
    assert not start(in_match).jacoby


# -- next game openings -------------------------------------------------------------------


def test_next_game_tavla_rolls_again():
    m = match("tavla")
    start(m, (6, 3))
    win(m, 0)
    game = start(m, (2, 2, 1, 4))  # both roll again; ties re-rolled; seat 1 higher
    assert game.turn == 1
    assert game.phase is Phase.MOVE
    assert game.dice == (4, 1)


def test_next_game_turkish_winner_rolls_both_dice():
    m = match("turkish")
    start(m, (6, 3))
    win(m, 1)
    game = start(m, ())  # no opening dice are drawn
    assert game.turn == 1
    assert game.phase is Phase.ROLL
    assert game.dice is None
    assert game.history[0] == {"type": "start", "opening": "winner_rolls", "starter": 1}
    game.roll(1, FixedDice([(6, 5)]))
    assert game.phase is Phase.MOVE


@pytest.mark.parametrize("winner", [0, 1])
def test_next_game_uzun_winner_starts_and_plays_white(winner):
    m = match("uzun")
    start(m, (6, 3))
    win(m, winner)
    game = start(m, ())
    assert game.turn == winner
    assert game.white == winner
    assert game.phase is Phase.ROLL
    assert game.history[0]["opening"] == "winner"


def test_next_game_after_uzun_draw_rolls_again():
    m = Match(variant_by_name("uzun", draw=True), 3)
    game = start(m, (6, 3))
    from core.game import Result

    game._finish(Result(None, ResultKind.DRAW, 0, "bear_off"))
    m.record_game()
    assert m.score == [0.5, 0.5]
    game = start(m, (1, 5))
    assert game.history[0]["opening"] == "roll"
    assert game.turn == 1


# -- JSON and Match ID ------------------------------------------------------------------------


def test_match_json_roundtrip_states():
    m = match(length=7, jacoby=False)
    assert roundtrip(m).game is None
    game = start(m, (6, 3))
    m = roundtrip(m)
    assert m.game.phase is Phase.MOVE
    m.game.move_text(0, "24/18")  # half a turn
    m = roundtrip(m)
    assert m.game.current_turn.remaining_dice == [3]
    m.game.move_text(0, "13/10")
    win(m, 0)
    m = roundtrip(m)
    assert m.score == [1.0, 0.0]
    assert [r.winner for r in m.results] == [0]
    game = start(m, (1, 2))
    assert game.turn == 1


def test_match_id_fresh_match():
    m = match(length=5)
    info = match_id_info(m.match_id())
    assert info.match_length == 5
    assert info.score == (0, 0)
    assert info.game_state == GAME_NONE
    assert info.cube_value == 1
    assert info.cube_owner is None
    assert info.jacoby == m.jacoby


def test_match_id_after_games():
    m = match(length=7)
    start(m, (6, 3))
    win(m, 0, ResultKind.GAMMON)  # 2-0
    assert match_id_info(m.match_id()).game_state == GAME_RESIGNED
    start(m, (2, 5))
    win(m, 1)  # 2-1
    game = start(m, (4, 1))  # seat 0 on roll with 4-1
    info = match_id_info(m.match_id())
    assert (info.match_length, info.score) == (7, (2, 1))
    assert info.game_state == GAME_PLAYING
    assert info.on_roll == 0
    assert info.dice == (4, 1)
    assert info.cube_value == 1
    assert info.cube_owner is None
    game.move_text(0, "24/23 13/9")
    game.double(1)
    info = match_id_info(m.match_id())
    assert info.doubled
    assert info.turn == 0
    assert info.on_roll == 1
    game.take(0)
    info = match_id_info(m.match_id())
    assert (info.cube_value, info.cube_owner) == (2, 0)
    assert not info.doubled
    assert info.dice == (0, 0)
    assert info.jacoby == m.jacoby


def test_match_id_crawford_flag():
    m = match(length=3)
    start(m)
    win(m, 0, ResultKind.GAMMON)
    start(m)
    info = match_id_info(m.match_id())
    assert info.crawford
    assert info.score == (2, 0)
