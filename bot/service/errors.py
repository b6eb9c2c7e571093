"""Core's errors as messages a player can read, in their language."""

from __future__ import annotations

from bot.i18n import Text, t
from core.errors import TavlaError

# One message per error code of core (core/errors.py and the codes its modules raise).
MESSAGES: dict[str, Text] = {
    "not_your_turn": t("It is not your turn."),
    "not_a_player": t("You are not a player in this game."),
    "game_over": t("This game is already over."),
    "wrong_phase": t("That can't be done right now."),
    "illegal_action": t("That can't be done right now."),
    "no_cube": t("This game is played without the doubling cube."),
    "crawford": t("Nobody may double in the Crawford game."),
    "cube_not_yours": t("Your opponent owns the cube: only they can double now."),
    "cube_max": t("The cube is already at 64."),
    "no_resign_offer": t("Nobody has offered to resign."),
    "resign_level": t("That resignation level does not exist in this game."),
    "play_unfinished": t("The move is not finished: play the rest of the dice."),
    "notation_empty": t("Write a move such as 13/8 6/5."),
    "notation_syntax": t(
        "I can't read that move. Write each checker's move as from/to, e.g. 13/8 6/5."
    ),
    "notation_bad_point": t("I can't read “{word}” as a point: use 1–24, bar or off."),
    "notation_no_point": t("There is no point {point}: points are numbered 1 to 24."),
    "notation_too_long": t("That is too long to be a move."),
    "notation_too_many": t("A turn has at most four moves."),
    "notation_repeat": t("A move can be repeated at most four times."),
    "notation_from_off": t("A checker that is off the board can't move again."),
    "notation_to_bar": t("A checker can't move to the bar."),
    "notation_after_off": t("Nothing can follow “off”."),
    "notation_backwards": t("Checkers move from higher to lower numbers, like 13/8."),
    "ambiguous_play": t(
        "That move can be read in more than one way: {options}. Please write the stops."
    ),
    "illegal_play": t("That move is not allowed."),
    "must_enter_first": t("You have a checker on the bar: enter it first."),
    "no_checker": t("You have no checker on {point}."),
    "no_die": t("None of your dice fits that move."),
    "blocked": t("Point {point} is closed: your opponent holds it."),
    "bear_off_not_home": t("You can bear off only when all your checkers are in your home board."),
    "bear_off_higher_first": t(
        "Bear off from your highest points first, or move inside your home board."
    ),
    "head_rule": t("Only one checker may leave the head each turn."),
    "six_block": t("You may not build a wall of six points that no opposing checker has passed."),
    "must_play_larger": t("Only one die can be played, so you must play the larger one."),
    "must_use_dice": t("That would leave dice unplayed: use as much of the roll as you can."),
    "too_many_moves": t("That is more moves than you have dice left."),
    "no_dice_left": t("All your dice have been played: confirm the move."),
    "take_back_too_late": t("Your opponent has already acted: that move stands."),
}


def error_text(error: TavlaError) -> Text:
    """The player's message for ``error``."""
    template = MESSAGES.get(error.code)
    if template is None:
        return t("That is not possible: {reason}", reason=str(error))
    params = dict(error.params)
    if "options" in params:
        params["options"] = " / ".join(params["options"])
    return Text(template.msgid, params)
