"""The command catalogue feeds the service's dispatch, /help, Telegram's menu and Discord's
command tree: a command added to it is everywhere, and nothing lists a command it lacks.
The menus are checked where the adapters run: tests/test_telegram.py and test_discord.py
(``test_…_has_every_command``)."""

from __future__ import annotations

import re

import pytest

from bot.i18n import translate_lines
from bot.service.commands import COMMANDS, all_names, find_command, help_lines
from bot.service.views import View
from bot.storage.sqlite import SqliteStorage
from tests.factory import make_service
from tests.test_service import ALI, GROUP

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

UNKNOWN = "I don't know that command"


def text_of(views: list[View]) -> str:
    return "\n".join(translate_lines(v.lines, "en") for v in views)


@pytest.fixture
async def service(tmp_path):
    storage = SqliteStorage(str(tmp_path / "t.db"))
    await storage.open()
    try:
        yield make_service(storage, burst_actions=10**6, render_images=False)
    finally:
        await storage.close()


def test_names_are_unique_and_valid_on_both_platforms():
    names = list(all_names())
    assert len(names) == len(set(names))
    for command in COMMANDS:
        # Telegram: 1-32 of a-z, 0-9, _; Discord: the same for ours, descriptions ≤ 100.
        assert re.fullmatch(r"[a-z0-9_]{1,32}", command.name)
        assert 1 <= len(command.description.msgid) <= 100
        assert find_command(command.name.upper()) is command


async def test_every_command_and_alias_is_dispatched(service):
    for name in all_names():
        views = await service.command(ALI, GROUP, name, "")
        assert UNKNOWN not in text_of(views), name
    assert UNKNOWN in text_of(await service.command(ALI, GROUP, "nosuchcommand", ""))


async def test_help_lists_every_command(service):
    text = text_of(await service.command(ALI, GROUP, "help", ""))
    for command in COMMANDS:
        if command.name != "help":  # the help does not list itself
            assert f"/{command.name}" in text, command.name
    for line in help_lines():  # each line once
        assert text.count(translate_lines([line], "en")) == 1


@pytest.mark.parametrize("word", ["turkish", "türk", "Geleneksel"])
async def test_rules_of_turkish_tavla_are_its_own(service, word):
    """``/rules turkish`` tells Turkish tavla's rules (rules.md, variant ``turkish``): no
    cube, no backgammon, the winner opens the next game; not the cube game's 3-point win."""
    text = text_of(await service.command(ALI, GROUP, "rules", word))
    assert "Turkish tavla" in text
    assert "no doubling cube" in text
    assert "katmerli mars" in text  # named, to say there is none
    assert ": 3" not in text
    assert "opens the next one" in text


@pytest.mark.parametrize("word", ["uzun", "nardy", "нарды", "UZUN"])
async def test_rules_of_uzun_tavla_in_every_spelling(service, word):
    """``/rules нарды`` is long nardy's rules, as ``/rules uzun`` is."""
    assert "Uzun Tavla" in text_of(await service.command(ALI, GROUP, "rules", word))


async def test_rules_of_uzun_tell_the_second_players_first_turn_exception_u5(service):
    """U-5: after White opens 5-5 (to Black's 16), Black's 6-2 takes two checkers off the
    head, as the game plays it; the rules said only 6-6, 4-4 or 3-3 could take two, which a
    player forced to play 24/18 24/22 read as a wrong rule."""
    from core.dice import FixedDice
    from core.game import Game
    from core.variants import variant_by_name

    game = Game.new(variant_by_name("uzun"), FixedDice([6, 5]))
    game.roll(0, FixedDice([(5, 5)]))  # White's only play: 24/4, Black's 16
    game.roll(1, FixedDice([(6, 2)]))
    assert game.history[-1]["play"] in ("24/22 24/18", "24/18 24/22")
    assert game.history[-1]["forced"] is True
    text = text_of(await service.command(ALI, GROUP, "rules", "uzun"))
    assert "6-6, 4-4 or 3-3 from the start" in text
    assert "for the second player also a roll that the first player's checker blocks" in text


async def test_the_help_names_every_game_of_the_rules(service):
    text = text_of(await service.command(ALI, GROUP, "help", ""))
    assert "/rules [turkish|uzun]" in text
    tavla = text_of(await service.command(ALI, GROUP, "rules", ""))
    assert "/rules turkish" in tavla
    assert "/rules uzun" in tavla


#: Words the usage lines may show that are not choices (values to fill in, languages).
_FILL_INS = {
    "game",
    "oyun",
    "партия",
    "@name",
    "@isim",
    "@имя",
    "points",
    "puan",
    "sayı",
    "очки",
    "in 2h",  # start times: test_tournament_replace.py reads them in each language
    "2sa içinde",
    "через 2ч",
    "tr",
    "en",
    "ru",
}
#: Choices in English that a reader of another language has words of their own for.
_ENGLISH_CHOICES = {
    *("turkish", "fast", "daily", "pool", "knockout", "roundrobin", "swiss"),
    *("gammon", "backgammon"),  # mars and katmerli mars (rules.md T-7)
}


def _choices(help_text: str) -> set[str]:
    """Every word a usage line in ``help_text`` offers to type: ``[a|b]``, ``x|y|z``."""
    found: set[str] = set()
    for line in help_text.splitlines():
        usage = line.split(" — ")[0]
        for group in re.findall(r"\[([^\]]+)\]", usage):
            found.update(group.split("|"))
        for bare in re.findall(r"(?<![\[|\w])(\w+(?:\|\w+)+)(?![\]|\w])", usage):
            found.update(bare.split("|"))
    return found - _FILL_INS


@pytest.mark.parametrize("lang", ["en", "tr", "ru"])
async def test_every_choice_the_help_shows_is_a_word_the_commands_take(service, lang):
    """A reader types what the help shows them, in their own words: each choice offered
    is taken by its command, and Turkish and Russian readers are not shown English
    choices they have words for (game kinds, pace, pool, tournament formats)."""
    from bot.service import words as W
    from bot.service.tournaments.words import FORMAT_WORDS

    views = await service.command(ALI, GROUP, "help", "")
    shown = _choices("\n".join(translate_lines(v.lines, lang) for v in views))
    taken = (
        W.KINDS
        | W.FAST
        | W.DAILY
        | W.POOL
        | W.UNRATED
        | set(W.LEVELS)
        | set(W.RESIGN_LEVELS)
        | set().union(*FORMAT_WORDS.values())
    )
    assert shown, "the help shows no choices"
    assert shown <= taken, shown - taken
    if lang == "ru":
        assert all(re.fullmatch(r"[а-яё]+", word) for word in shown), shown
    if lang == "tr":
        assert not shown & _ENGLISH_CHOICES, shown & _ENGLISH_CHOICES


@pytest.mark.parametrize("words", ["katmerli", "katmerli mars", "KATMERLI"])
async def test_a_backgammon_is_resigned_in_turkish_words_t9(tmp_path, words):
    """T-7, T-9: Turkish players call a backgammon "katmerli mars" (rules.md names the
    word); ``/resign katmerli`` was refused as a word the bot did not know."""
    from tests.test_hot_seat import ALI as HOT_SEAT_ALI
    from tests.test_hot_seat import HOME, SIDES

    storage = SqliteStorage(str(tmp_path / "k.db"))
    await storage.open()
    try:
        service = make_service(storage, burst_actions=10**6, render_images=False)
        await service.hot_seat(HOT_SEAT_ALI, HOME, "tavla", "", sides=SIDES)
        asked = text_of(await service.command(HOT_SEAT_ALI, HOME, "resign", words))
        assert "resign a backgammon?" in asked
    finally:
        await storage.close()


async def test_a_huge_unknown_word_is_not_echoed_whole(service):
    """A bad argument is quoted back; a word thousands of characters long filled the whole
    answer (and a chat message's limit) with it, hiding the usage line."""
    said = text_of(await service.command(ALI, GROUP, "resign", "x" * 5000))
    assert len(said) < 300
    assert "“" + "x" * 30 in said
    assert "…”" in said
    assert "/resign" in said  # the usage is still there


async def test_rules_without_a_game_word_are_those_of_the_game_being_played(tmp_path):
    """rules.md variant ``turkish``: a player in a Turkish tavla game typing /rules was shown
    the cube game's rules (the cube, backgammons worth 3), which read as wrong rules."""
    from tests.test_hot_seat import ALI as HOT_SEAT_ALI
    from tests.test_hot_seat import HOME, SIDES

    storage = SqliteStorage(str(tmp_path / "r.db"))
    await storage.open()
    try:
        service = make_service(storage, burst_actions=10**6, render_images=False)
        plain = text_of(await service.command(HOT_SEAT_ALI, HOME, "rules", ""))
        assert plain.startswith("Tavla:")
        await service.hot_seat(HOT_SEAT_ALI, HOME, "tavla", "turkish", sides=SIDES)
        text = text_of(await service.command(HOT_SEAT_ALI, HOME, "rules", ""))
        assert text.startswith("Turkish tavla:")
        asked = text_of(await service.command(HOT_SEAT_ALI, HOME, "rules", "uzun"))
        assert asked.startswith("Uzun Tavla:")  # a game named is the one told
    finally:
        await storage.close()


async def test_stats_without_a_game_word_are_those_of_the_game_last_played(tmp_path):
    """/stats after a Turkish tavla or Uzun Tavla game showed the cube game's figures, as if
    the game had not counted."""
    from tests.test_hot_seat import ALI as HOT_SEAT_ALI
    from tests.test_hot_seat import HOME, SIDES

    storage = SqliteStorage(str(tmp_path / "s.db"))
    await storage.open()
    try:
        service = make_service(storage, burst_actions=10**6, render_images=False)
        assert "Ali · Tavla" in text_of(await service.command(HOT_SEAT_ALI, HOME, "stats", ""))
        await service.hot_seat(HOT_SEAT_ALI, HOME, "uzun", "", sides=SIDES)
        said = text_of(await service.command(HOT_SEAT_ALI, HOME, "stats", ""))
        assert "Ali · Uzun Tavla" in said
        said = text_of(await service.command(HOT_SEAT_ALI, HOME, "stats", "turkish"))
        assert "Ali · Turkish tavla" in said  # a game named is the one shown
    finally:
        await storage.close()
