"""The command catalogue: every chat command once, with what each platform needs of it.

One :class:`Command` per command: its name, the spellings also accepted, the one-line
description (Telegram's command menu, Discord's application commands), its line in
``/help`` and who may use it. The service dispatches by it, ``/help`` is written from it,
the Telegram adapter registers its menu and handlers from it and the Discord adapter its
command tree; tests check that all four agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from bot.i18n import Text, t


class Audience(StrEnum):
    """Who may use a command (the handler gives the reason when it refuses)."""

    EVERYONE = "everyone"
    #: Only in a private chat with the bot (``/settings``).
    PRIVATE = "private"
    #: Only in a group or server (``/tournament``).
    GROUP = "group"
    #: Only a chat's administrators, in a group (``/resettop``).
    ADMIN = "admin"


@dataclass(frozen=True)
class Command:
    """One chat command."""

    name: str
    #: Its one line in command menus (Telegram's menu, Discord's command list).
    description: Text
    #: Its line in ``/help``; commands explained together share one line (None: not listed).
    help: Text | None
    #: Other spellings the service accepts (not shown in menus).
    aliases: tuple[str, ...] = ()
    audience: Audience = Audience.EVERYONE
    #: Whether a chat admin may do more with it than others (a tournament's start, cancel
    #: and award), so adapters tell the service whether the sender is an admin.
    admin_powers: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """The name and its aliases."""
        return (self.name, *self.aliases)

    @property
    def asks_admin(self) -> bool:
        """Whether the service needs to know if the sender administers the chat."""
        return self.audience is Audience.ADMIN or self.admin_powers


_END_GAME = t("/resign [gammon|backgammon], /abort, /claim — end a game")
_TOP_STATS = t("/top, /stats [@name] — leaderboard and statistics")
_EXPORT_DICE = t("/export — the game for GNU Backgammon; /dice — check the dice")
_LANG_RULES = t("/lang tr|en|ru — language; /rules — the rules")
_PRIVACY = t("/privacy — what the bot keeps about you; /forget — delete it (in private)")
_UZUN = t("/uzun [@name] [points] — challenge to Uzun Tavla (long nardy); /nardy too")

#: Every command, in the order of the menus and of ``/help``.
COMMANDS: tuple[Command, ...] = (
    Command(
        "tavla",
        t("Challenge to tavla (backgammon)"),
        t("/tavla [@name] [points] [turkish] [fast] — challenge to tavla"),
    ),
    Command("uzun", t("Challenge to Uzun Tavla (long nardy)"), _UZUN),
    Command("nardy", t("Challenge to long nardy"), _UZUN),
    Command(
        "bot",
        t("Play the computer"),
        t("/bot [uzun|turkish] [points] [beginner|club|expert|master] — play the computer"),
    ),
    Command(
        "move",
        t("Type a move, e.g. /move 13/8 6/5"),
        t("/move 13/8 6/5 — type a move (or reply to the board with it)"),
    ),
    Command(
        "board",
        t("Show your game's board again"),
        t("/board — your game's board here again, with live buttons"),
    ),
    Command("resign", t("Resign the game"), _END_GAME),
    Command("abort", t("Call the game off by agreement"), _END_GAME),
    Command("claim", t("Claim a game your opponent let run out of time"), _END_GAME),
    Command("top", t("This chat's leaderboard"), _TOP_STATS),
    Command(
        "tournament",
        t("A tournament in this group"),
        t(
            "/tournament knockout|roundrobin|swiss [in 2h] — a tournament in this group, "
            "starting within a week; a chat admin's new one replaces one not yet started"
        ),
        audience=Audience.GROUP,
        admin_powers=True,
    ),
    Command("stats", t("Your statistics and rating"), _TOP_STATS),
    Command("export", t("The game for GNU Backgammon"), _EXPORT_DICE),
    Command(
        "analyse",
        t("Analyse your last finished game"),
        t(
            "/analyse [game] — the analysis of your last finished game; a group's admins "
            "can have every rated match analysed (/settings in the group)"
        ),
        aliases=("analyze", "analiz"),
    ),
    Command("dice", t("Check the fairness of the dice"), _EXPORT_DICE),
    Command("lang", t("Language: tr, en, ru"), _LANG_RULES),
    Command(
        "settings",
        t("Your own settings (in private)"),
        t("/settings — roll and confirm by themselves, board style (in private)"),
        audience=Audience.PRIVATE,
        # In a group, its admins get the chat's settings (automatic analysis, issue 15).
        admin_powers=True,
    ),
    Command("rules", t("The rules"), _LANG_RULES),
    Command("privacy", t("What the bot keeps about you"), _PRIVACY),
    Command("forget", t("Delete your data (in private)"), _PRIVACY, audience=Audience.PRIVATE),
    # Telegram opens a private chat with /start (a deep link may add a word): the help.
    Command("help", t("All commands"), None, aliases=("start",)),
    Command(
        "resettop",
        t("Reset this chat's leaderboard (admins)"),
        t("/resettop [tavla|turkish|uzun] — reset this chat's leaderboard (admins)"),
        audience=Audience.ADMIN,
    ),
)

_BY_NAME: dict[str, Command] = {name: c for c in COMMANDS for name in c.names}


def find_command(name: str) -> Command | None:
    """The command called ``name`` (or one of its aliases, any case); None if unknown."""
    return _BY_NAME.get(name.lower())


def all_names() -> Iterator[str]:
    """Every name and alias the service accepts."""
    return iter(_BY_NAME)


def help_lines() -> list[Text]:
    """The lines of ``/help`` after its heading: each command's line once, in order."""
    lines: list[Text] = []
    for command in COMMANDS:
        if command.help is not None and command.help not in lines:
            lines.append(command.help)
    return lines
