"""Distil GNU Backgammon's evaluator into the Tavla network: label positions, then train.

    .venv/bin/python tools/distill_gnubg.py label --minutes 20 --dir /work/ai-data/tavla
    .venv/bin/python tools/distill_gnubg.py train --minutes 30 --dir /work/ai-data/tavla \\
        --hidden 128 --out /work/ai-data/tavla-128.npz

``label`` plays seeded Tavla games in which each side makes gnubg's best 0-ply play, or with
a per-game probability (0, 3, 10 or 25%) a random legal play, and stores the positions
met (side on roll, before rolling) together with the positions after up to two other
candidate plays of each roll (what the network must rank at decision time), each labelled
with gnubg's five cubeless chances for the side on roll at ``--plies``. Positions where
both sides bear off with contact gone (the bear-off database is exact there) are kept
only one time in ten. Chunk ``k`` of ``--chunk`` positions uses the seed ``seed * 1000003
+ k`` and is written to ``DIR/chunk_<plies>_<seed>_<k>.npz`` (positions uint8, labels
float32); a rerun skips chunks already written, so the command resumes.

With ``--policy NET.npz`` the games follow that network's 0-ply choices instead (still
labelled by gnubg; the chunk names then carry the file's stem): a second round on the
positions a first distilled net actually meets, as in DAgger.

``train`` fits a network (fresh, or ``--init`` weights of the same shape, or widened to
``--widen`` hidden units with the new units starting silent) to every chunk in
``--dir`` (duplicates merged, labels averaged; a seeded 5% held out) by minibatch Adam on
the cross-entropy of the five outputs, keeps the weights that score best on the held-out
positions, and writes them with metadata saying how they were made. The gnubg extra is
needed for ``label`` only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from core.ai.distill import SupervisedTrainer, cross_entropy  # noqa: E402
from core.ai.gnubg_player import gnubg_boards  # noqa: E402
from core.ai.network import ENCODERS, Network, equity, flip, positions_array  # noqa: E402
from core.ai.race import both_in_bearoff_array  # noqa: E402
from core.ai.sim import opening  # noqa: E402
from core.dice import RandomDice  # noqa: E402
from core.movegen import legal_plays  # noqa: E402
from core.position import CHECKERS, OFF  # noqa: E402
from core.variants import variant_by_name  # noqa: E402

EPSILONS = (0.0, 0.03, 0.10, 0.25)
OTHERS = 2  # other candidate plays stored per roll
BEAROFF_KEEP = 0.1


class Logger:
    def __init__(self, path: Path | None) -> None:
        self.file = path.open("a") if path else None

    def __call__(self, message: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {message}"
        print(line, flush=True)
        if self.file:
            self.file.write(line + "\n")
            self.file.flush()


def label_chunk(
    gnubg, plies: int, seed: int, size: int, policy: Network | None = None
) -> tuple[np.ndarray, np.ndarray, int]:
    """``size`` labelled positions from seeded games (see the module doc); also the games.

    With a ``policy`` network the games follow its 0-ply choices (with the same exploration)
    instead of gnubg's, so the positions are those that network meets."""
    variant = variant_by_name("tavla")
    rng = np.random.default_rng(seed)
    cubeinfo = gnubg.cubeinfo()
    context = gnubg.evalcontext(0, plies, 0, 0, 0)
    positions: list[np.ndarray] = []
    labels: list[np.ndarray] = []

    def rate(arr: np.ndarray) -> np.ndarray:
        return np.array(gnubg.evaluate(gnubg_boards(arr)[0], cubeinfo, context)[:5])

    def keep(arr: np.ndarray, label: np.ndarray) -> None:
        if both_in_bearoff_array(arr[None], False)[0] and rng.random() > BEAROFF_KEEP:
            return
        positions.append(arr.astype(np.uint8))
        labels.append(label.astype(np.float32))

    games = 0
    while len(positions) < size:
        games += 1
        dice = RandomDice(int(rng.integers(1 << 62)))
        eps = EPSILONS[games % len(EPSILONS)]
        _seat, roll = opening(variant, dice)
        side = variant.start_position()
        for _ in range(2000):
            plays = legal_plays(variant, side, roll)
            if plays:
                live = [p for p in plays if p.after.mover[OFF] < CHECKERS]
                if len(live) < len(plays):
                    break  # a play bears off the last checker: gnubg would take it
                arrs = positions_array([p.after.swapped() for p in live]).astype(np.int64)
                if len(live) == 1:
                    choice = 0
                    outs = None
                elif policy is None:
                    outs = np.array([rate(a) for a in arrs])
                    choice = int(np.argmin(equity(outs)))  # the opponent's lowest
                else:
                    outs = None
                    choice = int(np.argmin(equity(policy.evaluate_array(arrs.astype(float)))))
                if len(live) > 1:
                    if rng.random() < eps:
                        choice = int(rng.integers(len(live)))
                    others = [i for i in range(len(live)) if i != choice]
                    for i in rng.permutation(others)[:OTHERS]:
                        keep(arrs[i], outs[i] if outs is not None else rate(arrs[i]))
                label = outs[choice] if outs is not None else rate(arrs[choice])
                keep(arrs[choice], label)
                side = live[choice].after.swapped()
            else:
                side = side.swapped()
            roll = dice.roll()
    return np.stack(positions), np.stack(labels), games


def cmd_label(args: argparse.Namespace) -> int:
    import gnubg

    args.dir.mkdir(parents=True, exist_ok=True)
    policy = Network.load(args.policy) if args.policy else None
    log = Logger(args.log)
    start = time.time()
    k = 0
    made = 0
    while not args.minutes or time.time() - start < args.minutes * 60:
        if args.chunks and k >= args.chunks:
            break
        tag = f"{args.policy.stem}_" if args.policy else ""
        path = args.dir / f"chunk_{args.plies}_{tag}{args.seed}_{k:05d}.npz"
        if path.exists():
            k += 1
            continue
        t0 = time.time()
        cpu0 = time.process_time()
        pos, lab, games = label_chunk(
            gnubg, args.plies, args.seed * 1_000_003 + k, args.chunk, policy
        )
        tmp = path.with_name(path.stem + ".tmp.npz")
        np.savez_compressed(tmp, positions=pos, labels=lab, plies=args.plies)
        tmp.replace(path)
        made += len(pos)
        log(
            f"label chunk={k} positions={len(pos)} games={games} "
            f"wall_s={time.time() - t0:.1f} cpu_s={time.process_time() - cpu0:.1f} "
            f"total_new={made} load={os.getloadavg()[0]:.2f}"
        )
        k += 1
    return 0


def load_chunks(
    directory: Path | list[Path],
    plies: int | None,
    teachers: set[str] | None = None,
    games: list[int] | None = None,
    deep: bool = False,
    lam: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Every chunk's positions (N, 52) and labels, duplicates merged (labels averaged).

    The teachers named in the chunks (``tools/distill_lookahead.py`` writes one; gnubg's
    chunks have none) are added to ``teachers``, and the chunks' numbers of games (where
    recorded) to ``games``, when given. With ``deep`` a position's 2-ply label replaces
    its 1-ply one where the chunk has it (``labels2``); with ``lam`` above 0 the labels of
    the positions met in greedy games (no random plays) become lambda-returns mixing in the
    game's outcome (:func:`lambda_returns`)."""
    directories = directory if isinstance(directory, list) else [directory]
    pos, lab = [], []
    for path in sorted(p for d in directories for p in d.glob("chunk_*.npz")):
        with np.load(path) as data:
            if plies is not None and int(data["plies"]) != plies:
                continue
            labels = data["labels"].astype(np.float64)
            if deep and "labels2" in data:
                deeper = data["labels2"].astype(np.float64)
                known = np.isfinite(deeper[:, 0])
                labels[known] = deeper[known]
            if lam > 0.0 and "result" in data:
                randoms = data.get("randoms_after", None)
                labels = lambda_returns(
                    labels, data["met"], data["game"], data["ply"], data["result"], lam, randoms
                )
            pos.append(data["positions"].reshape(-1, 52))
            lab.append(labels)
            if teachers is not None:
                teachers.add(str(data["teacher"]) if "teacher" in data else "gnubg")
            if games is not None and "games" in data:
                games.append(int(data["games"]))
    allpos = np.concatenate(pos)
    alllab = np.concatenate(lab)
    uniq, inverse = np.unique(allpos, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    sums = np.zeros((len(uniq), 5))
    np.add.at(sums, inverse, alllab)
    counts = np.bincount(inverse, minlength=len(uniq))[:, None]
    return uniq, sums / counts


#: Games of a labelling chunk played without random plays (``distill_lookahead.py``: game
#: ``g`` of a chunk, counted from 0, explores with ``EPSILONS[(g + 1) % 4]``; 0 for g % 4 == 3).
GREEDY_GAME = 3


def lambda_returns(
    labels: np.ndarray,
    met: np.ndarray,
    game: np.ndarray,
    ply: np.ndarray,
    result: np.ndarray,
    lam: float,
    randoms_after: np.ndarray | None = None,
) -> np.ndarray:
    """Labels of the positions met in a game turned into lambda-returns.

    Going back from the game's end, a met position's target is ``(1 - lam)`` times its
    label plus ``lam`` times the next met position's target (turned to this position's
    side when the other side is on roll there), and after the last one the game's result:
    the teacher's look-ahead corrected by what happened. Only what followed the teacher's
    own choices counts: with ``randoms_after`` (the random plays made from each position's
    ply on) a position followed by a random play before the next one keeps its label and
    starts the return afresh; without it, only the greedy games are used. Other positions
    keep their labels."""
    out = labels.copy()
    for g in np.unique(game):
        if randoms_after is None and g % 4 != GREEDY_GAME:
            continue
        idx = np.flatnonzero((game == g) & met)
        idx = idx[np.argsort(ply[idx], kind="stable")]
        if not len(idx):
            continue
        ahead = result[idx[-1]].astype(np.float64)
        ahead_ply = int(ply[idx[-1]])
        later_randoms = 0
        for i in idx[::-1]:
            if (ahead_ply - int(ply[i])) % 2:
                ahead = flip(ahead)
            if randoms_after is not None and int(randoms_after[i]) > later_randoms:
                ahead = labels[i]  # a random play came before what follows
            ahead = (1.0 - lam) * labels[i] + lam * ahead
            ahead_ply = int(ply[i])
            later_randoms = 0 if randoms_after is None else int(randoms_after[i])
            out[i] = ahead
    return out


def widen(net: Network, hidden: int, seed: int) -> None:
    """Give ``net`` ``hidden`` hidden units, the new ones with small random inputs and no
    weight to the outputs yet, so the widened net computes exactly what it did."""
    rng = np.random.default_rng(seed)
    extra = hidden - net.w1.shape[0]
    net.w1 = np.vstack([net.w1, rng.uniform(-0.1, 0.1, (extra, net.w1.shape[1]))])
    net.b1 = np.concatenate([net.b1, np.zeros(extra)])
    net.w2 = np.hstack([net.w2, np.zeros((net.w2.shape[0], extra))])
    net.weights_changed()


def extend(net: Network, kind: str) -> None:
    """Give ``net`` the inputs of encoding ``kind``, whose first inputs are its own (as
    ``uzun2`` extends ``uzun``), the new ones weighing nothing yet: the net computes exactly
    what it did."""
    fresh = Network.fresh(kind, net.w1.shape[0])
    extra = fresh.w1.shape[1] - net.w1.shape[1]
    if extra < 0:
        raise ValueError(f"{kind} has fewer inputs than {net.kind}")
    net.w1 = np.hstack([net.w1, np.zeros((net.w1.shape[0], extra))])
    net.kind = kind
    net.encode = fresh.encode
    net.weights_changed()


def cmd_train(args: argparse.Namespace) -> int:
    log = Logger(args.log)
    rng = np.random.default_rng(args.seed)
    teachers: set[str] = set()
    games: list[int] = []
    dirs = [args.dir, *args.also]
    pos, lab = load_chunks(dirs, args.plies, teachers, games, args.deep, args.lam)
    arr = pos.reshape(-1, 2, 26).astype(np.float64)
    init_meta: dict = {}
    if args.init:
        net = Network.load(args.init)
        init_meta = dict(net.meta)
        if args.extend:
            extend(net, args.extend)
        if args.widen > net.w1.shape[0]:
            widen(net, args.widen, args.seed)
    else:
        net = Network.fresh(args.kind, args.hidden, seed=args.seed)
    dtype = np.float32 if args.float32 else np.float64
    x = np.concatenate(
        [net.encode(arr[i : i + 50_000]) for i in range(0, len(arr), 50_000)]
    ).astype(dtype)
    lab = lab.astype(dtype)
    if args.float32:
        net.w1, net.b1, net.w2, net.b2 = (
            p.astype(np.float32) for p in (net.w1, net.b1, net.w2, net.b2)
        )
    held = rng.random(len(x)) < 0.05
    xt, tt, xv, tv = x[~held], lab[~held], x[held], lab[held]
    log(f"train positions={len(xt)} held_out={len(xv)} hidden={net.w1.shape[0]} in={x.shape[1]}")
    trainer = SupervisedTrainer(net, lr=args.lr)

    def held_out() -> tuple[float, float]:
        y = net.forward_x(xv)
        rmse = float(np.sqrt(np.mean((equity(y) - equity(tv)) ** 2)))
        return cross_entropy(y, tv), rmse

    best = (np.inf, 0.0)
    best_params = [p.copy() for p in trainer.params]
    start = time.time()
    epoch = 0
    while epoch < args.epochs and time.time() - start < args.minutes * 60:
        # Step the learning rate down over the run (by epochs when given, else by time).
        frac = (
            epoch / args.epochs
            if args.epochs < 10_000
            else (time.time() - start) / (args.minutes * 60)
        )
        trainer.lr = args.lr * (0.1 ** min(1.0, frac)) if args.decay else args.lr
        loss = trainer.epoch(xt, tt, args.batch, rng)
        epoch += 1
        ce, rmse = held_out()
        if ce < best[0]:
            best = (ce, rmse)
            best_params = [p.copy() for p in trainer.params]
        log(
            f"epoch={epoch} lr={trainer.lr:.2e} train_ce={loss:.5f} held_ce={ce:.5f} "
            f"held_equity_rmse={rmse:.4f} s={time.time() - start:.0f} "
            f"load={os.getloadavg()[0]:.2f}"
        )
    net.w1, net.b1, net.w2, net.b2 = best_params
    net.weights_changed()
    net.meta = {
        "trained_by": "tools/distill_gnubg.py",
        "teacher": (
            f"gnubg {args.plies}-ply cubeless"
            if teachers == {"gnubg"} and args.plies is not None
            else ", ".join(sorted(teachers))
        ),
        "positions": len(xt),
        "label_games": sum(games) if games else None,
        "held_out": len(xv),
        "epochs": epoch,
        "batch": args.batch,
        "lr": args.lr,
        "lr_decay": bool(args.decay),
        "seed": args.seed,
        "hidden": int(net.w1.shape[0]),
        "inputs": net.kind,
        "init": str(args.init) if args.init else None,
        # How the starting weights were made (e.g. TD self-play games), kept with them.
        "init_meta": init_meta or None,
        "held_ce": round(best[0], 5),
        "held_equity_rmse": round(best[1], 4),
        "seconds": round(time.time() - start, 1),
        "data": sorted({p.name.rsplit("_", 1)[0] for d in dirs for p in d.glob("chunk_*.npz")}),
        "deep_labels": bool(args.deep),
        "lambda": args.lam,
    }
    net.save(args.out)
    log(f"saved {args.out} {json.dumps(net.meta)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    lab = sub.add_parser("label", help="label positions from seeded games with gnubg")
    lab.add_argument("--chunks", type=int, default=0, help="stop after chunk k (0: no limit)")
    tr = sub.add_parser("train", help="fit a network to the labelled chunks")
    tr.add_argument("--hidden", type=int, default=128)
    tr.add_argument(
        "--kind",
        choices=sorted(ENCODERS),
        default="tavla2",
        help="inputs",
    )
    tr.add_argument("--extend", default="", help="give --init the inputs of this encoding")
    tr.add_argument("--also", type=Path, action="append", default=[], help="more data dirs")
    tr.add_argument("--deep", action="store_true", help="2-ply labels where a chunk has them")
    tr.add_argument("--lam", type=float, default=0.0, help="lambda-returns in greedy games")
    tr.add_argument("--float32", action="store_true", help="train in float32 (faster)")
    tr.add_argument("--init", type=Path, default=None)
    tr.add_argument("--widen", type=int, default=0, help="hidden units for a narrower --init")
    tr.add_argument("--epochs", type=int, default=10_000)
    tr.add_argument("--batch", type=int, default=128)
    tr.add_argument("--lr", type=float, default=1e-3)
    tr.add_argument("--decay", action="store_true", help="lr down to a tenth over the run")
    tr.add_argument("--out", type=Path, required=True)
    for p in (lab, tr):
        p.add_argument("--dir", type=Path, default=Path("/work/ai-data/tavla"))
        p.add_argument("--minutes", type=float, default=0.0)
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--log", type=Path, default=None)
    lab.add_argument("--plies", type=int, default=0)
    lab.add_argument("--policy", type=Path, default=None, help="games follow this net (.npz)")
    lab.add_argument("--chunk", type=int, default=20_000)
    tr.add_argument("--plies", type=int, default=None, help="only chunks labelled at this depth")
    args = parser.parse_args(argv)
    if args.cmd == "train" and not args.minutes:
        args.minutes = 1e9
    return cmd_label(args) if args.cmd == "label" else cmd_train(args)


if __name__ == "__main__":
    raise SystemExit(main())
