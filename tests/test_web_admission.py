"""The web board's actions wait in line while the event loop lags, so that the chats' boards,
which take several turns of the loop each, are not held up by a crowd of pages; a page told
"busy" sends the same action again (its page test is in test_web_page.py)."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot import metrics
from bot.storage.sqlite import SqliteStorage
from bot.web.admission import Admission, Busy, LoopLag
from bot.web.auth import LinkSigner
from bot.web.hub import ChangeHub
from bot.web.server import WebBoard
from tests.factory import make_service
from tests.test_web_api import NOW, auth, init_data
from tests.test_web_auth import TOKEN
from tests.web_helpers import seats, set_bear_off, start_game


class Lag:
    """The loop's lag as the test sets it (seconds)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def turns(n: int = 5) -> None:
    """Let the loop run ``n`` turns (what was started goes as far as it can)."""
    for _ in range(n):
        await asyncio.sleep(0)


async def test_an_action_waits_in_line_while_the_loop_lags_and_goes_as_it_catches_up():
    lag = Lag()
    admission = Admission(lag, at_once=2)
    started: list[int] = []
    release = asyncio.Event()

    async def action(n: int) -> None:
        async with admission.admitted():
            started.append(n)
            await release.wait()

    lag.now = 1.0
    tasks = [asyncio.ensure_future(action(n)) for n in range(4)]
    await turns()
    # One always runs, however late the loop: the pages never stop.
    assert started == [0]
    assert admission.waiting == 3
    lag.now = 0.01
    admission.admit()  # (the loop's lag is measured again: it keeps pace)
    await turns()
    assert started == [0, 1]  # no more than at_once at a time
    release.set()
    await asyncio.gather(*tasks)
    assert started == [0, 1, 2, 3]  # in the order they came
    assert admission.running == 0
    assert admission.waiting == 0


async def test_a_long_line_or_a_long_wait_is_busy_and_gives_its_place_back():
    lag = Lag()
    lag.now = 1.0
    admission = Admission(lag, most_waiting=1, patience=0.05)
    async with admission.admitted():
        waiting = asyncio.ensure_future(admission.admitted().__aenter__())
        await turns()
        with pytest.raises(Busy):  # the line is full
            async with admission.admitted():
                pass
        with pytest.raises(Busy):  # its turn did not come in time
            await waiting
        assert admission.waiting == 0
    assert admission.running == 0
    async with admission.admitted():  # (nothing running: it goes)
        assert admission.running == 1


async def test_the_loop_lag_is_how_late_its_timer_runs():
    lag = LoopLag(every=0.01)
    ticks = []
    lag.on_tick = lambda: ticks.append(lag.lag)
    lag.start()
    try:
        while len(ticks) < 2:
            await asyncio.sleep(0)
        # A turn of the loop busy for 0.3 s: the next measurement is that late.
        time.sleep(0.3)
        seen = len(ticks)
        while len(ticks) == seen:
            await asyncio.sleep(0)
        assert ticks[seen] >= 0.25
    finally:
        lag.stop()


@contextlib.asynccontextmanager
async def serving(tmp_path, admission: Admission):
    """The web board with ``admission``, a game in the bear-off, seat 0 to roll:
    ``(client, service, game id, seat 0's headers)``."""
    hub = ChangeHub()
    inner = SqliteStorage(str(tmp_path / "a.db"))
    await inner.open()
    service = make_service(hub.watch(inner), clock=lambda: NOW, burst_actions=10**6)  # type: ignore[arg-type]
    board = WebBoard(
        service, hub, LinkSigner("s"), telegram_token=TOKEN, clock=lambda: NOW, admission=admission
    )
    client = TestClient(TestServer(board.app))
    await client.start_server()
    try:
        game_id = await start_game(service)
        await set_bear_off(service, game_id, turn=0)
        players = {seat: uid for uid, seat in (await seats(service, game_id)).items()}
        yield client, service, game_id, auth(init_data(int(players[0]), "P0"))
    finally:
        await client.close()
        await inner.close()


async def test_an_action_behind_a_lagging_loop_is_made_once_the_loop_keeps_pace(tmp_path):
    lag = Lag()
    admission = Admission(lag)
    async with serving(tmp_path, admission) as (client, service, game_id, me):
        version = (await service.storage.get_game(game_id)).version
        lag.now = 1.0
        async with admission.admitted():  # another action under way
            roll = asyncio.ensure_future(
                client.post(
                    f"/api/game/{game_id}/action",
                    json={"action": "roll", "version": version},
                    headers=me,
                )
            )
            while admission.waiting == 0:
                await asyncio.sleep(0.01)  # (the request reaching the server)
            assert (await service.storage.get_game(game_id)).version == version
        lag.now = 0.0
        answer = await (await roll).json()
        assert answer["ok"]
        assert answer["state"]["version"] == version + 1


async def test_a_busy_board_answers_busy_with_when_to_retry_and_makes_nothing(tmp_path):
    lag = Lag()
    admission = Admission(lag, most_waiting=0)
    async with serving(tmp_path, admission) as (client, service, game_id, me):
        version = (await service.storage.get_game(game_id)).version
        lag.now = 1.0
        body = {"action": "roll", "version": version}
        told_busy = metrics.WEB_BUSY._value.get()
        async with admission.admitted():
            resp = await client.post(f"/api/game/{game_id}/action", json=body, headers=me)
            assert resp.status == 503
            assert metrics.WEB_BUSY._value.get() == told_busy + 1  # (an operator sees it)
            assert await resp.json() == {"busy": True}
            assert int(resp.headers["Retry-After"]) >= 1
            assert (await service.storage.get_game(game_id)).version == version
            # A page's load waits in line too.
            resp = await client.get(f"/api/game/{game_id}", headers=me)
            assert resp.status == 503
        # The same action again, once the board has room: made, once.
        answer = await (
            await client.post(f"/api/game/{game_id}/action", json=body, headers=me)
        ).json()
        assert answer["ok"]
        assert answer["state"]["version"] == version + 1
