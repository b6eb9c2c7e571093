# ruff: noqa: F811  (the service fixture comes from tests/test_commands.py)
"""No argument is quietly misread: a word a command does not take is refused with the
command's usage, in the player's language, and nothing happens (``/bot godlike`` started a
club game, ``/board 7`` showed the board as if nothing had been written). Every command of
the catalogue is tried; the known words still work."""

from __future__ import annotations

import pytest

from bot.i18n import translate_lines
from bot.service.commands import COMMANDS, FREE, unknown_argument
from bot.service.service import Actor, Place
from bot.storage.base import GameStatus
from tests.test_commands import service  # noqa: F401  (the fixture)
from tests.test_service import GROUP, board

ALI_TR = Actor("test", "100", "Ali", "ali", "tr")
HOME = Place("test", "100", private=True, title="Ali")
NONSENSE = "zzzq"


def text_of(views, lang: str = "en") -> str:
    return "\n".join(translate_lines(v.lines, lang) for v in views)


async def games(service) -> list:
    statuses = tuple(GameStatus)
    return [
        *await service.storage.games_in_chat("test", HOME.chat_id, statuses),
        *await service.storage.games_in_chat("test", GROUP.chat_id, statuses),
    ]


@pytest.mark.parametrize("name", [n for c in COMMANDS for n in c.names])
@pytest.mark.parametrize("place", [HOME, GROUP], ids=["private", "group"])
async def test_every_command_refuses_a_word_it_does_not_take(service, name, place):
    views = await service.command(ALI_TR, place, name, f"{NONSENSE}")
    assert len(views) == 1
    assert views[0].notice, text_of(views)
    assert views[0].lang == "tr"  # the player's own language
    assert await games(service) == []  # nothing was started
    spec = next(c for c in COMMANDS if name in c.names)
    if spec.args is not FREE:  # checked by the catalogue: the word and the usage
        assert views[0].lines == [unknown_argument(spec, NONSENSE)]
        assert "anlaşılmadı" in text_of(views, "tr")


@pytest.mark.parametrize(
    ("name", "args", "bad"),
    [
        ("bot", "godlike", "godlike"),
        ("bot", "uzun 3 expert fast", "fast"),
        ("resign", "gammon please", "please"),
        ("top", "uzun all", "all"),
        ("rules", "chess", "chess"),
        ("help", "me", "me"),
        ("board", "7", "7"),
        ("dice", "42", "42"),
        ("tavla", "3 uzun", "uzun"),
        ("stats", "ali veli", "veli"),
    ],
)
async def test_the_word_named_is_the_one_not_understood(service, name, args, bad):
    views = await service.command(ALI_TR, HOME, name, args)
    assert views[0].lines == [unknown_argument(name, bad)], text_of(views)
    assert await games(service) == []


async def test_known_words_still_work(service):
    started = await service.command(ALI_TR, HOME, "bot", "UZUN 3 Expert")
    record = await service.storage.get_game(board(started).game_id)
    assert (record.variant, record.settings.length, record.settings.level) == ("uzun", 3, "expert")
    for name, args in (
        ("top", "turkish"),
        ("rules", "nardy"),
        ("help", "tavla"),  # Telegram's start link: t.me/<bot>?start=tavla
        ("start", "uzun"),
        ("resign", "mars"),
    ):
        views = await service.command(ALI_TR, HOME, name, args)
        assert "anlaşılmadı" not in text_of(views, "tr"), (name, args)


@pytest.mark.parametrize(
    ("name", "args", "first", "second"),
    [
        ("bot", "uzun turkish", "uzun", "turkish"),
        ("bot", "3 5", "3", "5"),
        ("bot", "expert master", "expert", "master"),
        ("play", "fast daily", "fast", "daily"),
        ("top", "uzun tavla", "uzun", "tavla"),
        ("tavla", "3 5", "3", "5"),
        ("uzun", "5 7", "5", "7"),
    ],
)
async def test_two_words_asking_for_different_things_are_refused(
    service, name, args, first, second
):
    """``/bot uzun turkish`` or ``/bot 3 5`` cannot both be meant: the player is asked to
    choose one, with the usage, in their language, and nothing starts (the last word won)."""
    views = await service.command(ALI_TR, HOME, name, args)
    assert views[0].notice, text_of(views)
    assert views[0].lang == "tr"
    text = text_of(views, "en")
    assert f"Choose one: “{first}” or “{second}”." in text, text
    assert "Birini seç" in text_of(views, "tr")
    assert await games(service) == []


async def test_two_spellings_of_one_thing_are_not_a_clash(service):
    views = await service.command(ALI_TR, HOME, "bot", "uzun nardy 3 Expert")
    record = await service.storage.get_game(board(views).game_id)
    assert (record.variant, record.settings.length, record.settings.level) == ("uzun", 3, "expert")
