"""``bench/load.py`` runs its fake Telegram and players in a session of their own.

Where the kernel schedules by session (autogroup), the load generator sharing a session with
other work would be starved, or would share the bot's CPU share; the figures of ``--busy``
are meant to judge the bot alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.load import timeline

ROOT = Path(__file__).resolve().parent.parent

PROBE = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r})
from bench.load import own_session
own_session()
print(os.getsid(0) == os.getpid())
sys.exit(3)
"""


@pytest.mark.skipif(not hasattr(os, "setsid"), reason="sessions are POSIX")
@pytest.mark.parametrize("leader", [False, True], ids=["in a group", "leading its group"])
def test_the_load_generator_goes_on_in_a_session_of_its_own(tmp_path: Path, leader: bool) -> None:
    """Started in the test's session, as a plain child or leading its own process group
    (as a shell with job control starts it: then it runs again as a child that may start a
    session, and passes on its exit status)."""
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    done = subprocess.run(
        [sys.executable, str(script)],
        process_group=0 if leader else None,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.split() == ["True"]
    assert done.returncode == 3


def test_the_timeline_gives_each_second_its_presses_median_and_worst():
    began = 100.0
    ends = [(100.2, 0.010), (100.9, 0.030), (100.5, 0.020), (102.1, 1.500)]
    assert timeline(ends, began).splitlines() == [
        "second presses p50_ms max_ms",
        "0 3 20 30",
        "2 1 1500 1500",
    ]
