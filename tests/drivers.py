"""What a scripted player presses, shared by the end-to-end tests and the load bench, and a
free port and ``python -m bot`` with the web board for the tests that start servers."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

from bot.service import actions as A


def press_order(*, double: bool = False) -> tuple[str, ...]:
    """Button codes in the order a scripted player presses the first one offered: play on
    when the tutor asks, take a double, decline a resignation, confirm a finished move, move
    the picked checker, pick a checker, then double (with ``double``, when allowed) or roll."""
    return (
        A.TUTOR_OK,
        A.TAKE,
        A.RESIGN_DECLINE,
        A.CONFIRM,
        A.MOVE,
        A.SELECT,
        *((A.DOUBLE,) if double else ()),
        A.ROLL,
    )


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def bot_with_web_board(
    folder: Path, port: int, secret: str, *, stdout: int = asyncio.subprocess.PIPE
) -> asyncio.subprocess.Process:
    """``python -m bot`` in ``folder`` with no chat token (the console, its stdin a pipe) and
    the web board on 127.0.0.1:``port``, signing its links with ``secret``."""
    env = {k: v for k, v in os.environ.items() if k not in ("TELEGRAM_TOKEN", "DISCORD_TOKEN")}
    env.update(
        DATABASE_URL=f"sqlite:///{folder / 'w.db'}",
        BOARD_DIR=str(folder / "boards"),
        WEB_BASE_URL=f"http://127.0.0.1:{port}",
        WEB_PORT=str(port),
        WEB_SECRET=secret,
    )
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        stdin=asyncio.subprocess.PIPE,
        stdout=stdout,
        stderr=asyncio.subprocess.PIPE,
        cwd=folder,
        env=env,
    )
