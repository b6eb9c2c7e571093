"""Legal-play generation speed, for Tavla and Uzun Tavla.

A fixed, seeded set of positions reached in play (random legal plays from the start, seeded
dice) is timed with all 21 rolls each. Prints the mean time per (position, roll) for each
game and the plays generated per second; the last line holds the headline figures:
``tavla_us=… uzun_us=… plays_per_s=…``.

Run: ``python bench/movegen.py [--positions N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from core.movegen import legal_plays
from core.position import CHECKERS, OFF, Position
from core.variants import Variant, variant_by_name

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def positions_in_play(variant: Variant, count: int, seed: int) -> list[tuple[Position, bool]]:
    """Positions met in random games from the start, with the mover's first-turn flag."""
    rng = random.Random(seed)
    out: list[tuple[Position, bool]] = []
    while len(out) < count:
        position = variant.start_position()
        first = [True, True]
        side = 0
        for _ in range(1000):
            out.append((position, first[side]))
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            plays = legal_plays(variant, position, dice, first[side])
            first[side] = False
            if plays:
                position = rng.choice(plays).after
            if position.mover[OFF] == CHECKERS:
                break
            position = position.swapped()
            side ^= 1
    rng.shuffle(out)
    return out[:count]


def time_variant(variant: Variant, positions: list[tuple[Position, bool]], repeat: int):
    """Best-of-``repeat`` total time over all positions and rolls, and the plays counted."""
    best = float("inf")
    plays = 0
    for _ in range(repeat):
        plays = 0
        start = time.perf_counter()
        for position, first in positions:
            for roll in ROLLS:
                plays += len(legal_plays(variant, position, roll, first))
        best = min(best, time.perf_counter() - start)
    return best, plays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()

    figures: dict[str, float] = {}
    total_plays = 0
    total_time = 0.0
    for name in ("tavla", "uzun"):
        variant = variant_by_name(name)
        positions = positions_in_play(variant, args.positions, args.seed)
        elapsed, plays = time_variant(variant, positions, args.repeat)
        per = elapsed / (len(positions) * len(ROLLS)) * 1e6
        counts = [len(legal_plays(variant, p, r, f)) for p, f in positions for r in ROLLS]
        print(
            f"{name}: {len(positions)} positions x 21 rolls, {per:.1f} us per (position, roll), "
            f"{plays / elapsed:,.0f} plays/s, plays per roll: mean "
            f"{statistics.mean(counts):.1f}, max {max(counts)}"
        )
        figures[f"{name}_us"] = per
        total_plays += plays
        total_time += elapsed
    print(
        f"tavla_us={figures['tavla_us']:.1f} uzun_us={figures['uzun_us']:.1f} "
        f"plays_per_s={total_plays / total_time:.0f}"
    )


if __name__ == "__main__":
    main()
