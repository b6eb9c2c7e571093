"""The computer's compiled move search made ready off the interpreter that plays
(bot/service/compiling.py), and the advice worker started before anyone waits for it."""

from __future__ import annotations

import fcntl
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

import core.boards_after as boards_after
from bot.service import compiling, workers
from bot.service.advice import Advisor, prepare
from core.ai import network, warm


@pytest.fixture
def flags(monkeypatch):
    """The compiled-or-Python switches, restored after the test."""
    pytest.importorskip("numba")
    monkeypatch.setattr(boards_after, "USE_COMPILED", boards_after.USE_COMPILED)
    monkeypatch.setattr(network, "USE_COMPILED", network.USE_COMPILED)


def test_the_bot_compiles_the_computer_in_a_child_process(monkeypatch, caplog):
    """``python -m core compile`` in a child process, from the directory holding ``core/``;
    when the child cannot run or fails, the log says so and the bot compiles itself."""
    monkeypatch.setenv("TAVLA_NUMBA", "off")  # the real child at once: nothing to compile
    assert compiling.compile_in_child(timeout=60)

    def missing(*args, **kwargs):
        raise FileNotFoundError("no such interpreter")

    monkeypatch.setattr(subprocess, "run", missing)
    with caplog.at_level("WARNING", logger="bot"):
        assert not compiling.compile_in_child()
    assert "compiling in the bot" in caplog.text

    failed = subprocess.CompletedProcess([], 1, stdout=None, stderr=b"Traceback\nMemoryError")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: failed)
    caplog.clear()
    with caplog.at_level("WARNING", logger="bot"):
        assert not compiling.compile_in_child()
    assert "MemoryError" in caplog.text


def test_one_child_compiles_at_a_time(monkeypatch):
    """While another process compiles (it holds the lock), a second child waits; the
    advice worker's wait ends when the lock is free."""
    ran: list[str] = []
    monkeypatch.setattr(
        subprocess, "run", lambda *a, **k: ran.append("child") or subprocess.CompletedProcess([], 0)
    )
    with open(Path(tempfile.gettempdir()) / compiling.LOCK_NAME, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        second = threading.Thread(target=compiling.compile_in_child)
        waiter = threading.Thread(target=compiling.wait_for_compiling)
        second.start()
        waiter.start()
        second.join(timeout=0.5)
        waiter.join(timeout=0.1)
        assert second.is_alive()
        assert waiter.is_alive()
        assert ran == []
        fcntl.flock(lock, fcntl.LOCK_UN)
    second.join(timeout=30)
    waiter.join(timeout=30)
    assert ran == ["child"]
    assert not waiter.is_alive()


def test_python_plays_from_the_start_until_the_kernels_are_loaded(monkeypatch, flags):
    """``start_compiling`` switches to the Python search before it returns (no decision
    may start a compilation), compiles elsewhere, loads, then plays the compiled search."""
    seen: list[tuple[str, bool]] = []
    release = threading.Event()

    def elsewhere() -> None:
        release.wait(30)
        seen.append(("compiled elsewhere", boards_after.USE_COMPILED or network.USE_COMPILED))

    monkeypatch.setattr(warm, "warm_up", lambda: seen.append(("loaded", False)) or 1.0)
    thread = compiling.start_compiling(elsewhere)
    assert thread is not None
    assert not boards_after.USE_COMPILED
    assert not network.USE_COMPILED
    release.set()
    thread.join(timeout=30)
    assert seen == [("compiled elsewhere", False), ("loaded", False)]
    assert boards_after.USE_COMPILED
    assert network.USE_COMPILED


def test_the_advice_worker_waits_for_the_bots_compilation(monkeypatch, flags):
    """The worker runs below the bot, ends with it, and loads the kernels once the bot's
    child compiled them."""
    calls: list[object] = []
    monkeypatch.setattr(compiling, "background_worker", lambda: calls.append("background"))
    monkeypatch.setattr(compiling, "start_compiling", calls.append)
    compiling.start_worker()
    assert calls == ["background", compiling.wait_for_compiling]


def test_a_worker_ends_when_the_bot_that_started_it_is_gone(monkeypatch):
    """A worker whose bot was killed (its parent now another process) exits by itself
    rather than waiting for work forever."""
    parents = iter([4242, 4242, 4242, 1])  # the bot, seen twice, then adopted by init
    monkeypatch.setattr(workers.os, "getppid", lambda: next(parents, 1))
    exited = threading.Event()
    monkeypatch.setattr(workers.os, "_exit", lambda status: exited.set())
    thread = workers.exit_with_parent(poll=0.0)
    assert exited.wait(30)
    thread.join(timeout=30)
    assert not thread.is_alive()


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


def test_without_a_usable_lock_file_the_child_still_compiles(monkeypatch, tmp_path):
    """A lock file that cannot be opened (another user's, say) does not stop compiling."""
    (tmp_path / compiling.LOCK_NAME).mkdir()  # a folder where the lock file would be
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    ran: list[str] = []
    monkeypatch.setattr(
        subprocess, "run", lambda *a, **k: ran.append("child") or subprocess.CompletedProcess([], 0)
    )
    compiling.wait_for_compiling()
    assert compiling.compile_in_child()
    assert ran == ["child"]
