"""Expert iteration for Uzun Tavla: label positions with a network's 1-ply look-ahead.

    .venv/bin/python tools/distill_lookahead.py --dir /work/ai-data/uzun --minutes 30
    .venv/bin/python tools/distill_gnubg.py train --dir /work/ai-data/uzun --kind uzun \\
        --init core/ai/weights/uzun.npz --lr 3e-4 --decay --minutes 10 --out NEW.npz

Long nardy has no outside teacher like GNU Backgammon, but a network's 1-ply look-ahead
(what the ``expert`` player computes) is stronger than its own 0-ply: fitting the network
to its 1-ply values, and repeating with the new network, is expert iteration.

The games are seeded self-play with the teacher's 0-ply choices (``club``), and with a
per-game probability of 0, 3, 10 or 25% a random legal play. Every position met (side on
roll, before rolling) is stored with up to ``OTHERS`` positions after other plays of the
same roll among the teacher's best five (the choices the network must rank), each
labelled with :func:`core.ai.distill.one_ply_targets` (the teacher with the bear-off
database, so bear-offs are exact). Positions with both sides bearing off, where the players
use the database and never the network, are not stored. With ``--keep P`` each turn's
positions are stored with chance P (the games are played the same), which spreads the
labelling time over more games. Chunk ``k`` uses the seed
``seed * 1000003 + k`` and is written to ``DIR/chunk_1_<teacher stem>_<seed>_<k>.npz`` in
``distill_gnubg.py``'s format (positions uint8, labels float32, plies 1, the teacher and
the number of games);
a rerun skips chunks already written, so the command resumes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from core.ai.distill import one_ply_targets  # noqa: E402
from core.ai.lookahead import first_turn  # noqa: E402
from core.ai.network import WEIGHTS_DIR, Network, equity, positions_array  # noqa: E402
from core.ai.race import BearoffEvaluator, both_in_bearoff_array  # noqa: E402
from core.ai.sim import opening  # noqa: E402
from core.dice import RandomDice  # noqa: E402
from core.movegen import legal_plays  # noqa: E402
from core.position import CHECKERS, OFF, Position  # noqa: E402
from core.variants import variant_by_name  # noqa: E402

EPSILONS = (0.0, 0.03, 0.10, 0.25)
OTHERS = 2  # other candidate plays stored per roll, from the teacher's best five


def game_positions(
    teacher: BearoffEvaluator, seed: int, games_seed: int, eps: float, keep: float = 1.0
) -> list[Position]:
    """The positions to label from one seeded self-play game (see the module doc).

    With ``keep`` below 1 each turn's positions (the one met and its other plays) are
    stored with that chance: more games for the same labelling time. The choice has its
    own generator, so the game played is the same whatever ``keep`` is and its stored
    positions are a subset of those with ``keep`` 1."""
    variant = variant_by_name("uzun")
    rng = np.random.default_rng(seed)
    sampler = np.random.default_rng([seed, 1])
    dice = RandomDice(games_seed)
    _seat, roll = opening(variant, dice)
    side = variant.start_position()
    out: list[Position] = []
    for _ in range(5000):
        plays = legal_plays(variant, side, roll, first_turn(variant, side))
        if not plays:
            side = side.swapped()
            roll = dice.roll()
            continue
        if any(p.after.mover[OFF] == CHECKERS for p in plays):
            break  # the game ends with this play
        stored = keep >= 1.0 or sampler.random() < keep
        if stored:
            out.append(side)
        if len(plays) > 1:
            arr = positions_array([p.after.swapped() for p in plays])
            eqs = -equity(teacher.evaluate_array(arr))  # the mover's equity of each play
            order = np.argsort(-eqs)
            choice = int(order[0])
            if rng.random() < eps:
                choice = int(rng.integers(len(plays)))
            others = [int(i) for i in order[:5] if i != choice]
            for i in rng.permutation(others)[:OTHERS]:
                if stored:
                    out.append(plays[int(i)].after.swapped())
        else:
            choice = 0
        side = plays[choice].after.swapped()
        roll = dice.roll()
    wanted = ~both_in_bearoff_array(positions_array(out), True) if out else []
    return [p for p, k in zip(out, wanted, strict=True) if k]


def label_chunk(
    teacher: BearoffEvaluator, seed: int, size: int, keep: float = 1.0
) -> tuple[np.ndarray, np.ndarray, int]:
    """``size`` or more labelled positions from seeded games; also the number of games."""
    variant = variant_by_name("uzun")
    rng = np.random.default_rng(seed)
    positions: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    games = 0
    while sum(len(p) for p in positions) < size:
        games += 1
        eps = EPSILONS[games % len(EPSILONS)]
        met = game_positions(
            teacher, int(rng.integers(1 << 62)), int(rng.integers(1 << 62)), eps, keep
        )
        if not met:
            continue
        positions.append(positions_array(met).astype(np.uint8))
        labels.append(one_ply_targets(teacher, variant, met).astype(np.float32))
    return np.concatenate(positions), np.concatenate(labels), games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--teacher", type=Path, default=WEIGHTS_DIR / "uzun.npz")
    parser.add_argument("--dir", type=Path, default=Path("/work/ai-data/uzun"))
    parser.add_argument("--chunk", type=int, default=5000, help="positions per chunk")
    parser.add_argument("--chunks", type=int, default=0, help="stop after chunk k (0: no limit)")
    parser.add_argument("--minutes", type=float, default=0.0, help="stop after this long")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--keep", type=float, default=1.0, help="chance a turn's positions are stored"
    )
    parser.add_argument("--log", type=Path, default=None)
    args = parser.parse_args(argv)
    if not args.chunks and not args.minutes:
        parser.error("give --chunks or --minutes")
    args.dir.mkdir(parents=True, exist_ok=True)
    teacher = BearoffEvaluator(Network.load(args.teacher))
    log_file = args.log.open("a") if args.log else None
    start = time.time()
    k = made = 0
    while not args.minutes or time.time() - start < args.minutes * 60:
        if args.chunks and k >= args.chunks:
            break
        path = args.dir / f"chunk_1_{args.teacher.stem}_{args.seed}_{k:05d}.npz"
        if path.exists():
            k += 1
            continue
        t0, cpu0 = time.time(), time.process_time()
        pos, lab, games = label_chunk(teacher, args.seed * 1_000_003 + k, args.chunk, args.keep)
        tmp = path.with_name(path.stem + ".tmp.npz")
        np.savez_compressed(
            tmp,
            positions=pos,
            labels=lab,
            plies=1,
            teacher=f"{args.teacher.name} 1-ply",
            games=games,
            keep=args.keep,
        )
        tmp.replace(path)
        made += len(pos)
        line = (
            f"{time.strftime('%H:%M:%S')} label chunk={k} positions={len(pos)} games={games} "
            f"keep={args.keep} "
            f"wall_s={time.time() - t0:.1f} cpu_s={time.process_time() - cpu0:.1f} "
            f"total_new={made} load={os.getloadavg()[0]:.2f}"
        )
        print(line, flush=True)
        if log_file:
            log_file.write(line + "\n")
            log_file.flush()
        k += 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
