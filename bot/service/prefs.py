"""``/settings``: a player's own settings, shown with a button for each choice.

The settings message is private (a player's settings are nobody else's business) and is
edited in place after every press, so changing several settings costs one message.
Its buttons carry action ids like the game's (``0:0:o<choice>``); they belong to no game.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from bot.i18n import LANGUAGE_NAMES, LANGUAGES, Text, t
from bot.storage.base import CONFIRM_MODES, HOME_SIDES, Chat, PlayerPrefs, Storage, User
from renderers.themes import THEMES

from . import actions as A
from .chat_settings import ChatSettings
from .errors import UserFacingError
from .lang import language
from .settings import ServiceSettings
from .views import Actor, Button, MessageRef, Place, View

THEME_NAMES = {"classic": t("Classic"), "dark": t("Dark"), "contrast": t("High contrast")}
HOME_NAMES = {"right": t("on the right"), "left": t("on the left")}
CONFIRM_NAMES = {"undoable": t("if undoable"), "always": t("always"), "never": t("never")}
ON, OFF = "✅", "⬜"
#: The tutor's setting: on, off, or by itself (on for the first ten games vs the computer).
TUTOR_STATES: dict[bool | None, Text | str] = {True: ON, False: OFF, None: t("🔄 first games")}


def choice(arg: str) -> str:
    """A settings button's action id."""
    return A.encode(0, 0, A.SETTING, arg)


def settings_lines(prefs: PlayerPrefs, lang: str, default_theme: str) -> list[Text | str]:
    """What the settings message says: each setting, what it does, its current value."""
    theme = prefs.theme or default_theme
    return [
        t("⚙️ Your settings (they follow you into every game):"),
        t(
            "🎲 Roll by itself: {state}. The bot always rolls for you when rolling is all you "
            "can do (no cube, or you may not double); with this on it also rolls when you "
            "could double.",
            state=ON if prefs.auto_roll else OFF,
        ),
        t(
            "✅ Confirm by itself: {mode}. “If undoable” hands a finished move over at once "
            "when your opponent must then press Roll or Double, and you can take it back "
            "until they do; otherwise (against the computer, or when your opponent's roll is "
            "made by itself) you press Confirm. “Always” never asks; “never” always asks.",
            mode=CONFIRM_NAMES[prefs.auto_confirm],
        ),
        t(
            "🎨 Board: {theme}; your home board {side}.",
            theme=THEME_NAMES.get(theme, theme),
            side=HOME_NAMES[prefs.home],
        ),
        t(
            "🌙 Quiet nights: {state}. A daily pool game tells you it is your turn, but not "
            "between 22:00 and 8:00 your time.",
            state=OFF
            if prefs.utc_offset is None
            else t("your time is UTC{offset}", offset=f"{prefs.utc_offset:+d}"),
        ),
        t(
            "🧑‍🏫 Tutor: {state}. Against the computer it asks before a play or cube action "
            "that loses about 4% or more, and names the better one (by itself for your first "
            "ten games there).",
            state=TUTOR_STATES[prefs.tutor],
        ),
        t(
            "🧩 Your games in puzzles: {state}. A bad play of yours may become a puzzle for "
            "others, without your name.",
            state=ON if prefs.puzzles else OFF,
        ),
        t("🌐 Language: {name}", name=LANGUAGE_NAMES[lang]),
    ]


def settings_buttons(prefs: PlayerPrefs, lang: str, default_theme: str) -> list[list[Button]]:
    """One button per choice; the current one marked."""
    theme = prefs.theme or default_theme

    def mark(label: Text | str, chosen: bool) -> Text | str:
        return t("• {name}", name=label) if chosen else label

    return [
        [
            Button(
                t("🎲 Roll by itself {state}", state=ON if prefs.auto_roll else OFF),
                choice("r0" if prefs.auto_roll else "r1"),
            )
        ],
        [
            Button(
                mark(t("✅ {mode}", mode=CONFIRM_NAMES[mode]), mode == prefs.auto_confirm),
                choice("c" + mode),
            )
            for mode in CONFIRM_MODES
        ],
        [
            Button(mark(THEME_NAMES.get(name, name), name == theme), choice("t" + name))
            for name in THEMES
        ],
        [
            Button(mark(t("⬅ Home left"), prefs.home == "left"), choice("hleft")),
            Button(mark(t("Home right ➡"), prefs.home == "right"), choice("hright")),
        ],
        [
            Button(t("🌙 UTC −1 h"), choice("zm")),
            Button(t("🌙 UTC +1 h"), choice("zp")),
            Button(mark(t("🌙 Off"), prefs.utc_offset is None), choice("zx")),
        ],
        [
            Button(
                t("🧑‍🏫 Tutor {state}", state=TUTOR_STATES[prefs.tutor]),
                choice("u1" if prefs.tutor is False else "u0"),
            ),
            Button(
                t("🧩 My games in puzzles {state}", state=ON if prefs.puzzles else OFF),
                choice("q0" if prefs.puzzles else "q1"),
            ),
        ],
        [
            Button(mark(LANGUAGE_NAMES[code], code == lang), choice("l" + code))
            for code in LANGUAGES
        ],
    ]


def apply_choice(prefs: PlayerPrefs, arg: str) -> tuple[PlayerPrefs, str | None]:
    """The settings after a button's choice, and the language it chose (if it chose one).

    Raises ValueError for a choice that is not one of ours (a forged button)."""
    kind, value = arg[:1], arg[1:]
    if kind == "r" and value in ("0", "1"):
        return dataclasses.replace(prefs, auto_roll=value == "1"), None
    if kind == "c" and value in CONFIRM_MODES:
        return dataclasses.replace(prefs, auto_confirm=value), None
    if kind == "t" and value in THEMES:
        return dataclasses.replace(prefs, theme=value), None
    if kind == "h" and value in HOME_SIDES:
        return dataclasses.replace(prefs, home=value), None
    if kind == "u" and value in ("0", "1"):
        return dataclasses.replace(prefs, tutor=value == "1"), None
    if kind == "q" and value in ("0", "1"):
        return dataclasses.replace(prefs, puzzles=value == "1"), None
    if kind == "l" and value in LANGUAGES:
        return prefs, value
    if kind == "z" and value in ("m", "p", "x"):
        if value == "x":
            return dataclasses.replace(prefs, utc_offset=None), None
        offset = (prefs.utc_offset or 0) + (1 if value == "p" else -1)
        return dataclasses.replace(prefs, utc_offset=max(-12, min(14, offset))), None
    raise ValueError(f"unknown setting {arg!r}")


@dataclass(eq=False)
class Prefs:
    """``/settings`` and its buttons (the storage, the settings for the default theme, the
    chat's settings a group's ``/settings`` shows)."""

    storage: Storage
    settings: ServiceSettings
    chat_settings: ChatSettings

    async def command(
        self, *, user: User, chat: Chat, place: Place, actor: Actor, **_: Any
    ) -> list[View]:
        """``/settings``: the player's own settings in private, the chat's in a group (for its
        administrators)."""
        if not place.private:  # the chat's settings, for its administrators
            return await self.chat_settings.group_settings(user, chat, actor)
        return [self._settings_view(user)]

    async def press(
        self,
        user: User,
        chat: Chat,
        place: Place,
        arg: str,
        message: MessageRef | None,
    ) -> list[View]:
        """A settings button: keep the choice and show the settings message again in place."""
        try:
            prefs, lang = apply_choice(user.prefs, arg)
        except ValueError:
            raise UserFacingError(t("That button is not one of mine.")) from None
        if prefs != user.prefs:
            await self.storage.set_user_prefs(user.id, prefs)
            if user.prefs.puzzles and not prefs.puzzles:  # their games' puzzles go at once
                await self.storage.puzzles.remove_games_of(user.id)
            user = dataclasses.replace(user, prefs=prefs)
        if lang is not None and lang != user.lang:
            await self.storage.set_user_lang(user.id, lang)
            user = dataclasses.replace(user, lang=lang)
        view = self._settings_view(user)
        view.edit = message is not None
        view.message = message
        return [view]

    def _settings_view(self, user: User) -> View:
        lang = language(user)
        theme = self.settings.theme
        return View(
            settings_lines(user.prefs, lang, theme),
            lang=lang,
            buttons=settings_buttons(user.prefs, lang, theme),
        )
