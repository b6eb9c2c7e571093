"""The first real choices of Uzun Tavla, rolled out: the starter's second turn.

    .venv/bin/python bench/uzun_openings.py --positions 8 --games 144 --seed 1

From the start the first move of each side is forced for 20 of the 21 rolls (3-3 is played
as ``expert`` plays it). The starter's second roll is where choices begin: a second checker
off the head, or the first one on. The bench draws ``--positions`` seeded sequences of
three rolls (the starter's first, the answer, the starter's second) whose last roll has a
real choice, and for each rolls out (``core.ai.rollout``, luck-adjusted, the same dice for
every play, ``--rollout-level`` on both sides) the network's best ``--plays`` plays and
``expert``'s choice. It prints a Markdown row a position: the rolls, ``expert``'s play and
where the rollout ranks it, the rollout's best play (with its 95% interval) and the next
best, and the equity ``expert`` gives up by the rollout. The last line sums up:
``positions= expert_best= expert_within_ci= mean_loss= games=``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from core.ai import player_for  # noqa: E402
from core.ai.lookahead import first_turn  # noqa: E402
from core.ai.network import network_kind, shipped_network  # noqa: E402
from core.ai.players import NeuralPlayer  # noqa: E402
from core.ai.race import BearoffEvaluator  # noqa: E402
from core.ai.rollout import rollout_plays  # noqa: E402
from core.dice import larger_first  # noqa: E402
from core.gnubg import position_id  # noqa: E402
from core.movegen import legal_plays  # noqa: E402
from core.notation import format_play  # noqa: E402
from core.position import Position  # noqa: E402
from core.variants import variant_by_name  # noqa: E402

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def _roll(rng: random.Random) -> tuple[int, int]:
    a, b = rng.randint(1, 6), rng.randint(1, 6)
    return (max(a, b), min(a, b))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--games", type=int, default=144)
    parser.add_argument("--plays", type=int, default=3, help="the network's best N plays")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rollout-level", default="club")
    args = parser.parse_args()

    variant = variant_by_name("uzun")
    expert = player_for("uzun", "expert", seed=args.seed)
    roller = player_for("uzun", args.rollout_level, seed=args.seed)
    net = shipped_network(network_kind("uzun"))
    assert net is not None
    luck = BearoffEvaluator(net)
    ranker = NeuralPlayer(BearoffEvaluator(net))
    rng = random.Random(args.seed)
    print(
        f"Uzun, the starter's second turn; rollouts: {args.rollout_level} on both sides, "
        f"{args.games} games a play, seed {args.seed}, luck-adjusted"
    )
    print("| Rolls | `expert` | Its rank | Rollout's best | Next best | Given up |")
    print("|---|---|---|---|---|---|")
    seen: set[tuple[tuple[int, int], ...]] = set()
    done = best = within = 0
    losses: list[float] = []
    started = time.process_time()
    while done < args.positions:
        rolls = (_roll(rng), _roll(rng), _roll(rng))
        if rolls in seen:
            continue
        seen.add(rolls)
        side: Position = variant.start_position()
        for roll in rolls[:2]:
            plays = legal_plays(variant, side, roll, first_turn(variant, side))
            play = expert.choose_play(variant, side, plays) if len(plays) > 1 else plays[0]
            side = play.after.swapped()
        plays = legal_plays(variant, side, rolls[2], first_turn(variant, side))
        if len({p.after for p in plays}) < 2:
            continue
        chosen = expert.choose_play(variant, side, plays)
        order = np.argsort(-ranker.play_equities(variant, plays))
        keep = [plays[int(i)] for i in order[: args.plays]]
        if chosen not in keep:
            keep.append(chosen)
        results = rollout_plays(
            variant, keep, [roller, roller], games=args.games, seed=args.seed, luck=luck
        )
        ranked = sorted(zip(keep, results, strict=True), key=lambda pr: -pr[1].equity)
        top_play, top = ranked[0]
        rank = next(i for i, (p, _) in enumerate(ranked) if p == chosen) + 1
        mine = next(r for p, r in ranked if p == chosen)
        loss = top.equity - mine.equity
        losses.append(loss)
        done += 1
        best += rank == 1
        within += loss <= max(top.ci95, mine.ci95)
        names = ", ".join("{}-{}".format(*larger_first(r)) for r in rolls)
        next_play, after = ranked[1]
        print(
            f"| {names} (`{position_id(side)}`) | `{format_play(chosen)}` "
            f"{mine.equity:+.3f} | {rank} of {len(ranked)} | `{format_play(top_play)}` "
            f"{top.equity:+.3f} ± {top.ci95:.3f} | `{format_play(next_play)}` "
            f"{after.equity:+.3f} | {loss:.3f} |",
            flush=True,
        )
    cpu = time.process_time() - started
    print(
        f"positions={done} expert_best={best} expert_within_ci={within} "
        f"mean_loss={float(np.mean(losses)):.4f} games={args.games} cpu_s={cpu:.0f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
