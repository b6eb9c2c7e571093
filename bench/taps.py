"""Taps: how many presses, pictures and Bot API calls a turn costs in a Telegram group.

Seeded games of each variant are played in a group through the real python-telegram-bot
application and the bot's Telegram adapter, against the local fake Bot API (no network). The
player to act picks a random legal play when their dice are shown and enters it through the
board's buttons with the fewest presses the interface allows: a breadth-first search over
the buttons the bot would show (the same layout code, :func:`bot.service.presenter.game_buttons`,
applied to a copy of the game), then presses the first button of that shortest path and
plans again from the board the bot actually shows. Default settings: nobody doubles (a
scripted player rolls when it may).

A turn is one roll of the dice (forced plays and passes included). Per variant it prints
the mean presses per turn and their 90th percentile, the pictures uploaded per turn
(``sendPhoto`` and ``editMessageMedia``), the messages sent or edited in the chat per turn
(every ``send*`` and ``edit*`` call: they share Telegram's 20-a-minute group limit) and all
Bot API calls per turn (answers to presses included). The last line holds every figure:
``tavla_presses=… tavla_presses_p90=… tavla_pictures=… tavla_messages=… tavla_api_calls=…
turkish_… uzun_…``.

``--roll-by-itself`` plays with both players' ``/settings`` → *Roll by itself* on (no Roll
press even when doubling is possible). ``--busy`` plays every press as in a chat that cannot
keep up with Telegram's limits (the bot rolls for the players, a finished move needs no
Confirm; bot/service/autoplay.py).

Run: ``python bench/taps.py [--games 3] [--seed 1] [--variants tavla,uzun] [--roll-by-itself]
[--busy]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import random
import statistics
import sys
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from telegram.ext import AIORateLimiter  # noqa: E402

from bot.service import actions as A  # noqa: E402
from bot.service import keypad  # noqa: E402
from bot.service.presenter import game_buttons  # noqa: E402
from bot.service.service import GameService, ServiceSettings  # noqa: E402
from bot.storage.base import GameStatus, PlayerPrefs  # noqa: E402
from bot.storage.sqlite import SqliteStorage  # noqa: E402
from bot.telegram import TelegramAdapter, run_telegram  # noqa: E402
from core.dice import SeededDice  # noqa: E402
from core.game import Game, Phase  # noqa: E402
from core.match import Match  # noqa: E402
from core.position import Position  # noqa: E402
from tests.fakes.telegram import FakeBotAPI  # noqa: E402
from tests.test_telegram import config_for  # noqa: E402

TOKEN = "4242:TAPS"
VARIANTS = {"tavla": "/tavla 1", "turkish": "/tavla 1 turkish", "uzun": "/uzun 1"}
MESSAGE_METHODS = ("send", "edit")
PICTURE_METHODS = ("sendPhoto", "editMessageMedia")


def buttons(message: dict) -> list[str]:
    markup = message.get("reply_markup") or {}
    return [b["callback_data"] for row in markup.get("inline_keyboard", []) for b in row]


def plan(game: Game, target: Position, selected: int | None) -> list[tuple[str, str]]:
    """The shortest sequence of (code, arg) presses that plays ``target`` from ``game``'s
    turn, with the bot's layout and the keypad's press semantics."""
    turn = game.current_turn
    assert turn is not None
    start = [(s.source, s.dest) for s, _ in turn.done]

    def replay(pairs: list[tuple[int, int]]) -> None:
        turn.reset()
        for pair in pairs:
            turn.step(pair)

    queue: deque[tuple[list[tuple[int, int]], int | None, list[tuple[str, str]]]] = deque(
        [(start, selected, [])]
    )
    seen: set[Any] = set()
    try:
        while queue:
            pairs, selected, path = queue.popleft()
            replay(pairs)
            if turn.complete:
                if turn.position == target:
                    return [*path, (A.CONFIRM, "")]
                continue
            key = (turn.position, tuple(turn.remaining_dice), selected)
            if key in seen:
                continue
            seen.add(key)
            for row in game_buttons(1, 1, game, selected):
                for button in row:
                    action = A.decode(button.action)
                    assert action is not None
                    replay(pairs)
                    # The service's own press semantics (play.py: _steps, _select).
                    if action.code == A.MOVE:
                        keypad.make_steps_on_turn(turn, keypad.decode_steps(action.arg))
                        queue.append((_pairs(turn), None, [*path, (A.MOVE, action.arg)]))
                    elif action.code == A.SELECT:
                        only = keypad.select(turn, int(action.arg))
                        if only is None:
                            queue.append((pairs, int(action.arg), [*path, (A.SELECT, action.arg)]))
                        else:
                            keypad.make_steps_on_turn(turn, _pairs_of(only))
                            queue.append((_pairs(turn), None, [*path, (A.SELECT, action.arg)]))
                    elif action.code == A.BACK:
                        queue.append((pairs, None, [*path, (A.BACK, "")]))
        raise AssertionError("no way to enter the play")
    finally:
        replay(start)


def _pairs(turn: Any) -> list[tuple[int, int]]:
    return _pairs_of(turn.done)


def _pairs_of(steps: Any) -> list[tuple[int, int]]:
    return [(s.source, s.dest) for s, _ in steps]


class Table:
    """One group game, its bot and the counters."""

    def __init__(self, fake: FakeBotAPI, storage: SqliteStorage, n: int, rng: random.Random):
        self.fake, self.storage, self.rng = fake, storage, rng
        self.a = fake.user(1000 + n, f"A{n}", username=f"a{n}")
        self.b = fake.user(5000 + n, f"B{n}", username=f"b{n}")
        self.chat = fake.group(-(10_000 + n), f"Room {n}")
        self.presses: dict[tuple[int, int], int] = {}
        self.target: dict[tuple[int, int], Position] = {}

    async def record(self) -> Any:
        games = await self.storage.games_in_chat(
            "telegram", str(self.chat.id), (GameStatus.ACTIVE, GameStatus.FINISHED)
        )
        return max(games, key=lambda g: g.id)

    def board(self) -> dict:
        for message in reversed(self.fake.messages(self.chat)):
            if message.get("photo") and buttons(message):
                return message
        raise AssertionError(self.fake.summary())

    async def quiet(self) -> None:
        """Wait until the bot has finished reacting: every board shown, no call for a while."""
        count, still = -1, 0
        while still < 3:
            await asyncio.sleep(0.02)
            games = await self.storage.games_in_chat(
                "telegram", str(self.chat.id), (GameStatus.ACTIVE, GameStatus.FINISHED)
            )
            now = len(self.fake.calls)
            lagging = any(g.shown_version < g.version for g in games)
            still = still + 1 if now == count and not lagging else 0
            count = now

    async def open(self, command: str) -> None:
        await self.fake.send_text(self.a, self.chat, command)
        await self.quiet()
        challenge = next(m for m in self.fake.messages(self.chat) if _find(m, A.ACCEPT))
        await self.press(self.b, challenge, _find(challenge, A.ACCEPT))

    async def press(self, user: Any, message: dict, data: str) -> dict:
        query = await self.fake.press(user, self.chat, message["message_id"], data)
        await self.fake.wait_for(lambda: query in self.fake.callback_answers, 30)
        await self.quiet()
        return self.fake.callback_answers[query]

    async def step(self) -> bool:
        """One press by the player to act; False once the game is over."""
        record = await self.record()
        if record.status is not GameStatus.ACTIVE:
            return False
        match = Match.from_dict(record.match)
        game = match.game
        assert game is not None
        rolls = sum(1 for e in game.history if e["type"] == "roll")
        key = (record.id, rolls + (1 if game.phase is Phase.ROLL else 0))
        seat = game.awaiting
        user = await self.storage.get_user(record.seats[seat])
        actor = self.a if user.platform_id == str(self.a.id) else self.b
        message = self.board()
        if game.phase is Phase.MOVE:
            if key not in self.target:  # one random legal play per turn
                self.target[key] = self.rng.choice(game.legal_plays()).after
            target = self.target[key]
            shown = [a for d in buttons(message) if (a := A.decode(d))]
            picked = None  # the checker picked on the board shown (it has a Back button)
            if any(a.code == A.BACK for a in shown):
                picked = next(int(a.arg.split("-")[0]) for a in shown if a.code == A.MOVE)
            code, arg = plan(game, target, picked)[0]
        else:
            code, arg = A.ROLL, ""
        data = next(
            (d for d in buttons(message) if (a := A.decode(d)) and (a.code, a.arg) == (code, arg)),
            None,
        )
        assert data is not None, (code, arg, buttons(message))
        answer = await self.press(actor, message, data)
        assert not answer.get("text") or not answer.get("show_alert"), answer
        self.presses[key] = self.presses.get(key, 0) + 1
        return True


def _find(message: dict, code: str) -> str | None:
    return next((d for d in buttons(message) if (a := A.decode(d)) and a.code == code), None)


async def play(variant: str, games: int, seed: int, prefs: PlayerPrefs) -> dict[str, float]:
    turns_presses: list[int] = []
    turns = 0
    calls = {"messages": 0, "pictures": 0, "api_calls": 0}
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeBotAPI(flood=None) as fake:  # the bot's rate limiter is off here
            storage = SqliteStorage(str(Path(tmp) / "taps.db"))
            await storage.open()
            seeds = iter(range(seed * 1000, seed * 1000 + 10_000))
            service = GameService(
                storage,
                ServiceSettings(burst_actions=10**6),
                dice_factory=lambda: SeededDice(bytes([next(seeds) % 256]) * 32),
            )
            stop = asyncio.Event()
            task = asyncio.create_task(
                run_telegram(
                    config_for(fake),
                    service,
                    stop,
                    rate_limiter=AIORateLimiter(overall_max_rate=0, group_max_rate=0),
                    tick_seconds=3600,
                )
            )
            await fake.wait_for(lambda: fake.calls_to("getUpdates"), 10)
            rng = random.Random(seed)
            try:
                for n in range(games):
                    table = Table(fake, storage, n, rng)
                    for player in (table.a, table.b):
                        user = await storage.get_or_create_user(
                            "telegram", str(player.id), player.first_name
                        )
                        await storage.set_user_prefs(user.id, prefs)
                    await table.open(VARIANTS[variant])
                    first = len(fake.calls)
                    while await table.step():
                        pass
                    record = await table.record()
                    game = Match.from_dict(record.match).game
                    assert game is not None
                    rolls = sum(1 for e in game.history if e["type"] == "roll")
                    turns += rolls
                    turns_presses += [
                        table.presses.get((record.id, k), 0) for k in range(1, rolls + 1)
                    ]
                    for call in fake.calls[first:]:
                        if call.method == "getUpdates" or not call.ok:
                            continue
                        calls["api_calls"] += 1
                        calls["messages"] += call.method.startswith(MESSAGE_METHODS)
                        calls["pictures"] += call.method in PICTURE_METHODS
            finally:
                stop.set()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(task, 30)
                await storage.close()
                service.close()
    ordered = sorted(turns_presses)
    return {
        "presses": statistics.mean(turns_presses),
        "presses_p90": ordered[math.ceil(0.9 * len(ordered)) - 1],
        **{name: value / turns for name, value in calls.items()},
        "turns": turns,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per variant")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated")
    parser.add_argument(
        "--roll-by-itself", action="store_true", help="both players roll by themselves"
    )
    parser.add_argument(
        "--busy", action="store_true", help="every chat is busy (behind Telegram's limits)"
    )
    args = parser.parse_args()
    if args.busy:
        TelegramAdapter.busy = lambda self, chat_id: True  # type: ignore[method-assign]
    prefs = PlayerPrefs(auto_roll=args.roll_by_itself)
    started = time.perf_counter()
    fields: list[str] = []
    for variant in args.variants.split(","):
        figures = asyncio.run(play(variant, args.games, args.seed, prefs))
        print(f"{variant}: {figures}", flush=True)
        for name in ("presses", "presses_p90", "pictures", "messages", "api_calls"):
            value = figures[name]
            fields.append(
                f"{variant}_{name}={value:.2f}"
                if name != "presses_p90"
                else f"{variant}_{name}={value}"
            )
    print(f"# {time.perf_counter() - started:.0f} s", flush=True)
    print(" ".join(fields))


if __name__ == "__main__":
    main()
