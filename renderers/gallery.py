"""``python -m renderers.gallery OUT_DIR``: pictures of interesting boards, for review.

Writes, for every theme, one PNG per board of :func:`renderers.samples.gallery_views`
(openings, a double hit with two checkers on the bar, bear-off in a Crawford game, the cube
at 8 owned by Black, Uzun Tavla's opening, both heads, a six-block) named
``THEME-NAME.png``; the text board of each as ``NAME.txt``; and an animated replay of a
random game, ``replay-tavla.gif``. ``--home left`` draws them all with the viewer's home
board on the left.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from core.variants import variant_by_name

from .board import render_png
from .replay import render_replay
from .samples import gallery_views, random_game
from .text import render_text
from .themes import THEMES
from .view import HOME_RIGHT, HOMES


def write_gallery(
    out_dir: Path,
    themes: list[str] | None = None,
    width: int = 1000,
    replay: bool = True,
    home: str = HOME_RIGHT,
) -> list[Path]:
    """Write the review set into ``out_dir``, home boards on the ``home`` side; returns the
    files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for theme in themes or list(THEMES):
        for name, view in gallery_views(theme).items():
            path = out_dir / f"{theme}-{name}.png"
            path.write_bytes(render_png(replace(view, home=home), width))
            written.append(path)
    for name, view in gallery_views().items():
        path = out_dir / f"{name}.txt"
        path.write_text(render_text(replace(view, home=home)) + "\n", encoding="utf-8")
        written.append(path)
    if replay:
        game = random_game(variant_by_name("tavla"), seed=7)
        frames = [replace(v, home=home) for v in game if v.last_play]
        path = out_dir / "replay-tavla.gif"
        path.write_bytes(render_replay(frames))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m renderers.gallery", description=__doc__)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--theme", action="append", choices=sorted(THEMES), dest="themes")
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--no-replay", action="store_true")
    parser.add_argument("--home", default=HOME_RIGHT, choices=HOMES)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    files = write_gallery(args.out_dir, args.themes, args.width, not args.no_replay, args.home)
    took = time.perf_counter() - start
    print(f"wrote {len(files)} files to {args.out_dir} in {took:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
