"""``/settings`` in a group: the chat's own settings, changed by its administrators only.

Automatic analysis of every finished rated match, and the puzzle of the day
(:mod:`bot.service.daily`) with its hour. The message
is public (everyone may see how the chat is set up) and edited in place after every press;
its buttons carry settings action ids (``0:0:og<choice>``) and belong to no game. Whether
the person is an administrator is the platform's answer, asked by the adapter
(:attr:`Actor.admin`): for the command and again for every press on these buttons.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from bot.i18n import Text, t
from bot.storage.base import DAILY_HOURS, REVEAL_HOUR, Chat, ChatPrefs, Storage, User

from . import actions as A
from .errors import UserFacingError
from .lang import language
from .views import Actor, Button, MessageRef, Place, View

ON, OFF = "✅", "⬜"
#: Settings choices of a chat start with this letter (a player's never do).
CHAT_CHOICE = "g"
OWN_SETTINGS_IN_PRIVATE = t(
    "Your settings are yours alone: send /settings to me in a private chat to change them."
)
ADMINS_ONLY = t("Only the chat's administrators can change its settings.")


def is_chat_setting(data: str) -> bool:
    """Whether a button's action id changes a chat's settings (then the adapter asks the
    platform whether the presser is an administrator of the chat)."""
    action = A.decode(data)
    return action is not None and action.code == A.SETTING and action.arg[:1] == CHAT_CHOICE


def chat_settings_lines(prefs: ChatPrefs) -> list[Text | str]:
    """What the chat's settings message says: each setting, what it does, its value."""
    return [
        t("⚙️ This chat's settings (its administrators may change them):"),
        t(
            "🔍 Analyse every rated match: {state}. With this on, the analysis card of every "
            "rated match finished here is posted when the match ends.",
            state=ON if prefs.auto_analysis else OFF,
        ),
        t(
            "🧩 Puzzle of the day: {state}. With this on, a puzzle is posted here every day at "
            "{hour}:00 UTC; everyone answers once with its buttons, and the answer, who found "
            "it and the group's puzzle leaderboard come at {reveal}:00 UTC.",
            state=ON if prefs.daily_puzzle else OFF,
            hour=prefs.puzzle_hour,
            reveal=REVEAL_HOUR,
        ),
        t("Your own settings: send /settings to me in a private chat."),
    ]


def chat_settings_buttons(prefs: ChatPrefs) -> list[list[Button]]:
    """One button per setting, showing its state."""
    return [
        [
            Button(
                t("🔍 Analyse every rated match {state}", state=ON if prefs.auto_analysis else OFF),
                A.encode(0, 0, A.SETTING, CHAT_CHOICE + ("a0" if prefs.auto_analysis else "a1")),
            )
        ],
        [
            Button(
                t("🧩 Puzzle of the day {state}", state=ON if prefs.daily_puzzle else OFF),
                A.encode(0, 0, A.SETTING, CHAT_CHOICE + ("p0" if prefs.daily_puzzle else "p1")),
            )
        ],
        [
            Button(
                f"{'• ' if hour == prefs.puzzle_hour else ''}{hour}:00",
                A.encode(0, 0, A.SETTING, f"{CHAT_CHOICE}h{hour}"),
            )
            for hour in DAILY_HOURS
        ],
    ]


def apply_chat_choice(prefs: ChatPrefs, arg: str) -> ChatPrefs:
    """The chat's settings after a button's choice; ValueError for one not of ours."""
    kind, value = arg[1:2], arg[2:]
    if arg[:1] == CHAT_CHOICE and kind == "a" and value in ("0", "1"):
        return dataclasses.replace(prefs, auto_analysis=value == "1")
    if arg[:1] == CHAT_CHOICE and kind == "p" and value in ("0", "1"):
        return dataclasses.replace(prefs, daily_puzzle=value == "1")
    if arg[:1] == CHAT_CHOICE and kind == "h" and value in {str(h) for h in DAILY_HOURS}:
        return dataclasses.replace(prefs, puzzle_hour=int(value))
    raise ValueError(f"unknown chat setting {arg!r}")


@dataclass(eq=False)
class ChatSettings:
    """``/settings`` in a group and its buttons (the storage)."""

    storage: Storage

    async def group_settings(self, user: User, chat: Chat, actor: Actor) -> list[View]:
        """An administrator gets the chat's settings; anyone else the pointer to their own."""
        if not actor.admin:
            raise UserFacingError(OWN_SETTINGS_IN_PRIVATE)
        return [self._chat_settings_view(user, chat)]

    async def press(
        self,
        user: User,
        chat: Chat,
        place: Place,
        actor: Actor,
        arg: str,
        message: MessageRef | None,
    ) -> list[View]:
        """A chat settings button: an administrator's choice is kept and the message shown
        again in place."""
        if place.private or not actor.admin:
            raise UserFacingError(ADMINS_ONLY)
        try:
            prefs = apply_chat_choice(chat.prefs, arg)
        except ValueError:
            raise UserFacingError(t("That button is not one of mine.")) from None
        if prefs != chat.prefs:
            await self.storage.set_chat_prefs(chat.platform, chat.chat_id, prefs)
            chat = dataclasses.replace(chat, prefs=prefs)
        view = self._chat_settings_view(user, chat)
        view.edit = message is not None
        view.message = message
        return [view]

    def _chat_settings_view(self, user: User, chat: Chat) -> View:
        return View(
            chat_settings_lines(chat.prefs),
            lang=language(user, chat, private=False),
            buttons=chat_settings_buttons(chat.prefs),
        )
