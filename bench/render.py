"""How fast a board picture is drawn and encoded, and how big it is.

    .venv/bin/python bench/render.py [--games 4] [--width 1000] [--replay] [--home left]

Boards come from random games (seeded ``random.Random`` dice, random legal plays) of Tavla
and Uzun Tavla, in every theme, before and after each play. The caches (static board,
sprites, palette) are warmed first; then each board is rendered and PNG-encoded once and
timed (``--home left``: drawn with the viewer's home board on the left). Prints figures per
theme, then the headline as its last line: ``median_ms=… p95_ms=… png_kb=…`` (``png_kb``
is the median file size).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.variants import variant_by_name
from renderers.board import render_png
from renderers.replay import render_replay
from renderers.samples import random_game
from renderers.themes import THEMES


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=4, help="random games per variant")
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--replay", action="store_true", help="also time GIF and WebP replays")
    parser.add_argument("--home", default="right", choices=("right", "left"))
    args = parser.parse_args(argv)

    times: list[float] = []
    sizes: list[int] = []
    for theme in THEMES:
        views = []
        for name in ("tavla", "uzun"):
            for seed in range(args.games):
                game = random_game(variant_by_name(name), seed=seed, theme=theme)[::3]
                views += [replace(view, home=args.home) for view in game]
        render_png(views[0], args.width)  # warm the caches
        render_png(views[1], args.width)
        theme_times = []
        for view in views:
            start = time.perf_counter()
            data = render_png(view, args.width)
            theme_times.append((time.perf_counter() - start) * 1000)
            sizes.append(len(data))
        times += theme_times
        print(
            f"{theme:9s} boards={len(views):4d} median_ms={statistics.median(theme_times):.2f}"
            f" p95_ms={percentile(theme_times, 0.95):.2f}"
        )

    if args.replay:
        frames = [v for v in random_game(variant_by_name("tavla"), seed=7) if v.last_play]
        for fmt in ("gif", "webp"):
            start = time.perf_counter()
            data = render_replay(frames, format=fmt)
            took = time.perf_counter() - start
            print(f"replay {fmt}: {len(frames)} frames, {len(data) / 1024:.0f} KB, {took:.2f} s")

    print(f"boards={len(times)} max_png_kb={max(sizes) / 1024:.1f}")
    print(
        f"median_ms={statistics.median(times):.2f} p95_ms={percentile(times, 0.95):.2f}"
        f" png_kb={statistics.median(sizes) / 1024:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
