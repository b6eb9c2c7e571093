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
