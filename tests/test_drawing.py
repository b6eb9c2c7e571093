"""The drawing processes: pictures from another process, through the event loop alone."""

from __future__ import annotations

import asyncio
import pickle
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.drawing import DrawingError, DrawingPool, _Worker
from core.variants import variant_by_name
from renderers.picture import JPEG, PNG, render_picture
from renderers.view import WHITE, BoardView

TAVLA = variant_by_name("tavla")
ROOT = Path(__file__).resolve().parent.parent


def view(**fields: object) -> BoardView:
    return BoardView.from_position(TAVLA, TAVLA.start_position(), WHITE, **fields)


@pytest.fixture
def pool():
    drawing = DrawingPool(2)
    yield drawing
    drawing.close()


async def test_pictures_are_those_drawn_here_and_need_no_thread(pool: DrawingPool) -> None:
    threads = set(threading.enumerate())
    views = [view(dice=(a, b)) for a in range(1, 7) for b in range(1, 3)]
    pictures = await asyncio.gather(*(pool.draw(v, JPEG) for v in views))
    assert pictures == [render_picture(v, JPEG) for v in views]
    assert await pool.draw(views[0], PNG) == render_picture(views[0], PNG)
    # No helper thread in the bot process (a process pool would start two). Threads of
    # earlier tests may end meanwhile, so only new ones count.
    assert set(threading.enumerate()) <= threads


class _NoProcess:
    """In place of a drawing process, for a worker the test plays itself."""

    def wait(self, timeout: float | None = None) -> int:
        return 0

    def kill(self) -> None:
        pass


async def _message(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> bytes:
    """One length-prefixed message read from ``sock``."""
    head = b""
    while len(head) < 4:
        head += await loop.sock_recv(sock, 4 - len(head))
    body = b""
    (size,) = struct.unpack(">I", head)
    while len(body) < size:
        body += await loop.sock_recv(sock, size - len(body))
    return body


async def test_pictures_are_asked_for_without_waiting_for_each_other() -> None:
    """Five pictures wanted at once reach the drawing process before it answers any: each
    costs its caller a turn or two of the event loop, not a round trip after the others
    (on a busy loop, a few turns of a second each a picture, one after another, held
    every chat's board back). Each caller gets its own answer, matched in order."""
    pool = DrawingPool(1)
    pool._workers[0].close()
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    theirs.setblocking(False)
    stand_in = _Worker.__new__(_Worker)
    vars(stand_in).update(sock=ours, process=_NoProcess(), answers=None, _joining=None)
    pool._workers = [stand_in]
    loop = asyncio.get_running_loop()
    views = [view(dice=(n, 1)) for n in range(1, 6)]
    try:
        drawing = [asyncio.ensure_future(pool.draw(v, PNG)) for v in views]
        async with asyncio.timeout(30):  # (a bound on a hang: the requests come at once)
            asked = [pickle.loads(await _message(loop, theirs)) for _ in views]
        assert [request[0].dice for request in asked] == [v.dice for v in views]
        for n in range(len(views)):
            answer = pickle.dumps((True, f"picture {n}".encode()))
            await loop.sock_sendall(theirs, struct.pack(">I", len(answer)) + answer)
        pictures = await asyncio.gather(*drawing)
        assert pictures == [f"picture {n}".encode() for n in range(len(views))]
    finally:
        pool.close()
        theirs.close()


async def test_a_failed_drawing_is_reported_and_the_pool_goes_on(pool: DrawingPool) -> None:
    with pytest.raises(DrawingError, match="PNG or JPEG"):
        await pool.draw(view(), "gif")
    assert (await pool.draw(view(), PNG)).startswith(b"\x89PNG")


async def test_a_caller_giving_up_does_not_confuse_the_next_answer(pool: DrawingPool) -> None:
    waiting = asyncio.ensure_future(pool.draw(view(dice=(6, 6)), PNG))
    await asyncio.sleep(0)
    waiting.cancel()
    for dice in ((1, 2), (3, 4), (5, 6)):
        assert await pool.draw(view(dice=dice), PNG) == render_picture(view(dice=dice), PNG)


async def test_a_dead_process_is_replaced(pool: DrawingPool) -> None:
    first = pool._workers[0]
    for worker in pool._workers:
        worker.process.kill()
        worker.process.wait()
    with pytest.raises(DrawingError):
        await pool.draw(view(), PNG)
    with pytest.raises(DrawingError):
        await pool.draw(view(), PNG)
    assert first not in pool._workers
    assert (await pool.draw(view(), PNG)).startswith(b"\x89PNG")


def test_processes_exit_when_the_pool_closes() -> None:
    drawing = DrawingPool(1)
    process = drawing._workers[0].process
    drawing.close()
    assert process.poll() is not None


def test_processes_exit_when_the_bot_is_killed() -> None:
    """SIGKILL leaves no time to close anything: the socket's end tells the worker."""
    script = (
        "import os, signal\n"
        "from bot.drawing import DrawingPool\n"
        "pool = DrawingPool(1)\n"
        "print(pool._workers[0].process.pid, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    worker = int(done.stdout)
    deadline = time.monotonic() + 30
    while _running(worker) and time.monotonic() < deadline:
        time.sleep(0.05)  # polling for the exit, not timing anything
    assert not _running(worker)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (an unreaped zombie counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
