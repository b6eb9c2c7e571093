"""``bench/pool.py`` runs, pairs every fitting arrival once (each pairing starting its game
in the same transaction, as ``/play`` does), and prints its headline line."""

from __future__ import annotations

from pathlib import Path

from bench.pool import SAME, SPREAD, _line, _with_sqlite, _worker, scenario
from bot.storage.base import GameStatus


async def test_the_bench_pairs_everyone_once(tmp_path: Path) -> None:
    for name, wishes in (("same", SAME), ("spread", SPREAD)):
        workers = await _with_sqlite(tmp_path, name)
        try:
            figures = await scenario(
                [_worker(w, pairing_only=False) for w in workers],
                wishes,
                rate=200.0,
                seconds=0.3,
                seed=3,
            )
            started = await workers[0].count_games((GameStatus.ACTIVE, GameStatus.FINISHED))
            assert started == figures["pairings"]
        finally:
            for worker in workers:
                await worker.close()
        assert figures["double_pairings"] == 0
        assert figures["errors"] == 0
        assert figures["pairings"] > 0
        if name == "same":  # one wish: at most the last one waits
            assert figures["arrivals"] - 2 * figures["pairings"] <= 1
    line = _line(figures)
    for key in (
        "pair_p50_s",
        "pair_p95_s",
        "paired_share",
        "double_pairings",
        "cpu_ms_per_pairing",
    ):
        assert f"{key}=" in line
