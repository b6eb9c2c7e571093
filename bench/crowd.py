"""A crowd: many games at a human pace against a fake Telegram that keeps Telegram's limits.

The bot runs as in production (``python -m bot``, its own process and session, its own rate
limiter at Telegram's published rates) against a local fake Bot API that enforces those limits
strictly (tests/fakes/telegram/flood.py): at most 20 sends or edits in any minute per group,
3 in any 3 seconds per private chat, 30 in any second in all, answered 429 with
``retry_after`` beyond them; answers to presses are not counted. ``--games`` games are played
at once: most in groups (two players each), ``--private`` of them in private chats (one player
against the computer at its ``random`` level, which costs the bot next to nothing to think).

Each player plays at a human pace: when the board shows it is their turn they look at it for
1.5-5 s and press the button a scripted player would (tests/drivers.py), or 3-10 s when the
turn has just come to them, then wait for the chat to show the press's result. The bench
measures, from the end of the opening (every game open) for ``--seconds``:

* ``press_to_board``: from a press to the chat showing its result (the board message's buttons
  changed), p50/p95/p99;
* ``starved_games``: games in which a press waited more than 30 s for the board;
* ``tg_msgs_per_s``: sends and edits Telegram accepted a second, ``429s_seen``: the calls it
  refused with 429;
* ``answers_late``: presses answered later than 1 s (the spinner on the button);
* ``told_slow``: games whose board said the chat is busy and offered the web board, and
  ``told_lag``: presses whose answer said that the board lags.

The web board is served (on loopback) so that boards carry its buttons; ``--web`` is not
measured here yet. The fake and the players run at nice 10, in a session of their own (as
bench/load.py). The last line is ``games= tg_msgs_per_s= press_to_board_p50_ms=
press_to_board_p95_ms= press_to_board_p99_ms= starved_games= 429s_seen= answers_late=`` with
the told figures, the bot's CPU a press and the load average after it.

Run: ``python bench/crowd.py [--games 150] [--private 0.2] [--seconds 300] [--database URL]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import (  # noqa: E402
    ACTING,
    NICE,
    PREFERENCE,
    _interrupted,
    buttons,
    cpu_seconds,
    cpu_used,
    fresh_database,
    own_session,
    stop_bot,
)
from bot.i18n import LANGUAGES, translate  # noqa: E402
from bot.service import actions as A  # noqa: E402
from bot.telegram.delivery import BOARD_LAGS, SLOW_CHAT, SLOW_CHAT_WEB  # noqa: E402
from tests.drivers import free_port  # noqa: E402
from tests.fakes.telegram import FLOOD_METHODS, FakeBotAPI, FakeUser  # noqa: E402

TOKEN = "4243:CROWD"
#: A press waiting longer than this for its board starves its game (seconds).
STARVED_S = 30.0
#: A press answered later than this was answered late (seconds).
ANSWER_LATE_S = 1.0
#: How long a player waits for anything before giving up on a press (seconds).
PATIENCE_S = 180.0
PRESS_THINK = (1.5, 5.0)
TURN_THINK = (3.0, 10.0)
LAGS = {translate(BOARD_LAGS, lang) for lang in LANGUAGES}
SLOW = {translate(text, lang) for text in (SLOW_CHAT, SLOW_CHAT_WEB) for lang in LANGUAGES}


class CrowdFake(FakeBotAPI):
    """The strict fake (Telegram's limits), telling a game when the bot wrote in its chat
    and a player when their press was answered: no player polls."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chat_watchers: dict[int, Callable[[], None]] = {}
        self.answer_watchers: dict[str, asyncio.Event] = {}

    async def dispatch(self, token: str, method: str, params: Any, files: Any = None) -> Any:
        reply = await super().dispatch(token, method, params, files)
        if reply.status == 200:
            if method in FLOOD_METHODS:
                watcher = self.chat_watchers.get(params.get("chat_id"))
                if watcher is not None:
                    watcher()
            elif method == "answerCallbackQuery":
                event = self.answer_watchers.pop(str(params.get("callback_query_id")), None)
                if event is not None:
                    event.set()
        return reply


class Stats:
    """What the players saw."""

    def __init__(self) -> None:
        self.measuring = False
        self.board_waits: list[float] = []
        self.answer_waits: list[float] = []
        self.starved: set[int] = set()
        self.told_slow: set[int] = set()
        self.told_lag = 0
        self.refused: dict[str, int] = {}
        self.gave_up = 0


class Game:
    """One game in a chat: a group with two players, or a private chat with one player
    against the computer."""

    def __init__(self, fake: CrowdFake, n: int, private: bool) -> None:
        self.fake = fake
        self.n = n
        self.private = private
        self.a = fake.user(100_000 + n, f"A{n}", username=f"a{n}")
        self.b = None if private else fake.user(500_000 + n, f"B{n}", username=f"b{n}")
        self.chat = (
            fake.private_chat(self.a) if private else fake.group(-(1_000_000 + n), f"Room {n}")
        )
        self.changed = asyncio.Event()
        fake.chat_watchers[self.chat.id] = self.changed.set

    def board(self) -> dict | None:
        return self.fake.newest_message(
            self.chat, lambda message: message.get("photo") and buttons(message)
        )

    async def _change(self, timeout: float) -> bool:
        """Wait for the bot's next send or edit in this chat; False after ``timeout``."""
        self.changed.clear()
        try:
            await asyncio.wait_for(self.changed.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def open(self) -> None:
        if self.private:
            await self.fake.send_text(self.a, self.chat, "/bot random")
        else:
            await self.fake.send_text(self.a, self.chat, "/tavla")
            challenge = None
            while challenge is None:
                challenge = next(
                    (m for m in self.fake.messages(self.chat) if A.ACCEPT in buttons(m)), None
                )
                if challenge is None and not await self._change(PATIENCE_S):
                    raise TimeoutError(f"no challenge in game {self.n}")
            assert self.b is not None
            await self.fake.press(
                self.b, self.chat, challenge["message_id"], buttons(challenge)[A.ACCEPT]
            )
        while self.board() is None:
            if not await self._change(PATIENCE_S):
                raise TimeoutError(f"no board in game {self.n}")

    def _actor(self, message: dict) -> FakeUser | None:
        """Who is to press on this board (None: the computer)."""
        acting = ACTING.search(message.get("caption", ""))
        name = acting.group(1) if acting else None
        if self.b is not None and name == self.b.first_name:
            return self.b
        if name is None or name == self.a.first_name:  # (anyone may press Rematch)
            return self.a
        return None

    async def play(self, until: float, rng: random.Random, stats: Stats) -> None:
        """Press at a human pace until ``until``."""
        last_actor: FakeUser | None = None
        while time.perf_counter() < until:
            message = self.board()
            codes = buttons(message) if message else {}
            data = next((codes[c] for c in PREFERENCE if c in codes), None)
            actor = self._actor(message) if message else None
            if data is None or actor is None:  # the computer's turn, or no board to press
                if not await self._change(min(PATIENCE_S, until - time.perf_counter() + 1)):
                    stats.gave_up += message is None
                continue
            think = PRESS_THINK if actor is last_actor else TURN_THINK
            await asyncio.sleep(rng.uniform(*think))
            last_actor = actor
            if self._seen(self.board()) != self._seen(message):
                continue  # the board changed meanwhile (the computer, a late edit)
            await self._press(actor, message, data, stats)

    @staticmethod
    def _seen(message: dict | None) -> tuple | None:
        """What a player tells boards apart by: the message and its buttons."""
        if message is None:
            return None
        return (message["message_id"], tuple(buttons(message).values()))

    async def _press(self, actor: FakeUser, message: dict, data: str, stats: Stats) -> None:
        before = self._seen(message)
        answered = asyncio.Event()
        start = time.perf_counter()
        measured = stats.measuring
        self.changed.clear()
        query = await self.fake.press(actor, self.chat, message["message_id"], data)
        self.fake.answer_watchers[query] = answered
        if query in self.fake.callback_answers:
            answered.set()
        shown = asyncio.ensure_future(self._shown(before))
        try:
            await asyncio.wait_for(answered.wait(), PATIENCE_S)
        except TimeoutError:
            stats.gave_up += 1
            shown.cancel()
            return
        answer_wait = time.perf_counter() - start
        text = self.fake.callback_answers[query].get("text") or ""
        if text and text not in LAGS:
            shown.cancel()
            if measured:
                stats.refused[text] = stats.refused.get(text, 0) + 1
            return
        waited = await shown
        if not measured:
            return
        stats.answer_waits.append(answer_wait)
        stats.told_lag += text in LAGS
        if waited is None or waited > STARVED_S:
            stats.starved.add(self.n)
        stats.board_waits.append(PATIENCE_S if waited is None else waited)
        board = self.board()
        if board is not None and any(line in board.get("caption", "") for line in SLOW):
            stats.told_slow.add(self.n)

    async def _shown(self, before: tuple) -> float | None:
        """Seconds until the chat shows a board other than ``before`` (None: never)."""
        start = time.perf_counter()
        while True:
            board = self.board()
            if (
                board is not None
                and (
                    board["message_id"],
                    tuple(buttons(board).values()),
                )
                != before
            ):
                return time.perf_counter() - start
            left = PATIENCE_S - (time.perf_counter() - start)
            if left <= 0 or not await self._change(left):
                return None


def percentile(values: list[float], share: float) -> float:
    done = sorted(values)
    return done[int(share * (len(done) - 1))] if done else 0.0


async def run(args: argparse.Namespace) -> None:
    folder = tempfile.mkdtemp(prefix="tavla-crowd-")
    stats = Stats()
    try:
        async with CrowdFake() as fake, fresh_database(args.database, folder) as url:
            env = {
                **os.environ,
                "TELEGRAM_TOKEN": TOKEN,
                "TELEGRAM_BASE_URL": fake.base_url,
                "TELEGRAM_BASE_FILE_URL": fake.base_file_url,
                "DATABASE_URL": url,
                "LOG_LEVEL": "WARNING",
                # Boards carry the web board's buttons (served on loopback; no one opens it).
                "WEB_BASE_URL": "https://board.example.org",
                "WEB_SECRET": "crowd-bench-" + "x" * 32,
                "WEB_PORT": str(free_port()),
            }
            for name in ("DISCORD_TOKEN", "TELEGRAM_MAX_RATE", "TELEGRAM_GROUP_RATE"):
                env.pop(name, None)  # Telegram's published rates: the bot's defaults
            bot = subprocess.Popen(
                [sys.executable, "-m", "bot"], cwd=folder, env=env, start_new_session=True
            )
            os.nice(NICE)
            try:
                await fake.wait_calls("getUpdates", 1, 60)
                private = round(args.games * args.private)
                table = [Game(fake, n, n < private) for n in range(args.games)]
                start = time.perf_counter()
                await asyncio.gather(*(g.open() for g in table))
                print(
                    f"opened {args.games} games ({private} in private chats) in "
                    f"{time.perf_counter() - start:.1f} s",
                    flush=True,
                )
                rng = random.Random(args.seed)
                players = [
                    asyncio.ensure_future(
                        g.play(time.perf_counter() + 1e9, random.Random(rng.random()), stats)
                    )
                    for g in table
                ]
                # Let the players settle into their pace before measuring.
                await asyncio.sleep(args.warmup)
                stats.measuring = True
                accepted, refused = fake.flood.accepted, fake.flood.refused
                cpu_before = cpu_seconds(bot.pid)
                began = time.perf_counter()
                await asyncio.sleep(args.seconds)
                stats.measuring = False
                elapsed = time.perf_counter() - began
                cpu = cpu_used(cpu_before, cpu_seconds(bot.pid))
                msgs = fake.flood.accepted - accepted
                refusals = fake.flood.refused - refused
                for player in players:
                    player.cancel()
                await asyncio.gather(*players, return_exceptions=True)
            finally:
                await stop_bot(bot)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    load = Path("/proc/loadavg").read_text().split()[:3]
    waits, answers = stats.board_waits, stats.answer_waits
    late = sum(1 for w in answers if w > ANSWER_LATE_S)
    print(
        f"{args.games} games for {elapsed:.0f} s: {len(waits)} presses shown, "
        f"answers p50 {percentile(answers, 0.5) * 1000:.0f} ms p99 "
        f"{percentile(answers, 0.99) * 1000:.0f} ms; refused {stats.refused or 0}; "
        f"gave up {stats.gave_up}; bot CPU {cpu:.1f} s ({cpu / elapsed:.2f} of a core, "
        f"{cpu * 1000 / max(1, len(waits)):.1f} ms a press); load average {' '.join(load)}"
    )
    print(
        f"games={args.games} tg_msgs_per_s={msgs / elapsed:.1f}"
        f" press_to_board_p50_ms={percentile(waits, 0.5) * 1000:.0f}"
        f" press_to_board_p95_ms={percentile(waits, 0.95) * 1000:.0f}"
        f" press_to_board_p99_ms={percentile(waits, 0.99) * 1000:.0f}"
        f" starved_games={len(stats.starved)} 429s_seen={refusals} answers_late={late}"
        f" presses={len(waits)} told_slow={len(stats.told_slow)} told_lag={stats.told_lag}"
        f" load={load[0]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--private", type=float, default=0.2, help="share in private chats")
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--warmup", type=float, default=20.0, help="seconds before measuring")
    parser.add_argument("--database", help="DATABASE_URL for the bot (default: a SQLite file)")
    parser.add_argument("--seed", type=int, default=20261204)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _interrupted)
    own_session()
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
