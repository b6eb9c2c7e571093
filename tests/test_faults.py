"""Faults: the bot process killed (SIGKILL) at random points of games, many times.

After every kill a new process takes over the same database. No game may be lost or
corrupted, and no action may be applied twice: each game's saved state and its event log are
written in one transaction, so the log must match the saved history exactly.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from core.match import Match

WORKER = Path(__file__).with_name("fault_worker.py")
ROOT = Path(__file__).resolve().parent.parent


def run_and_kill(db: Path, lines_before_kill: int) -> int:
    """Start a worker, let it commit some actions, then SIGKILL it. Returns lines seen."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    seen = 0
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("ok"):
                seen += 1
            if seen >= lines_before_kill:
                break
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    err = proc.stderr.read() if proc.stderr else ""
    assert "Traceback" not in err, err
    return seen


async def check(db: Path) -> int:
    storage = SqliteStorage(str(db))
    await storage.open()
    checked = 0
    for status in (GameStatus.ACTIVE, GameStatus.FINISHED):
        for record in await storage.games_in_chat("fault", "room", (status,)):
            match = Match.from_dict(record.match)  # the saved state loads and is valid
            events = await storage.events(record.id)
            assert [e.seq for e in events] == list(range(1, len(events) + 1))
            if match.game is not None and status is GameStatus.ACTIVE:
                number, count = record.settings.logged
                logged = [
                    {k: v for k, v in e.data.items() if k != "game"}
                    for e in events
                    if e.type == "core" and e.data["game"] == number
                ]
                # Every action of the current game is logged once, in order, no more.
                assert logged == match.game.history[:count]
                assert count == len(match.game.history)
            checked += 1
    await storage.close()
    return checked


def test_killed_many_times_loses_nothing(tmp_path):
    db = tmp_path / "fault.db"
    rng = random.Random(20261130)
    total = 0
    for _ in range(25):
        total += run_and_kill(db, rng.randint(1, 20))
    assert total >= 25
    assert asyncio.run(check(db)) >= 1
