"""The analysis: its speed, and how it compares with GNU Backgammon's.

    .venv/bin/python bench/analysis.py [--games 5] [--matches 6] [--length 3] [--only 5,9]

(``--only 5,9 --games 0``: just those anchor matches, numbered as in the full run, to look
at one disagreement without the other matches' gnubg runs.)

1. Speed: seeded single games of Tavla (beginner against club) analysed with the project's
   network (1-ply look-ahead for the candidates, 0-ply luck); CPU seconds of one core per
   60 turns (rolls), median over the games. Target: at most 5 s.
2. Anchor (when Debian's ``gnubg`` is installed): seeded matches between the computer's
   levels, exported as ``.mat``, analysed by ``gnubg -t`` (``analyse match``, 2-ply) and by
   the project, with the network and (when the ``gnubg`` Python extra is installed) with
   the default evaluator, gnubg 2-ply. Prints the share of gnubg's very bad decisions the
   project also calls very bad (target >= 85%; gnubg labels at the project's thresholds,
   0.04/0.08/0.16, not its own 1.07 defaults) and each player's error per decision against
   gnubg's overall error rate (target within 20%).

The last line holds the headline figures as ``name=value`` pairs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.ai import player_for  # noqa: E402
from core.ai.gnubg_player import load_gnubg  # noqa: E402
from core.analysis import analyse_match, evaluator_for  # noqa: E402
from core.analysis.selfplay import play_match  # noqa: E402
from core.dice import RandomDice  # noqa: E402
from core.variants import variant_by_name  # noqa: E402
from tests.gnubg_anchor import (  # noqa: E402
    compare,
    gnubg_analyse,
    gnubg_binary,
    seeded_matches,
)


def speed(games: int, seed: int) -> float:
    """Median CPU seconds per 60 turns of Tavla analysed with the network."""
    variant = variant_by_name("tavla")
    evaluator = evaluator_for(variant, "network")
    per_60: list[float] = []
    for g in range(games):
        players = [player_for("tavla", "beginner", seed + g), player_for("tavla", "club")]
        _, histories = play_match(variant, players, RandomDice(seed + g), length=1)
        rolls = sum(1 for e in histories[0] if e["type"] == "roll")
        start = time.process_time()
        analysis = analyse_match(variant, histories, length=1, evaluator=evaluator)
        spent = time.process_time() - start
        per_60.append(spent / rolls * 60)
        print(
            f"game {g + 1}: {rolls} turns, {len(analysis.decisions)} decisions, "
            f"{spent:.2f} s CPU ({per_60[-1]:.2f} s per 60 turns)"
        )
    return statistics.median(per_60)


def anchor(matches: int, length: int, seed: int, only: set[int]) -> dict[str, float]:
    variant = variant_by_name("tavla")
    levels = ["network"] + (["best"] if load_gnubg() is not None else [])
    pairs: dict[str, list] = {level: [] for level in levels}
    for index, (names, histories, text) in enumerate(seeded_matches(matches, length, seed)):
        if only and index + 1 not in only:
            continue
        start = time.perf_counter()
        theirs = gnubg_analyse(text)
        gnubg_s = time.perf_counter() - start
        line = [f"match {index + 1} ({names[0]} v {names[1]}): gnubg {gnubg_s:.0f} s"]
        for level in levels:
            cpu = time.process_time()
            ours = analyse_match(
                variant,
                histories,
                length=length,
                names=names,
                evaluator=evaluator_for(variant, level),
            )
            pairs[level].append((ours, theirs))
            rates = ", ".join(
                f"{p.error_per_decision:.1f}/{g:.1f}"
                for p, g in zip(ours.players, theirs.overall_rate, strict=True)
            )
            line.append(f"{level} {time.process_time() - cpu:.0f} s CPU, mEMG ours/gnubg {rates}")
        print("; ".join(line))
    figures: dict[str, float] = {}
    for level in levels:
        c = compare(pairs[level])
        print(
            f"{level}: gnubg very bad {c.gnubg_very_bad}, project very bad {c.project_very_bad}, "
            f"both {c.both_very_bad} -> overlap {c.overlap:.0%}; plays matched "
            f"{c.matched_plays}/{c.gnubg_plays}; error per decision, largest gap from gnubg "
            f"{c.worst_rate_gap:.0%}, mean gap {c.mean_rate_gap:.0%}"
        )
        figures[f"{level}_vb_overlap"] = round(c.overlap, 3)
        figures[f"{level}_rate_gap_max"] = round(c.worst_rate_gap, 3)
        figures[f"{level}_rate_gap_mean"] = round(c.mean_rate_gap, 3)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5, help="games timed for speed")
    parser.add_argument("--matches", type=int, default=6, help="matches compared with gnubg")
    parser.add_argument("--length", type=int, default=3, help="length of those matches")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--only", default="", help="compare only these matches (e.g. 5,9)")
    args = parser.parse_args()
    only = {int(n) for n in args.only.split(",") if n.strip()}
    figures: dict[str, float] = {}
    if args.games:
        figures["tavla_60_moves_s"] = round(speed(args.games, args.seed), 2)
    if gnubg_binary() is None:
        print("gnubg is not installed: no comparison (apt-get install gnubg)")
    elif args.matches:
        figures.update(anchor(args.matches, args.length, args.seed, only))
    print(" ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
