"""What the bot's worker processes (advice, puzzle mining, game analysis) run first."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading

#: How much lower background workers run than the bot (``nice``): presses come first.
NICENESS = 10


def lower_priority() -> None:
    """In a background worker: yield the CPU to the bot's own work."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICENESS)


def exit_with_parent() -> threading.Thread | None:
    """Ends this worker process once the bot that started it is gone: a process pool's
    worker otherwise waits for work forever after the bot was killed (SIGKILL, the
    out-of-memory killer), holding its memory. Returns the watching daemon thread (None in
    a process multiprocessing did not start)."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return None

    def watch() -> None:
        parent.join()  # returns when the parent's end of the pipe closes: it has exited
        os._exit(0)  # nothing of the bot's is left to finish or flush here

    thread = threading.Thread(target=watch, name="tavla-parent-watch", daemon=True)
    thread.start()
    return thread


def background_worker() -> None:
    """Run first in a background worker: below the bot, and gone when the bot is."""
    lower_priority()
    exit_with_parent()
