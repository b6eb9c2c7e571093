"""The exceptions core raises. The service turns each into a localized message.

Every error carries a machine-readable ``code`` (a short snake_case key, used by the
service to pick a translation) and ``params`` for that message, besides an English text.
"""

from __future__ import annotations

from typing import Any


class TavlaError(ValueError):
    """Base of every error raised by core for a bad input or a forbidden action."""

    code = "error"

    def __init__(self, message: str, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.params = params


class NotationError(TavlaError):
    """A move written in a form the parser cannot read."""

    code = "notation_syntax"


class IllegalPlayError(TavlaError):
    """A well-formed move that the rules do not allow in this position and roll."""

    code = "illegal_play"


class AmbiguousPlayError(TavlaError):
    """A move that matches more than one legal play; the user must say which."""

    code = "ambiguous_play"


class NotYourTurnError(TavlaError):
    """An action by a player who is not the one to act now."""

    code = "not_your_turn"


class IllegalActionError(TavlaError):
    """An action that the game's current phase does not allow (e.g. doubling after rolling)."""

    code = "illegal_action"


class GameOverError(IllegalActionError):
    """An action on a game that has already ended."""

    code = "game_over"


class InvalidPositionError(TavlaError):
    """A board or identifier that does not describe a valid position."""

    code = "invalid_position"
