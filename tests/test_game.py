"""Tests of core.game: the game state machine (rules.md T-2, T-7..T-9, U-2, U-9, U-draw, M-3)."""

from __future__ import annotations

import json
import random

import pytest

from core.dice import FixedDice, RandomDice, SeededDice, verify_game_rolls
from core.errors import (
    GameOverError,
    IllegalActionError,
    IllegalPlayError,
    NotYourTurnError,
)
from core.game import MAX_CUBE, Game, Phase, Result, ResultKind, winner_points
from core.position import BAR, OFF, side_from_points
from core.variants import variant_by_name

TAVLA = variant_by_name("tavla")
TURKISH = variant_by_name("turkish")
UZUN = variant_by_name("uzun")


def new(name: str = "tavla", script=(), **kwargs) -> Game:
    return Game.new(variant_by_name(name), FixedDice(script), **kwargs)


def rolling(name: str = "tavla", turn: int = 0, **kwargs) -> Game:
    """A game at the start position, ``turn`` to roll (the Turkish/winner opening)."""
    return new(name, opening="winner_rolls", starter=turn, **kwargs)


def roundtrip(game: Game) -> Game:
    data = game.to_dict()
    again = Game.from_dict(json.loads(json.dumps(data)))
    assert again.to_dict() == json.loads(json.dumps(data))
    return again


def end_game(
    variant=TAVLA,
    loser: dict[int, int] | None = None,
    *,
    loser_bar: int = 0,
    winner: int = 0,
    **kwargs,
) -> Game:
    """Seat ``winner`` on roll with its last checker on its point 1; the loser as given."""
    loser = {12: 15} if loser is None else loser
    sides = [None, None]
    sides[winner] = side_from_points({1: 1})
    sides[1 - winner] = side_from_points(loser, bar=loser_bar)
    return Game(variant, sides, phase=Phase.ROLL, turn=winner, **kwargs)


def bear_off(game: Game) -> Result:
    game.roll(game.turn, FixedDice([(6, 5)]))  # the only play is 1/off: made automatically
    assert game.over
    assert game.result is not None
    return game.result


# -- T-2 / U-2 openings -------------------------------------------------------------------


def test_t2_opening_ties_rerolled_higher_die_plays_both_numbers():
    """T-2: ties are re-rolled; the higher die starts and plays the two numbers rolled."""
    dice = FixedDice([4, 4, 2, 2, 1, 5])
    game = Game.new(TAVLA, dice)
    assert dice.remaining == 0  # no further roll was drawn
    openings = [e["dice"] for e in game.history if e["type"] == "opening"]
    assert openings == [[4, 4], [2, 2], [1, 5]]
    assert game.turn == 1
    assert game.phase is Phase.MOVE
    assert game.dice == (5, 1)
    assert game.white == 0
    assert game.history[0] == {"type": "start", "opening": "roll", "starter": 1}


def test_t2_opening_seat0_starts_with_higher_die():
    game = new("tavla", [6, 3])
    assert game.turn == 0
    assert game.dice == (6, 3)
    assert game.phase is Phase.MOVE
    assert game.legal_plays()
    roll = [e for e in game.history if e["type"] == "roll"]
    assert roll == [{"type": "roll", "seat": 0, "dice": [6, 3], "opening": True}]


@pytest.mark.parametrize(("first", "second", "starter"), [(2, 5, 1), (6, 1, 0)])
def test_u2_opening_higher_die_plays_white_and_rolls_both(first, second, starter):
    """U-2: the higher die starts, plays White, then rolls both dice for the first move."""
    game = new("uzun", [3, 3, first, second])
    assert game.turn == starter
    assert game.white == starter
    assert game.phase is Phase.ROLL
    assert game.dice is None
    with pytest.raises(NotYourTurnError):
        game.roll(1 - starter, FixedDice([(6, 5)]))
    game.roll(starter, FixedDice([(6, 6)]))
    # U-5: the starter's 6-6 is played 24/18(2), and it is the only play: made at once.
    last = game.history[-1]
    assert last["type"] == "play"
    assert last["play"] == "24/18(2)"
    assert last["forced"] is True
    assert game.turn == 1 - starter


def test_opening_needs_starter_and_known_kind():
    with pytest.raises(ValueError, match="starting seat"):
        new("turkish", opening="winner_rolls")
    with pytest.raises(ValueError, match="unknown opening"):
        new("tavla", opening="coin")


# -- turns ---------------------------------------------------------------------------------


def test_turns_alternate():
    game = new("tavla", [6, 3, (5, 2), (4, 1)])
    assert game.turn == 0
    game.play(0, game.legal_plays()[0])
    assert (game.turn, game.phase) == (1, Phase.ROLL)
    game.roll(1, FixedDice([(5, 2)]))
    game.play(1, game.legal_plays()[0])
    assert (game.turn, game.phase) == (0, Phase.ROLL)
    seats = [e["seat"] for e in game.history if e["type"] == "play"]
    assert seats == [0, 1]


def test_roll_without_legal_play_passes():
    """Common ground: if no die can be used the turn passes (dance on a closed board)."""
    mover = side_from_points({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 24: 2}, bar=1)
    closed = side_from_points({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 24: 1})
    game = Game(TAVLA, [mover, closed], phase=Phase.ROLL, turn=0)
    game.roll(0, FixedDice([(6, 6)]))
    assert game.history[-1] == {"type": "pass", "seat": 0}
    assert game.turn == 1
    assert game.phase is Phase.ROLL
    assert game.sides[0] == mover


def test_forced_play_is_made_automatically():
    """Maximum-dice rule (gnubg case): with 6-5 only 24/18 can be played; made for the player."""
    from core.gnubg import position_from_id

    pos = position_from_id("fn8AAwD/PwAAIA")
    game = Game(TAVLA, [pos.opponent, pos.mover], phase=Phase.ROLL, turn=1)
    game.roll(1, FixedDice([(6, 5)]))
    event = game.history[-1]
    assert event["type"] == "play"
    assert event["play"] == "24/18"
    assert event["forced"] is True
    assert game.turn == 0


def test_step_by_step_with_undo_and_confirm():
    game = new("tavla", [3, 1])  # seat 0 plays 3-1
    turn = game.current_turn
    assert turn is not None
    game.step(0, 8, 5)
    assert turn.remaining_dice == [1]
    with pytest.raises(IllegalPlayError) as err:
        game.confirm(0)
    assert err.value.code == "play_unfinished"
    assert game.undo(0) is not None
    assert turn.done == []
    assert game.undo(0) is None
    game.step(0, 8, 5)
    game.step(0, 6, 5)
    assert game.phase is Phase.MOVE  # waits for confirm
    assert game.position(0).mover[5] == 2
    assert game.position(1).opponent[5] == 2
    game.confirm(0)
    assert game.turn == 1
    assert game.phase is Phase.ROLL
    assert game.sides[0][5] == 2
    assert game.history[-1]["play"] == "8/5 6/5"
    assert game.history[-1]["forced"] is False


def test_a_move_confirmed_by_itself_can_be_taken_back_until_the_opponent_acts():
    """Confirmed by itself: the same dice are played again; the board is as before."""
    game = new("tavla", [3, 1, (6, 5)])  # seat 0 plays 3-1; seat 1 then rolls 6-5
    start = [tuple(s) for s in game.sides]
    history = list(game.history)
    game.step(0, 8, 5)
    game.step(0, 6, 5)
    game.confirm(0, undoable=True)
    assert game.may_take_back(0)
    assert not game.may_take_back(1)  # only the mover's own move
    again = roundtrip(game)  # kept across saves
    assert again.may_take_back(0)
    again.take_back(0)
    assert again.phase is Phase.MOVE
    assert again.turn == 0
    assert again.dice == (3, 1)
    assert [tuple(s) for s in again.sides] == start
    assert again.history == history
    assert again.current_turn is not None
    assert again.current_turn.done == []
    again.step(0, 8, 7)  # a different play with the same dice
    again.step(0, 8, 5)
    again.confirm(0)
    assert not again.may_take_back(0)  # a move confirmed by hand stands
    # Once the opponent has rolled, the move stands.
    game.roll(1, FixedDice([(6, 5)]))
    assert not game.may_take_back(0)
    with pytest.raises(IllegalActionError) as err:
        game.take_back(0)
    assert err.value.code == "take_back_too_late"


def test_a_winning_move_cannot_be_taken_back():
    game = end_game(winner=0)
    game.roll(0, FixedDice([(2, 1)]))  # 1/off with the 2 or the 1: two plays, wait for confirm
    if game.phase is Phase.MOVE:
        turn = game.current_turn
        assert turn is not None
        step, _ = turn.legal_steps()[0]
        game.step(0, step.source, step.dest)
        game.confirm(0, undoable=True)
    assert game.over
    assert not game.may_take_back(0)


def test_move_text_and_partial_text():
    game = new("tavla", [3, 1])
    game.move_text(0, "8/5", confirm=True)  # unfinished: not confirmed
    assert game.phase is Phase.MOVE
    game.move_text(0, "6/5")
    assert game.turn == 1
    assert game.phase is Phase.ROLL


def test_not_your_turn():
    game = new("tavla", [3, 1])
    with pytest.raises(NotYourTurnError):
        game.step(1, 24, 21)
    with pytest.raises(NotYourTurnError):
        game.move_text(1, "8/5 6/5")
    with pytest.raises(NotYourTurnError):
        game.confirm(1)
    with pytest.raises(NotYourTurnError):
        game.undo(1)


def test_wrong_phase_actions():
    game = new("tavla", [3, 1])
    with pytest.raises(IllegalActionError) as err:
        game.roll(0, FixedDice([(1, 2)]))
    assert err.value.code == "wrong_phase"
    with pytest.raises(IllegalActionError) as err:
        game.double(0)  # T-8: no doubling after rolling
    assert err.value.code == "wrong_phase"
    game.move_text(0, "8/5 6/5")
    with pytest.raises(IllegalActionError) as err:
        game.step(1, 24, 23)
    assert err.value.code == "wrong_phase"
    with pytest.raises(IllegalActionError) as err:
        game.take(1)
    assert err.value.code == "wrong_phase"
    with pytest.raises(NotYourTurnError):
        game.take(0)


def test_take_and_drop_need_an_offer():
    game = rolling("tavla")
    with pytest.raises(IllegalActionError) as err:
        game.take(0)
    assert err.value.code == "wrong_phase"
    with pytest.raises(NotYourTurnError):
        game.take(1)


def test_actions_after_game_over_raise():
    game = end_game()
    bear_off(game)
    with pytest.raises(GameOverError):
        game.roll(1, FixedDice([(1, 2)]))
    with pytest.raises(GameOverError):
        game.resign(1)
    with pytest.raises(GameOverError):
        game.forfeit(1)


# -- T-8 cube --------------------------------------------------------------------------------


def test_t8_double_take_gives_cube_to_taker():
    game = rolling("tavla", 0)
    assert game.may_double(0)
    assert not game.may_double(1)
    game.double(0)
    assert game.phase is Phase.DOUBLED
    assert game.awaiting == 1
    with pytest.raises(NotYourTurnError):
        game.take(0)
    game.take(1)
    assert (game.cube_value, game.cube_owner) == (2, 1)
    assert game.phase is Phase.ROLL
    assert game.turn == 0
    # T-8: no double while the opponent owns the cube.
    assert not game.may_double(0)
    with pytest.raises(IllegalActionError) as err:
        game.double(0)
    assert err.value.code == "cube_not_yours"
    # Play on; the owner may redouble on its own turn.
    game.roll(0, FixedDice([(3, 1)]))
    game.move_text(0, "8/5 6/5")
    assert game.may_double(1)
    game.double(1)
    game.take(0)
    assert (game.cube_value, game.cube_owner) == (4, 0)


def test_t8_no_double_after_rolling():
    game = rolling("tavla", 0)
    game.roll(0, FixedDice([(3, 1)]))
    assert not game.may_double(0)
    with pytest.raises(IllegalActionError):
        game.double(0)


def test_t8_cube_maximum_64():
    game = rolling("tavla", 0)
    game.cube_value, game.cube_owner = 32, 0
    game.double(0)
    game.take(1)
    assert game.cube_value == MAX_CUBE == 64
    game.turn = 1
    assert not game.may_double(1)
    with pytest.raises(IllegalActionError) as err:
        game.double(1)
    assert err.value.code == "cube_max"


@pytest.mark.parametrize("value", [1, 2, 8])
def test_t8_drop_loses_at_value_before_double(value):
    game = rolling("tavla", 0)
    game.cube_value, game.cube_owner = value, (None if value == 1 else 0)
    game.double(0)
    result = game.drop(1)
    assert result == Result(0, ResultKind.SINGLE, value, "pass")
    assert game.over
    assert game.cube_value == value
    assert winner_points(result) == (value, 0)


@pytest.mark.parametrize("name", ["turkish", "uzun"])
def test_t8_no_cube_in_turkish_or_uzun(name):
    game = rolling(name, 0)
    assert not game.may_double(0)
    with pytest.raises(IllegalActionError) as err:
        game.double(0)
    assert err.value.code == "no_cube"


def test_m2_crawford_game_forbids_doubling():
    game = rolling("tavla", 0, crawford=True)
    assert not game.may_double(0)
    with pytest.raises(IllegalActionError) as err:
        game.double(0)
    assert err.value.code == "crawford"
    # A Crawford flag means nothing without a cube.
    assert rolling("turkish", 0, crawford=True).crawford is False


# -- T-9 resignations -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "points"),
    [(ResultKind.SINGLE, 1), (ResultKind.GAMMON, 2), (ResultKind.BACKGAMMON, 3)],
)
@pytest.mark.parametrize("cube", [1, 4])
def test_t9_resign_accept_times_cube(kind, points, cube):
    game = rolling("tavla", 0)
    game.cube_value = cube
    game.resign(0, kind)
    assert game.resign_offer == (0, kind)
    with pytest.raises(NotYourTurnError):
        game.accept_resign(0)
    result = game.accept_resign(1)
    assert result == Result(1, kind, points * cube, "resign")
    assert game.over
    assert game.resign_offer is None


def test_t9_resign_decline_play_goes_on():
    game = rolling("tavla", 0)
    game.resign(1, ResultKind.GAMMON)
    game.decline_resign(0)
    assert game.resign_offer is None
    assert not game.over
    game.roll(0, FixedDice([(3, 1)]))
    assert game.phase is Phase.MOVE
    with pytest.raises(IllegalActionError) as err:
        game.accept_resign(0)
    assert err.value.code == "no_resign_offer"


@pytest.mark.parametrize("name", ["turkish", "uzun"])
def test_t9_no_backgammon_resign_in_turkish_or_uzun(name):
    game = rolling(name, 0)
    with pytest.raises(IllegalActionError) as err:
        game.resign(0, ResultKind.BACKGAMMON)
    assert err.value.code == "resign_level"
    game.resign(0, ResultKind.GAMMON)
    assert game.accept_resign(1).points == 2


def test_resign_draw_level_refused():
    with pytest.raises(IllegalActionError):
        rolling("uzun", 0).resign(0, ResultKind.DRAW)


def test_forfeit_is_single_times_cube():
    game = rolling("tavla", 0)
    game.cube_value = 2
    assert game.forfeit(0, "timeout") == Result(1, ResultKind.SINGLE, 2, "timeout")


# -- T-7 results -----------------------------------------------------------------------------


@pytest.mark.parametrize("winner", [0, 1])
def test_t7_single(winner):
    game = end_game(loser={12: 14}, winner=winner)  # the loser has borne off one
    assert bear_off(game) == Result(winner, ResultKind.SINGLE, 1, "bear_off")
    assert game.history[-1]["type"] == "end"


def test_t7_gammon():
    game = end_game(loser={12: 10, 7: 5})  # none borne off, none in the winner's home
    assert bear_off(game) == Result(0, ResultKind.GAMMON, 2, "bear_off")


@pytest.mark.parametrize(
    ("loser", "bar"),
    [({12: 14}, 1), ({12: 14, 19: 1}, 0), ({12: 14, 24: 1}, 0)],
)
def test_t7_backgammon(loser, bar):
    """Backgammon: none borne off and a checker on the bar or in the winner's home board."""
    game = end_game(loser=loser, loser_bar=bar)
    assert bear_off(game) == Result(0, ResultKind.BACKGAMMON, 3, "bear_off")


def test_t7_loser_on_own_18_is_only_gammon():
    game = end_game(loser={12: 14, 18: 1})  # 18 faces the winner's 7: outside home
    assert bear_off(game).kind is ResultKind.GAMMON


@pytest.mark.parametrize(
    ("loser", "bar", "points"), [({12: 14}, 0, 1), ({12: 15}, 0, 2), ({12: 14}, 1, 3)]
)
def test_t7_cube_multiplies(loser, bar, points):
    game = end_game(loser=loser, loser_bar=bar, cube_value=4, cube_owner=1)
    assert bear_off(game).points == points * 4


def test_m3_jacoby_gammon_counts_single_with_centred_cube():
    game = end_game(loser={12: 14}, loser_bar=1, jacoby=True)
    assert bear_off(game) == Result(0, ResultKind.SINGLE, 1, "bear_off")
    game = end_game(loser={12: 15}, jacoby=True, cube_value=2, cube_owner=0)
    assert bear_off(game) == Result(0, ResultKind.GAMMON, 4, "bear_off")


def test_m3_jacoby_resigned_gammon_counts_single_with_centred_cube():
    game = rolling("tavla", 0, jacoby=True)
    game.resign(0, ResultKind.GAMMON)
    assert game.accept_resign(1).points == 1


def test_turkish_mars_two_no_backgammon():
    game = end_game(TURKISH, loser={12: 14}, loser_bar=1)
    assert bear_off(game) == Result(0, ResultKind.GAMMON, 2, "bear_off")
    game = end_game(TURKISH, loser={12: 13, 1: 1})
    assert bear_off(game) == Result(0, ResultKind.SINGLE, 1, "bear_off")


def test_u9_uzun_mars_two():
    game = end_game(UZUN, loser={10: 15})
    assert bear_off(game) == Result(0, ResultKind.GAMMON, 2, "bear_off")
    game = end_game(UZUN, loser={10: 2, 15: 13})  # in White's home, still no backgammon
    assert bear_off(game).kind is ResultKind.GAMMON
    game = end_game(UZUN, loser={10: 14})
    assert bear_off(game) == Result(0, ResultKind.SINGLE, 1, "bear_off")


# -- U-draw ----------------------------------------------------------------------------------


def _draw_game(black: dict[int, int], *, draw: bool = True) -> Game:
    variant = variant_by_name("uzun", draw=draw)
    return Game(
        variant,
        [side_from_points({1: 1}), side_from_points(black)],
        phase=Phase.ROLL,
        turn=0,
        white=0,
        played_first_turn=[True, True],
    )


def test_udraw_black_bears_off_last_checkers_draw():
    game = _draw_game({2: 1, 1: 1})
    game.roll(0, FixedDice([(6, 5)]))
    assert not game.over
    assert game.last_roll
    assert (game.turn, game.phase) == (1, Phase.ROLL)
    game = roundtrip(game)
    game.roll(1, FixedDice([(2, 1)]))
    if not game.over:
        (play,) = [p for p in game.legal_plays() if p.after.mover[OFF] == 15]
        game.play(1, play)
    assert game.result == Result(None, ResultKind.DRAW, 0, "bear_off")
    assert winner_points(game.result) == (0, 0)


def test_udraw_black_fails_white_wins():
    game = _draw_game({6: 2})
    game.roll(0, FixedDice([(6, 5)]))
    game.roll(1, FixedDice([(2, 1)]))
    if not game.over:
        game.play(1, game.legal_plays()[0])
    assert game.result == Result(0, ResultKind.SINGLE, 1, "bear_off")


def test_udraw_black_fails_with_mars():
    game = _draw_game({20: 1, 10: 14})
    game.roll(0, FixedDice([(6, 5)]))
    game.roll(1, FixedDice([(2, 1)]))
    if not game.over:
        game.play(1, game.legal_plays()[0])
    assert game.result == Result(0, ResultKind.GAMMON, 2, "bear_off")


def test_udraw_off_white_wins_at_once():
    game = _draw_game({2: 1, 1: 1}, draw=False)
    assert bear_off(game) == Result(0, ResultKind.SINGLE, 1, "bear_off")


def test_udraw_black_bearing_off_first_wins_at_once():
    variant = variant_by_name("uzun", draw=True)
    game = Game(
        variant,
        [side_from_points({10: 15}), side_from_points({1: 1})],
        phase=Phase.ROLL,
        turn=1,
        white=0,
        played_first_turn=[True, True],
    )
    assert bear_off(game) == Result(1, ResultKind.GAMMON, 2, "bear_off")


# -- whole games, JSON round trips, dice records ---------------------------------------------


def _play_random_game(game: Game, dice, rng: random.Random, *, check_roundtrip: bool) -> Game:
    """Play ``game`` to the end with random legal steps; round-trip through JSON at every
    state (including mid-turn) and carry on with the rebuilt game."""
    for _ in range(2000):
        if game.over:
            return game
        if check_roundtrip:
            game = roundtrip(game)
        seat = game.turn
        if game.phase is Phase.ROLL:
            if game.may_double(seat) and rng.random() < 0.1:
                game.double(seat)
                if check_roundtrip:
                    game = roundtrip(game)
                game.take(1 - seat)
                continue
            game.roll(seat, dice)
            continue
        assert game.phase is Phase.MOVE
        turn = game.current_turn
        assert turn is not None
        while not turn.complete:
            options = turn.legal_steps()
            assert options, "a half-played turn must never get stuck"
            step, die = rng.choice(options)
            game.step(seat, step.source, step.dest)
            if check_roundtrip:
                before = game.position()
                game = roundtrip(game)
                turn = game.current_turn
                assert turn is not None
                assert game.position() == before
                assert [d for _, d in turn.done][-1] == die
        game.confirm(seat)
    pytest.fail("game did not end")


@pytest.mark.parametrize(
    ("name", "options"),
    [("tavla", {}), ("turkish", {}), ("uzun", {}), ("uzun", {"draw": True})],
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_json_roundtrip_whole_random_games(name, options, seed):
    rng = random.Random(seed)
    dice = RandomDice(seed)
    game = Game.new(variant_by_name(name, **options), dice)
    game = _play_random_game(game, dice, rng, check_roundtrip=True)
    assert game.over
    assert game.result is not None
    again = roundtrip(game)
    assert again.result == game.result
    plays = [e for e in game.history if e["type"] in ("play", "pass")]
    assert len(plays) > 10


def test_roundtrip_in_doubled_and_resign_states():
    game = rolling("tavla", 0)
    game.double(0)
    game = roundtrip(game)
    assert game.phase is Phase.DOUBLED
    game.take(1)
    game.resign(1, ResultKind.GAMMON)
    game = roundtrip(game)
    assert game.resign_offer == (1, ResultKind.GAMMON)
    assert game.accept_resign(0).points == 4


def test_half_played_turn_resumes_after_roundtrip():
    game = new("tavla", [3, 1])
    game.step(0, 8, 5)
    data = json.loads(json.dumps(game.to_dict()))
    assert data["steps"]
    again = Game.from_dict(data)
    turn = again.current_turn
    assert turn is not None
    assert [(s.source, s.dest) for s, _ in turn.done] == [(8, 5)]
    assert turn.remaining_dice == [1]
    assert again.position() == game.position()
    again.undo(0)
    assert again.position().mover == again.sides[0]
    again.step(0, 8, 5)
    again.step(0, 6, 5)
    again.confirm(0)
    assert again.history[-1]["play"] == "8/5 6/5"
    assert again.turn == 1


@pytest.mark.parametrize("name", ["tavla", "uzun"])
def test_dice_record_verifies_with_seeded_dice(name):
    dice = SeededDice()
    commitment, seed_hex = dice.commitment, dice.seed_hex
    game = Game.new(variant_by_name(name), dice)
    game = _play_random_game(game, dice, random.Random(7), check_roundtrip=False)
    record = game.dice_record()
    assert len(record) >= 2
    assert all(len(d) == 1 for d in record[:2])
    assert verify_game_rolls(seed_hex, commitment, record).ok
    assert verify_game_rolls(seed_hex, commitment, record[:-1]).ok
    bad = [*record[:-1], (7 - record[-1][0], *record[-1][1:])]
    assert not verify_game_rolls(seed_hex, commitment, bad).ok


def test_pips_and_position_views():
    game = rolling("tavla", 0)
    assert game.pips() == (167, 167)
    game = rolling("uzun", 1)
    assert game.pips() == (360, 360)
    assert game.position(0).mover[24] == 15
    assert game.sides[0][OFF] == 0
    assert game.sides[0][BAR] == 0
