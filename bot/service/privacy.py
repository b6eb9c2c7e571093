"""``/privacy`` (what the bot keeps, why and for how long) and ``/forget`` (a player's data
deleted after a confirmation), and the bot's descriptions for the platforms' profiles.

``/forget`` asks first, with two buttons whose ids carry the player and the time they were
made (``fg:<user id>:<issued>:yes|no``): only that player can confirm, within
:data:`CONFIRM_WITHIN` seconds. Forgetting keeps every game played with others, its moves
under the name :data:`FORGOTTEN_NAME`, and every result: the statistics and ratings of the
others do not change. What identifies the player (platform id, name, username, language,
settings) and their own ratings go. A player with a game under way or in a tournament that
has not ended is asked to finish, resign or leave it first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.i18n import Text, t, tn
from bot.storage.base import Chat, Storage, User
from bot.storage.puzzles import OPEN_FOR

from .errors import UserFacingError
from .lang import language
from .views import Button, MessageRef, Place, View

log = logging.getLogger(__name__)

#: The prefix of the confirmation's buttons.
PREFIX = "fg:"
#: Seconds within which the confirmation may be pressed.
CONFIRM_WITHIN = 600.0
#: The name a forgotten player's games show in their place.
FORGOTTEN_NAME = "Deleted player"

#: The bot's profile texts (Telegram's setMyDescription and setMyShortDescription).
DESCRIPTION = t(
    "Play tavla (backgammon), Turkish tavla and Uzun Tavla (long nardy) with friends in "
    "groups or against the computer. Type /tavla in a group to challenge, /bot to play the "
    "computer, /help for everything. What the bot keeps about you: /privacy."
)
SHORT_DESCRIPTION = t("Tavla and long nardy with friends or the computer. /help, /privacy")

PRIVACY_LINES: tuple[Text, ...] = (
    t("🔒 What this bot keeps about you, why, and for how long"),
    t(
        "• Your account on this platform: its id, your name and username (to seat you in "
        "games and find you when someone challenges @you), your language and your /settings."
    ),
    t(
        "• The games you play: the chat, the moves, the dice seed and the times (to run the "
        "games, redraw boards, /export them, check the dice and keep clocks)."
    ),
    t("• Your results and ratings (for /stats and the leaderboards)."),
    t(
        "• Your puzzle tries: the puzzle, the play you chose, whether it was right, and when "
        "(one try each; for your puzzle rating and streak, and for a group's puzzle of the "
        "day: who found it and the group's puzzle leaderboard). Kept as your results are."
    ),
    tn(
        "• The puzzle you have open in a chat and when it was shown, so that a play you type "
        "there answers it: until you answer it or another puzzle is shown there, and "
        "{n} minute at most.",
        "• The puzzle you have open in a chat and when it was shown, so that a play you type "
        "there answers it: until you answer it or another puzzle is shown there, and "
        "{n} minutes at most.",
        round(OPEN_FOR / 60),
    ),
    t(
        "• Nothing else: not your other messages, contacts or phone number. The bot passes "
        "none of it on; whoever runs this bot can read what it stores."
    ),
    t(
        "How long: for as long as the bot runs, until you ask it to forget you. Logs and "
        "backups are kept as its operator decides."
    ),
    t(
        "/forget deletes what identifies you, your ratings, your puzzle tries and open "
        "puzzles, and the puzzles made from your games. Games you played with others stay, "
        "their moves under the name 'Deleted player', so that their statistics and ratings "
        "do not change."
    ),
)

ASK = t(
    "Delete your data? Your name, ids, settings, ratings and puzzle tries are deleted; games "
    "you played with others keep their moves under the name 'Deleted player'. This can't be "
    "undone."
)
YES = t("Delete my data")
NO = t("Cancel")
DONE = t("Done: I have forgotten you. If you write to me again, you start afresh.")
KEPT = t("Nothing was deleted.")
EXPIRED = t("This confirmation has expired: send /forget again.")
NOT_YOURS = t("Only the player who asked can press this.")
PRIVATE_ONLY = t("/forget works in a private chat with me.")


def is_privacy_button(data: str) -> bool:
    """Whether ``data`` is a button of the ``/forget`` confirmation."""
    return data.startswith(PREFIX)


@dataclass(eq=False)
class Privacy:
    """``/privacy`` and ``/forget`` (the storage, the clock the confirmation expires by)."""

    storage: Storage
    clock: Callable[[], float]

    async def privacy(self, *, user: User, chat: Chat, place: Place, **_: Any) -> list[View]:
        """``/privacy``: what the bot keeps about a person, why and for how long."""
        return [View(list(PRIVACY_LINES), lang=language(user, chat, private=place.private))]

    async def forget(self, *, user: User, chat: Chat, place: Place, **_: Any) -> list[View]:
        """``/forget`` (in private): asks first, with two buttons."""
        if not place.private:
            raise UserFacingError(PRIVATE_ONLY)
        issued = int(self.clock())
        buttons = [
            [
                Button(YES, f"{PREFIX}{user.id}:{issued}:yes"),
                Button(NO, f"{PREFIX}{user.id}:{issued}:no"),
            ]
        ]
        return [View([ASK], lang=language(user, chat), buttons=buttons)]

    async def press(
        self, user: User, chat: Chat, data: str, message: MessageRef | None
    ) -> list[View]:
        """A press on the confirmation's buttons: the answer replaces the question."""

        def answer(text: Text) -> list[View]:
            view = View([text], lang=language(user, chat), replace_pressed=True)
            view.edit, view.message = message is not None, message
            return [view]

        owner, issued, choice = _parse(data)
        if owner != user.id:
            raise UserFacingError(NOT_YOURS)
        if choice != "yes":
            return answer(KEPT)
        if not 0 <= self.clock() - issued <= CONFIRM_WITHIN:
            raise UserFacingError(EXPIRED)
        blocker = await self.storage.forget_user(user.id, FORGOTTEN_NAME, self.clock())
        if blocker == "game":
            raise UserFacingError(
                t("You have a game under way: finish it, /resign or /abort it first.")
            )
        if blocker == "tournament":
            raise UserFacingError(
                t("You are in a tournament that has not ended: /tournament leave first.")
            )
        log.info("user %s was forgotten at their request", user.id)
        return answer(DONE)


def _parse(data: str) -> tuple[int, float, str]:
    """(user id, issued, answer) of a confirmation button; a garbled one raises the
    polite "not yours" (nobody else can make a valid one)."""
    parts = data.removeprefix(PREFIX).split(":")
    if len(parts) != 3 or not (parts[0].isdigit() and parts[1].isdigit()):
        raise UserFacingError(NOT_YOURS)
    return int(parts[0]), float(parts[1]), parts[2]
