"""Web board live updates: from a player's action to the new state on every open page.

The real web server (bot/web) and game service on SQLite, in this process; two players play a
game through the JSON API (``POST /api/game/<id>/action``) while ``--pages`` spectator pages
follow it over Server-Sent Events. For each action, the time from sending it to the new
state's arrival on each page is measured (board pictures for the chat are drawn as usual).
The last line is ``update_p50_ms=… update_p99_ms=… update_max_ms=… pages=… actions=…``.

Run: ``python bench/web.py [--pages N] [--actions M]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from aiohttp import ClientSession, TCPConnector
from aiohttp.test_utils import TestServer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.service.service import GameService, ServiceSettings
from bot.storage.sqlite import SqliteStorage
from bot.web.auth import LinkSigner
from bot.web.hub import ChangeHub
from bot.web.server import WebBoard
from core.dice import SeededDice
from tests.web_helpers import start_game


async def follow(session: ClientSession, url: str, arrivals: dict[int, list[float]]) -> None:
    """One spectator page: note when each version arrives."""
    async with session.get(url) as resp:
        resp.raise_for_status()
        async for raw in resp.content:
            line = raw.decode().rstrip("\n")
            if line.startswith("data: "):
                version = json.loads(line[6:])["version"]
                arrivals.setdefault(version, []).append(time.perf_counter())


async def main(pages: int, actions: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        hub = ChangeHub()
        inner = SqliteStorage(str(Path(tmp) / "web.db"))
        await inner.open()
        service = GameService(
            hub.watch(inner),  # type: ignore[arg-type]
            ServiceSettings(burst_actions=10**6),
            dice_factory=lambda: SeededDice(bytes([3]) * 32),
        )
        signer = LinkSigner("bench")
        server = TestServer(WebBoard(service, hub, signer, api_rate=(10**6, 1.0)).app)
        await server.start_server()
        game_id = await start_game(service)
        record = await service.storage.get_game(game_id)
        assert record is not None
        auth = [
            {"Authorization": "link " + signer.seat_token(game_id, s, record.seats[s])}
            for s in (0, 1)
        ]
        base = str(server.make_url("")).rstrip("/")
        stream = signer.stream_token(game_id, None, "en")
        watch = f"{base}/api/game/{game_id}/events?token={stream}"
        arrivals: dict[int, list[float]] = {}
        sent: dict[int, float] = {}
        # No connection limit: the pages' streams must not hold up the players' requests.
        async with ClientSession(connector=TCPConnector(limit=0)) as session:
            followers = [
                asyncio.create_task(follow(session, watch, arrivals)) for _ in range(pages)
            ]
            while len(arrivals.get(record.version, [])) < pages:
                if any(task.done() for task in followers):
                    raise RuntimeError("a page could not follow the game")
                await asyncio.sleep(0.01)
            done = 0
            while done < actions:
                states = []
                for seat in (0, 1):
                    async with session.get(
                        f"{base}/api/game/{game_id}", headers=auth[seat]
                    ) as resp:
                        states.append(await resp.json())
                if states[0]["status"] != "active":
                    break
                seat = 0 if states[0]["my_turn"] else 1
                state = states[seat]
                if state["legal"]:
                    source, dests = next(iter(state["legal"].items()))
                    body = {"action": "move", "from": int(source), "to": dests[0]}
                elif state["buttons"]:
                    body = {"action": next(b for b in state["buttons"] if b != "double")}
                else:
                    break
                body["version"] = state["version"]
                sent[state["version"] + 1] = time.perf_counter()
                async with session.post(
                    f"{base}/api/game/{game_id}/action", json=body, headers=auth[seat]
                ) as resp:
                    answer = await resp.json()
                assert answer["ok"], answer
                # Wait until every page has the new state (or give up on this one after 5 s).
                deadline = time.perf_counter() + 5
                newest = answer["state"]["version"]
                while len(arrivals.get(newest, [])) < pages and time.perf_counter() < deadline:
                    await asyncio.sleep(0.002)
                done += 1
            for task in followers:
                task.cancel()
        await server.close()
        await inner.close()
        service.close()
    delays = [(t - sent[v]) * 1000 for v, times in arrivals.items() if v in sent for t in times]
    delays.sort()
    p50 = statistics.median(delays)
    p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
    print(f"{len(delays)} page updates for {done} actions on {pages} pages")
    print(
        f"update_p50_ms={p50:.1f} update_p99_ms={p99:.1f} update_max_ms={delays[-1]:.1f} "
        f"pages={pages} actions={done}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--actions", type=int, default=100)
    options = parser.parse_args()
    asyncio.run(main(options.pages, options.actions))
