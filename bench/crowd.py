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

The web board is served (on loopback) so that boards carry its buttons. ``--web K`` plays K
of the group games on it instead: both players open the game's page (the API with Telegram's
launch data, and its live stream), act through the API at the same pace, and the bench
measures ``action_to_pages``, from an action sent to its new state on every page of the game;
the chat's board of such a game is edited at the end of each turn, through the same queue.

``--take-web P``: when a game's board first says the chat is busy and offers the web board, its
players take the offer with probability P: they open the game's page (as ``--web`` players:
the API with Telegram's launch data, the live stream; the one player of a private chat too)
and play on through the API, the chat's board then following the game at each turn's end as
the bot's spare messages allow. Their actions are measured as ``action_to_pages`` apart from
the presses of the games still played in the chats. The default, 0.8, is what the chats can
carry: a busy chat's turn costs about 1.2 messages and comes every 8-9 s at a human pace, so
the bot's 30 messages a second keep about 200 games at pace in the chats; of 1,000 games, four
in five must take the offer for the fifth that stays to play at pace, which is the case the
design is meant for (a crowd the chats cannot carry, most of it on the web board). A lower
share shows the chats slowing for those who stay; ``--take-web 0`` keeps every game in its
chat. At 150 games no chat is busy, and nobody is offered anything.
``--workers W`` runs W bot processes on one PostgreSQL database (``--database``): the updates
come by webhook to one of them, the pages are spread over all, and each sends at its share of
the bot's 30 a second. The fake and the players run at nice 10, in a session of their own
(as bench/load.py). The last line is ``games= tg_msgs_per_s= press_to_board_p50_ms=
press_to_board_p95_ms= press_to_board_p99_ms= starved_games= 429s_seen= answers_late=`` with
the told figures, the bot's CPU a press and the load average after it; with ``--web``, a
line ``web_games= web_actions= web_actions_per_s= cpu_ms_per_action=
action_to_pages_p50_ms= …`` follows (the bots' CPU, over every action and press). The games
moved to the web board are told in a line of their own, ``moved_games= moved_actions=
moved_action_to_pages_p50_ms= moved_action_to_pages_p95_ms= moved_action_to_pages_p99_ms=
moved_starved_games=`` (an action whose pages waited over 30 s starves its game), and a last
line over all games, ``all_games= all_p99_ms= all_starved_games= told_players_share=
slow_untold_players= web_busy_answers=`` (``all_p99_ms``: of the chat games' presses and the
moved games' actions together; ``told_players_share``: the players whose board said, at any
time, that the chat is busy; ``slow_untold_players``: the players of games whose board came
as late after a press as the bot's mark of a busy chat, 10 s, and never said so).

Run: ``python bench/crowd.py [--games 150] [--private 0.2] [--seconds 300] [--database URL]
[--web K] [--workers W] [--take-web 0.8]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import hmac
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from aiohttp import ClientSession, ClientTimeout, TCPConnector

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
from bot.telegram.busy import SLOW_CHAT_AFTER  # noqa: E402
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
        #: Web games: from an action sent to its state on every page of the game.
        self.page_waits: list[float] = []
        self.web_refused = 0
        #: Games whose board ever said that the chat is busy (warm-up included).
        self.ever_told: set[int] = set()
        #: Games whose board came as late as the bot's "busy" mark after a press (the
        #: players should have been told, warm-up included).
        self.ever_slow: set[int] = set()
        #: Games whose players took the web board when told, and their actions measured.
        self.moved: set[int] = set()
        self.moved_waits: list[float] = []
        self.moved_starved: set[int] = set()
        self.moved_failed = 0
        #: Web actions answered "busy" (503) and sent again.
        self.busy_answers = 0


class Game:
    """One game in a chat: a group with two players, or a private chat with one player
    against the computer."""

    def __init__(self, fake: CrowdFake, n: int, private: bool, take_web: float = 0.0) -> None:
        self.fake = fake
        self.n = n
        self.private = private
        #: The chance that its players take the web board when first told the chat is busy.
        self.take_web = take_web
        #: Decided (when first told): the players go on on the web board.
        self.to_web: bool | None = None
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
            if message is not None and self._told(message, rng, stats):
                return  # the players go on on the web board
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

    def _told(self, message: dict, rng: random.Random, stats: Stats) -> bool:
        """Whether the players, looking at this board, take the web board it offers (it
        says the chat is busy; they decide the first time)."""
        if not any(line in message.get("caption", "") for line in SLOW):
            return False
        stats.ever_told.add(self.n)
        if self.to_web is None:
            self.to_web = rng.random() < self.take_web
        return self.to_web

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
        if waited is None or waited >= SLOW_CHAT_AFTER:
            stats.ever_slow.add(self.n)
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


#: The web board's buttons a scripted player presses, first offered first.
WEB_BUTTONS = ("take", "decline_resign", "confirm", "roll", "rematch")


#: A state's version, near its start (``{"game": 7, "version": 12, …``).
VERSION = re.compile(rb'^\{"game": \d+, "version": (\d+)')


def init_data(user: FakeUser) -> str:
    """Telegram's launch data for ``user`` (the Mini App's ``initData``), signed with the
    bot's token as Telegram signs it."""
    fields = {
        "user": json.dumps({"id": user.id, "first_name": user.first_name, "language_code": "en"}),
        "auth_date": str(int(time.time())),
    }
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest}, quote_via=quote)


class WebPage:
    """A player's page of a game: its state as the live stream last brought it."""

    def __init__(self, http: ClientSession, base: str, game: int, user: FakeUser) -> None:
        self.http = http
        self.base = base
        self.game = game
        self.user = user
        # Each player comes from an address of their own (behind the proxy on loopback).
        self.headers = {
            "Authorization": "tma " + init_data(user),
            "X-Forwarded-For": f"10.{user.id >> 16 & 255}.{user.id >> 8 & 255}.{user.id & 255}",
        }
        #: The newest state as it came, and parsed when first looked at: a page of the
        #: bench stands for a browser on a player's phone, and parsing every state of 2,000
        #: pages took a third of the bench's own CPU, beside the bots.
        self.raw = b"{}"
        self.version = -1
        self._parsed: dict[str, Any] | None = {}
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    @property
    def state(self) -> dict[str, Any]:
        if self._parsed is None:
            self._parsed = json.loads(self.raw)
        return self._parsed

    @state.setter
    def state(self, value: dict[str, Any]) -> None:
        self._parsed = value
        self.version = value.get("version", -1)

    async def open(self) -> None:
        self.state = await self.load()
        self.task = asyncio.ensure_future(self._follow(self.state["stream"]))

    async def load(self) -> dict[str, Any]:
        """The game's state, asked again after the wait a "busy" answer names, as the page
        does."""
        while True:
            url = f"{self.base}/api/game/{self.game}"
            async with self.http.get(url, headers=self.headers) as r:
                if r.status != 503:
                    r.raise_for_status()
                    return await r.json()
                await busy_wait(r)

    async def _follow(self, token: str) -> None:
        """The page's live stream (renewed when the server asks)."""
        while True:
            url = f"{self.base}/api/game/{self.game}/events?token={token}"
            async with self.http.get(url, headers=self.headers) as stream:
                stream.raise_for_status()
                event = ""
                async for raw in stream.content:
                    line = raw.decode().rstrip("\n")
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: ") and event == "state":
                        self.raw = raw[6:]
                        self._parsed = None
                        found = VERSION.search(self.raw)
                        self.version = int(found.group(1)) if found else self.state["version"]
                        self.changed.set()
                    elif line.startswith("data: ") and event in ("renew", "end"):
                        break
            if event != "renew":
                return
            token = (await self.load())["stream"]

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()

    def action(self) -> dict[str, Any] | None:
        """What a scripted player sends on this state (None: not this player's turn)."""
        return self.plan()[0]

    def plan(self) -> tuple[dict[str, Any] | None, int]:
        """What a scripted player sends on this state and the taps it takes: the checker
        moves are walked on the page, as the page does (the state's ``walk``), and sent in
        one action when the turn is played out or a move leads past the boards told."""
        state = self.state
        if not state.get("my_turn") and "rematch" not in state.get("buttons", ()):
            return None, 0
        version = state["version"]
        walk = state.get("walk") or []
        steps: list[list[int]] = []
        taps = 0
        node = walk[0] if walk else None
        while node is not None and node["moves"]:
            way = next(iter(node["moves"].values()))[0]
            steps += way["steps"]
            taps += 1
            following = way.get("next")
            node = None if following is None else walk[following]
        if steps:
            return {"action": "move", "version": version, "steps": steps}, taps
        for name in WEB_BUTTONS:
            if name in state.get("buttons", ()):
                return {"action": name, "version": version}, 1
        return None, 0


class WebGame:
    """A game played on the web board: its players' pages follow it live (both players of
    a group's game; the one player of a private chat's, against the computer). ``moved``:
    its players left the chat for it (``--take-web``)."""

    def __init__(self, game: Game, http: ClientSession, base: str, moved: bool = False) -> None:
        self.game = game
        self.http = http
        self.base = base
        self.moved = moved
        self.pages: list[WebPage] = []

    async def open(self) -> None:
        board = self.game.board()
        assert board is not None
        data = next(iter(buttons(board).values()))
        decoded = A.decode(data)
        assert decoded is not None
        users = [self.game.a] if self.game.b is None else [self.game.a, self.game.b]
        self.pages = [WebPage(self.http, self.base, decoded.game_id, user) for user in users]
        for page in self.pages:
            await page.open()

    async def play(self, until: float, rng: random.Random, stats: Stats) -> None:
        last: WebPage | None = None
        try:
            while time.perf_counter() < until:
                page = next((p for p in self.pages if p.action() is not None), None)
                if page is None:
                    for p in self.pages:
                        p.changed.clear()
                    await asyncio.wait(
                        [asyncio.ensure_future(p.changed.wait()) for p in self.pages],
                        timeout=PATIENCE_S,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                    continue
                think = PRESS_THINK if page is last else TURN_THINK
                await asyncio.sleep(rng.uniform(*think))
                last = page
                body, taps = page.plan()
                if body is None:
                    continue
                # The checker moves made on the page before this one: a tap each, at the
                # same pace as presses.
                for _ in range(taps - 1):
                    await asyncio.sleep(rng.uniform(*PRESS_THINK))
                if page.plan()[0] != body:
                    continue  # the state changed meanwhile
                await self._act(page, body, stats)
        finally:
            for page in self.pages:
                page.close()

    async def _act(self, page: WebPage, body: dict[str, Any], stats: Stats) -> None:
        measured = stats.measuring
        start = time.perf_counter()
        url = f"{self.base}/api/game/{page.game}/action"
        while True:
            async with self.http.post(url, json=body, headers=page.headers) as answer:
                if answer.status == 503:  # busy: the same action again, as the page does
                    stats.busy_answers += measured
                    await busy_wait(answer)
                    continue
                raw = await answer.read() if answer.status == 200 else b"{}"
                head, _, state = raw.partition(b', "state": ')
                found = VERSION.search(state)
                if head == b'{"ok": true' and found:  # made (no rematch): its version only
                    data: dict[str, Any] = {}
                    ok, version = True, int(found.group(1))
                else:
                    data = json.loads(raw)
                    ok = data.get("ok")
                    version = data["state"]["version"] if ok else None
                break
        if not ok or version is None:
            stats.web_refused += measured
            return
        if data.get("next"):  # a rematch: the pages follow the new game
            for other in self.pages:
                other.close()
                other.game = data["next"]["game"]
                await other.open()
            return
        # Every page of the game shows the new state.
        for other in self.pages:
            while other.version < version:
                other.changed.clear()
                left = PATIENCE_S - (time.perf_counter() - start)
                try:
                    await asyncio.wait_for(other.changed.wait(), max(left, 0.001))
                except TimeoutError:
                    stats.gave_up += 1
                    if measured and self.moved:
                        stats.moved_starved.add(self.game.n)
                    return
        if not measured:
            return
        waited = time.perf_counter() - start
        if not self.moved:
            stats.page_waits.append(waited)
            return
        stats.moved_waits.append(waited)
        if waited > STARVED_S:
            stats.moved_starved.add(self.game.n)


async def busy_wait(answer: Any) -> None:
    """Wait as the page does after a "busy" answer: its ``Retry-After``, spread a little."""
    wait = max(1.0, float(answer.headers.get("Retry-After") or 1))
    await asyncio.sleep(wait * (1 + random.random() / 2))


def percentile(values: list[float], share: float) -> float:
    done = sorted(values)
    return done[int(share * (len(done) - 1))] if done else 0.0


async def run(args: argparse.Namespace) -> None:
    folder = tempfile.mkdtemp(prefix="tavla-crowd-")
    stats = Stats()
    try:
        http = ClientSession(
            connector=TCPConnector(limit=0), timeout=ClientTimeout(total=None, sock_read=None)
        )
        async with http, CrowdFake() as fake, fresh_database(args.database, folder) as url:
            env = {
                **os.environ,
                "TELEGRAM_TOKEN": TOKEN,
                "TELEGRAM_BASE_URL": fake.base_url,
                "TELEGRAM_BASE_FILE_URL": fake.base_file_url,
                "DATABASE_URL": url,
                "LOG_LEVEL": "WARNING",
                # Boards carry the web board's buttons; the pages ask the bot on loopback.
                "WEB_BASE_URL": "https://board.example.org",
                "WEB_SECRET": "crowd-bench-" + "x" * 32,
                "WEB_MAX_STREAMS": "10000",
            }
            for name in ("DISCORD_TOKEN", "TELEGRAM_MAX_RATE", "TELEGRAM_GROUP_RATE"):
                env.pop(name, None)  # Telegram's published rates: the bot's defaults
            if args.workers > 1:
                # Each worker sends at its share of the bot's 30 a second (see operating.md).
                env["TELEGRAM_MAX_RATE"] = str(30 // args.workers)
            web_ports = [free_port() for _ in range(args.workers)]
            bots: list[subprocess.Popen] = []

            def start_worker(n: int) -> None:
                worker = {**env, "WEB_PORT": str(web_ports[n])}
                if args.workers > 1:
                    # Updates by webhook (the last worker to register gets them, as behind a
                    # load balancer that picks one); every worker serves pages and sends.
                    hook = free_port()
                    worker["TELEGRAM_WEBHOOK_URL"] = f"http://127.0.0.1:{hook}/telegram"
                    worker["TELEGRAM_WEBHOOK_PORT"] = str(hook)
                bots.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "bot"],
                        cwd=folder,
                        env=worker,
                        start_new_session=True,
                    )
                )

            start_worker(0)  # the first applies the database's migrations
            os.nice(NICE)
            try:
                if args.workers > 1:
                    await fake.wait_calls("setWebhook", 1, 60)
                    for n in range(1, args.workers):
                        start_worker(n)
                    await fake.wait_calls("setWebhook", args.workers, 60)
                else:
                    await fake.wait_calls("getUpdates", 1, 60)
                private = round(args.games * args.private)
                table = [Game(fake, n, n < private, args.take_web) for n in range(args.games)]
                start = time.perf_counter()
                await asyncio.gather(*(g.open() for g in table))
                # The last --web group games are played on the web board, spread over the
                # workers' pages.
                webs = [
                    WebGame(g, http, f"http://127.0.0.1:{web_ports[n % args.workers]}")
                    for n, g in enumerate(table[private:][::-1][: args.web])
                ]
                await asyncio.gather(*(w.open() for w in webs))
                print(
                    f"opened {args.games} games ({private} in private chats, {len(webs)} on "
                    f"the web board, {args.workers} worker(s)) in "
                    f"{time.perf_counter() - start:.1f} s",
                    flush=True,
                )
                rng = random.Random(args.seed)
                on_web = {id(w.game) for w in webs}
                forever = time.perf_counter() + 1e9

                async def in_chat(game: Game, rng: random.Random) -> None:
                    """A game played in its chat, until its players take the web board."""
                    await game.play(forever, rng, stats)
                    # Told that the chat is busy, they open the game's page (spread over
                    # the workers' pages as the --web games).
                    base = f"http://127.0.0.1:{web_ports[game.n % args.workers]}"
                    moved = WebGame(game, http, base, moved=True)
                    try:
                        await moved.open()
                    except Exception:
                        stats.moved_failed += 1
                        raise
                    stats.moved.add(game.n)
                    await moved.play(forever, rng, stats)

                players = [
                    asyncio.ensure_future(in_chat(g, random.Random(rng.random())))
                    for g in table
                    if id(g) not in on_web
                ]
                players += [
                    asyncio.ensure_future(w.play(forever, random.Random(rng.random()), stats))
                    for w in webs
                ]
                # The bench stands for the players' phones and Telegram's servers: its own
                # collector's passes over the fake's messages and 2,000 pages (300 ms each,
                # several a run) are no wait of theirs. What it built is kept out of them,
                # and the young objects are collected without a full pass while measuring.
                gc.collect()
                gc.freeze()
                gc.set_threshold(50_000, 1_000_000, 1_000_000)
                # Let the players settle into their pace before measuring.
                await asyncio.sleep(args.warmup)
                stats.measuring = True
                accepted, refused = fake.flood.accepted, fake.flood.refused
                cpu_before = [cpu_seconds(bot.pid) for bot in bots]
                began = time.perf_counter()
                await asyncio.sleep(args.seconds)
                stats.measuring = False
                elapsed = time.perf_counter() - began
                cpu = sum(
                    cpu_used(before, cpu_seconds(bot.pid))
                    for before, bot in zip(cpu_before, bots, strict=True)
                )
                msgs = fake.flood.accepted - accepted
                refusals = fake.flood.refused - refused
                await cancel_all(players)
            finally:
                await asyncio.gather(*(stop_bot(bot) for bot in bots))
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
    moved = stats.moved_waits
    if args.take_web:
        print(
            f"moved_games={len(stats.moved)} moved_actions={len(moved)}"
            f" moved_action_to_pages_p50_ms={percentile(moved, 0.5) * 1000:.0f}"
            f" moved_action_to_pages_p95_ms={percentile(moved, 0.95) * 1000:.0f}"
            f" moved_action_to_pages_p99_ms={percentile(moved, 0.99) * 1000:.0f}"
            f" moved_starved_games={len(stats.moved_starved)}"
            f" moved_failed={stats.moved_failed}"
        )
        people = sum(1 if g.private else 2 for g in table)
        told = sum(1 if g.private else 2 for g in table if g.n in stats.ever_told)
        # Players whose board came as late as the bot's mark of a busy chat, never told so.
        untold = sum(
            1 if g.private else 2
            for g in table
            if g.n in stats.ever_slow and g.n not in stats.ever_told
        )
        # Over all games: the web board's games and those moved there, the chats' presses.
        every = [*waits, *moved, *stats.page_waits]
        print(
            f"all_games={args.games} all_p99_ms={percentile(every, 0.99) * 1000:.0f}"
            f" all_starved_games={len(stats.starved | stats.moved_starved)}"
            f" told_players_share={told / max(1, people):.2f}"
            f" slow_untold_players={untold}"
            f" web_busy_answers={stats.busy_answers}"
        )
    if args.web:
        pages = stats.page_waits
        print(
            f"web_games={args.web} web_actions={len(pages)}"
            f" web_actions_per_s={len(pages) / elapsed:.1f}"
            f" cpu_ms_per_action={cpu * 1000 / max(1, len(pages) + len(waits)):.1f}"
            f" action_to_pages_p50_ms={percentile(pages, 0.5) * 1000:.0f}"
            f" action_to_pages_p95_ms={percentile(pages, 0.95) * 1000:.0f}"
            f" action_to_pages_p99_ms={percentile(pages, 0.99) * 1000:.0f}"
            f" web_refused={stats.web_refused}"
        )


async def cancel_all(tasks: Iterable[asyncio.Future[Any]]) -> None:
    """Cancel ``tasks`` and wait for them to end. A cancel that meets an awaited result at
    the same moment can be lost inside Python 3.11's ``asyncio.wait_for``: the player plays
    on, waiting for an opponent already gone, and the bench would never end. So a task
    still running a few seconds later is cancelled again."""
    pending = set(tasks)
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--private", type=float, default=0.2, help="share in private chats")
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--warmup", type=float, default=20.0, help="seconds before measuring")
    parser.add_argument("--database", help="DATABASE_URL for the bot (default: a SQLite file)")
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument(
        "--web", type=int, default=0, help="play this many of the group games on the web board"
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="bot processes (more than one: PostgreSQL)"
    )
    parser.add_argument(
        "--take-web",
        type=float,
        default=0.8,
        help="the share of games whose players take the web board when told the chat is busy",
    )
    args = parser.parse_args()
    if args.workers > 1 and not (args.database or "").startswith("postgres"):
        parser.error("several workers share a PostgreSQL database: give --database")
    signal.signal(signal.SIGTERM, _interrupted)
    # Two live streams a web game, and the players' connections: many descriptors.
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    own_session()
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
