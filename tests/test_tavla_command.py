"""The ``tavla`` command (docs/operating.md): ``tavla check`` says what is wrong with the
configuration in one line each, ``tavla migrate`` brings a database's schema up to date, and
``tavla backup PATH`` copies a live SQLite database that a restore can finish a game from."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.service import actions as A
from bot.service.service import Actor, GameService, Place
from bot.storage.base import GameStatus, StorageError, StorageUnreachable
from bot.storage.factory import open_when_reachable
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import SqliteStorage
from core.match import Match
from tests.factory import actions_of, make_service

#: The console script pip installed next to this Python (pyproject's [project.scripts]).
TAVLA = str(Path(sys.executable).with_name("tavla"))
PLAYERS = {"1": Actor("backup", "1", "One"), "2": Actor("backup", "2", "Two")}
PLACE = Place("backup", "room")
PREFERENCE = (A.TAKE, A.RESIGN_DECLINE, A.CONFIRM, A.MOVE, A.SELECT, A.ROLL)
SETTINGS = (
    "TELEGRAM_TOKEN",
    "DISCORD_TOKEN",
    "DATABASE_URL",
    "WEB_BASE_URL",
    "WEB_PORT",
    "LOG_LEVEL",
    "LOG_FORMAT",
    "TAVLA_NUMBA",
)


def run(command: list[str], cwd: Path, timeout: float, env: dict[str, str]):
    """``command`` in ``cwd`` with this environment less the bot's settings, plus ``env``."""
    clean = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    return subprocess.run(
        command,
        env={**clean, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def tavla(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return run([TAVLA, *args], cwd, 120, env)


def python_m_bot(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "bot"], cwd, 60, env)


def test_check_names_each_problem_in_one_line(tmp_path):
    done = tavla(
        "check",
        cwd=tmp_path,
        TELEGRAM_TOKEN="bot123:ABC",
        WEB_PORT="eighty",
        WEB_BASE_URL="http://board.example.org",
        LOG_LEVEL="loud",
        DATABASE_URL="mysql://db/tavla",
        TAVLA_NUMBA="maybe",
    )
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert [line.split(":", 1)[0] for line in lines] == [
        "TELEGRAM_TOKEN",
        "DATABASE_URL",
        "WEB_BASE_URL",
        "WEB_PORT",
        "LOG_LEVEL",
        "TAVLA_NUMBA",
    ]
    assert lines[-1] == "TAVLA_NUMBA: 'maybe' is neither on nor off"
    assert "Traceback" not in done.stderr
    assert "123:ABC" not in done.stderr + done.stdout  # a secret is never echoed


def test_check_passes_a_good_configuration(tmp_path):
    done = tavla(
        "check", cwd=tmp_path, TELEGRAM_TOKEN="123:ABC-def_g", DATABASE_URL="sqlite:///d/t.db"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("configuration ok")


def test_python_m_bot_refuses_a_bad_configuration_in_one_line(tmp_path):
    done = python_m_bot(tmp_path, LOG_FORMAT="xml")
    assert done.returncode == 2
    assert done.stderr.strip() == "LOG_FORMAT: 'xml' is not text or json"


def test_numba_off_in_the_env_file_keeps_numba_out_of_the_bot(tmp_path):
    """TAVLA_NUMBA=off in .env saves Numba's memory: the bot reads its configuration (and
    .env) before it imports the game modules, which read the setting at their import."""
    (tmp_path / ".env").write_text("TAVLA_NUMBA=off\n")
    script = """
import sys
import bot.__main__ as entry
assert "core.jit" not in sys.modules and "numba" not in sys.modules, "read before .env"
entry.Config.from_env()
from bot.service.service import GameService  # what entry.run imports
import core.boards_after
import core.ai.network
print(core.boards_after.COMPILED, core.ai.network.COMPILED, "numba" in sys.modules)
"""
    done = run([sys.executable, "-c", script], tmp_path, 60, {})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "False"]
    (tmp_path / ".env").write_text("TAVLA_NUMBA=on\n")
    done = run([sys.executable, "-c", script], tmp_path, 60, {})
    assert done.stdout.split() == ["True", "True", "True"], done.stderr


def test_migrate_creates_the_schema(tmp_path):
    done = tavla("migrate", cwd=tmp_path, DATABASE_URL="sqlite:///data/new.db")
    assert done.returncode == 0, done.stderr
    assert "schema at version" in done.stdout
    with sqlite3.connect(tmp_path / "data" / "new.db") as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert {"users", "games", "events", "schema_migrations"} <= tables


def test_migrate_and_check_postgres(tmp_path, postgres_url):
    migrated = tavla("migrate", cwd=tmp_path, DATABASE_URL=postgres_url)
    assert migrated.returncode == 0, migrated.stderr
    checked = tavla("check", cwd=tmp_path, DATABASE_URL=postgres_url)
    assert checked.returncode == 0, checked.stderr
    # pg_dump is PostgreSQL's backup tool: tavla backup says so and does nothing.
    backup = tavla("backup", str(tmp_path / "x.db"), cwd=tmp_path, DATABASE_URL=postgres_url)
    assert backup.returncode == 2
    assert "pg_dump" in backup.stderr
    unreachable = postgres_url.rsplit("@", 1)[0] + "@127.0.0.1:1/tavla"
    checked = tavla("check", cwd=tmp_path, DATABASE_URL=unreachable)
    assert checked.returncode == 1
    assert checked.stderr.startswith("DATABASE_URL: can't connect")
    assert len(checked.stderr.splitlines()) == 1


def test_python_m_bot_without_its_database_says_so_in_one_line(tmp_path):
    """Nothing listens on port 1: after DATABASE_WAIT the bot gives up in one log line."""
    done = python_m_bot(
        tmp_path,
        TELEGRAM_TOKEN="123:ABC-def_g",
        DATABASE_URL="postgresql://tavla:pw@127.0.0.1:1/tavla",
        DATABASE_WAIT="0",
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "DATABASE_URL: cannot connect to postgresql://tavla:***@127.0.0.1:1/tavla" in line
    assert "pw" not in line


class Starting:
    """A storage whose database answers only after ``refusals`` refused tries."""

    def __init__(self, refusals: int, error: type[StorageError] = StorageUnreachable) -> None:
        self.refusals = refusals
        self.error = error
        self.tries = 0

    async def open(self) -> None:
        self.tries += 1
        if self.tries <= self.refusals:
            raise self.error("cannot connect to postgresql://db/tavla: ConnectionRefusedError")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.pauses: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


async def test_the_bot_waits_for_a_database_that_is_starting():
    """Started together (compose): the database refuses until it is up, the bot waits."""
    clock = Clock()
    storage = Starting(refusals=4)
    await open_when_reachable(storage, 60, sleep=clock.sleep, clock=clock)  # type: ignore[arg-type]
    assert storage.tries == 5
    assert clock.pauses == [1, 2, 2, 2]


async def test_the_bot_stops_waiting_at_database_wait():
    clock = Clock()
    storage = Starting(refusals=100)
    with pytest.raises(StorageUnreachable):
        await open_when_reachable(storage, 10, sleep=clock.sleep, clock=clock)  # type: ignore[arg-type]
    assert clock.now == 10


async def test_a_database_that_refuses_the_login_is_not_waited_for():
    clock = Clock()
    storage = Starting(refusals=1, error=StorageError)
    with pytest.raises(StorageError):
        await open_when_reachable(storage, 60, sleep=clock.sleep, clock=clock)  # type: ignore[arg-type]
    assert clock.pauses == []


async def test_postgres_tells_a_database_not_listening_from_a_wrong_login(postgres_url):
    """Refused (nothing listens yet) is worth waiting for; a wrong password is not."""
    with pytest.raises(StorageUnreachable):
        await PostgresStorage("postgresql://tavla:pw@127.0.0.1:1/tavla").open()
    user_part = postgres_url.split("://", 1)[1].split("@", 1)[0]
    bad = postgres_url.replace(user_part + "@", "nobody_here:wrong@", 1)
    storage = PostgresStorage(bad)
    with pytest.raises(StorageError) as refused:
        await storage.open()
    assert not isinstance(refused.value, StorageUnreachable)


# -- backup and restore --------------------------------------------------------------------


def choose(views) -> str | None:
    codes = actions_of(views)
    return next((codes[code] for code in PREFERENCE if code in codes), None)


async def play(service: GameService, storage, presses: int | None = None) -> int:
    """Press for whichever player the game in the room waits for: ``presses`` times, or
    until no game is active; the presses made."""
    made = 0
    while presses is None or made < presses:
        games = await storage.games_in_chat("backup", "room", (GameStatus.ACTIVE,))
        if not games:
            return made
        record = games[0]
        match = Match.from_dict(record.match)
        user = await storage.get_user(record.seats[match.game.awaiting])
        actor = PLAYERS[user.platform_id]
        data = choose(await service.command(actor, PLACE, "board", ""))
        assert data is not None, "a board with nothing to press"
        views = await service.press(actor, PLACE, data)
        assert not any(v.notice for v in views), [v.lines for v in views]
        made += 1
    return made


async def test_a_backup_of_a_live_database_finishes_its_game(tmp_path):
    live = SqliteStorage(str(tmp_path / "live.db"))
    await live.open()
    service = make_service(live, render_images=False, burst_actions=10**6)
    views = await service.command(PLAYERS["1"], PLACE, "tavla", "3")
    accept = actions_of(views)[A.ACCEPT]
    await service.press(PLAYERS["2"], PLACE, accept)
    await play(service, live, 12)
    (before,) = await live.games_in_chat("backup", "room", (GameStatus.ACTIVE,))

    # The bot keeps playing while the backup is taken: no stop needed.
    (tmp_path / "copies").mkdir()
    busy = asyncio.create_task(play(service, live, 40))
    proc = await asyncio.create_subprocess_exec(
        TAVLA,
        "backup",
        str(tmp_path / "copies"),
        cwd=tmp_path,
        env={**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'live.db'}"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    await busy
    assert proc.returncode == 0, err.decode()
    assert "backup written to" in out.decode()
    await live.close()

    # Restore: the copy in place of the database, and the game played on to its end.
    restored_path = tmp_path / "restored.db"
    shutil.copy(tmp_path / "copies" / "live.db", restored_path)
    restored = SqliteStorage(str(restored_path))
    await restored.open()
    try:
        (game,) = await restored.games_in_chat("backup", "room", (GameStatus.ACTIVE,))
        assert game.id == before.id
        assert game.version >= before.version
        events = await restored.events(game.stored_id)
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        service = make_service(restored, render_images=False, burst_actions=10**6)
        await play(service, restored)
        finished = await restored.get_game(game.stored_id)
        assert finished.status is GameStatus.FINISHED
        assert await restored.results_of_user(finished.seats[0])
    finally:
        await restored.close()


def test_backup_refuses_to_overwrite_the_database(tmp_path):
    assert tavla("migrate", cwd=tmp_path).returncode == 0
    done = tavla("backup", "data/tavla.db", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == "backup: the backup would overwrite the database itself"
    missing = tavla("backup", "x.db", cwd=tmp_path, DATABASE_URL="sqlite:///none.db")
    assert missing.returncode == 1
    assert missing.stderr.strip() == "backup: no database at none.db"
