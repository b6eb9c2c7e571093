"""Typed records keep their stored form: codes and reasons are StrEnums whose values are what
was always written, a game's history reads back from JSON as it was written, and every error
a player can meet has a message."""

from __future__ import annotations

import json

from bot.service import actions as A
from bot.service.errors import MESSAGES
from core.dice import SeededDice, verify_game_rolls
from core.errors import ErrorCode
from core.events import EventType, dice_record
from core.game import Game, ResultReason
from core.match import Match
from core.variants import variant_by_name

#: Codes no player meets: the base class's, and refusals of a caller's mistake.
NOT_FOR_PLAYERS = {ErrorCode.ERROR, ErrorCode.INVALID_POSITION, ErrorCode.GAME_RUNNING}


def test_every_error_a_player_can_meet_has_a_message():
    assert set(ErrorCode) - NOT_FOR_PLAYERS <= set(MESSAGES)


def test_every_action_code_round_trips_through_a_button_id():
    args = {
        A.SELECT: "13",
        A.MOVE: "13-7.8-5",
        A.SETTING: "r1",
        A.RESIGN: "02",
        A.POOL: "s1",
        A.PUZZLE: "2",
        A.OWN_ROLLS: "1",
    }
    for code in A.Code:
        data = A.encode(42, 7, code, args.get(code, ""))
        assert A.decode(data) == A.Action(42, 7, code, args.get(code, ""))
    assert A.decode("42:7:g2") is None  # no button offers a resignation level by itself
    assert A.decode("42:7:abx") is None  # "Yes, abandon" takes nothing after it


def _played_out(seed: int) -> Match:
    """A whole single game, the computer-free way: the first legal play every turn."""
    dice = SeededDice(bytes([seed]) * 32)
    match = Match(variant_by_name("tavla"), length=1)
    match.start_game(dice)
    game = match.game
    assert game is not None
    while not game.over:
        seat = game.awaiting
        if game.phase.value == "roll":
            game.roll(seat, dice)
        else:
            turn = game.current_turn
            assert turn is not None
            game.play(seat, turn.plays[0])  # and the turn ends
    return match


def test_history_and_result_read_back_from_json_as_written():
    match = _played_out(9)
    game = match.game
    assert game is not None
    assert game.result is not None
    stored = json.loads(json.dumps(match.to_dict()))
    events = stored["game"]["history"]
    # Plain strings in the JSON: the same values older versions wrote.
    assert all(type(event["type"]) is str for event in events)
    assert {event["type"] for event in events} <= set(EventType)
    again = Match.from_dict(stored).game
    assert again is not None
    assert again.result is not None
    assert again.result.reason is ResultReason.BEAR_OFF
    assert again.dice_record() == game.dice_record() == dice_record(events)


def test_the_dice_record_verifies_against_the_seed():
    dice = SeededDice(bytes([5]) * 32)
    game = Game.new(variant_by_name("tavla"), dice)
    for _ in range(3):
        if game.phase.value == "roll":
            game.roll(game.awaiting, dice)
        turn = game.current_turn
        assert turn is not None
        game.play(game.awaiting, turn.plays[0])
    result = verify_game_rolls(dice.seed_hex, dice.commitment, dice_record(game.history))
    assert result.ok, result
