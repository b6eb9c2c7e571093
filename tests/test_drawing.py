"""The drawing processes: pictures from another process, through the event loop alone."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.drawing import DrawingError, DrawingPool
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
