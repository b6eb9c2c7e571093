"""Health checks and Prometheus metrics (docs/operating.md, "Health and metrics"): the real
Telegram application against the fake Bot API with its checks on a listener of their own;
``/readyz`` follows the database and the adapter, and ``/metrics``, scraped after a whole
game, counts what the game did."""

from __future__ import annotations

import asyncio
import socket

import aiohttp
import pytest
from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families
from telegram.ext import AIORateLimiter

from bot.discord import counted_calls
from bot.health import Health, serve_health
from bot.metrics import route_of
from bot.service import actions as A
from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from bot.telegram import run_telegram
from tests.drivers import bot_with_web_board, free_port
from tests.factory import make_service
from tests.fakes.telegram import FakeBotAPI
from tests.test_telegram import Bot, config_for, find, game_record, open_game, press, step_once

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


class CheckedBot(Bot):
    """The bot as ``python -m bot`` builds it: its checks and metrics on their own port."""

    async def start(self) -> None:
        self.storage = SqliteStorage(str(self.db))
        await self.storage.open()
        self.service = make_service(self.storage, self.settings, first_seed=self.seed)
        self.health = Health()
        self.health.add_check("database", self.service.ready)
        self.health.add_refresher(self.service.refresh_metrics)
        self.stop_event = asyncio.Event()
        self.port = free_port()
        self.serving = asyncio.create_task(
            serve_health(self.health, "127.0.0.1", self.port, self.stop_event)
        )
        before = len(self.fake.calls_to("getUpdates"))
        self.task = asyncio.create_task(
            run_telegram(
                config_for(self.fake),
                self.service,
                self.stop_event,
                rate_limiter=AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3),
                tick_seconds=3600,
                health=self.health,
            )
        )
        await self.fake.wait_for(lambda: len(self.fake.calls_to("getUpdates")) > before, 10)

    async def stop(self) -> None:
        await super().stop()
        await self.serving

    async def get(self, path: str) -> tuple[int, str]:
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{self.port}{path}") as answer,
        ):
            return answer.status, await answer.text()


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape by (name, sorted labels)."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(scrape, name: str, **labels: str) -> float:
    return scrape.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
async def fake():
    async with FakeBotAPI(flood=None) as server:
        yield server


@pytest.fixture
async def bot(fake, tmp_path):
    running = CheckedBot(fake, tmp_path / "bot.db", seed=7)
    await running.start()
    yield running
    if not running.stop_event.is_set():
        await running.stop()


async def test_healthz_and_readyz_follow_the_database_and_the_adapter(bot):
    assert await bot.get("/healthz") == (200, "ok\n")
    assert await bot.get("/readyz") == (200, "database: ok\ntelegram: ok\n")
    await bot.storage.close()  # the database gone: alive, but not ready
    assert await bot.get("/healthz") == (200, "ok\n")
    assert await bot.get("/readyz") == (503, "database: not ready\ntelegram: ok\n")
    await bot.storage.open()
    bot.stop_event.set()  # the adapter stopped polling
    await asyncio.wait_for(bot.task, 20)
    health = bot.health
    assert await health.readiness() == {"database": True, "telegram": False}
    await bot.serving
    await bot.storage.close()


async def test_metrics_after_a_whole_game(fake, bot):
    status, text = await bot.get("/metrics")
    assert status == 200
    before = samples(text)
    ali, veli, group = await open_game(fake, bot, "1")
    users = {"11": ali, "22": veli}
    during = samples((await bot.get("/metrics"))[1])
    assert value(during, "tavla_active_games") == 1
    # A 429 from Telegram is counted (and retried by the rate limiter).
    fake.fail_next("editMessageMedia", 429, retry_after=0.05, times=1)
    presses = 1  # the Accept
    for _ in range(3000):
        if not await step_once(fake, bot, users, group):
            break
        presses += 1
    assert (await game_record(bot)).status is GameStatus.FINISHED
    after = samples((await bot.get("/metrics"))[1])

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("tavla_commands_total", command="tavla") == 1
    assert grew("tavla_presses_total", kind="accept") == 1
    assert grew("tavla_presses_total", kind="move") > 0
    kinds = ("accept", "roll", "double", "take", "select", "move", "confirm", "resign_decline")
    assert sum(grew("tavla_presses_total", kind=k) for k in kinds) == presses
    assert grew("tavla_press_seconds_count") == presses
    assert grew("tavla_press_seconds_bucket", le="+Inf") == presses
    assert grew("tavla_api_calls_total", platform="telegram", method="sendPhoto", result="ok") > 0
    assert (
        grew(
            "tavla_api_calls_total", platform="telegram", method="answerCallbackQuery", result="ok"
        )
        >= presses
    )
    assert (
        grew("tavla_api_calls_total", platform="telegram", method="editMessageMedia", result="429")
        == 1
    )
    assert grew("tavla_rate_limited_total", platform="telegram") == 1
    assert grew("tavla_drawing_seconds_count") > 0
    assert value(after, "tavla_active_games") == 0
    assert ("tavla_analyses_queued", ()) in after
    assert ("tavla_telegram_limiter_waiting", ()) in after


async def test_discord_calls_and_429s_are_counted_by_route():
    """discord.py's HTTP session reports each call through the trace (the fake Discord
    replaces discord.py's HTTP client, so the trace is checked on a session of its own)."""

    async def answer(request: web.Request) -> web.Response:
        if request.path.endswith("/typing"):
            return web.json_response({"retry_after": 0.1}, status=429)
        return web.json_response({})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    scrape = samples(await _scrape_registry())
    try:
        async with aiohttp.ClientSession(trace_configs=[counted_calls()]) as session:
            base = f"http://127.0.0.1:{port}/api/v10/channels/4711"
            async with session.post(f"{base}/messages"):
                pass
            async with session.post(f"{base}/typing"):
                pass
    finally:
        await runner.cleanup()
    after = samples(await _scrape_registry())
    route = "POST /api/v10/channels/{}/messages"
    key = {"platform": "discord", "method": route, "result": "ok"}
    assert (
        value(after, "tavla_api_calls_total", **key) - value(scrape, "tavla_api_calls_total", **key)
        == 1
    )
    assert (
        value(after, "tavla_rate_limited_total", platform="discord")
        - value(scrape, "tavla_rate_limited_total", platform="discord")
        == 1
    )


async def _scrape_registry() -> str:
    from prometheus_client import REGISTRY, generate_latest

    return generate_latest(REGISTRY).decode()


def test_routes_keep_no_ids_or_tokens():
    assert route_of("/api/v10/channels/123/messages") == "/api/v10/channels/{}/messages"
    assert (
        route_of("/api/v10/webhooks/99/aW50ZXJhY3Rpb246MTIz/messages/@original")
        == "/api/v10/webhooks/{}/{}/messages/@original"
    )


async def test_a_refused_press_is_counted_by_its_kind(fake, bot):
    _, _, group = await open_game(fake, bot, "1")
    before = samples((await bot.get("/metrics"))[1])
    board = await fake.wait_for(
        lambda: next((m for m in reversed(fake.messages(group)) if m.get("photo")), None), 10
    )
    data = find(board, A.ROLL) or find(board, A.SELECT) or find(board, A.MOVE)
    assert data is not None
    outsider = fake.user(33, "Can")
    await press(fake, outsider, group, board, data)
    after = samples((await bot.get("/metrics"))[1])
    kind = A.decode(data).code.name.lower()
    assert (
        value(after, "tavla_presses_total", kind=kind)
        - value(before, "tavla_presses_total", kind=kind)
        == 1
    )


async def test_the_web_board_serves_the_checks_on_its_own_port(tmp_path):
    """With the web board on, ``python -m bot`` answers the checks on the board's listener
    (here next to the console, which has no adapter to wait for)."""
    port = free_port()
    proc = await bot_with_web_board(
        tmp_path, port, "health-test", stdout=asyncio.subprocess.DEVNULL
    )
    try:
        answers = {}
        async with aiohttp.ClientSession() as session:
            for _ in range(300):  # the server may still be starting
                try:
                    for path in ("/healthz", "/readyz", "/metrics"):
                        async with session.get(f"http://127.0.0.1:{port}{path}") as answer:
                            answers[path] = (answer.status, await answer.text())
                    break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.1)
        assert answers["/healthz"] == (200, "ok\n")
        assert answers["/readyz"] == (200, "database: ok\n")
        assert answers["/metrics"][0] == 200
        assert "tavla_active_games 0.0" in answers["/metrics"][1]
        assert proc.stdin is not None
        proc.stdin.write(b"/quit\n")
        await proc.stdin.drain()
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_a_taken_port_leaves_the_bot_running_and_says_so(caplog):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        stop = asyncio.Event()
        await asyncio.wait_for(serve_health(Health(), "127.0.0.1", port, stop), 5)
    assert "health checks and metrics not served" in caplog.text
