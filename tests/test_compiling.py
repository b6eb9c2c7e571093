"""The computer's compiled move search made ready off the interpreter that plays
(bot/service/compiling.py), the worker processes that end with the bot (workers.py), and
the advice worker started before anyone waits for it."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading

import pytest

import core.boards_after as boards_after
from bot.service import compiling
from bot.service.advice import Advisor, prepare
from core.ai import network, warm


@pytest.fixture(autouse=True)
def own_lock_folder(monkeypatch, tmp_path):
    """Each test's lock files in a folder of its own: never a running bot's."""
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))


@pytest.fixture
def flags(monkeypatch):
    """The compiled-or-Python switches (restored after the test); skipped where the
    compiled search is not in use."""
    if not boards_after.COMPILED or not network.COMPILED:
        pytest.skip("the compiled search is not in use here")
    monkeypatch.setattr(boards_after, "USE_COMPILED", boards_after.USE_COMPILED)
    monkeypatch.setattr(network, "USE_COMPILED", network.USE_COMPILED)


def _fake_child(monkeypatch) -> threading.Event:
    """``subprocess.run`` replaced by a child that compiles at once; the event says it ran."""
    ran = threading.Event()

    def run(*args, **kwargs):
        ran.set()
        return subprocess.CompletedProcess([], 0)

    monkeypatch.setattr(subprocess, "run", run)
    return ran


def test_the_bot_compiles_the_computer_in_a_child_process(monkeypatch, caplog):
    """``python -m core compile`` in a child process, from the directory holding ``core/``;
    when the child cannot run or fails, the log says why and the bot compiles itself."""
    monkeypatch.setenv("TAVLA_NUMBA", "off")  # the real child at once: nothing to compile
    assert compiling.compile_in_child(timeout=60)

    def missing(*args, **kwargs):
        raise FileNotFoundError("no such interpreter")

    monkeypatch.setattr(subprocess, "run", missing)
    with caplog.at_level("WARNING", logger="bot"):
        assert not compiling.compile_in_child()
    assert "no such interpreter" in caplog.text

    for stderr, why in ((b"Traceback\nMemoryError", "MemoryError"), (b"", "exit status 1")):
        failed = subprocess.CompletedProcess([], 1, stdout=None, stderr=stderr)
        monkeypatch.setattr(subprocess, "run", lambda *a, failed=failed, **k: failed)
        caplog.clear()
        with caplog.at_level("WARNING", logger="bot"):
            assert not compiling.compile_in_child()
        assert why in caplog.text


def test_one_child_compiles_at_a_time(monkeypatch):
    """While another process compiles (it holds the lock), a second child and the advice
    worker wait; both go on once the lock is free."""
    fcntl = pytest.importorskip("fcntl")
    ran = _fake_child(monkeypatch)
    monkeypatch.setattr(compiling, "LOCK_POLL", 0.01)
    waited = threading.Event()
    with open(compiling.lock_path(), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        second = threading.Thread(target=compiling.compile_in_child)
        waiter = threading.Thread(target=lambda: (compiling.wait_for_compiling(), waited.set()))
        second.start()
        waiter.start()
        # Held: neither may go on (a missing lock would let both through at once).
        assert not ran.wait(0.5)
        assert not waited.is_set()
        fcntl.flock(lock, fcntl.LOCK_UN)
    assert ran.wait(30)
    assert waited.wait(30)
    second.join(30)
    waiter.join(30)


def test_a_lock_held_too_long_or_unusable_does_not_stop_compiling(monkeypatch, caplog):
    """A holder that never lets go is waited for only so long; a lock file that cannot be
    opened (another user's, say) is done without."""
    fcntl = pytest.importorskip("fcntl")
    ran = _fake_child(monkeypatch)
    with open(compiling.lock_path(), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with caplog.at_level("WARNING", logger="bot"), compiling._one_at_a_time(timeout=0.0):
            pass
        assert "kept the compile lock" in caplog.text
    os.remove(compiling.lock_path())
    os.mkdir(compiling.lock_path())  # a folder where the lock file would be
    compiling.wait_for_compiling()
    assert compiling.compile_in_child()
    assert ran.is_set()


def test_without_fcntl_the_child_still_compiles(monkeypatch):
    """Where file locks do not exist, each process compiles for itself."""
    monkeypatch.setitem(sys.modules, "fcntl", None)  # import fcntl fails
    ran = _fake_child(monkeypatch)
    assert compiling.compile_in_child()
    assert ran.is_set()


def test_python_plays_from_the_start_until_the_kernels_are_loaded(monkeypatch, flags):
    """``start_compiling`` switches to the Python search before it returns (no decision
    may start a compilation), then plays the compiled search once it is loaded, even when
    compiling elsewhere failed (this process then compiles)."""
    release = threading.Event()
    loaded: list[bool] = []

    def elsewhere() -> None:
        release.wait(30)
        raise RuntimeError("the child broke")

    monkeypatch.setattr(warm, "warm_up", lambda: loaded.append(network.USE_COMPILED) or 1.0)
    thread = compiling.start_compiling(elsewhere)
    assert thread is not None
    assert not boards_after.USE_COMPILED
    assert not network.USE_COMPILED
    release.set()
    thread.join(timeout=30)
    assert loaded == [False]
    assert boards_after.USE_COMPILED
    assert network.USE_COMPILED


def test_background_workers_wait_for_the_bots_compilation(monkeypatch):
    """The advice and mining workers run below the bot, end with it, and load the kernels
    once the bot's child compiled them, rather than compiling them again."""
    calls: list[object] = []
    monkeypatch.setattr(compiling, "background_worker", lambda: calls.append("background"))
    monkeypatch.setattr(compiling, "start_compiling", calls.append)
    compiling.start_worker()
    assert calls == ["background", compiling.wait_for_compiling]


_MIDDLE = textwrap.dedent(
    """
    import multiprocessing, os, sys, time
    from concurrent.futures import ProcessPoolExecutor
    from bot.service.workers import exit_with_parent

    if __name__ == "__main__":
        pool = ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("spawn"), initializer=exit_with_parent
        )
        print(pool.submit(os.getpid).result(), flush=True)
        time.sleep(600)
    """
)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waits on a pidfd (Linux)")
def test_a_worker_ends_when_the_bot_that_started_it_is_killed(tmp_path):
    """A pool worker whose bot was killed with SIGKILL exits by itself rather than
    waiting for work forever."""
    script = tmp_path / "middle.py"
    script.write_text(_MIDDLE)
    middle = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=os.getcwd()
    )
    try:
        assert middle.stdout is not None
        worker = int(middle.stdout.readline())
        watch = os.pidfd_open(worker)
        assert select.select([watch], [], [], 0)[0] == []  # alive while the bot lives
        middle.send_signal(signal.SIGKILL)
        middle.wait(30)
        assert select.select([watch], [], [], 30)[0] == [watch]  # readable once it exited
        os.close(watch)
    finally:
        middle.kill()
        middle.wait(30)


async def test_warm_starts_the_worker_before_anyone_asks():
    """``warm`` starts the worker process and has it load what a first verdict needs; with
    a thread instead of a process there is nothing to start."""
    prepare()  # every game's evaluator loads and ranks a first roll
    threaded = Advisor(processes=0)
    threaded.warm()
    assert threaded.pending == 0
    advisor = Advisor(processes=1)
    try:
        advisor.warm()
        assert advisor.pending == 1
        # The hint asked next is answered by the same, already started worker.
        assert await advisor.run(sum, [1, 2]) == 3
    finally:
        advisor.close()
