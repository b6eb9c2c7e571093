"""Core's errors as messages a player can read, in their language."""

from __future__ import annotations

from bot.i18n import Text, t
from core.errors import ErrorCode, TavlaError

# One message per error code of core (core/errors.py and the codes its modules raise).
MESSAGES: dict[ErrorCode, Text] = {
    ErrorCode.NOT_YOUR_TURN: t("It is not your turn."),
    ErrorCode.NOT_A_PLAYER: t("You are not a player in this game."),
    ErrorCode.GAME_OVER: t("This game is already over."),
    ErrorCode.WRONG_PHASE: t("That can't be done right now."),
    ErrorCode.ILLEGAL_ACTION: t("That can't be done right now."),
    ErrorCode.NO_CUBE: t("This game is played without the doubling cube."),
    ErrorCode.CRAWFORD: t("Nobody may double in the Crawford game."),
    ErrorCode.CUBE_NOT_YOURS: t("Your opponent owns the cube: only they can double now."),
    ErrorCode.CUBE_MAX: t("The cube is already at 64."),
    ErrorCode.NO_RESIGN_OFFER: t("Nobody has offered to resign."),
    ErrorCode.RESIGN_LEVEL: t("That resignation level does not exist in this game."),
    ErrorCode.PLAY_UNFINISHED: t("The move is not finished: play the rest of the dice."),
    ErrorCode.NOTATION_EMPTY: t("Write a move such as 13/8 6/5."),
    ErrorCode.NOTATION_SYNTAX: t(
        "I can't read that move. Write each checker's move as from/to, e.g. 13/8 6/5 (or 13-8 6-5)."
    ),
    ErrorCode.NOTATION_BAD_POINT: t("I can't read “{word}” as a point: use 1–24, bar or off."),
    ErrorCode.NOTATION_NO_POINT: t("There is no point {point}: points are numbered 1 to 24."),
    ErrorCode.NOTATION_TOO_LONG: t("That is too long to be a move."),
    ErrorCode.NOTATION_TOO_MANY: t("A turn has at most four moves."),
    ErrorCode.NOTATION_REPEAT: t("A move can be repeated at most four times."),
    ErrorCode.NOTATION_FROM_OFF: t("A checker that is off the board can't move again."),
    ErrorCode.NOTATION_TO_BAR: t("A checker can't move to the bar."),
    ErrorCode.NOTATION_AFTER_OFF: t("Nothing can follow “off”."),
    ErrorCode.NOTATION_BACKWARDS: t("Checkers move from higher to lower numbers, like 13/8."),
    ErrorCode.AMBIGUOUS_PLAY: t(
        "That move can be read in more than one way: {options}. Please write the stops."
    ),
    ErrorCode.ILLEGAL_PLAY: t("That move is not allowed."),
    ErrorCode.MUST_ENTER_FIRST: t("You have a checker on the bar: enter it first."),
    ErrorCode.NO_CHECKER: t("You have no checker on {point}."),
    ErrorCode.NO_CHECKER_ON_BAR: t("You have no checker on the bar."),
    ErrorCode.NO_BAR: t("Uzun Tavla has no bar: no checker is ever hit."),
    ErrorCode.OPPONENTS_CHECKER: t("The checkers on {point} are your opponent's, not yours."),
    ErrorCode.NO_DIE: t("None of the dice left to play ({dice}) fits {move}."),
    ErrorCode.BLOCKED: t("Point {point} is closed: your opponent holds it."),
    ErrorCode.BEAR_OFF_NOT_HOME: t(
        "You can bear off only when all your checkers are in your home board."
    ),
    ErrorCode.BEAR_OFF_HIGHER_FIRST: t(
        "Bear off from your highest points first, or move inside your home board."
    ),
    ErrorCode.HEAD_RULE: t("Only one checker may leave the head each turn."),
    ErrorCode.SIX_BLOCK: t(
        "You may not build a wall of six points that no opposing checker has passed."
    ),
    ErrorCode.MUST_PLAY_LARGER: t("Only one die can be played, so you must play the larger one."),
    ErrorCode.MUST_USE_DICE: t(
        "That would leave dice unplayed: use as much of the roll as you can."
    ),
    ErrorCode.TOO_MANY_MOVES: t("That is more moves than you have dice left."),
    ErrorCode.NO_DICE_LEFT: t("All your dice have been played: confirm the move."),
    ErrorCode.TAKE_BACK_TOO_LATE: t("Your opponent has already acted: that move stands."),
}


def error_text(error: TavlaError) -> Text:
    """The player's message for ``error``."""
    template = MESSAGES.get(error.code) if isinstance(error.code, ErrorCode) else None
    if template is None:
        return t("That is not possible: {reason}", reason=str(error))
    params = dict(error.params)
    if "options" in params:
        params["options"] = " / ".join(params["options"])
    return template.with_args(params)


class UserFacingError(Exception):
    """An expected refusal, shown to the player as a notice."""

    def __init__(self, text: Text) -> None:
        super().__init__(text.msgid)
        self.text = text
