"""The computer's compiled move search, made ready off the interpreter that plays.

Numba compiles the move search and the Uzun inputs at their first call (about 12 s of CPU
on a new installation) and caches the machine code; a later process loads it in about a
second (:mod:`core.ai.warm`). A process that plays (the bot, its advice worker) plays with
the Python search from its start (the same plays, 2-3 times slower), has a child process
run ``python -m core compile`` meanwhile (waiting for it holds no interpreter lock, so the
answers do not wait for the compiler), then loads the kernels from the cache and plays
with them. The child holds a lock file while it compiles; the advice worker, started with
the bot, waits for that lock instead of compiling the same kernels again, then loads them.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from core.ai.warm import play_python, play_python_until_compiled

from .workers import background_worker

log = logging.getLogger("bot")

#: Seconds the compiling child may take before the calling thread compiles instead; also
#: the longest wait for another process's child (then each compiles for itself).
CHILD_TIMEOUT = 600.0
#: Seconds between tries of a lock another process holds.
LOCK_POLL = 0.5
#: The directory that holds ``core/``, where the child runs ``python -m core``.
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def lock_path() -> Path:
    """The lock file of this installation and user (in the system's temporary folder): the
    processes that share a Numba cache share it; others never wait for each other."""
    key = f"{PACKAGE_ROOT}|{sys.executable}|{os.getuid() if hasattr(os, 'getuid') else ''}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"tavla-compile-{digest}.lock"


@contextlib.contextmanager
def _one_at_a_time(timeout: float = CHILD_TIMEOUT) -> Iterator[None]:
    """Holds the compile lock, waiting ``timeout`` seconds at most for another process
    that holds it; without a lock (no file locks here, a file that cannot be opened or
    locked, a holder that never lets go) the kernels are compiled twice at worst."""
    lock = _locked(timeout)
    try:
        yield
    finally:
        if lock is not None:
            lock.close()  # closing the file lets the lock go


def _locked(timeout: float) -> IO[str] | None:
    """The lock file, locked; None without a lock."""
    try:
        import fcntl
    except ImportError:
        return None
    try:
        lock = open(lock_path(), "a")  # noqa: SIM115 (held past this function)
    except OSError:
        return None
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return lock
        except BlockingIOError:  # another process's child compiles
            if time.monotonic() >= deadline:
                log.warning("another process kept the compile lock %.0f s; going on", timeout)
                break
            time.sleep(LOCK_POLL)
        except OSError:  # no locks on this file system
            break
    lock.close()
    return None


def compile_in_child(timeout: float = CHILD_TIMEOUT) -> bool:
    """Runs ``python -m core compile`` in a child process (one at a time) and waits for it;
    True when it compiled (the kernels are then in Numba's cache). Failures are logged: the
    caller then compiles in its own thread."""
    try:
        with _one_at_a_time():
            done = subprocess.run(
                [sys.executable, "-m", "core", "compile"],
                cwd=PACKAGE_ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=timeout,
                check=False,
            )
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("compiling in a child process failed (%s); compiling in the bot", exc)
        return False
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        why = lines[-1] if lines else f"exit status {done.returncode}"
        log.warning("compiling in a child process failed (%s); compiling in the bot", why)
    return done.returncode == 0


def wait_for_compiling() -> None:
    """Waits while another process's child compiles (it holds the lock); then the caller
    loads the kernels from the cache, or compiles them itself if nobody had."""
    with _one_at_a_time():
        pass


def _or_compile_here(compile_elsewhere: Callable[[], object]) -> Callable[[], None]:
    """``compile_elsewhere`` that never raises: whatever goes wrong there, the calling
    thread then compiles (or loads) the kernels itself."""

    def attempt() -> None:
        try:
            compile_elsewhere()
        except Exception:
            log.exception("compiling elsewhere failed; compiling in this process")

    return attempt


def _compile_then_load(compile_elsewhere: Callable[[], object]) -> None:
    try:
        seconds = play_python_until_compiled(_or_compile_here(compile_elsewhere))
    except Exception:  # the Python search goes on playing: slower, the same plays
        log.exception("compiling the computer's move search failed; playing without it")
        return
    if seconds:
        log.info("the computer's move search is compiled (%.1f s)", seconds)


def start_compiling(
    compile_elsewhere: Callable[[], object] = compile_in_child,
) -> threading.Thread | None:
    """The Python search from now on, and the compiled one made ready in a daemon thread
    (a stop does not wait for it): ``compile_elsewhere`` first, then the kernels loaded
    from the cache. None without Numba."""
    if not play_python():  # at once: no decision of this process may compile by itself
        return None
    thread = threading.Thread(
        target=_compile_then_load, args=(compile_elsewhere,), name="tavla-compile", daemon=True
    )
    thread.start()
    return thread


def start_worker() -> None:
    """Run first in a background worker process (advice, puzzle mining): below the bot's
    own work, gone when the bot is, and its compiled search loaded in a thread once the
    bot's child has compiled it, so that no verdict waits for a compiler."""
    background_worker()
    start_compiling(wait_for_compiling)
