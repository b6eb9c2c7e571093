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
from core.variants import Variant

from . import words as W


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
class Args:
    """The argument words a command takes. The service checks them before the command runs
    and refuses an unknown one with the command's usage (:func:`unknown_argument`), so no
    word is ever quietly ignored. ``free``: the command reads its text itself (a move, a
    name, a tournament's words) and refuses what it does not understand the same way."""

    #: Known words, case-folded.
    words: frozenset[str] = frozenset()
    #: Whether whole numbers are taken too (a match length).
    numbers: bool = False
    free: bool = False

    def unknown(self, text: str) -> str | None:
        """The first word of ``text`` the command does not take, or None."""
        if self.free:
            return None
        for word in text.split():
            if word.casefold() in self.words:
                continue
            if self.numbers and word.isascii() and word.isdigit():
                continue  # a number, understood: the command says if it is out of range
            return word
        return None


#: No arguments at all.
NONE = Args()
#: The command reads its text itself.
FREE = Args(free=True)


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
    #: The arguments it takes (see :class:`Args`).
    args: Args = NONE
    #: What it answers an argument it does not take with (by default its ``help`` line).
    usage: Text | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The name and its aliases."""
        return (self.name, *self.aliases)

    @property
    def usage_line(self) -> Text:
        """How the command is used, as a player reads it."""
        usage = self.usage or self.help
        assert usage is not None, f"/{self.name} needs a usage line"
        return usage

    @property
    def asks_admin(self) -> bool:
        """Whether the service needs to know if the sender administers the chat."""
        return self.audience is Audience.ADMIN or self.admin_powers


_END_GAME = t("/resign [gammon|backgammon], /abort, /claim — end a game")
#: The same line for a game with no backgammon (T-7 and T-9 in Tavla only; Turkish tavla
#: and Uzun Tavla, U-9, are won single or mars).
_END_GAME_MARS = t("/resign [mars], /abort, /claim — end a game")
_TOP_STATS = t(
    "/top [pool] [uzun|turkish], /stats [@name] — leaderboard (this chat's, or the pool's) "
    "and statistics"
)
_STRANGERS = t(
    "/block — never be paired with your last pool opponent again; /report [what happened] — "
    "tell the operator"
)
_EXPORT_DICE = t(
    "/export — the game as a file (GNU Backgammon's .mat for Tavla); /dice — check the dice"
)
_LANG_RULES = t("/lang tr|en|ru — language; /rules [turkish|uzun] — the rules")
_PRIVACY = t("/privacy — what the bot keeps about you; /forget — delete it (in private)")
_UZUN = t(
    "/uzun [@name] [points] [fast] [unrated] — challenge to Uzun Tavla (long nardy); /nardy too"
)

#: Every command, in the order of the menus and of ``/help``.
COMMANDS: tuple[Command, ...] = (
    Command(
        "tavla",
        t("Challenge to tavla (backgammon)"),
        t("/tavla [@name] [points] [turkish] [fast] [unrated] — challenge to tavla"),
        args=FREE,  # names: read by the handler, which refuses the rest with the usage
    ),
    Command("uzun", t("Challenge to Uzun Tavla (long nardy)"), _UZUN, args=FREE),
    Command("nardy", t("Challenge to long nardy"), _UZUN, args=FREE),
    Command(
        "bot",
        t("Play the computer"),
        t("/bot [uzun|turkish] [points] [beginner|club|expert|master] — play the computer"),
        args=Args(W.KINDS | frozenset(W.LEVELS), numbers=True),
    ),
    Command(
        "learn",
        t("A first game that teaches, step by step"),
        t(
            "/learn [tavla|turkish|uzun] — a first game against the computer that explains "
            "the board, the moves and the rules as they come up"
        ),
        args=Args(W.KINDS),
    ),
    Command(
        "play",
        t("Find an opponent now (any chat, Telegram or Discord)"),
        t(
            "/play [tavla|turkish|uzun] [points] [fast|daily] — play a stranger: the first "
            "one waiting for the same game, in your private chat"
        ),
        args=Args(W.KINDS | W.FAST | W.DAILY, numbers=True),
    ),
    Command("games", t("Your pool games and whose turn it is"), t("/games — your pool games")),
    Command(
        "move",
        t("Type a move, e.g. /move 13/8 6/5"),
        t("/move 13/8 6/5 (or 13-8 6-5) — type a move (or reply to the board with it)"),
        args=FREE,
    ),
    Command(
        "board",
        t("Show your game's board again"),
        t("/board — your game's board here again, with live buttons"),
    ),
    # The level is read by the handler, which refuses a word with the usage of the game
    # played (resign_usage): Uzun Tavla's player is not offered a backgammon.
    Command("resign", t("Resign the game"), _END_GAME, args=FREE),
    Command(
        "abort",
        t("Call the game off by agreement"),
        _END_GAME,
        usage=t("/abort — call the game off by agreement (it counts for nobody)"),
    ),
    Command(
        "claim",
        t("Claim a game your opponent let run out of time"),
        _END_GAME,
        usage=t("/claim — win a game whose opponent let their time run out"),
    ),
    Command("top", t("This chat's leaderboard"), _TOP_STATS, args=Args(W.KINDS | W.POOL)),
    Command(
        "tournament",
        t("A tournament in this group"),
        t(
            "/tournament knockout|roundrobin|swiss [in 2h] — a tournament in this group, "
            "starting within a week; a chat admin's new one replaces one not yet started"
        ),
        audience=Audience.GROUP,
        admin_powers=True,
        args=FREE,
    ),
    Command("stats", t("Your statistics and rating"), _TOP_STATS, args=FREE),
    Command("export", t("The game as a file, to keep or analyse"), _EXPORT_DICE),
    Command(
        "analyse",
        t("Analyse your last finished game"),
        t(
            "/analyse [game] — the analysis of your last finished game; a group's admins "
            "can have every rated match analysed (/settings in the group)"
        ),
        aliases=("analyze", "analiz"),
        args=FREE,  # a game number, read (and refused with its usage) by the handler
    ),
    Command("dice", t("Check the fairness of the dice"), _EXPORT_DICE),
    Command(
        "hint",
        t("The best plays of your roll (against the computer)"),
        t(
            "/hint or 💡 under the board — the three best plays (or the cube decision) with "
            "what each costs; against the computer, on one keyboard, and in unrated games "
            "when both players allow it"
        ),
    ),
    Command(
        "puzzle",
        t("A puzzle from a real game (in private)"),
        t("/puzzle [tavla|turkish|uzun] — a puzzle from a real game: find the best play"),
        audience=Audience.PRIVATE,
        args=Args(W.KINDS),
    ),
    Command("lang", t("Language: tr, en, ru"), _LANG_RULES, args=FREE),
    Command(
        "settings",
        t("Your own settings (in private)"),
        t("/settings — roll and confirm by themselves, board style (in private)"),
        audience=Audience.PRIVATE,
        # In a group, its admins get the chat's settings (automatic analysis).
        admin_powers=True,
    ),
    Command("rules", t("The rules"), _LANG_RULES, args=Args(W.KINDS)),
    Command("block", t("Never be paired with your last pool opponent again"), _STRANGERS),
    Command("report", t("Report your last pool opponent"), _STRANGERS, args=FREE),
    Command(
        "say",
        t("Say a friendly word to your pool opponent"),
        t("/say — a fixed phrase to your pool opponent, in their language"),
    ),
    Command("privacy", t("What the bot keeps about you"), _PRIVACY),
    Command("forget", t("Delete your data (in private)"), _PRIVACY, audience=Audience.PRIVATE),
    # Telegram opens a private chat with /start (a deep link may add a word): the help.
    Command(
        "help",
        t("All commands"),
        None,
        aliases=("start",),
        args=Args(W.START_LINKS),
        usage=t("/help — all commands"),
    ),
    Command(
        "resettop",
        t("Reset this chat's leaderboard (admins)"),
        t("/resettop [tavla|turkish|uzun] — reset this chat's leaderboard (admins)"),
        audience=Audience.ADMIN,
        args=Args(W.KINDS),
    ),
)

_BY_NAME: dict[str, Command] = {name: c for c in COMMANDS for name in c.names}


def find_command(name: str) -> Command | None:
    """The command called ``name`` (or one of its aliases, any case); None if unknown."""
    return _BY_NAME.get(name.lower())


def all_names() -> Iterator[str]:
    """Every name and alias the service accepts."""
    return iter(_BY_NAME)


#: The most of a word an answer quotes back: a longer one would hide the usage after it.
QUOTED = 40


def quoted(word: str) -> str:
    """``word`` as an answer quotes it: cut short with … when it is long."""
    return word if len(word) <= QUOTED else word[:QUOTED] + "…"


def _usage(command: Command | str, usage: Text | None) -> Text:
    if usage is not None:
        return usage
    spec = find_command(command) if isinstance(command, str) else command
    assert spec is not None, command
    return spec.usage_line


def unknown_argument(command: Command | str, word: str, usage: Text | None = None) -> Text:
    """The answer to an argument ``command`` does not take: the word and the usage (its
    own, or ``usage``: the one for the game played)."""
    return t(
        "I didn't understand “{word}”. {usage}", word=quoted(word), usage=_usage(command, usage)
    )


def clashing_arguments(
    command: Command | str, first: str, second: str, usage: Text | None = None
) -> Text:
    """The answer to two words that choose one thing differently (``/bot uzun turkish``):
    choose one, and the usage (its own, or ``usage``)."""
    return t(
        "Choose one: “{first}” or “{second}”. {usage}",
        first=quoted(first),
        second=quoted(second),
        usage=_usage(command, usage),
    )


def resign_usage(variant: Variant | None) -> Text:
    """``/resign``'s line for a game of ``variant``: the levels it has (T-9: a backgammon
    only where the game knows one, T-7; U-9 and Turkish tavla have single and mars)."""
    return _END_GAME if variant is None or variant.backgammons else _END_GAME_MARS


def help_lines(variant: Variant | None = None) -> list[Text]:
    """The lines of ``/help`` after its heading: each command's line once, in order;
    ``/resign``'s as ``variant``, the game played, has it (:func:`resign_usage`)."""
    lines: list[Text] = []
    for command in COMMANDS:
        line = command.help
        if line is _END_GAME:
            line = resign_usage(variant)
        if line is not None and line not in lines:
            lines.append(line)
    return lines
