"""``python -m bot``: run every adapter whose token is set, or the console when none is."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import sys
from typing import Any

from bot.config import Config, ConfigError
from bot.health import Health, serve_health
from bot.logs import configure
from bot.storage.base import StorageError
from bot.storage.factory import open_when_reachable, postgres_dsn_from_url, storage_from_url

log = logging.getLogger("bot")


async def run(config: Config) -> None:
    """Open storage, start the adapters, and run until they stop.

    This is the one place that builds the application: storage (wrapped for the web board's
    change hub when it is served), the service over it, and the adapters over the service.
    Adapters, the web board included, get the service and never see storage."""
    # Imported here, after the configuration (and its .env file) is read: the game modules
    # read settings of their own at import (TAVLA_NUMBA, core/jit.py).
    from bot.service.compiling import start_compiling
    from bot.service.runner import FIRST_ROUND_AFTER, ROUND_SECONDS, DeadlineRunner
    from bot.service.service import GameService, ServiceSettings

    storage = storage_from_url(config.database_url)
    await open_when_reachable(storage, config.database_wait)
    hub = None
    if config.web_base_url:  # the web board follows every committed change
        from bot.web.run import with_change_hub

        storage, hub = with_change_hub(storage)
    settings = ServiceSettings(
        render_processes=config.render_processes,
        pool_daily_games=config.pool_daily_games,
        game_puzzles=True,
    )
    service = GameService(storage, settings)
    # The computer's compiled move search: the Python one plays until it is ready.
    start_compiling()
    # The drawing and the advice worker made ready now: no first player waits for them.
    service.warm()
    # /healthz, /readyz and /metrics: the database here, each adapter when it starts.
    health = Health()
    health.add_check("database", service.ready)
    health.add_refresher(service.refresh_metrics)
    try:
        runners = []
        stop = asyncio.Event()
        web = None
        url = config.database_url or ""
        dsn = postgres_dsn_from_url(url) if url.startswith(("postgres", "postgresql")) else None
        if hub is not None:
            from bot.web.run import run_web

            web = asyncio.create_task(
                run_web(config, service, hub, stop, postgres_dsn=dsn, health=health)
            )
        # One deadline runner for every adapter: each delivers the views of its platform.
        rounds = DeadlineRunner(service)
        if config.telegram_token:
            from bot.telegram import run_telegram

            runners.append(
                run_telegram(config, service, stop, runner=rounds, health=health, postgres_dsn=dsn)
            )
        if config.discord_token:
            from bot.discord import run_discord

            runners.append(run_discord(config, service, stop, runner=rounds, health=health))
        if runners and web is None:
            # The checks on a listener of their own (WEB_LISTEN:WEB_PORT).
            web = asyncio.create_task(
                serve_health(health, config.web_listen, config.web_port, stop)
            )
        if runners:
            # The first round soon after start-up (the adapters connect), then every period.
            runners.append(rounds.run(stop, ROUND_SECONDS, first_after=FIRST_ROUND_AFTER))
            # SIGTERM (a service manager stopping the bot): the adapters stop taking updates,
            # finish those under way and their sends; updates not yet taken stay with
            # Telegram for the next start. Whatever still runs after STOP_DEADLINE seconds
            # is cancelled, so the bot is gone before the manager's 10 s are up.
            # What start-up built lives as long as the process: kept out of the collector's
            # full passes, which would otherwise walk it (about 50 ms for 100,000 objects)
            # every few hundred presses under load. A press makes thousands of short-lived
            # objects: with a larger youngest generation most are gone before a pass looks
            # at them (the collector's share of the CPU about halves).
            gc.freeze()
            gc.set_threshold(10_000, 10, 10)
            work = asyncio.gather(*runners)
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGTERM, _terminate, loop, stop, work)
            try:
                await work
            except asyncio.CancelledError:
                if not stop.is_set():
                    raise
                log.warning(
                    "stopping: work still under way %.0f s after SIGTERM was cut short",
                    STOP_DEADLINE,
                )
        else:
            from bot.console import ConsoleAdapter

            links = None
            if hub is not None:
                from bot.web.run import console_links

                links = console_links(config, service)
            console = ConsoleAdapter(service, board_dir=config.board_dir, web_links=links)
            if hub is not None:  # the web board is served: the console follows its pages
                console.follow_web()
            await console.run()
        if web is not None:
            stop.set()
            await web
    finally:
        service.close()
        await storage.close()


#: Seconds after SIGTERM by which the adapters have stopped (what runs then is cancelled).
STOP_DEADLINE = 8.0


def _terminate(
    loop: asyncio.AbstractEventLoop, stop: asyncio.Event, work: asyncio.Future[Any]
) -> None:
    """SIGTERM: stop taking updates now; cancel what still runs at the deadline."""
    if stop.is_set():
        return
    log.info("SIGTERM: stopping")
    stop.set()
    loop.call_later(STOP_DEADLINE, work.cancel)


def main() -> int:
    try:
        config = Config.from_env()
    except ConfigError as exc:
        for problem in exc.problems:  # what is wrong, one line each (as ``tavla check``)
            print(problem, file=sys.stderr)
        return 2
    configure(
        config.log_level,
        [config.telegram_token, config.discord_token, config.web_secret],
        config.log_format,
    )
    # Until the adapters take over SIGTERM (and in the console), it stops the bot like
    # Ctrl-C: drawing processes end and the database is closed.
    signal.signal(signal.SIGTERM, _interrupt)
    # Database calls return through threads (aiosqlite's, asyncio's): while the event loop is
    # busy, a finished call waits up to the GIL switch interval to hand its result back. At
    # Python's default 5 ms, a press's few calls in a row add tens of milliseconds under load.
    sys.setswitchinterval(0.001)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run(config))
    except StorageError as exc:  # no database at start-up: one line, as `tavla check` says it
        log.error("DATABASE_URL: %s", exc)
        return 1
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    raise SystemExit(main())
