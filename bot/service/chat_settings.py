"""``/settings`` in a group: the chat's own settings, changed by its administrators only.

Automatic analysis of every finished rated match, and the puzzle of the day
(:mod:`bot.service.daily`): the hours of the puzzle and of its answer, in the group's time
zone (a named zone, or an hour more or less than the one it has). The message
is public (everyone may see how the chat is set up) and edited in place after every press;
its buttons carry settings action ids (``0:0:og<choice>``) and belong to no game. Whether
the person is an administrator is the platform's answer, asked by the adapter
(:attr:`Actor.admin`): for the command and again for every press on these buttons.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from bot.i18n import Text, t
from bot.storage.base import DAILY_HOURS, REVEAL_HOURS, ZONE_NAMES, Chat, ChatPrefs, Storage, User

from . import actions as A
from .errors import UserFacingError
from .lang import language
from .views import Actor, Button, MessageRef, Place, View
from .zones import CITIES, offset_hours, offset_name, zone_label

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


def chat_settings_lines(prefs: ChatPrefs, now: float) -> list[Text | str]:
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
            "{hour}:00; everyone answers once with its buttons, and the answer, who found it "
            "and the group's puzzle leaderboard come at {reveal}:00, in reply to it. The "
            "group's time: {zone}.",
            state=ON if prefs.daily_puzzle else OFF,
            hour=prefs.puzzle_hour,
            reveal=prefs.reveal_hour,
            zone=zone_label(prefs.timezone, now),
        ),
        t(
            "Its buttons: 🧩 the hour it is posted, 💬 the hour of its answer, then the "
            "group's time zone, or one hour less or more."
        ),
        t("Your own settings: send /settings to me in a private chat."),
    ]


def chat_settings_buttons(prefs: ChatPrefs, now: float) -> list[list[Button]]:
    """One button per setting, showing its state (five rows at most: Discord's limit)."""
    offset = offset_hours(now, prefs.timezone)
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
                f"{'• ' if hour == prefs.puzzle_hour else ''}🧩 {hour}:00",
                A.encode(0, 0, A.SETTING, f"{CHAT_CHOICE}h{hour}"),
            )
            for hour in DAILY_HOURS
        ],
        [
            Button(
                f"{'• ' if hour == prefs.reveal_hour else ''}💬 {hour}:00",
                A.encode(0, 0, A.SETTING, f"{CHAT_CHOICE}r{hour}"),
            )
            for hour in REVEAL_HOURS
        ],
        [
            *(
                Button(
                    t("• {city}", city=CITIES[name][0])
                    if name == prefs.timezone
                    else CITIES[name][0],
                    A.encode(0, 0, A.SETTING, f"{CHAT_CHOICE}z{n}"),
                )
                for n, name in enumerate(ZONE_NAMES)
            ),
            *(
                Button(
                    f"{offset_name(offset + step)}",
                    A.encode(0, 0, A.SETTING, f"{CHAT_CHOICE}o{_signed(offset + step)}"),
                )
                for step in (-1, 1)
                if -12 <= offset + step <= 14
            ),
        ],
    ]


def _signed(hours: int) -> str:
    """An offset in a button's argument (letters and digits only): ``p3``, ``m5``, ``p0``."""
    return f"{'m' if hours < 0 else 'p'}{abs(hours)}"


def apply_chat_choice(prefs: ChatPrefs, arg: str) -> ChatPrefs:
    """The chat's settings after a button's choice; ValueError for one not of ours."""
    kind, value = arg[1:2], arg[2:]
    if arg[:1] == CHAT_CHOICE and kind == "a" and value in ("0", "1"):
        return dataclasses.replace(prefs, auto_analysis=value == "1")
    if arg[:1] == CHAT_CHOICE and kind == "p" and value in ("0", "1"):
        return dataclasses.replace(prefs, daily_puzzle=value == "1")
    if arg[:1] == CHAT_CHOICE and kind == "h" and value in {str(h) for h in DAILY_HOURS}:
        return dataclasses.replace(prefs, puzzle_hour=int(value))
    if arg[:1] == CHAT_CHOICE and kind == "r" and value in {str(h) for h in REVEAL_HOURS}:
        return dataclasses.replace(prefs, reveal_hour=int(value))
    if arg[:1] == CHAT_CHOICE and kind == "z" and value in {str(n) for n in range(len(ZONE_NAMES))}:
        return dataclasses.replace(prefs, timezone=ZONE_NAMES[int(value)])
    if arg[:1] == CHAT_CHOICE and kind == "o" and value[:1] in ("p", "m") and value[1:].isdigit():
        hours = int(value[1:]) * (-1 if value[0] == "m" else 1)
        if -12 <= hours <= 14:
            return dataclasses.replace(prefs, timezone=offset_name(hours))
    raise ValueError(f"unknown chat setting {arg!r}")


@dataclass(eq=False)
class ChatSettings:
    """``/settings`` in a group and its buttons (the storage, the clock for the time zones'
    offsets)."""

    storage: Storage
    clock: Callable[[], float]

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
        if prefs.daily_puzzle and message is not None and message.channel_id is not None:
            # Discord: the server's puzzle of the day goes to the channel it was set in.
            prefs = dataclasses.replace(prefs, puzzle_channel=message.channel_id)
        if prefs != chat.prefs:
            await self.storage.set_chat_prefs(chat.platform, chat.chat_id, prefs)
            chat = dataclasses.replace(chat, prefs=prefs)
        view = self._chat_settings_view(user, chat)
        view.edit = message is not None
        view.message = message
        return [view]

    def _chat_settings_view(self, user: User, chat: Chat) -> View:
        now = self.clock()
        return View(
            chat_settings_lines(chat.prefs, now),
            lang=language(user, chat, private=False),
            buttons=chat_settings_buttons(chat.prefs, now),
        )
