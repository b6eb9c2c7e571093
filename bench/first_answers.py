"""How fast a new player's first moves against the computer are answered.

Starts ``python -m bot`` at the console (a new database, so the player is new and the
tutor watches), waits ``--after`` seconds (a bot already running when the player comes),
sends ``/bot uzun expert`` and plays each turn by pressing the first play and then
Confirm, and times each Confirm until the next board. ``--cold`` gives the bot an empty
Numba cache, as on a new installation, so it compiles while the game goes on. Prints
``name=value`` figures; not a test.

    .venv/bin/python bench/first_answers.py --cold --after 10 --turns 12
"""

from __future__ import annotations

import argparse
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _reader(stream: object, lines: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        lines.put(line.rstrip("\n"))


def _next_buttons(lines: queue.Queue[str], timeout: float) -> str | None:
    """The next line of buttons the console prints (None if the game ended or stalled)."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            return None
        if line.startswith("[1]"):
            return line
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cold", action="store_true", help="an empty Numba cache")
    parser.add_argument("--turns", type=int, default=12, help="turns to time")
    parser.add_argument("--after", type=float, default=10.0, help="seconds before /bot")
    parser.add_argument("--variant", default="uzun")
    parser.add_argument("--level", default="expert")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp}/bench.db", BOARD_DIR=tmp)
        if args.cold:
            env["NUMBA_CACHE_DIR"] = str(Path(tmp) / "numba")
        bot = subprocess.Popen(
            [sys.executable, "-m", "bot"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        assert bot.stdin is not None
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=_reader, args=(bot.stdout, lines), daemon=True).start()

        def send(text: str) -> None:
            assert bot.stdin is not None
            bot.stdin.write(text + "\n")
            bot.stdin.flush()

        answers: list[float] = []
        try:
            time.sleep(args.after)  # the player comes later: the bot has started by then
            asked = time.monotonic()
            send(f"/bot {args.variant} {args.level}")
            buttons = _next_buttons(lines, 60)
            first_board = time.monotonic() - asked
            while buttons is not None and len(answers) < args.turns:
                if "Confirm" in buttons:  # the play is chosen: confirm it and time the answer
                    number = buttons.split("✅")[0].rsplit("[", 1)[1].split("]")[0]
                    asked = time.monotonic()
                    send(number)
                    buttons = _next_buttons(lines, 60)
                    answers.append(time.monotonic() - asked)
                elif "anyway" in buttons:  # the tutor asks: play it anyway
                    send("1")
                    buttons = _next_buttons(lines, 60)
                else:
                    send("1")
                    buttons = _next_buttons(lines, 60)
        finally:
            bot.kill()
            bot.wait()
    if not answers:
        print("no answers: the game did not start", file=sys.stderr)
        return 1
    ordered = sorted(answers)
    print(f"cold={int(args.cold)} after_s={args.after:g} variant={args.variant} level={args.level}")
    print(f"first_board_s={first_board:.2f}")
    print("answers_s=" + ",".join(f"{a:.2f}" for a in answers))
    print(f"answer_max_s={ordered[-1]:.2f} answer_median_s={ordered[len(ordered) // 2]:.2f}")
    print(f"load={os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
