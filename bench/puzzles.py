"""Puzzles from seeded self-play: how many each game yields, how clear they are, how long
building them takes.

    .venv/bin/python bench/puzzles.py [--games 8] [--seed 1] [--write core/learn/shipped]
                                      [--remake]

Seeded single games of the computer against itself (beginner against club) for Tavla,
Turkish tavla and Uzun Tavla, analysed at the strongest evaluator (GNU Backgammon 2-ply for
Tavla where the extra is installed, else the networks' look-ahead); every play that lost at
least 0.16 whose best answer leads the second best by at least 0.10 is a puzzle. Prints
puzzles per 100 games for each game, the median margin of the best answer over the second
(``margin_p50``) and the CPU milliseconds of one core to build a game's puzzles (analysis
included: ``build_ms_per_game``). ``--write DIR`` writes each game's puzzles as
``DIR/<game>.jsonl`` (the puzzles the bot ships); with ``--remake`` the puzzles already in
those files are made again first from their position, roll, cube and the play made (the
ones that still pass are kept, with their candidates ranked as today), and the self-play's
new ones are added to them. The last line holds the figures.
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
from core.gnubg import position_from_id  # noqa: E402
from core.learn.puzzles import Puzzle, make_puzzle, selfplay_puzzles  # noqa: E402
from core.variants import variant_by_name  # noqa: E402

VARIANTS = {"tavla": "tavla", "uzun": "uzun", "turkish": "turkish"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="self-play games per game kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", type=Path, help="write the puzzles to DIR/<game>.jsonl")
    parser.add_argument("--only", help="these games only, comma-separated (tavla,uzun,turkish)")
    parser.add_argument(
        "--remake", action="store_true", help="keep DIR's puzzles that still pass, made again"
    )
    args = parser.parse_args()
    figures: dict[str, str] = {}
    margins: list[float] = []
    cpu_ms: list[float] = []
    for label, name in VARIANTS.items():
        if args.only and label not in args.only.split(","):
            continue
        evaluator = evaluator_for(variant_by_name(name))
        kept: dict[str, Puzzle] = {}
        if args.remake and args.write and (args.write / f"{name}.jsonl").exists():
            kept = remade(args.write / f"{name}.jsonl", evaluator)
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
            shipped = {**kept, **{p.key: p for p in puzzles if p.key not in kept}}
            print(f"{label}: {len(kept)} kept, {len(shipped)} written")
            lines = [json.dumps(p.to_dict(), sort_keys=True) for p in shipped.values()]
            (args.write / f"{name}.jsonl").write_text("".join(line + "\n" for line in lines))
    figures["margin_p50"] = f"{statistics.median(margins):.3f}" if margins else "nan"
    figures["build_ms_per_game"] = f"{statistics.mean(cpu_ms):.0f}"
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


def remade(path: Path, evaluator: object) -> dict[str, Puzzle]:
    """The puzzles of ``path`` made again (:func:`make_puzzle`) from their position, roll,
    cube and the play made in the game; those that no longer pass are left out."""
    kept: dict[str, Puzzle] = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        old = Puzzle.from_dict(json.loads(line))
        variant = variant_by_name(old.variant)
        played = position_from_id(old.candidates[old.played].after)
        again = make_puzzle(
            variant,
            old.before(),
            old.dice,
            played,
            state=old.cube_state,
            evaluator=evaluator,  # type: ignore[arg-type]
            source=old.source,
        )
        if again is not None:
            kept[again.key] = again
    return kept


if __name__ == "__main__":
    main()
