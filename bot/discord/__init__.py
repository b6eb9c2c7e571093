"""The Discord adapter (discord.py 2.x): slash commands and persistent buttons on the service.

- :mod:`.commands`: the slash commands (the Telegram names, typed options) and the
  translator that localizes their descriptions from our catalogs for ``tr`` and ``ru``;
- :mod:`.buttons`: the persistent :class:`~discord.ui.DynamicItem` game buttons, whose
  ``custom_id`` is ``tv:`` + the service's action id, so boards survive restarts;
- :mod:`.adapter`: interactions in, views out, within Discord's three seconds.

One :class:`TavlaClient` (an :class:`discord.AutoShardedClient`, so one process serves many
servers) runs with the default intents only: nothing privileged, no message content. Typed
moves go through ``/move``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import aiohttp
import discord
from discord import app_commands

from bot import metrics
from bot.config import Config
from bot.health import Health
from bot.service.runner import FIRST_ROUND_AFTER, ROUND_SECONDS, DeadlineRunner
from bot.service.service import GameService
from bot.web.discord import enable_web_board

from .adapter import DEFER_AFTER, PLATFORM, DiscordAdapter, actor_of, place_of
from .buttons import GameButton, custom_id, view_of
from .commands import CatalogTranslator, build_commands

log = logging.getLogger(__name__)

TICK_SECONDS = ROUND_SECONDS
#: Seconds after start-up before the first deadline and repair round (the gateway connects).
STARTUP_ROUND = FIRST_ROUND_AFTER

__all__ = [
    "PLATFORM",
    "CatalogTranslator",
    "DiscordAdapter",
    "GameButton",
    "TavlaClient",
    "TavlaTree",
    "actor_of",
    "custom_id",
    "place_of",
    "run_discord",
    "view_of",
]


def intents() -> discord.Intents:
    """The default intents without message content: nothing privileged is needed."""
    chosen = discord.Intents.default()
    chosen.message_content = False
    chosen.members = False
    chosen.presences = False
    return chosen


class TavlaTree(app_commands.CommandTree[Any]):
    """The command tree with one central error handler."""

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError, /
    ) -> None:
        adapter: DiscordAdapter | None = getattr(self.client, "adapter", None)
        if adapter is None:  # pragma: no cover
            await super().on_error(interaction, error)
            return
        await adapter.on_error(interaction, error)


class TavlaClient(discord.AutoShardedClient):
    """The bot: game buttons registered and commands synced in :meth:`setup_hook`."""

    def __init__(
        self,
        adapter: DiscordAdapter,
        *,
        guild_id: int | None = None,
        sync_commands: bool = True,
        **options: Any,
    ) -> None:
        super().__init__(intents=intents(), **options)
        self.adapter = adapter
        adapter.client = self
        self.guild_id = guild_id
        self.sync_commands = sync_commands
        self.tree = TavlaTree(self)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed from a server: its games wait, clocks stopped, until the bot is back."""
        await self.adapter.chat_gone(str(guild.id))

    async def on_guild_join(self, guild: discord.Guild) -> None:
        """Added (back) to a server: games that waited there resume."""
        await self.adapter.chat_back(str(guild.id), guild.name)

    async def setup_hook(self) -> None:
        # Every board ever posted is answered by this one template, restart or not.
        self.add_dynamic_items(GameButton)
        await self.tree.set_translator(CatalogTranslator())
        for command in build_commands():
            self.tree.add_command(command)
        if not self.sync_commands:
            return
        if self.guild_id is not None:
            # A test server sees changes at once; global commands take a while to spread.
            guild = discord.Object(self.guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        log.info("synced %d Discord commands (guild=%s)", len(synced), self.guild_id)


def build_client(
    config: Config, service: GameService, *, defer_after: float = DEFER_AFTER
) -> TavlaClient:
    """The client with its adapter, not yet logged in."""
    shards: dict[str, Any] = {}
    if config.discord_shard_count:
        # Shards split over processes: each runs its own; only the one with shard 0
        # syncs the commands, so they are not synced N times at every start.
        shards["shard_count"] = config.discord_shard_count
        if config.discord_shard_ids:
            shards["shard_ids"] = list(config.discord_shard_ids)
    first = not config.discord_shard_ids or 0 in config.discord_shard_ids
    return TavlaClient(
        DiscordAdapter(service, defer_after=defer_after),
        guild_id=config.discord_guild_id,
        sync_commands=first,
        http_trace=counted_calls(),
        **shards,
    )


def counted_calls() -> aiohttp.TraceConfig:
    """A trace of discord.py's HTTP calls that counts each in ``tavla_api_calls`` (by route
    and result) and each 429 in ``tavla_rate_limited``: discord.py retries 429s itself,
    so only its HTTP session sees them."""
    trace = aiohttp.TraceConfig()

    async def ended(
        session: aiohttp.ClientSession, context: Any, params: aiohttp.TraceRequestEndParams
    ) -> None:
        route = f"{params.method} {metrics.route_of(params.url.path)}"
        metrics.API_CALLS.labels("discord", route, metrics.api_result(params.response.status)).inc()
        if params.response.status == 429:
            metrics.RATE_LIMITED.labels("discord").inc()

    async def failed(
        session: aiohttp.ClientSession, context: Any, params: aiohttp.TraceRequestExceptionParams
    ) -> None:
        route = f"{params.method} {metrics.route_of(params.url.path)}"
        metrics.API_CALLS.labels("discord", route, "network").inc()

    trace.on_request_end.append(ended)
    trace.on_request_exception.append(failed)
    return trace


async def run_discord(
    config: Config,
    service: GameService,
    stop: asyncio.Event | None = None,
    *,
    tick_seconds: float = TICK_SECONDS,
    defer_after: float = DEFER_AFTER,
    runner: DeadlineRunner | None = None,
    health: Health | None = None,
) -> None:
    """Run the bot until ``stop`` is set (or forever), delivering deadline messages. Deadline
    rounds run every ``tick_seconds``, unless a shared ``runner`` runs them. ``health``:
    where ``/readyz`` asks whether the gateway is connected."""
    client = build_client(config, service, defer_after=defer_after)
    if health is not None:
        health.add_check(PLATFORM, lambda: client.is_ready() and not client.is_closed())
    enable_web_board(config, client)
    stop = stop or asyncio.Event()
    own_rounds = runner is None
    runner = runner or DeadlineRunner(service)
    client.adapter.serve_deadlines(runner)
    async with client:
        await client.login(config.discord_token or "")
        gateway = asyncio.create_task(client.connect(reconnect=True), name="discord-gateway")
        stopping = asyncio.create_task(stop.wait(), name="discord-stop")
        rounds = None
        if own_rounds:
            # The first round comes soon after start-up (the gateway connects): boards that
            # lag their game (the bot stopped between a save and an edit) are redrawn
            # without waiting a whole period.
            first = min(STARTUP_ROUND, tick_seconds)
            rounds = asyncio.create_task(runner.run(stop, tick_seconds, first_after=first))
        try:
            await asyncio.wait({gateway, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if not stopping.done():
                gateway.result()  # a fatal gateway error (bad token, intents) is raised
        finally:
            stopping.cancel()
            if rounds is not None:
                if not stop.is_set():
                    rounds.cancel()  # the gateway has ended: nothing could be delivered
                with contextlib.suppress(asyncio.CancelledError):
                    await rounds  # on stop, the round under way finishes first
            await client.close()
            gateway.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await gateway
