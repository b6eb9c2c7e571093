"""The slash commands: the same names as on Telegram, with typed options.

Each command only turns its options back into the service's argument words (``/tavla
@name 5 turkish`` → ``args="5 turkish"``, ``mentions=[name]``) and hands the interaction to
the adapter; no rule lives here. Descriptions and choice names are :class:`locale_str` with
our English message ids, translated for Discord's ``tr`` and ``ru`` locales from the gettext
catalogs by :class:`CatalogTranslator` when the commands are synced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import Choice, locale_str

from bot.i18n import DEFAULT_LANGUAGE, catalog
from bot.service.commands import COMMANDS, Audience

if TYPE_CHECKING:
    from .adapter import DiscordAdapter

_ = locale_str

#: Discord locales we have catalogs for.
LOCALES: dict[discord.Locale, str] = {discord.Locale.turkish: "tr", discord.Locale.russian: "ru"}

_NAMES = (
    app_commands.TranslationContextLocation.command_name,
    app_commands.TranslationContextLocation.group_name,
    app_commands.TranslationContextLocation.parameter_name,
)


class CatalogTranslator(app_commands.Translator):
    """Command descriptions and choice names from our gettext catalogs (tr, ru).

    Names stay as they are on every platform (``/tavla`` everywhere); a string the catalog
    lacks is left to Discord's English default.
    """

    async def translate(
        self,
        string: locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContext[Any, Any],
    ) -> str | None:
        lang = LOCALES.get(locale)
        if lang is None or lang == DEFAULT_LANGUAGE or context.location in _NAMES:
            return None
        text = catalog(lang).gettext(string.message)
        return text[:100] if text and text != string.message else None


def _adapter(interaction: discord.Interaction[Any]) -> DiscordAdapter:
    return interaction.client.adapter


def _words(*words: object) -> str:
    return " ".join(str(w) for w in words if w not in (None, "", False))


Points = app_commands.Range[int, 1, 25]

_OPPONENT = _("The member you challenge (anyone may accept when empty)")
_POINTS = _("Match length in points")
_FAST = _("Fast game: a few minutes per move")
_UNRATED = _("Unrated: counts in no rating; hints if both players allow them")
_GAME = _("Game number (your newest game here when empty)")

_VARIANTS = [
    Choice(name=_("Tavla (backgammon)"), value="tavla"),
    Choice(name=_("Turkish tavla"), value="turkish"),
]
_BOT_VARIANTS = [*_VARIANTS, Choice(name=_("Uzun Tavla (long nardy)"), value="uzun")]
_LEVELS = [
    Choice(name=_("Random"), value="random"),
    Choice(name=_("Beginner"), value="beginner"),
    Choice(name=_("Club"), value="club"),
    Choice(name=_("Expert"), value="expert"),
    Choice(name=_("Master"), value="master"),
]
_RESIGN = [
    Choice(name=_("Single game"), value="single"),
    Choice(name=_("Gammon (mars)"), value="gammon"),
    Choice(name=_("Backgammon (Tavla with the cube only)"), value="backgammon"),
]
_LANGS = [
    Choice(name="Türkçe", value="tr"),
    Choice(name="English", value="en"),
    Choice(name="Русский", value="ru"),
]
_RULES = [
    Choice(name=_("Tavla (backgammon)"), value="tavla"),
    Choice(name=_("Uzun Tavla (long nardy)"), value="uzun"),
]


@app_commands.describe(
    opponent=_OPPONENT,
    points=_POINTS,
    variant=_("Standard or Turkish rules"),
    fast=_FAST,
    unrated=_UNRATED,
)
@app_commands.choices(variant=_VARIANTS)
async def tavla(
    interaction: discord.Interaction[Any],
    opponent: discord.User | None = None,
    points: Points | None = None,
    variant: str | None = None,
    fast: bool = False,
    unrated: bool = False,
) -> None:
    args = _words(
        points,
        "turkish" if variant == "turkish" else None,
        "fast" if fast else None,
        "unrated" if unrated else None,
    )
    await _adapter(interaction).run_command(
        interaction, "tavla", args, mentions=[opponent] if opponent else []
    )


@app_commands.describe(opponent=_OPPONENT, points=_POINTS, fast=_FAST, unrated=_UNRATED)
async def uzun(
    interaction: discord.Interaction[Any],
    opponent: discord.User | None = None,
    points: Points | None = None,
    fast: bool = False,
    unrated: bool = False,
) -> None:
    name = interaction.command.name if interaction.command else "uzun"
    args = _words(points, "fast" if fast else None, "unrated" if unrated else None)
    await _adapter(interaction).run_command(
        interaction, name, args, mentions=[opponent] if opponent else []
    )


@app_commands.describe(
    variant=_("Which game"), points=_POINTS, level=_("How strong the computer plays")
)
@app_commands.choices(variant=_BOT_VARIANTS, level=_LEVELS)
async def bot_(
    interaction: discord.Interaction[Any],
    variant: str | None = None,
    points: Points | None = None,
    level: str | None = None,
) -> None:
    await _adapter(interaction).run_command(interaction, "bot", _words(variant, points, level))


@app_commands.describe(play=_("The whole move, e.g. 13/8 6/5"), game=_GAME)
async def move(interaction: discord.Interaction[Any], play: str, game: int | None = None) -> None:
    await _adapter(interaction).run_command(interaction, "move", play, game=game)


@app_commands.describe(how=_("How much you give up"), game=_GAME)
@app_commands.choices(how=_RESIGN)
async def resign(
    interaction: discord.Interaction[Any], how: str | None = None, game: int | None = None
) -> None:
    await _adapter(interaction).run_command(interaction, "resign", how or "", game=game)


@app_commands.describe(game=_GAME)
async def _game_only(interaction: discord.Interaction[Any], game: int | None = None) -> None:
    name = interaction.command.name if interaction.command else "board"
    await _adapter(interaction).run_command(interaction, name, "", game=game)


async def _plain(interaction: discord.Interaction[Any]) -> None:
    name = interaction.command.name if interaction.command else "help"
    await _adapter(interaction).run_command(interaction, name, "")


@app_commands.describe(variant=_("Which game"), pool=_("The pool's leaderboard"))
@app_commands.choices(variant=_BOT_VARIANTS)
async def top(
    interaction: discord.Interaction[Any], variant: str | None = None, pool: bool = False
) -> None:
    await _adapter(interaction).run_command(
        interaction, "top", _words("pool" if pool else None, variant)
    )


_PACES = [
    Choice(name=_("Fast: a few minutes per move"), value="fast"),
    Choice(name=_("Daily: a day per move"), value="daily"),
]


@app_commands.describe(variant=_("Which game"), points=_POINTS, pace=_("How fast"))
@app_commands.choices(variant=_BOT_VARIANTS, pace=_PACES)
async def play(
    interaction: discord.Interaction[Any],
    variant: str | None = None,
    points: Points | None = None,
    pace: str | None = None,
) -> None:
    await _adapter(interaction).run_command(interaction, "play", _words(variant, points, pace))


@app_commands.describe(reason=_("What happened (for the operator)"))
async def report(interaction: discord.Interaction[Any], reason: str = "") -> None:
    await _adapter(interaction).run_command(interaction, "report", reason)


@app_commands.describe(player=_("Whose statistics (yours when empty)"), variant=_("Which game"))
@app_commands.choices(variant=_BOT_VARIANTS)
async def stats(
    interaction: discord.Interaction[Any],
    player: discord.User | None = None,
    variant: str | None = None,
) -> None:
    await _adapter(interaction).run_command(
        interaction, "stats", variant or "", mentions=[player] if player else []
    )


@app_commands.describe(language=_("Language"))
@app_commands.choices(language=_LANGS)
async def lang(interaction: discord.Interaction[Any], language: str) -> None:
    await _adapter(interaction).run_command(interaction, "lang", language)


@app_commands.describe(variant=_("Which game"))
@app_commands.choices(variant=_RULES)
async def rules(interaction: discord.Interaction[Any], variant: str | None = None) -> None:
    await _adapter(interaction).run_command(interaction, "rules", variant or "")


@app_commands.describe(
    what=_("knockout, roundrobin or swiss 4 (and uzun, 3 points, fast…) to open; join, leave…"),
    player=_("The member to give the match to (with award)"),
)
async def tournament(
    interaction: discord.Interaction[Any], what: str = "", player: discord.User | None = None
) -> None:
    await _adapter(interaction).run_command(
        interaction, "tournament", what, mentions=[player] if player else []
    )


@app_commands.describe(variant=_("Which game (all when empty)"))
@app_commands.choices(variant=_BOT_VARIANTS)
async def resettop(interaction: discord.Interaction[Any], variant: str | None = None) -> None:
    await _adapter(interaction).run_command(interaction, "resettop", variant or "")


@app_commands.describe(variant=_("Which game"))
@app_commands.choices(variant=_BOT_VARIANTS)
async def puzzle(interaction: discord.Interaction[Any], variant: str | None = None) -> None:
    await _adapter(interaction).run_command(interaction, "puzzle", variant or "")


@app_commands.describe(variant=_("Which game"))
@app_commands.choices(variant=_BOT_VARIANTS)
async def learn(interaction: discord.Interaction[Any], variant: str | None = None) -> None:
    await _adapter(interaction).run_command(interaction, "learn", variant or "")


_CALLBACKS = {
    "tavla": tavla,
    "uzun": uzun,
    "nardy": uzun,
    "bot": bot_,
    "play": play,
    "games": _plain,
    "block": _plain,
    "report": report,
    "say": _plain,
    "move": move,
    "board": _game_only,
    "resign": resign,
    "abort": _game_only,
    "claim": _game_only,
    "top": top,
    "tournament": tournament,
    "stats": stats,
    "export": _game_only,
    "analyse": _game_only,
    "dice": _game_only,
    "hint": _game_only,
    "puzzle": puzzle,
    "learn": learn,
    "lang": lang,
    "settings": _plain,
    "rules": rules,
    "privacy": _plain,
    "forget": _plain,
    "help": _plain,
    "resettop": resettop,
}


def build_commands() -> list[app_commands.Command[Any, ..., None]]:
    """Fresh command objects for one client's tree: every command of the catalogue, its
    description a message id of our catalogs. Admin-only commands are offered in servers
    only, and by default only to members who may manage the server."""
    commands = []
    for spec in COMMANDS:
        command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name=spec.name,
            description=locale_str(spec.description.msgid),
            callback=_CALLBACKS[spec.name],  # type: ignore[arg-type]
        )
        if spec.audience is Audience.ADMIN:
            command.guild_only = True
            command.default_permissions = discord.Permissions(manage_guild=True)
        commands.append(command)
    return commands
