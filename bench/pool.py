"""The pool of players waiting for an opponent: how fast arrivals are paired.

Players arrive at random (a Poisson process at ``--rate`` arrivals a second), each wanting a
game, a match length and a pace, and go through what ``/play`` does in the database: one
transaction that reads their pool rating and joins the pool or is paired at once
(``tx.pool.pair_or_wait``, bot/storage/pool.py) and, when paired, starts the game in that
same transaction (the service's own ``PoolGames.open``: the dice sealed, the first roll, the
game, its events and where each seat plays saved; ``--pairing-only`` leaves it out). Two
workers (two storages on one database, as two processes would be) take the arrivals in turn,
and each also sweeps its buckets once a second (``tx.pool.pair_waiting``), as the deadline
rounds do.

Two mixes: ``same`` (everyone wants one game: Tavla, 1 point, fast) and ``spread`` (one of
the three games, 1, 3 or 5 points, fast or daily: 18 wishes). For each database (SQLite,
and PostgreSQL when ``--postgres URL`` or ``TAVLA_TEST_POSTGRES_URL`` names one; a schema of
its own is made and dropped) and mix, one line:

- ``pair_p50_s``, ``pair_p95_s``: from the second player's arrival to the pairing committed;
- ``paired_share``: the share of arrivals paired by the end (the last of a wish may wait);
- ``double_pairings``: players found in more than one pair (must be 0);
- ``cpu_ms_per_pairing``: this process's CPU time (both workers, the drivers) per pairing.

The last line is the headline: PostgreSQL's (or SQLite's without it), mix ``same``.

Run: ``python bench/pool.py [--rate 2] [--seconds 30] [--seed 1] [--postgres URL]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from bot.service.pool_games import PoolGames
from bot.service.service import GameService, ServiceSettings
from bot.storage.base import PoolEntry, Storage
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import SqliteStorage
from core.pool import new_seeker

SAME = [("tavla", 1, "fast")]
SPREAD = [
    (v, n, p) for v in ("tavla", "turkish", "uzun") for n in (1, 3, 5) for p in ("fast", "daily")
]


@dataclass
class Tally:
    """What the workers saw."""

    arrivals: int = 0
    latencies: list[float] = field(default_factory=list)
    pairs: list[tuple[int, int]] = field(default_factory=list)
    swept: int = 0
    errors: int = 0


@dataclass
class Worker:
    """One worker: its storage, and the service's part that starts a pairing's game (None:
    the pairing alone is measured)."""

    storage: Storage
    games: PoolGames | None


def _worker(storage: Storage, pairing_only: bool) -> Worker:
    if pairing_only:
        return Worker(storage, None)
    service = GameService(storage, ServiceSettings(render_images=False, tutor_first_games=0))
    return Worker(storage, service.pool.pool_games)


async def _arrive(
    worker: Worker, player: int, wish: tuple[str, int, str], rng: random.Random, tally: Tally
) -> None:
    arrived = time.monotonic()
    variant, length, pace = wish
    now = time.time()
    try:
        async with worker.storage.transaction() as tx:
            rating = await tx.get_rating(player, "pool", variant)
            seeker = new_seeker(
                player, variant, length, pace, rating.rating + rng.gauss(0, 150), now
            )
            entry = PoolEntry(seeker, "bench", str(player))
            partner = await tx.pool.pair_or_wait(entry, now)
            if partner is not None and worker.games is not None:
                await worker.games.open(tx, partner, entry)
    except Exception:
        tally.errors += 1
        return
    if partner is not None:
        tally.latencies.append(time.monotonic() - arrived)
        tally.pairs.append((partner.user_id, player))


async def _sweep(worker: Worker, stop: asyncio.Event, tally: Tally) -> None:
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)
        now = time.time()
        for bucket, count in (await worker.storage.pool.counts(now)).items():
            if count < 2:
                continue
            async with worker.storage.transaction() as tx:
                pairs = await tx.pool.pair_waiting(bucket, now)
                for a, b in pairs:
                    if worker.games is not None:
                        await worker.games.open(tx, a, b)
            tally.swept += len(pairs)
            tally.pairs.extend((a.user_id, b.user_id) for a, b in pairs)


async def scenario(
    workers: list[Worker],
    wishes: list[tuple[str, int, str]],
    rate: float,
    seconds: float,
    seed: int,
) -> dict[str, float]:
    """Run arrivals for ``seconds`` against the workers; the figures."""
    rng = random.Random(seed)
    first = workers[0].storage
    count = int(rate * seconds * 1.5) + 10
    players = [
        (await first.get_or_create_user("bench", f"{seed}-{n}-{uuid.uuid4().hex[:6]}", f"P{n}")).id
        for n in range(count)
    ]
    tally = Tally()
    stop = asyncio.Event()
    sweepers = [asyncio.create_task(_sweep(w, stop, tally)) for w in workers]
    tasks = []
    cpu = time.process_time()
    start = time.monotonic()
    at = 0.0
    for n, player in enumerate(players):
        at += rng.expovariate(rate)
        if at > seconds:
            break
        delay = start + at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        wish = wishes[rng.randrange(len(wishes))]
        tally.arrivals += 1
        tasks.append(
            asyncio.create_task(_arrive(workers[n % len(workers)], player, wish, rng, tally))
        )
    await asyncio.gather(*tasks)
    stop.set()
    await asyncio.gather(*sweepers)
    cpu_used = time.process_time() - cpu
    seen: dict[int, int] = {}
    for a, b in tally.pairs:
        for p in (a, b):
            seen[p] = seen.get(p, 0) + 1
    doubles = sum(1 for n in seen.values() if n > 1)
    lat = sorted(tally.latencies) or [float("nan")]
    p95 = lat[min(len(lat) - 1, round(0.95 * (len(lat) - 1)))]
    return {
        "arrivals": tally.arrivals,
        "pairings": len(tally.pairs),
        "swept": tally.swept,
        "errors": tally.errors,
        "pair_p50_s": statistics.median(lat),
        "pair_p95_s": p95,
        "paired_share": 2 * len(tally.pairs) / max(1, tally.arrivals),
        "double_pairings": doubles,
        "cpu_ms_per_pairing": 1000 * cpu_used / max(1, len(tally.pairs)),
    }


def _line(figures: dict[str, float]) -> str:
    keys = ("pair_p50_s", "pair_p95_s", "paired_share", "double_pairings", "cpu_ms_per_pairing")
    parts = []
    for key in keys:
        value = figures[key]
        parts.append(f"{key}={int(value)}" if key == "double_pairings" else f"{key}={value:.3f}")
    return " ".join(parts)


async def _with_sqlite(folder: Path, name: str) -> list[Storage]:
    path = folder / f"{name}.db"
    workers: list[Storage] = [SqliteStorage(path), SqliteStorage(path)]
    for w in workers:
        await w.open()
    return workers


async def _with_postgres(url: str, schema: str) -> list[Storage]:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
    finally:
        await conn.close()
    workers: list[Storage] = [
        PostgresStorage(url, server_settings={"search_path": schema}, pool_size=5) for _ in range(2)
    ]
    await workers[0].open()
    await workers[1].open()
    return workers


async def _drop_schema(url: str, schema: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=float, default=2.0, help="arrivals a second")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long each run lasts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", default=os.environ.get("TAVLA_TEST_POSTGRES_URL", ""))
    parser.add_argument(
        "--pairing-only", action="store_true", help="leave out the game a pairing starts"
    )
    args = parser.parse_args()
    what = "pairing" if args.pairing_only else "pairing+game"
    print(f"rate={args.rate}/s seconds={args.seconds} {what} load={os.getloadavg()[0]:.2f}")
    headline = None
    with tempfile.TemporaryDirectory() as tmp:
        backends = ["sqlite"] + (["postgres"] if args.postgres else [])
        for backend in backends:
            for mix, wishes in (("same", SAME), ("spread", SPREAD)):
                schema = f"tavla_bench_{uuid.uuid4().hex[:12]}"
                if backend == "sqlite":
                    workers = await _with_sqlite(Path(tmp), mix)
                else:
                    workers = await _with_postgres(args.postgres, schema)
                try:
                    figures = await scenario(
                        [_worker(w, args.pairing_only) for w in workers],
                        wishes,
                        args.rate,
                        args.seconds,
                        args.seed,
                    )
                finally:
                    for w in workers:
                        await w.close()
                    if backend == "postgres":
                        await _drop_schema(args.postgres, schema)
                print(
                    f"{backend} workers=2 mix={mix} arrivals={figures['arrivals']} "
                    f"pairings={figures['pairings']} swept={figures['swept']} "
                    f"errors={figures['errors']} {_line(figures)}",
                    flush=True,
                )
                if mix == "same":
                    headline = figures
    assert headline is not None
    print(f"load_after={os.getloadavg()[0]:.2f}")
    print(_line(headline))


if __name__ == "__main__":
    asyncio.run(main())
