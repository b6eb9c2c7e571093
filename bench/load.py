"""Load: the real bot process fed by a local fake Telegram with many players and games.

The bot runs as it does in production (``python -m bot`` in its own process and session),
pointed at a fake Bot API server that this script runs on loopback (at a lower CPU priority
than the bot, and in a session of its own: Telegram's side would not share the bot's cores in
production, and where the kernel schedules by session, three sessions — the bot, the fake
with the players, ``--busy``'s neighbour — each get their fair share). Hundreds of groups each hold a game;
two players per game press the buttons the bot shows (open loop: together they offer
``--rate`` presses per second). Prints handled presses per second and the latency from a
press to the bot's finished reply (the press answered and the board edited), for the
database given by ``--database`` (a new SQLite file by default, or ``postgresql://…``: a new
schema in that database, dropped afterwards). The last line is
``updates_per_s=… p50_ms=… p99_ms=… errors=… cpu_ms_per_press=…``.

``cpu_ms_per_press`` is what the bot costs its host: the CPU time (user + system) that the bot
process and every process below it (its drawing processes) used while the presses were
offered, divided by the presses handled in that window. It is read from ``/proc/PID/stat``
(utime + stime of each process, in clock ticks) at the window's start and end; processes
that appear in between count from zero. Unlike latency it hardly depends on what else runs
on the machine, so it is the figure to compare on a shared host. The summary line also gives
what the fake Telegram and the players (this script's process) cost a press: on a real host
Telegram's servers would not share the bot's cores, so with ``--busy`` this is CPU that the
bench takes from the bot and a real deployment would not.

``--busy`` starts one more process running a plain CPU loop at normal priority for the whole
run, as a neighbour on a shared host would (another service: in a session of its own).

``--timeline FILE`` writes, per second of the run, the presses answered and their median and
worst latency: whether a tail is spread thin or one stretch where the bot fell behind.

Run: ``python bench/load.py [--games 1000] [--rate 100] [--seconds 60] [--database URL] [--busy]
[--timeline FILE]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.service import actions as A  # noqa: E402
from tests.drivers import press_order  # noqa: E402
from tests.fakes.telegram import FakeBotAPI  # noqa: E402

TOKEN = "4242:LOAD"
TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")
NICE = 10
PREFERENCE = (*press_order(), A.REMATCH)
ACTING = re.compile(r"^(\S+) to (roll|play)", re.M)


def buttons(message: dict) -> dict[str, str]:
    found: dict[str, str] = {}
    for row in (message.get("reply_markup") or {}).get("inline_keyboard", []):
        for button in row:
            action = A.decode(button.get("callback_data", ""))
            if action:
                found.setdefault(action.code, button["callback_data"])
    return found


class Game:
    """One group with its two players, as the load generator sees it."""

    def __init__(self, fake: FakeBotAPI, n: int) -> None:
        self.fake = fake
        self.a = fake.user(100_000 + n, f"A{n}", username=f"a{n}")
        self.b = fake.user(500_000 + n, f"B{n}", username=f"b{n}")
        self.chat = fake.group(-(1_000_000 + n), f"Room {n}")

    def board(self) -> dict | None:
        return self.fake.newest_message(
            self.chat, lambda message: message.get("photo") and buttons(message)
        )

    async def open(self) -> None:
        await self.fake.send_text(self.a, self.chat, "/tavla")
        challenge = await self.fake.wait_for(
            lambda: next(
                (m for m in self.fake.messages(self.chat) if A.ACCEPT in buttons(m)), None
            ),
            120,
        )
        await self.fake.press(
            self.b, self.chat, challenge["message_id"], buttons(challenge)[A.ACCEPT]
        )
        await self.fake.wait_for(self.board, 120)

    async def act(self) -> float | None:
        """One press by the player to act; its latency in seconds (None if refused)."""
        message = self.board()
        if message is None:
            return None
        codes = buttons(message)
        data = next((codes[c] for c in PREFERENCE if c in codes), None)
        if data is None:
            return None
        acting = ACTING.search(message.get("caption", ""))
        player = self.b if acting and acting.group(1) == self.b.first_name else self.a
        before = self.fake.answered_for_chat(self.chat)
        start = time.perf_counter()
        query = await self.fake.press(player, self.chat, message["message_id"], data)
        # Cheap conditions (no copies of the chat), woken by the fake's own changes: the
        # generator shares the two cores with the bot, so it must cost little.
        await self.fake.wait_for(lambda: query in self.fake.callback_answers, 30, poll=1.0)
        if self.fake.callback_answers[query].get("text"):
            return None  # refused (it would be a bug in this generator or the bot)
        await self.fake.wait_for(
            lambda: self.fake.answered_for_chat(self.chat) > before, 30, poll=1.0
        )
        return time.perf_counter() - start


async def drive(
    game: Game,
    pause: float,
    until: float,
    rng: random.Random,
    out: list[tuple[float, float] | None],
) -> None:
    """Press about every ``pause`` seconds until ``until``; each press goes to ``out`` as
    the time its answer came and its latency, or None if it was refused or never answered.

    The first wait is a random phase in ``[0, pause)`` so that the games' presses are spread
    evenly from the start rather than arriving after a quiet first stretch.
    """
    wait = pause * rng.random()
    while time.perf_counter() + wait < until:
        await asyncio.sleep(wait)
        wait = pause * (0.5 + rng.random())
        try:
            latency = await game.act()
        except TimeoutError:
            latency = None
        out.append(None if latency is None else (time.perf_counter(), latency))


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name, or None if the process is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may hold spaces: split after its last ")".
    return raw[raw.rindex(")") + 2 :].split()


def cpu_seconds(root: int) -> dict[int, float]:
    """CPU seconds (user + system) used so far by ``root`` and each of its descendants."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(int(entry))
        if fields is None:
            continue
        # After the name: state, ppid, ...; utime and stime are stat fields 14 and 15.
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) * TICK_S
    family = {root}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in family and pid not in family:
                family.add(pid)
                grew = True
    return {pid: times[pid] for pid in family if pid in times}


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds used between two :func:`cpu_seconds` readings (new processes from zero)."""
    return sum(t - before.get(pid, 0.0) for pid, t in after.items())


@contextlib.asynccontextmanager
async def fresh_database(database: str | None, folder: str) -> AsyncIterator[str]:
    """A ``DATABASE_URL`` for an empty database: a new SQLite file, or for PostgreSQL a new
    schema in the given database (selected by the URL's ``search_path``), dropped afterwards,
    so that every run starts from the same empty state."""
    if not database or not database.startswith("postgres"):
        yield database or f"sqlite:///{folder}/load.db"
        return
    import asyncpg

    schema = f"tavla_load_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(database)
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
        joiner = "&" if "?" in database else "?"
        yield f"{database}{joiner}search_path={schema}"
    finally:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await conn.close()


async def stop_bot(bot: subprocess.Popen) -> None:
    """Stop the bot process. Waits without blocking the loop: the fake must answer the bot's
    last calls. A bot still working through a backlog is killed rather than losing the figures."""
    bot.terminate()
    try:
        await asyncio.to_thread(bot.wait, 30)
    except subprocess.TimeoutExpired:
        bot.kill()
        await asyncio.to_thread(bot.wait)


def timeline(ends: list[tuple[float, float]], began: float) -> str:
    """Per second of the run: presses answered, their median and worst latency (ms).

    A tail is either spread thin or one stretch where the bot fell behind; this tells which.
    """
    seconds: dict[int, list[float]] = {}
    for end, latency in ends:
        seconds.setdefault(int(end - began), []).append(latency)
    lines = ["second presses p50_ms max_ms"]
    for second in sorted(seconds):
        done = sorted(seconds[second])
        lines.append(
            f"{second} {len(done)} {done[len(done) // 2] * 1000:.0f} {done[-1] * 1000:.0f}"
        )
    return "\n".join(lines) + "\n"


async def run(
    games: int,
    rate: float,
    seconds: float,
    database: str | None,
    busy: bool,
    timeline_file: Path | None = None,
) -> None:
    folder = tempfile.mkdtemp(prefix="tavla-load-")
    # The bot's rate limiter is off (TELEGRAM_*_RATE=0 below) and so are Telegram's flood
    # limits in the fake: this measures the bot's own throughput, not Telegram's 30 a second.
    try:
        async with FakeBotAPI(flood=None) as fake, fresh_database(database, folder) as url:
            env = {
                **os.environ,
                "TELEGRAM_TOKEN": TOKEN,
                "TELEGRAM_BASE_URL": fake.base_url,
                "TELEGRAM_BASE_FILE_URL": fake.base_file_url,
                "DATABASE_URL": url,
                "TELEGRAM_MAX_RATE": "0",
                "TELEGRAM_GROUP_RATE": "0",
                "LOG_LEVEL": "WARNING",
            }
            env.pop("DISCORD_TOKEN", None)
            # The bot in a session of its own, as a service runs: where the kernel groups
            # processes by session for scheduling (autogroup), the bot and its drawing processes
            # then share no group with the fake and this generator (which stand for Telegram's
            # servers and the players, not for the bot's host), so ``--busy`` judges the bot alone.
            bot = subprocess.Popen(
                [sys.executable, "-m", "bot"], cwd=folder, env=env, start_new_session=True
            )
            # A neighbour on a shared host: one plain CPU loop at normal priority, all run long,
            # in a session of its own too, as another service would be.
            neighbour = (
                subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
                if busy
                else None
            )
            # Telegram's servers would not share the bot's machine: the fake and this generator
            # take the cores' spare time (the bot, started above, keeps normal priority).
            os.nice(NICE)
            try:
                await fake.wait_calls("getUpdates", 1, 60)
                table = [Game(fake, n) for n in range(games)]
                start = time.perf_counter()
                for i in range(0, games, 25):
                    await asyncio.gather(*(g.open() for g in table[i : i + 25]))
                print(f"opened {games} games in {time.perf_counter() - start:.1f} s")
                results: list[tuple[float, float] | None] = []
                pause = games / rate
                cpu_before = cpu_seconds(bot.pid)
                harness_before = time.process_time()
                began = time.perf_counter()
                until = began + seconds
                rng = random.Random(20261130)
                await asyncio.gather(
                    *(drive(g, pause, until, random.Random(rng.random()), results) for g in table)
                )
                # Presses start until ``until``; the last replies may come a little later.
                elapsed = max(seconds, time.perf_counter() - began)
                cpu_after = cpu_seconds(bot.pid)
                harness = time.process_time() - harness_before
                cpu = cpu_used(cpu_before, cpu_after)
                cpu_bot = cpu_after.get(bot.pid, 0.0) - cpu_before.get(bot.pid, 0.0)
            finally:
                if neighbour is not None:
                    neighbour.kill()
                    neighbour.wait()
                await stop_bot(bot)
    finally:
        # The SQLite file and the bot's files: gone with the run.
        shutil.rmtree(folder, ignore_errors=True)
    answered = [r for r in results if r is not None]
    if timeline_file is not None:
        timeline_file.write_text(timeline(answered, began))
    done = sorted(latency for _, latency in answered)
    errors = len(results) - len(done)
    if not done:
        print("no press was handled")
        print(f"updates_per_s=0 p50_ms=0 p99_ms=0 errors={errors} cpu_ms_per_press=0")
        return
    p50 = statistics.median(done) * 1000
    p95 = done[int(0.95 * (len(done) - 1))] * 1000
    p99 = done[int(0.99 * (len(done) - 1))] * 1000
    kind = "PostgreSQL" if database and database.startswith("postgres") else "SQLite"
    print(
        f"{kind}: {games} games, offered {rate:.0f}/s for {seconds:.0f} s"
        f"{' beside a busy neighbour' if busy else ''}: "
        f"{len(done)} presses handled, p95 {p95:.0f} ms, {errors} errors; "
        f"bot and drawing processes used {cpu:.1f} CPU s ({cpu / elapsed:.2f} of a core; "
        f"the bot process {cpu_bot * 1000 / len(done):.2f} ms a press, its drawing processes "
        f"{(cpu - cpu_bot) * 1000 / len(done):.2f}); the fake Telegram and the players "
        f"{harness * 1000 / len(done):.2f} ms a press on the same cores"
    )
    print(
        f"updates_per_s={len(done) / elapsed:.1f} p50_ms={p50:.1f} p99_ms={p99:.1f}"
        f" errors={errors} cpu_ms_per_press={cpu * 1000 / len(done):.2f}"
    )


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def own_session() -> None:
    """Go on in a session of this script's own (the fake Telegram and the players).

    Where the kernel groups processes by session for scheduling (autogroup), a session
    shared with other work (a shell's jobs, a test run) would starve the fake, and a bot
    kept waiting for its Bot API answers reads as a slow bot. A process that leads its
    process group (started from a shell with job control) may not start a session: then this
    script runs again as a child that may, and stops that child when it is interrupted.
    """
    if os.getsid(0) == os.getpid():
        return
    try:
        os.setsid()
    except PermissionError:
        child = subprocess.Popen([sys.executable, *sys.argv], start_new_session=True)
        try:
            sys.exit(child.wait())
        except KeyboardInterrupt:
            child.send_signal(signal.SIGINT)
            sys.exit(child.wait())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=100.0, help="offered presses per second")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--database", help="DATABASE_URL for the bot (default: a SQLite file)")
    parser.add_argument(
        "--busy", action="store_true", help="run a CPU loop at normal priority beside the bot"
    )
    parser.add_argument(
        "--timeline", type=Path, help="write presses and latency per second to this file"
    )
    args = parser.parse_args()
    # Stopped (by ``timeout``, say) as when interrupted: the bot, in a session of its own,
    # is not stopped with this script's process group, so the script must stop it.
    signal.signal(signal.SIGTERM, _interrupted)
    own_session()
    asyncio.run(run(args.games, args.rate, args.seconds, args.database, args.busy, args.timeline))


if __name__ == "__main__":
    main()
