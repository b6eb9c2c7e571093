"""Health checks and metrics over HTTP: ``GET /healthz``, ``GET /readyz``, ``GET /metrics``.

- ``/healthz``: the process is alive and its event loop answers (200 ``ok``);
- ``/readyz``: ready to serve: the database answers and every chat adapter is connected
  (200, or 503 naming what is not ready), one line each ``name: ok|not ready``;
- ``/metrics``: Prometheus' text format (:mod:`bot.metrics`).

They are added to the web board's application when it is served, or served by a small
listener of their own on ``WEB_LISTEN:WEB_PORT`` (:func:`serve_health`) when it is not. A
container's health check, a load balancer or Prometheus ask them; the reverse proxy in
front of the web board should not forward ``/metrics`` to the Internet (docs/operating.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

from bot.metrics import Refresher

log = logging.getLogger(__name__)

#: One readiness check: True when ready (a coroutine function or a plain one).
Check = Callable[[], Awaitable[bool] | bool]
#: Seconds a readiness check may take before it counts as not ready.
CHECK_TIMEOUT = 3.0


class Health:
    """The process's readiness checks (the database, each adapter) and metric refreshers."""

    def __init__(self) -> None:
        self.checks: dict[str, Check] = {}
        self.refreshers: list[Refresher] = []

    def add_check(self, name: str, check: Check) -> None:
        """``/readyz`` asks ``check`` as ``name`` (an adapter: "connected")."""
        self.checks[name] = check

    def add_refresher(self, refresh: Refresher) -> None:
        """``refresh`` runs before each scrape of ``/metrics`` (gauges read from elsewhere)."""
        self.refreshers.append(refresh)

    async def readiness(self) -> dict[str, bool]:
        """Each check's answer; a check that fails or takes too long is not ready."""
        return dict(
            zip(
                self.checks,
                await asyncio.gather(*(self._ask(check) for check in self.checks.values())),
                strict=True,
            )
        )

    async def _ask(self, check: Check) -> bool:
        try:
            answer = check()
            if not isinstance(answer, bool):
                answer = await asyncio.wait_for(answer, CHECK_TIMEOUT)
            return bool(answer)
        except Exception:
            log.warning("a readiness check failed", exc_info=True)
            return False

    # -- HTTP ---------------------------------------------------------------------------

    def add_routes(self, app: web.Application) -> None:
        """Serve ``/healthz``, ``/readyz`` and ``/metrics`` from ``app``."""
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/readyz", self.readyz)
        app.router.add_get("/metrics", self.metrics)

    async def healthz(self, request: web.Request) -> web.Response:
        """Alive: the event loop got here."""
        return web.Response(text="ok\n", headers={"Cache-Control": "no-store"})

    async def readyz(self, request: web.Request) -> web.Response:
        """200 when every check is ready, 503 otherwise; one line a check."""
        answers = await self.readiness()
        body = "".join(f"{name}: {'ok' if ok else 'not ready'}\n" for name, ok in answers.items())
        status = 200 if all(answers.values()) else 503
        return web.Response(status=status, text=body, headers={"Cache-Control": "no-store"})

    async def metrics(self, request: web.Request) -> web.Response:
        """The metrics in Prometheus' text format, refreshed first."""
        for refresh in self.refreshers:
            try:
                await asyncio.wait_for(refresh(), CHECK_TIMEOUT)
            except Exception:
                log.warning("a metric could not be refreshed", exc_info=True)
        response = web.Response(body=generate_latest(REGISTRY))
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response


async def serve_health(health: Health, host: str, port: int, stop: asyncio.Event) -> None:
    """Serve the checks alone on ``host:port`` until ``stop`` is set (the web board off)."""
    app = web.Application()
    health.add_routes(app)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as exc:
        # Another process has the port (a second worker on WEB_PORT): the bot still
        # serves its chats; the operator is told, once.
        log.error("health checks and metrics not served on %s:%s: %s", host, port, exc)
        await runner.cleanup()
        return
    log.info("health checks and metrics on http://%s:%s", host, port)
    try:
        await stop.wait()
    finally:
        with contextlib.suppress(Exception):
            await runner.cleanup()
