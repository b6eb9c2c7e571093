"""Service throughput: many concurrent games driven through the game service.

Each game is played by two simulated players pressing the buttons the service offers
(select a checker, pick its destination, confirm, roll, take), with SQLite storage and board
pictures rendered for every reply, exactly as a chat adapter would get them. Prints moves
(actions) per second and the median and 99th-percentile time from an action to its reply
being ready, and the CPU time this process used (all its threads: storage, drawing) per
action, which depends far less than the rest on what else runs on the machine; the last line
is ``moves_per_s=… p50_ms=… p99_ms=… cpu_ms_per_action=…``.

By default the players together offer 80 actions per second (open loop, as in real chats);
``--rate 0`` drives the service flat out to find its ceiling.

Pictures are PNG, as Discord and the console get them; ``--jpeg`` draws them as JPEG, as
Telegram gets them (the drawing a bot on Telegram pays for).

Run: ``python bench/service.py [--games N] [--actions M] [--rate R] [--no-images] [--jpeg]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bot.service import actions as A
from bot.service.service import Actor, GameService, Place, ServiceSettings
from bot.service.views import View
from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from core.dice import SeededDice
from core.match import Match
from renderers.picture import JPEG

PREFERENCE = (A.TAKE, A.CONFIRM, A.MOVE, A.SELECT, A.ROLL)


def _board(views: list[View]) -> View | None:
    for view in reversed(views):
        if view.game_id is not None and view.buttons and not view.notice:
            return view
    return None


def _choose(view: View) -> str | None:
    codes = {}
    for row in view.buttons:
        for button in row:
            action = A.decode(button.action)
            if action is not None:
                codes.setdefault(action.code, button.action)
    for code in PREFERENCE:
        if code in codes:
            return codes[code]
    return None


async def play_game(
    service: GameService,
    n: int,
    actions: int,
    latencies: list[float],
    variant: str,
    pause: float,
) -> int:
    """One game between two players; returns the number of actions made.

    ``pause`` is the players' thinking time between actions (load pacing, not a measurement).
    """
    place = Place("bench", f"chat-{n}", private=False)
    players = {
        "a": Actor("bench", f"{n}-a", f"A{n}"),
        "b": Actor("bench", f"{n}-b", f"B{n}"),
    }
    views = await service.command(players["a"], place, variant, "")
    accept = _choose_accept(views)
    views = await service.press(players["b"], place, accept)
    board = _board(views)
    made = 0
    while board is not None and made < actions:
        record = await service.storage.get_game(board.game_id)
        if record is None or record.status is not GameStatus.ACTIVE:
            # The game ended: start a new one in the same chat.
            views = await service.command(players["a"], place, variant, "")
            views = await service.press(players["b"], place, _choose_accept(views))
            board = _board(views)
            continue
        match = Match.from_dict(record.match)
        user = await service.storage.get_user(record.seats[match.game.awaiting])
        actor = players["a"] if user.platform_id.endswith("-a") else players["b"]
        data = _choose(board)
        if data is None:
            break
        if pause:
            # Spread the games' actions over the pause so they don't arrive in lockstep.
            await asyncio.sleep(pause * (0.5 + ((n * 7919 + made * 104729) % 1000) / 1000))
        start = time.perf_counter()
        views = await service.press(actor, place, data)
        latencies.append(time.perf_counter() - start)
        made += 1
        board = _board(views) or board
    return made


def _choose_accept(views: list[View]) -> str:
    for view in views:
        for row in view.buttons:
            for button in row:
                action = A.decode(button.action)
                if action and action.code == A.ACCEPT:
                    return button.action
    raise RuntimeError("no challenge to accept")


async def run(games: int, actions: int, images: bool, rate: float, jpeg: bool = False) -> None:
    with tempfile.TemporaryDirectory() as folder:
        storage = SqliteStorage(str(Path(folder) / "bench.db"))
        await storage.open()
        seeds = iter(range(10**9))
        service = GameService(
            storage,
            ServiceSettings(
                burst_actions=10**6,
                render_images=images,
                picture_formats={"bench": JPEG} if jpeg else {},
            ),
            dice_factory=lambda: SeededDice((next(seeds) % 2**32).to_bytes(4, "big") * 8),
        )
        latencies: list[float] = []
        cpu_start = time.process_time()
        # With a target rate, each game acts every games/rate seconds on average (open
        # loop, like players in many chats); without one, as fast as replies come back.
        pause = games / rate if rate else 0.0
        start = time.perf_counter()
        variants = ("tavla", "uzun")
        counts = await asyncio.gather(
            *(
                play_game(service, n, actions, latencies, variants[n % 2], pause)
                for n in range(games)
            )
        )
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        await storage.close()
    total = sum(counts)
    ordered = sorted(latencies)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[int(0.99 * (len(ordered) - 1))] * 1000
    print(
        f"{games} concurrent games, {total} actions in {elapsed:.1f} s "
        f"(pictures {('JPEG' if jpeg else 'PNG') if images else 'off'}, offered rate "
        f"{f'{rate:.0f}/s' if rate else 'unlimited'})"
    )
    print(
        f"moves_per_s={total / elapsed:.1f} p50_ms={p50:.1f} p99_ms={p99:.1f}"
        f" cpu_ms_per_action={cpu * 1000 / total:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--actions", type=int, default=60, help="actions per game")
    parser.add_argument("--no-images", action="store_true")
    parser.add_argument("--jpeg", action="store_true", help="draw pictures as JPEG (Telegram)")
    parser.add_argument(
        "--rate", type=float, default=80.0, help="offered actions per second; 0 = flat out"
    )
    args = parser.parse_args()
    asyncio.run(run(args.games, args.actions, not args.no_images, args.rate, args.jpeg))


if __name__ == "__main__":
    main()
