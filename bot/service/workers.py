"""What the bot's worker processes (advice, puzzle mining, game analysis) run first."""

from __future__ import annotations

import contextlib
import os
import threading
import time

#: How much lower background workers run than the bot (``nice``): presses come first.
NICENESS = 10
#: Seconds between a worker's looks at whether the bot that started it is still there.
PARENT_POLL = 2.0


def lower_priority() -> None:
    """In a background worker: yield the CPU to the bot's own work."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICENESS)


def exit_with_parent(poll: float = PARENT_POLL) -> threading.Thread:
    """Ends this worker process once the bot that started it is gone: a process pool's
    worker otherwise waits for work forever after the bot was killed (SIGKILL, the
    out-of-memory killer), holding its memory. Returns the watching daemon thread."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(0)  # nothing of the bot's is left to finish or flush here

    thread = threading.Thread(target=watch, name="tavla-parent-watch", daemon=True)
    thread.start()
    return thread


def background_worker() -> None:
    """Run first in a background worker: below the bot, and gone when the bot is."""
    lower_priority()
    exit_with_parent()
