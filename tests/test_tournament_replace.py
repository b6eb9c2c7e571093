"""A tournament can't hold a group up: it starts at most a week ahead, and a chat admin may
replace one that has not started (bot/service/tournaments)."""

from __future__ import annotations

import pytest

from bot.i18n import translate
from bot.service.commands import find_command
from bot.service.service import Actor
from bot.service.tournaments.words import PENDING, REPLACED, TOO_FAR
from bot.storage.base import TournamentStatus
from tests.test_tournament_chat import (
    ALI,
    AYSE,
    CAN,
    GROUP,
    VELI,
    env,
    make_storage,
    open_with_four,
    text_of,
)

__all__ = ["env", "make_storage"]  # the fixtures, imported for the tests below

ADMIN = Actor(AYSE.platform, AYSE.user_id, AYSE.name, AYSE.username, AYSE.lang, admin=True)


async def stored(service) -> list:
    return await service.storage.tournaments_in_chat("test", "-1", tuple(TournamentStatus))


@pytest.mark.parametrize("when", ["in 9999h", "in 169h", "170h", "через 9999ч"])
async def test_a_start_more_than_a_week_ahead_is_refused_in_the_players_language(env, when):
    service, _ = env
    views = await service.command(ALI, GROUP, "tournament", f"knockout {when}")  # Ali: Turkish
    (view,) = views
    assert view.lang == "tr"
    assert text_of(views, "tr") == translate(TOO_FAR, "tr") != translate(TOO_FAR, "en")
    assert await stored(service) == []


async def test_a_start_a_week_ahead_is_taken(env):
    service, _ = env
    views = await service.command(ALI, GROUP, "tournament", "knockout in 168h")
    assert "It starts by itself in" in text_of(views)
    assert len(await stored(service)) == 1


async def test_a_chat_admin_replaces_a_tournament_that_has_not_started(env):
    service, _ = env
    await service.command(VELI, GROUP, "tournament", "knockout in 160h")
    (old,) = await stored(service)
    # A member can't; they are told who can.
    refused = await service.command(CAN, GROUP, "tournament", "swiss")
    assert text_of(refused) == translate(PENDING, "en")
    # A chat admin's new tournament takes its place; the chat is told.
    views = await service.command(ADMIN, GROUP, "tournament", "roundrobin uzun")
    assert translate(REPLACED, "en") in text_of(views)
    records = {r.stored_id: r for r in await stored(service)}
    assert records[old.stored_id].status is TournamentStatus.CANCELLED
    (new,) = [r for r in records.values() if r.status is TournamentStatus.OPEN]
    assert new.organiser != old.organiser
    # A mistyped replacement leaves the tournament as it was.
    await service.command(ADMIN, GROUP, "tournament", "knockout in 9999h")
    assert [r.stored_id for r in await stored(service) if r.status is TournamentStatus.OPEN] == [
        new.stored_id
    ]


async def test_a_running_tournament_is_not_replaced(env):
    service, _ = env
    await open_with_four(service, "knockout")
    await service.command(ALI, GROUP, "tournament", "start")
    views = await service.command(ADMIN, GROUP, "tournament", "swiss")
    assert "has a tournament already" in text_of(views)
    (record,) = await stored(service)
    assert record.status is TournamentStatus.RUNNING


def test_help_says_how_far_ahead_and_who_replaces():
    line = translate(find_command("tournament").help, "en")
    assert "week" in line
    assert "admin" in line


@pytest.mark.parametrize(
    "words",
    ["knockout in 2h", "knockout 2h", "eleme 2sa içinde", "içinde 2sa eleme", "олимпийка через 2ч"],
)
def test_a_start_time_is_read_in_each_languages_order(words):
    """The help shows each reader a start time in their own words: ``in 2h``,
    ``2sa içinde`` (Turkish puts it after the time), ``через 2ч``."""
    from bot.service.tournaments.words import parse_settings
    from core.tournament import Format

    settings = parse_settings(words.split(), 1000.0)
    assert settings.format is Format.KNOCKOUT
    assert settings.starts_at == 1000.0 + 2 * 3600


@pytest.mark.parametrize(
    "words",
    [
        "swiss 4 rounds uzun 5 points fast max 8 in 30m",
        "isviçre 4 tur uzun 5 puan hızlı en çok 8 30dk içinde",
        "швейцарка 4 тура длинные 5 очков быстро макс 8 через 30м",
    ],
)
def test_the_tournament_help_s_example_is_read_in_each_language(words):
    """The usage's example, in the words the Turkish and Russian help now show."""
    from bot.service.tournaments.words import parse_settings
    from core.tournament import Format, Pace

    settings = parse_settings(words.split(), 0.0)
    assert settings.format is Format.SWISS
    assert settings.rounds == 4
    assert (settings.game, settings.match_length, settings.pace) == ("uzun", 5, Pace.FAST)
    assert settings.max_players == 8
    assert settings.starts_at == 30 * 60
