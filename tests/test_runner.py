"""The deadline runner every adapter shares (bot/service/runner.py): views go to the adapter
of their platform, a failed delivery or round never stops the others, and a platform nobody
serves keeps its deadlines for the runner that does."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.service.runner import DeadlineRunner
from bot.service.service import Actor, GameService, Place
from bot.service.views import View
from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from tests.factory import Clock, make_service

TG_ALI = Actor("telegram", "1", "Ali")
TG_GROUP = Place("telegram", "-100", private=False)
DC_VELI = Actor("discord", "2", "Veli")
DC_CHANNEL = Place("discord", "55", private=False)


@pytest.fixture
async def env(tmp_path):
    storage = SqliteStorage(str(tmp_path / "r.db"))
    await storage.open()
    clock = Clock()
    service = make_service(storage, clock=clock, render_images=False)
    yield service, clock
    await storage.close()


async def open_challenges(service: GameService) -> dict[str, int]:
    """An open challenge on each platform; {platform: game id}."""
    ids = {}
    for actor, place in ((TG_ALI, TG_GROUP), (DC_VELI, DC_CHANNEL)):
        views = await service.command(actor, place, "tavla", "")
        assert views[-1].game_id is not None
        ids[place.platform] = views[-1].game_id
    return ids


async def test_views_go_to_their_platform_and_unserved_games_keep_their_deadlines(env):
    service, clock = env
    ids = await open_challenges(service)
    clock.now += service.settings.challenge_ttl + 1
    delivered: list[View] = []

    async def deliver(view: View) -> None:
        delivered.append(view)

    only_discord = DeadlineRunner(service)
    only_discord.serve("discord", deliver)
    await only_discord.round()
    assert [v.chat for v in delivered] == [("discord", "55")]
    assert (await service.storage.get_game(ids["discord"])).status is GameStatus.EXPIRED
    # The Telegram challenge was not expired unseen: a runner serving Telegram still gets it.
    assert (await service.storage.get_game(ids["telegram"])).status is GameStatus.CHALLENGE
    both = DeadlineRunner(service)
    both.serve("discord", deliver)
    both.serve("telegram", deliver)
    await both.round()
    assert [v.chat for v in delivered] == [("discord", "55"), ("telegram", "-100")]


async def test_a_failed_delivery_is_logged_and_handed_back_and_the_others_still_go(env, caplog):
    service, clock = env
    await open_challenges(service)
    clock.now += service.settings.challenge_ttl + 1
    delivered: list[View] = []
    refused: list[View] = []

    async def broken(view: View) -> None:
        raise ConnectionError("channel gone")

    async def deliver(view: View) -> None:
        delivered.append(view)

    async def undeliverable(view: View) -> None:
        refused.append(view)

    runner = DeadlineRunner(service)
    runner.serve("telegram", broken, errors=(ConnectionError,), undeliverable=undeliverable)
    runner.serve("discord", deliver)
    with caplog.at_level(logging.WARNING):
        await runner.round()
    assert [v.chat for v in refused] == [("telegram", "-100")]
    assert [v.chat for v in delivered] == [("discord", "55")]
    assert "could not deliver" in caplog.text


async def test_rounds_run_at_once_survive_a_failed_round_and_end_on_stop(env, caplog):
    service, _ = env
    rounds = 0
    stop = asyncio.Event()

    async def tick(platforms=None) -> list[View]:
        nonlocal rounds
        rounds += 1
        if rounds == 1:
            raise RuntimeError("database on fire")
        stop.set()
        return []

    service.tick = tick  # type: ignore[method-assign]
    runner = DeadlineRunner(service)
    with caplog.at_level(logging.ERROR):
        await asyncio.wait_for(runner.run(stop, every=0.001), 10)
    assert rounds == 2
    assert "deadline round failed" in caplog.text


async def test_a_stop_before_the_first_round_runs_none(env):
    service, _ = env
    stop = asyncio.Event()
    stop.set()
    called = []

    async def tick(platforms=None) -> list[View]:
        called.append(platforms)
        return []

    service.tick = tick  # type: ignore[method-assign]
    await DeadlineRunner(service).run(stop, every=3600, first_after=3600)
    assert called == []
