"""``python -m bot`` with ``WEB_BASE_URL`` set serves the web board next to the adapters
(here the console): the console prints a game's personal link, and the page's API answers
it with that player's seat; the process stops cleanly at /quit."""

from __future__ import annotations

import asyncio
import re
from urllib.parse import unquote

import aiohttp

from tests.drivers import bot_with_web_board, free_port


async def test_python_m_bot_serves_the_web_board_with_the_console(tmp_path):
    port = free_port()
    proc = await bot_with_web_board(tmp_path, port, "run-test")
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
