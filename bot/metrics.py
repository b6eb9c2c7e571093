"""The bot's Prometheus metrics (served at ``GET /metrics``, see :mod:`bot.health`).

Defined once here, in prometheus_client's default registry, and counted where the work is
done: the service (commands, presses, drawing, analyses), the Telegram transport and rate
limiter, the Discord client's HTTP trace. Label values come from fixed sets (command names
from the catalogue, button kinds, API methods, results), never from users' input, so the
number of series stays bounded. Every process serves its own figures; Prometheus adds up
the workers.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from prometheus_client import Counter, Gauge, Histogram

#: Seconds: from a quick answer to a slow picture upload.
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

COMMANDS = Counter("tavla_commands", "Chat commands handled, by command.", ["command"])
PRESSES = Counter("tavla_presses", "Button presses handled, by kind of button.", ["kind"])
PRESS_SECONDS = Histogram(
    "tavla_press_seconds",
    "Time the game service takes to answer a button press (saved and drawn).",
    buckets=_LATENCY_BUCKETS,
)
API_CALLS = Counter(
    "tavla_api_calls",
    "Calls to the chat platforms' APIs, by platform, method and result "
    "(ok, 429, a 4xx or 5xx status class, network).",
    ["platform", "method", "result"],
)
POOL = Counter("tavla_pool", "The pool of players: entries joined, paired, cancelled.", ["event"])
POOL_REPORTS = Counter("tavla_pool_reports", "Reports players made about a pool opponent.")
RATE_LIMITED = Counter(
    "tavla_rate_limited", "429 answers (too many requests) from a platform's API.", ["platform"]
)
LIMITER_WAITING = Gauge(
    "tavla_telegram_limiter_waiting",
    "Telegram sends and edits waiting for a slot of the flood limits.",
)
EVENT_LOOP_LAG = Gauge(
    "tavla_event_loop_lag_seconds",
    "How late the bot process's event loop ran a timer, last measured (about a turn's length).",
)
WEB_WAITING = Gauge(
    "tavla_web_waiting",
    "Web board actions and page loads waiting in line while the event loop lags.",
)
WEB_BUSY = Counter(
    "tavla_web_busy",
    "Web board actions and page loads answered busy (503): the page sends them again.",
)
ACTIVE_GAMES = Gauge("tavla_active_games", "Games under way (read from the database).")
DRAWING_SECONDS = Histogram(
    "tavla_drawing_seconds", "Time to draw one board picture.", buckets=_LATENCY_BUCKETS
)
ANALYSES_QUEUED = Gauge("tavla_analyses_queued", "Game analyses waiting or under way.")

#: Called before each scrape, to refresh the figures read from elsewhere (the database).
Refresher = Callable[[], Awaitable[None]]


def api_result(status: int) -> str:
    """The ``result`` label of an HTTP status: ``ok``, ``429``, or its class (``4xx``)."""
    if 200 <= status < 300:
        return "ok"
    if status == 429:
        return "429"
    return f"{status // 100}xx"


_KEPT_SEGMENT = re.compile(r"(v[0-9]+|@?[a-z_-]+)")


def route_of(path: str) -> str:
    """A URL path as a route: ids and tokens replaced by ``{}``
    (``/api/v10/channels/123/messages`` -> ``/api/v10/channels/{}/messages``)."""
    parts = path.split("/")
    return "/".join(p if not p or _KEPT_SEGMENT.fullmatch(p) else "{}" for p in parts)
