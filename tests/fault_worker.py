"""A bot process for the kill test: plays games through the service, forever.

``python tests/fault_worker.py DB SEED`` presses buttons for whichever player a game waits
for, printing one line per committed action, until it is killed.
"""

from __future__ import annotations

import asyncio
import sys

from bot.service import actions as A
from bot.service.service import Actor, Place
from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from core.match import Match
from tests.factory import actions_of, make_service

PLAYERS = {"1": Actor("fault", "1", "One"), "2": Actor("fault", "2", "Two")}
PLACE = Place("fault", "room")
PREFERENCE = (A.TAKE, A.CONFIRM, A.MOVE, A.SELECT, A.DOUBLE, A.ROLL)


def choose(views, preference=PREFERENCE) -> str | None:
    codes = actions_of(views)
    for code in preference:
        if code in codes:
            return codes[code]
    return None


async def main(db: str) -> None:
    storage = SqliteStorage(db)
    await storage.open()
    service = make_service(storage, first_seed=None, render_images=False, burst_actions=10**6)
    while True:
        games = await storage.games_in_chat("fault", "room", (GameStatus.ACTIVE,))
        if not games:
            views = await service.command(PLAYERS["1"], PLACE, "tavla", "3")
            views = await service.press(PLAYERS["2"], PLACE, choose(views, (A.ACCEPT,)) or "")
            print("started", flush=True)
            continue
        record = games[0]
        match = Match.from_dict(record.match)
        user = await storage.get_user(record.seats[match.game.awaiting])
        actor = PLAYERS[user.platform_id]
        views = await service.command(actor, PLACE, "board", "")
        data = choose(views)
        if data is None:
            continue
        views = await service.press(actor, PLACE, data)
        if any(v.notice for v in views):
            print("refused", flush=True)
        else:
            print("ok", record.id, flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
