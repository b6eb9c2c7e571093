"""A worker process for the two-workers test: presses buttons on shared games.

``python tests/press_worker.py DATABASE_URL ACTIONS`` makes up to ACTIONS state-changing presses on
the active games of the test chat (whatever the other worker does meanwhile), then prints
the number of presses the service applied.
"""

from __future__ import annotations

import asyncio
import sys

from bot.service import actions as A
from bot.service.service import Actor, Place
from bot.storage.base import GameStatus
from bot.storage.factory import storage_from_url
from core.match import Match
from tests.factory import actions_of, make_service

PLACE = Place("workers", "room")
CHANGING = (A.TAKE, A.CONFIRM, A.MOVE, A.DOUBLE, A.ROLL)


async def main(db: str, actions: int) -> None:
    storage = storage_from_url(db)
    await storage.open()
    service = make_service(storage, first_seed=None, render_images=False, burst_actions=10**9)
    applied = 0
    tries = 0
    while tries < actions:
        games = await storage.games_in_chat("workers", "room", (GameStatus.ACTIVE,))
        if not games:
            break
        for record in games:
            match = Match.from_dict(record.match)
            user = await storage.get_user(record.seats[match.game.awaiting])
            actor = Actor("workers", user.platform_id, user.name)
            views = await service.command(actor, PLACE, "board", "")
            codes = actions_of(views)
            if A.SELECT in codes and not any(c in codes for c in CHANGING):
                codes = actions_of(await service.press(actor, PLACE, codes[A.SELECT]))
            data = next((codes[c] for c in CHANGING if c in codes), None)
            if data is None:
                continue
            tries += 1
            views = await service.press(actor, PLACE, data)
            if not any(v.notice for v in views):
                applied += 1
    print("applied", applied, flush=True)
    await storage.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
