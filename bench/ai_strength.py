"""Strength of the computer players: many seeded cubeless money games between two players.

    .venv/bin/python bench/ai_strength.py --variant tavla --a club --b pubeval --games 5000
    .venv/bin/python bench/ai_strength.py --variant uzun --a expert --b heuristic --games 1000

Games come in pairs with the same dice and the seats swapped, which lowers the variance.
``--jobs N`` spreads the pairs over N processes (one a core; the game numbers fix the
dice and seats, so the figures are those of one process).
Prints points per game of A with a 95% confidence interval, A's win rate, gammon (mars)
and backgammon rates both ways, and each side's mean and 95th-percentile decision time
(only rolls with a choice are timed). The last line holds the headline figures as
``name=value`` pairs.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# One core: keep NumPy's BLAS from spreading small matrix products over threads.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.ai import player_for  # noqa: E402
from core.ai.network import Network  # noqa: E402
from core.ai.sim import play_game  # noqa: E402
from core.dice import RandomDice  # noqa: E402
from core.variants import variant_by_name  # noqa: E402


def _p95(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _mean_ci(values: list[int]) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its 95% confidence interval."""
    n = len(values)
    mean = sum(values) / n
    var = sum((x - mean) ** 2 for x in values) / max(1, n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def _look_filter(text: str) -> dict[str, float]:
    """``C,T,D,DT,BUDGET`` as NeuralPlayer's filter attributes."""
    try:
        c, t, d, dt, budget = text.split(",")
        return {
            "candidates": int(c),
            "threshold": float(t),
            "deep": int(d),
            "deep_threshold": float(dt),
            "budget": int(budget),
        }
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: want C,T,D,DT,BUDGET, e.g. 3,0.16,3,0.16,12000"
        ) from None


def _play_games(
    args: argparse.Namespace, games: list[int]
) -> list[tuple[int, int, list[float], list[float]]]:
    """Plays games ``games`` (by number: the dice and seats depend on it alone): for each,
    the number, A's signed points, and A's and B's decision times."""
    variant = variant_by_name(args.variant)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    net_a = Network.load(args.a_weights) if args.a_weights else None
    net_b = Network.load(args.b_weights) if args.b_weights else None
    a = player_for(args.variant, args.a, seed=args.seed, net=net_a, use_gnubg=not args.a_own)
    b = player_for(args.variant, args.b, seed=args.seed + 1, net=net_b)
    for player, look in ((a, args.a_filter), (b, args.b_filter)):
        if look is not None:
            for name, value in look.items():
                setattr(player, name, value)
    out = []
    for g in games:
        a_seat = g % 2
        players = [a, b] if a_seat == 0 else [b, a]
        dice = RandomDice(args.seed * 100_003 + g // 2)
        record = play_game(variant, players, dice, timed=True, clock=clock)
        points = record.points if record.winner == a_seat else -record.points
        out.append((g, points, record.times[a_seat], record.times[1 - a_seat]))
        if args.progress and len(out) % args.progress == 0:
            _print_progress(args, out)
    return out


def _print_progress(
    args: argparse.Namespace, played: list[tuple[int, int, list[float], list[float]]]
) -> None:
    """The running score of the games ``played`` so far, as the last line's ``name=value``
    pairs (a run stopped early still has its decision times)."""
    print(f"{len(played)} games: {_headline(args, played)}", flush=True)


def _headline(
    args: argparse.Namespace, played: list[tuple[int, int, list[float], list[float]]]
) -> str:
    """The headline figures of the games ``played`` as ``name=value`` pairs."""
    results = [r[1] for r in played]
    times_a = [t for r in played for t in r[2]]
    times_b = [t for r in played for t in r[3]]
    n = len(results)
    mean, ci = _mean_ci(results)
    name_a = f"{args.a}-own" if args.a_own else args.a  # Tavla's master without gnubg
    return (
        f"variant={args.variant} a={name_a} b={args.b} games={n} ppg={mean:.3f} ci95={ci:.3f} "
        f"win={sum(x > 0 for x in results) / n:.3f} "
        f"gammon_win={sum(x >= 2 for x in results) / n:.3f} "
        f"gammon_loss={sum(x <= -2 for x in results) / n:.3f} "
        f"a_ms={1000 * sum(times_a) / max(1, len(times_a)):.2f} "
        f"a_p95_ms={1000 * _p95(times_a):.2f} "
        f"b_ms={1000 * sum(times_b) / max(1, len(times_b)):.2f} "
        f"b_p95_ms={1000 * _p95(times_b):.2f} clock={args.clock}"
        + "".join(
            f" {side}_filter=" + ",".join(str(v) for v in look.values())
            for side, look in (("a", args.a_filter), ("b", args.b_filter))
            if look is not None
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="tavla", choices=["tavla", "turkish", "uzun"])
    parser.add_argument("--a", default="club", help="level of player A")
    parser.add_argument("--b", default="pubeval", help="level of player B")
    parser.add_argument("--a-weights", type=Path, help="A plays with these weights (.npz)")
    parser.add_argument("--b-weights", type=Path, help="B plays with these weights (.npz)")
    parser.add_argument(
        "--a-own",
        action="store_true",
        help="A's Tavla master plays our own look-ahead even where GNU Backgammon is installed",
    )
    for side in ("a", "b"):
        parser.add_argument(
            f"--{side}-filter",
            type=_look_filter,
            metavar="C,T,D,DT,BUDGET",
            help=f"{side.upper()}'s look-ahead filter instead of its level's (expert, master): "
            "1-ply candidates, threshold, 2-ply count, 2-ply threshold, budget of boards (0: none)",
        )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--progress", type=int, default=0, help="print every N games")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="play the games in this many processes (same figures, except the noise of "
        "beginner and heuristic players, which each process draws afresh)",
    )
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="time decisions by the wall clock or by this process's CPU time (busy machines)",
    )
    args = parser.parse_args(argv)

    variant = variant_by_name(args.variant)
    start = time.time()
    games = range(args.games)
    if args.jobs > 1:
        # Blocks of whole pairs (same dice, seats swapped) to the workers, in game order;
        # the running score is printed here, over every game of the blocks finished.
        size = 2 * max(1, (args.progress or 100) // 2)
        parts = [list(games[i : i + size]) for i in range(0, args.games, size)]
        quiet = argparse.Namespace(**{**vars(args), "progress": 0})
        played = []
        with ProcessPoolExecutor(args.jobs) as pool:
            for part in pool.map(_play_games, [quiet] * len(parts), parts):
                played += part
                if args.progress:
                    _print_progress(args, played)
        played.sort(key=lambda r: r[0])
    else:
        played = _play_games(args, list(games))
    results: list[int] = []
    wins = gammon_wins = gammon_losses = bg_wins = bg_losses = 0
    times_a: list[float] = []
    times_b: list[float] = []
    for _g, points, own_times, other_times in played:
        won = points > 0
        results.append(points)
        wins += won
        gammon_wins += points >= 2
        gammon_losses += points <= -2
        bg_wins += points >= 3
        bg_losses += points <= -3
        times_a += own_times
        times_b += other_times
    n = len(results)
    mean, ci = _mean_ci(results)
    ms_a = 1000 * sum(times_a) / max(1, len(times_a))
    ms_b = 1000 * sum(times_b) / max(1, len(times_b))
    name_a = f"{args.a}-own" if args.a_own else args.a  # Tavla's master without gnubg
    print(f"{args.variant}: {name_a} (A) against {args.b} (B), {n} games, seed {args.seed}")
    print(f"decision times by the {args.clock} clock")
    print(f"A points per game: {mean:+.3f} ± {ci:.3f} (95% CI)")
    print(
        f"A wins: {wins / n:.1%}; gammons won {gammon_wins / n:.1%}, lost {gammon_losses / n:.1%}"
    )
    if variant.backgammons:
        print(f"backgammons won {bg_wins / n:.1%}, lost {bg_losses / n:.1%}")
    print(f"decision time A ({name_a}): mean {ms_a:.2f} ms, p95 {1000 * _p95(times_a):.2f} ms")
    print(f"decision time B ({args.b}): mean {ms_b:.2f} ms, p95 {1000 * _p95(times_b):.2f} ms")
    print(f"elapsed {time.time() - start:.0f} s")
    print(_headline(args, played))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
