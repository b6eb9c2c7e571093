"""The exceptions core raises. The service turns each into a localized message.

Every error carries a machine-readable ``code`` (a short snake_case key, used by the
service to pick a translation) and ``params`` for that message, besides an English text.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """The codes of the game's errors (the tournament engine keeps its own)."""

    ERROR = "error"
    NOTATION_SYNTAX = "notation_syntax"
    ILLEGAL_PLAY = "illegal_play"
    AMBIGUOUS_PLAY = "ambiguous_play"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_ACTION = "illegal_action"
    GAME_OVER = "game_over"
    INVALID_POSITION = "invalid_position"
    BEAR_OFF_HIGHER_FIRST = "bear_off_higher_first"
    BEAR_OFF_NOT_HOME = "bear_off_not_home"
    BLOCKED = "blocked"
    CRAWFORD = "crawford"
    CUBE_MAX = "cube_max"
    CUBE_NOT_YOURS = "cube_not_yours"
    GAME_RUNNING = "game_running"
    HEAD_RULE = "head_rule"
    MUST_ENTER_FIRST = "must_enter_first"
    MUST_PLAY_LARGER = "must_play_larger"
    MUST_USE_DICE = "must_use_dice"
    NO_CHECKER = "no_checker"
    NO_CHECKER_ON_BAR = "no_checker_on_bar"
    NO_BAR = "no_bar"
    NO_CUBE = "no_cube"
    NO_DICE_LEFT = "no_dice_left"
    NO_DIE = "no_die"
    NO_RESIGN_OFFER = "no_resign_offer"
    NOT_A_PLAYER = "not_a_player"
    NOTATION_AFTER_OFF = "notation_after_off"
    NOTATION_BACKWARDS = "notation_backwards"
    NOTATION_BAD_POINT = "notation_bad_point"
    NOTATION_EMPTY = "notation_empty"
    NOTATION_FROM_OFF = "notation_from_off"
    NOTATION_NO_POINT = "notation_no_point"
    NOTATION_REPEAT = "notation_repeat"
    NOTATION_TO_BAR = "notation_to_bar"
    NOTATION_TOO_LONG = "notation_too_long"
    NOTATION_TOO_MANY = "notation_too_many"
    OPPONENTS_CHECKER = "opponents_checker"
    PLAY_UNFINISHED = "play_unfinished"
    RESIGN_LEVEL = "resign_level"
    SIX_BLOCK = "six_block"
    TAKE_BACK_TOO_LATE = "take_back_too_late"
    TOO_MANY_MOVES = "too_many_moves"
    WRONG_PHASE = "wrong_phase"


class TavlaError(ValueError):
    """Base of every error raised by core for a bad input or a forbidden action."""

    code: str = ErrorCode.ERROR

    def __init__(self, message: str, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.params = params


class NotationError(TavlaError):
    """A move written in a form the parser cannot read."""

    code: str = ErrorCode.NOTATION_SYNTAX


class IllegalPlayError(TavlaError):
    """A well-formed move that the rules do not allow in this position and roll."""

    code: str = ErrorCode.ILLEGAL_PLAY


class AmbiguousPlayError(TavlaError):
    """A move that matches more than one legal play; the user must say which."""

    code: str = ErrorCode.AMBIGUOUS_PLAY


class NotYourTurnError(TavlaError):
    """An action by a player who is not the one to act now."""

    code: str = ErrorCode.NOT_YOUR_TURN


class IllegalActionError(TavlaError):
    """An action that the game's current phase does not allow (e.g. doubling after rolling)."""

    code: str = ErrorCode.ILLEGAL_ACTION


class GameOverError(IllegalActionError):
    """An action on a game that has already ended."""

    code: str = ErrorCode.GAME_OVER


class InvalidPositionError(TavlaError):
    """A board or identifier that does not describe a valid position."""

    code: str = ErrorCode.INVALID_POSITION
