"""Puzzles from seeded self-play: how many each game yields, how clear they are, how long
building them takes.

    .venv/bin/python bench/puzzles.py [--games 8] [--seed 1] [--write core/learn/shipped]

Seeded single games of the computer against itself (beginner against club) for Tavla,
Turkish tavla and Uzun Tavla, analysed at the strongest evaluator (GNU Backgammon 2-ply for
Tavla where the extra is installed, else the networks' look-ahead); every play that lost at
least 0.16 whose best answer leads the second best by at least 0.10 is a puzzle. Prints
puzzles per 100 games for each game, the median margin of the best answer over the second
(``margin_p50``) and the CPU milliseconds of one core to build a game's puzzles (analysis
included: ``build_ms_per_game``). ``--write DIR`` writes each game's puzzles as
``DIR/<game>.jsonl`` (the puzzles the bot ships). The last line holds the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.analysis import evaluator_for  # noqa: E402
from core.learn.puzzles import Puzzle, selfplay_puzzles  # noqa: E402
from core.variants import variant_by_name  # noqa: E402

VARIANTS = {"tavla": "tavla", "uzun": "uzun", "turkish": "turkish"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="self-play games per game kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", type=Path, help="write the puzzles to DIR/<game>.jsonl")
    args = parser.parse_args()
    figures: dict[str, str] = {}
    margins: list[float] = []
    cpu_ms: list[float] = []
    for label, name in VARIANTS.items():
        evaluator = evaluator_for(variant_by_name(name))
        found: dict[str, Puzzle] = {}
        for g in range(args.games):
            start = time.process_time()
            for puzzle in selfplay_puzzles(name, args.seed + g, evaluator=evaluator):
                found.setdefault(puzzle.key, puzzle)
            cpu_ms.append((time.process_time() - start) * 1000)
        puzzles = list(found.values())
        margins += [p.margin for p in puzzles]
        per_100 = 100 * len(puzzles) / max(1, args.games)
        figures[f"{label}_puzzles_per_100_games"] = f"{per_100:.0f}"
        print(f"{label}: {len(puzzles)} puzzles from {args.games} games ({evaluator.name})")
        if args.write:
            args.write.mkdir(parents=True, exist_ok=True)
            lines = [json.dumps(p.to_dict(), sort_keys=True) for p in puzzles]
            (args.write / f"{name}.jsonl").write_text("".join(line + "\n" for line in lines))
    figures["margin_p50"] = f"{statistics.median(margins):.3f}" if margins else "nan"
    figures["build_ms_per_game"] = f"{statistics.mean(cpu_ms):.0f}"
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
