"""The container image (Dockerfile, built by tools/image) and the compose file.

The image runs against the fake Bot API and PostgreSQL on this machine (``--network=host``):
it answers, its health check passes, ``/readyz`` and ``/metrics`` answer, a whole game is
played through it, and ``podman stop`` (SIGTERM) stops it cleanly within 10 s. ``.ci/run``
builds the image and sets ``TAVLA_TEST_IMAGE``; without it (or without podman) the test is
skipped. The compose file is checked as YAML (``docker compose config`` is not available
here): its services, their settings and every variable it uses documented.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import time
import uuid
from functools import partial
from pathlib import Path

import aiohttp
import pytest

from bot.i18n import LANGUAGES, translate
from bot.service import actions as A
from bot.service.service import SLOW_DOWN as SLOW
from bot.storage.base import GameStatus
from bot.storage.postgres import PostgresStorage
from core.match import Match
from tests.drivers import free_port, press_order
from tests.fakes.telegram import FakeBotAPI
from tests.test_telegram import buttons, find

ROOT = Path(__file__).resolve().parent.parent
PODMAN = str(ROOT / "tools" / "podman")
TOKEN = "987654:CONTAINER-test_token"
#: The flood guard's "Not so fast", in each language.
SLOW_DOWN = {translate(SLOW, lang) for lang in LANGUAGES}


def podman(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PODMAN, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def image() -> str:
    """The image to test: ``TAVLA_TEST_IMAGE`` (set by .ci/run after tools/image)."""
    name = os.environ.get("TAVLA_TEST_IMAGE", "").strip()
    if not name:
        pytest.skip("TAVLA_TEST_IMAGE is unset: .ci/run builds the image with tools/image")
    if shutil.which("podman") is None:
        pytest.fail(f"TAVLA_TEST_IMAGE={name} but podman is not installed")
    found = podman("image", "exists", name)
    assert found.returncode == 0, f"no image {name}: {found.stderr}"
    return name


async def get(port: int, path: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as answer,
    ):
        return answer.status, await answer.text()


def board(fake: FakeBotAPI, group) -> dict:
    for message in reversed(fake.messages(group)):
        if message.get("photo") and buttons(message):
            return message
    raise AssertionError(fake.summary())


def current_board(fake: FakeBotAPI, group, version: int) -> dict | None:
    """The board once its buttons carry ``version``."""
    message = board(fake, group)
    shown = max((a.version for d in buttons(message) if (a := A.decode(d))), default=0)
    return message if shown >= version else None


def edited_since(fake: FakeBotAPI, before: int) -> bool:
    return any(c.ok and c.method.startswith("edit") for c in fake.calls[before:])


async def play_game(fake, storage, group, players) -> int:
    """A whole game, each press by the player the game waits for; the presses made. The
    flood guard (16 actions in 8 s per player) holds a script back: a "Not so fast" is
    pressed again a little later."""
    presses = 0
    for _ in range(2000):
        (record,) = await storage.games_in_chat(
            "telegram", str(group.id), (GameStatus.ACTIVE, GameStatus.FINISHED)
        )
        if record.status is GameStatus.FINISHED:
            return presses
        message = await fake.wait_for(
            partial(current_board, fake, group, record.settings.state_version or record.version),
            20,
        )
        user = await storage.get_user(record.seats[Match.from_dict(record.match).game.awaiting])
        data = next(d for code in press_order() if (d := find(message, code)))
        before = len(fake.calls)
        query = await fake.press(players[user.platform_id], group, message["message_id"], data)
        await fake.wait_for(partial(fake.callback_answers.get, query), 20)
        text = fake.callback_answers[query].get("text") or ""
        if text in SLOW_DOWN:
            await asyncio.sleep(1.0)  # the real flood guard of the real bot: wait it out
            continue
        assert not text, text
        await fake.wait_for(partial(edited_since, fake, before), 20)
        presses += 1
    raise AssertionError("the game did not end")


async def test_the_image_plays_a_game_and_stops_cleanly(image, postgres_schema):
    url, schema = postgres_schema
    port = free_port()
    name = f"tavla-test-{uuid.uuid4().hex[:8]}"
    async with FakeBotAPI(flood=None) as fake:
        environment = {
            "TELEGRAM_TOKEN": TOKEN,
            "TELEGRAM_BASE_URL": fake.base_url,
            "TELEGRAM_BASE_FILE_URL": fake.base_file_url,
            "TELEGRAM_MAX_RATE": "0",
            "TELEGRAM_GROUP_RATE": "0",
            # asyncpg passes unknown query parameters on as the session's settings.
            "DATABASE_URL": f"{url}?search_path={schema}",
            "WEB_LISTEN": "127.0.0.1",
            "WEB_PORT": str(port),
            "LOG_FORMAT": "json",
        }
        flags = [f"--env={k}={v}" for k, v in environment.items()]
        started = time.monotonic()
        run = podman("run", "-d", "--name", name, "--network=host", *flags, image)
        assert run.returncode == 0, run.stderr
        try:
            ali = fake.user(11, "Ali", language_code="tr")
            veli = fake.user(22, "Veli", language_code="en")
            await fake.wait_for(lambda: fake.calls_to("getUpdates"), 120)
            await fake.send_text(ali, None, "/help")
            await fake.wait_for(lambda: fake.messages(fake.private_chat(ali)), 60)
            answering = time.monotonic() - started
            print(f"container started and answering in {answering:.1f} s")

            assert await get(port, "/healthz") == (200, "ok\n")
            assert await get(port, "/readyz") == (200, "database: ok\ntelegram: ok\n")
            checked = podman("healthcheck", "run", name)
            assert checked.returncode == 0, checked.stdout + checked.stderr

            group = fake.group(-777, "Kahvehane")
            await fake.send_text(ali, group, "/tavla turkish")
            challenge = await fake.wait_for(
                lambda: next((m for m in fake.messages(group) if find(m, A.ACCEPT)), None), 30
            )
            await fake.press(veli, group, challenge["message_id"], find(challenge, A.ACCEPT))
            await fake.wait_for(lambda: any(m.get("photo") for m in fake.messages(group)), 30)
            storage = PostgresStorage(url, server_settings={"search_path": schema})
            await storage.open()
            try:
                presses = await play_game(fake, storage, group, {"11": ali, "22": veli})
            finally:
                await storage.close()
            status, text = await get(port, "/metrics")
            assert status == 200
            assert 'tavla_commands_total{command="tavla"} 1.0' in text
            assert "tavla_active_games 0.0" in text
            assert presses > 10

            stopping = time.monotonic()
            stopped = podman("stop", "-t", "10", name, timeout=60)
            took = time.monotonic() - stopping
            assert stopped.returncode == 0, stopped.stderr
            print(f"stopped in {took:.1f} s after a game of {presses} presses")
            assert took < 10
            state = json.loads(podman("inspect", "--format", "{{json .State}}", name).stdout)
            assert state["ExitCode"] == 0
            logs = podman("logs", name)
            lines = [json.loads(line) for line in logs.stderr.splitlines() if line.startswith("{")]
            assert lines
            print(*(f"{line['time']} {line['message'][:100]}" for line in lines[-8:]), sep="\n")
            assert {"time", "level", "logger", "message"} <= set(lines[0])
            assert TOKEN not in logs.stdout + logs.stderr
        finally:
            podman("rm", "-f", name)


# -- the compose file -----------------------------------------------------------------------


def compose() -> dict:
    """compose.yaml as YAML reads it (PyYAML from Debian's python3-yaml, which
    podman-compose brings; the project itself needs no YAML)."""
    python = shutil.which("python3", path="/usr/bin")
    script = "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"
    if python is None or subprocess.run([python, "-c", "import yaml"], check=False).returncode:
        pytest.skip("no YAML reader (apt-get install python3-yaml, or podman-compose)")
    done = subprocess.run(
        [python, "-c", script, str(ROOT / "compose.yaml")],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_compose_file_runs_the_bot_postgres_and_a_tls_proxy():
    services = compose()["services"]
    assert set(services) == {"bot", "db", "proxy"}
    bot = services["bot"]
    assert bot["build"] == "."
    assert bot["environment"]["DATABASE_URL"].startswith("postgresql://tavla:")
    assert bot["environment"]["DATABASE_URL"].endswith("@db:5432/tavla")
    assert bot["environment"]["WEB_BASE_URL"].startswith("https://")
    assert bot["stop_grace_period"] == "10s"
    assert "/var/lib/tavla" in bot["volumes"][0]
    assert services["db"]["image"].startswith("docker.io/library/postgres:")
    proxy = services["proxy"]
    assert {"80:80", "443:443"} <= set(proxy["ports"])
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "reverse_proxy bot:8080" in caddyfile
    assert "respond /metrics 404" in caddyfile
    # Every variable compose.yaml reads from .env is documented in .env.example.
    used = set(re.findall(r"\$\{(\w+)", (ROOT / "compose.yaml").read_text()))
    documented = set(re.findall(r"^#? ?(\w+)=", (ROOT / ".env.example").read_text(), re.M))
    assert used
    assert used <= documented


def test_the_dockerfile_runs_as_a_user_with_a_health_check():
    text = (ROOT / "Dockerfile").read_text()
    assert text.count("\nFROM ") == 2  # a build stage and the image
    assert "\nUSER tavla\n" in text
    assert "HEALTHCHECK" in text
    assert "/healthz" in text
    assert "--require-hashes -r /tmp/requirements.runtime.lock" in text
