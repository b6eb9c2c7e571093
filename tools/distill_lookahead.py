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
labelling time over more games. With ``--deep P`` a share P of the positions is also
labelled two rolls deep (:func:`core.ai.distill.two_ply_targets`, reduced; about ten times
a 1-ply label) as ``labels2`` (NaN elsewhere). Each chunk also records, for each position,
whether it was met in the game (``met``; else it is the board after another play), the
game (``game``, numbered within the chunk), its ply (``ply``), the game's result from
its side on roll (``result``, the five outputs) and the random plays made from its ply on
(``randoms_after``), so targets mixing in the games' outcomes can be built without
labelling again. Chunk ``k`` uses the seed
``seed * 1000003 + k`` and is written to ``DIR/chunk_1_<teacher stem>_<seed>_<k>.npz`` in
``distill_gnubg.py``'s format (positions uint8, labels float32, plies 1, the teacher and
the number of games); the games and 1-ply labels of a seed do not depend on ``--deep``;
a rerun skips chunks already written, so the command resumes; ``--part I/N`` makes only
the chunks ``k`` with ``k % N == I``, so that N processes (one a core) fill one folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from core.ai.distill import one_ply_targets, two_ply_targets  # noqa: E402
from core.ai.lookahead import first_turn, rows_array  # noqa: E402
from core.ai.network import (  # noqa: E402
    N_OUT,
    WEIGHTS_DIR,
    Network,
    equity,
    flip,
    positions_array,
)
from core.ai.race import BearoffEvaluator, both_in_bearoff_array  # noqa: E402
from core.ai.sim import opening, outcome_vector, result_points  # noqa: E402
from core.boards_after import boards_after  # noqa: E402
from core.dice import RandomDice  # noqa: E402
from core.position import CHECKERS, OFF, Position  # noqa: E402
from core.variants import variant_by_name  # noqa: E402

EPSILONS = (0.0, 0.03, 0.10, 0.25)
OTHERS = 2  # other candidate plays stored per roll, from the teacher's best five


@dataclass
class GameRecord:
    """What one labelling game stores: the positions (side on roll, before rolling), and
    for each whether it was met in the game (else it is the board after another play of
    the roll), its ply in the game, and the game's result from its side on roll (the five
    outputs: win, win gammon, win backgammon, lose gammon, lose backgammon)."""

    positions: list[Position] = field(default_factory=list)
    met: list[bool] = field(default_factory=list)
    plies: list[int] = field(default_factory=list)
    results: list[list[float]] = field(default_factory=list)
    #: For each position, the random plays of the game from its ply on (the game after it
    #: followed the teacher's choices alone when 0).
    randoms_after: list[int] = field(default_factory=list)


def game_record(
    teacher: BearoffEvaluator, seed: int, games_seed: int, eps: float, keep: float = 1.0
) -> GameRecord:
    """The positions to label from one seeded self-play game (see the module doc).

    With ``keep`` below 1 each turn's positions (the one met and its other plays) are
    stored with that chance: more games for the same labelling time. The choice has its
    own generator, so the game played is the same whatever ``keep`` is and its stored
    positions are a subset of those with ``keep`` 1. The games follow the boards of
    :func:`core.boards_after.boards_after` (the same as ``legal_plays``'s, in its order)."""
    variant = variant_by_name("uzun")
    rng = np.random.default_rng(seed)
    sampler = np.random.default_rng([seed, 1])
    dice = RandomDice(games_seed)
    _seat, roll = opening(variant, dice)
    side = variant.start_position()
    record = GameRecord()
    movers: list[int] = []  # for each stored position: 0 if its side on roll started
    randoms: list[int] = []  # for each stored position: random plays before its ply
    made_random = 0
    mover = 0
    winner = -1
    points = 0
    for ply in range(5000):
        rows = boards_after(variant, side, roll, first_turn(variant, side))
        if not rows:
            side = side.swapped()
            mover = 1 - mover
            roll = dice.roll()
            continue
        won = [row for row in rows if row[26 + OFF] == CHECKERS]
        if won:  # the game ends with this play
            winner = mover
            points = max(result_points(variant, _after(row)) for row in won)
            break
        stored = keep >= 1.0 or sampler.random() < keep
        if stored:
            record.positions.append(side)
            record.met.append(True)
            record.plies.append(ply)
            movers.append(mover)
            randoms.append(made_random)
        if len(rows) > 1:
            eqs = -equity(teacher.evaluate_array(rows_array(rows)))  # the mover's equities
            order = np.argsort(-eqs)
            choice = int(order[0])
            if rng.random() < eps:
                choice = int(rng.integers(len(rows)))
                made_random += choice != int(order[0])
            others = [int(i) for i in order[:5] if i != choice]
            for i in rng.permutation(others)[:OTHERS]:
                if stored:
                    row = rows[int(i)]
                    record.positions.append(Position(tuple(row[:26]), tuple(row[26:])))
                    record.met.append(False)
                    record.plies.append(ply + 1)
                    movers.append(1 - mover)
                    randoms.append(made_random)
        else:
            choice = 0
        row = rows[choice]
        side = Position(tuple(row[:26]), tuple(row[26:]))
        mover = 1 - mover
        roll = dice.roll()
    win = outcome_vector(points)
    lose = list(flip(np.array(win)))
    record.results = [win if m == winner else lose for m in movers]
    record.randoms_after = [made_random - r for r in randoms]
    if record.positions:
        wanted = ~both_in_bearoff_array(positions_array(record.positions), True)
        for name in ("positions", "met", "plies", "results", "randoms_after"):
            column = getattr(record, name)
            setattr(record, name, [x for x, k in zip(column, wanted, strict=True) if k])
    return record


def _after(row: bytes) -> Position:
    """The board of a :func:`boards_after` row seen from the side that moved."""
    return Position(tuple(row[26:]), tuple(row[:26]))


def game_positions(
    teacher: BearoffEvaluator, seed: int, games_seed: int, eps: float, keep: float = 1.0
) -> list[Position]:
    """The positions :func:`game_record` stores from one game."""
    return game_record(teacher, seed, games_seed, eps, keep).positions


def label_chunk(
    teacher: BearoffEvaluator, seed: int, size: int, keep: float = 1.0, deep: float = 0.0
) -> tuple[dict[str, np.ndarray], int]:
    """``size`` or more labelled positions from seeded games, as the arrays of a chunk
    (``positions``, ``labels`` and the games' records; with ``deep``, ``labels2``: the
    reduced 2-ply targets of that share of the positions, NaN elsewhere); also the number
    of games."""
    variant = variant_by_name("uzun")
    rng = np.random.default_rng(seed)
    chooser = np.random.default_rng([seed, 2])  # its own: the 1-ply chunk stays the same
    parts: dict[str, list[np.ndarray]] = {
        k: []
        for k in (
            "positions",
            "labels",
            "labels2",
            "met",
            "game",
            "ply",
            "result",
            "randoms_after",
        )
    }
    games = made = 0
    while made < size:
        games += 1
        eps = EPSILONS[games % len(EPSILONS)]
        record = game_record(
            teacher, int(rng.integers(1 << 62)), int(rng.integers(1 << 62)), eps, keep
        )
        met = record.positions
        if not met:
            continue
        made += len(met)
        parts["positions"].append(positions_array(met).astype(np.uint8))
        parts["labels"].append(one_ply_targets(teacher, variant, met).astype(np.float32))
        deeper = np.full((len(met), N_OUT), np.nan, dtype=np.float32)
        if deep > 0.0:
            pick = np.flatnonzero(chooser.random(len(met)) < deep)
            if len(pick):
                chosen = [met[int(i)] for i in pick]
                deeper[pick] = two_ply_targets(teacher, variant, chosen)
        parts["labels2"].append(deeper)
        parts["met"].append(np.array(record.met, dtype=bool))
        parts["game"].append(np.full(len(met), games - 1, dtype=np.int32))
        parts["ply"].append(np.array(record.plies, dtype=np.int16))
        parts["result"].append(np.array(record.results, dtype=np.float32))
        parts["randoms_after"].append(np.array(record.randoms_after, dtype=np.int16))
    return {k: np.concatenate(v) for k, v in parts.items()}, games


def part_of(text: str) -> tuple[int, int]:
    """``I/N`` as ``(I, N)``; argparse turns the ValueError into its usage message."""
    i, sep, n = text.partition("/")
    if not sep or not i.isdigit() or not n.isdigit() or not 0 <= int(i) < int(n):
        raise argparse.ArgumentTypeError(f"{text!r}: want I/N with 0 <= I < N, e.g. 0/2")
    return int(i), int(n)


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
    parser.add_argument(
        "--deep",
        type=float,
        default=0.0,
        help="share of the positions also labelled two rolls deep (labels2)",
    )
    parser.add_argument("--log", type=Path, default=None)
    parser.add_argument(
        "--part",
        type=part_of,
        default=(0, 1),
        help="I/N: make only the chunks k with k %% N == I (N processes share one --dir)",
    )
    args = parser.parse_args(argv)
    part, parts = args.part
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
        if path.exists() or k % parts != part:
            k += 1
            continue
        t0, cpu0 = time.time(), time.process_time()
        arrays, games = label_chunk(
            teacher, args.seed * 1_000_003 + k, args.chunk, args.keep, args.deep
        )
        tmp = path.with_name(path.stem + ".tmp.npz")
        np.savez_compressed(
            tmp,
            **arrays,
            plies=1,
            teacher=f"{args.teacher.name} 1-ply",
            games=games,
            keep=args.keep,
            deep=args.deep,
        )
        tmp.replace(path)
        made += len(arrays["positions"])
        line = (
            f"{time.strftime('%H:%M:%S')} label chunk={k} positions={len(arrays['positions'])} "
            f"games={games} keep={args.keep} deep={int(np.isfinite(arrays['labels2'][:, 0]).sum())} "
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
