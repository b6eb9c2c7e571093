"""``python -m bot`` with ``WEB_BASE_URL`` set serves the web board next to the adapters
(here the console): the console prints a game's personal link, and the page's API answers
it with that player's seat; the process stops cleanly at /quit (issue 14)."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sys
from urllib.parse import unquote

import aiohttp


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_python_m_bot_serves_the_web_board_with_the_console(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("TELEGRAM_TOKEN", "DISCORD_TOKEN")}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'w.db'}",
        BOARD_DIR=str(tmp_path / "boards"),
        WEB_BASE_URL=f"http://127.0.0.1:{port}",
        WEB_PORT=str(port),
        WEB_SECRET="run-test",
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=tmp_path,
        env=env,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    try:
        proc.stdin.write(b"/tavla\n")
        await proc.stdin.drain()
        link = None
        while link is None:
            line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
            assert line, "the bot stopped before printing the web board's links"
            found = re.search(r"Web board for Ali: (\S+)", line)
            link = found.group(1) if found else None
        game = re.search(r"#game=(\d+)", link).group(1)
        token = unquote(link.split("link=")[1])
        async with aiohttp.ClientSession() as session:
            for _ in range(100):  # the server may still be starting
                try:
                    async with session.get(
                        f"http://127.0.0.1:{port}/api/game/{game}",
                        headers={"Authorization": "link " + token},
                    ) as resp:
                        state = await resp.json()
                        break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.1)
            else:
                raise AssertionError("the web board never answered")
            assert state["seat"] == 0
            assert state["status"] == "active"
        proc.stdin.write(b"/quit\n")
        await proc.stdin.drain()
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    stderr = (await proc.stderr.read()).decode() if proc.stderr else ""
    assert "Traceback" not in stderr
