"""Train the neural evaluators by TD(lambda) self-play; resumable, checkpointed, logged.

    .venv/bin/python tools/train_td.py --variant tavla --minutes 30
    .venv/bin/python tools/train_td.py --variant uzun --games 20000

The weights live in ``core/ai/weights/<tavla|uzun>.npz`` with their metadata (games trained,
seconds, hyper-parameters); a run resumes from that file when it exists, so repeating the
command continues training. Checkpoints are written atomically every ``--checkpoint``
minutes and at the end; progress goes to stdout (and ``--log``). The dice of game ``g`` are
seeded with ``seed * 1000003 + g``, so a run can be reproduced from its metadata.

``--init NET.npz`` starts a new ``--out`` file (``--fresh`` to replace one) from another
net's weights (a net fitted to a teacher, trained on by self-play), its metadata kept as
``init_meta``; the same seed and games give the same weights:

    .venv/bin/python tools/train_td.py --variant uzun --init core/ai/weights/uzun-round4.npz \
        --seed 4 --games 18673 --alpha 0.01 --fresh --out core/ai/weights/uzun-round4-td.npz
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

# One core: keep NumPy's BLAS from spreading small matrix products over threads.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.ai.network import WEIGHTS_DIR, Network  # noqa: E402
from core.ai.td import TDTrainer  # noqa: E402
from core.dice import RandomDice  # noqa: E402
from core.variants import variant_by_name  # noqa: E402

HIDDEN = {"tavla": 80, "uzun": 64}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", choices=["tavla", "uzun"], default="tavla")
    parser.add_argument("--games", type=int, default=0, help="stop after this many games")
    parser.add_argument("--minutes", type=float, default=0.0, help="stop after this long")
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--lam", type=float, default=0.7)
    parser.add_argument("--hidden", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--checkpoint", type=float, default=3.0, help="minutes between saves")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--log", type=Path, default=None)
    parser.add_argument("--fresh", action="store_true", help="ignore an existing weights file")
    parser.add_argument("--init", type=Path, default=None, help="start from this net's weights")
    args = parser.parse_args(argv)
    if not args.games and not args.minutes:
        parser.error("give --games or --minutes")

    out = args.out or WEIGHTS_DIR / f"{args.variant}.npz"
    untrained = {"games": 0, "seconds": 0.0, "seed": args.seed, "runs": []}
    if args.init and out.exists() and not args.fresh:
        parser.error(f"{out} exists: it would be trained on, not started from --init")
    if args.init:
        net = Network.load(args.init)
        if net.kind != args.variant:
            parser.error(f"{args.init} is a {net.kind} net, not {args.variant}")
        net.meta = {
            "trained_by": "tools/train_td.py",
            **untrained,
            "hidden": int(net.w1.shape[0]),
            "init": str(args.init),
            "init_meta": net.meta,
        }
    elif out.exists() and not args.fresh:
        net = Network.load(out)
    else:
        net = Network.fresh(args.variant, args.hidden or HIDDEN[args.variant], seed=args.seed)
        net.meta = dict(untrained)
    variant = variant_by_name(args.variant)
    trainer = TDTrainer(net, alpha=args.alpha, lam=args.lam)
    log_file = args.log.open("a") if args.log else None

    def log(message: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {args.variant} {message}"
        print(line, flush=True)
        if log_file:
            log_file.write(line + "\n")
            log_file.flush()

    start = time.time()
    last_save = start
    start_games = int(net.meta.get("games", 0))
    base_seconds = float(net.meta.get("seconds", 0.0))
    seed = int(net.meta.get("seed", args.seed))
    window: list[tuple[int, int, int]] = []
    log(f"start at {start_games} games, alpha={args.alpha} lambda={args.lam}, out={out}")

    runs = list(net.meta.get("runs", []))

    def save() -> None:
        net.meta["runs"] = [
            *runs,
            {
                "from": start_games,
                "to": start_games + done,
                "alpha": args.alpha,
                "lambda": args.lam,
            },
        ]
        net.meta["games"] = start_games + done
        net.meta["seconds"] = round(base_seconds + time.time() - start, 1)
        net.meta["alpha"] = args.alpha
        net.meta["lambda"] = args.lam
        net.save(out)
        log(f"checkpoint {json.dumps(net.meta)}")

    done = 0
    try:
        while True:
            if args.games and done >= args.games:
                break
            if args.minutes and time.time() - start >= args.minutes * 60:
                break
            game_no = start_games + done
            winner, points = trainer.play_game(variant, RandomDice(seed * 1_000_003 + game_no))
            done += 1
            window.append((winner, points, 0))
            if done % 500 == 0:
                elapsed = time.time() - start
                gammons = sum(1 for _, p, _ in window if p >= 2) / len(window)
                first_wins = sum(1 for w, _, _ in window if w == 0) / len(window)
                log(
                    f"games={start_games + done} rate={done / elapsed:.1f}/s "
                    f"gammon_rate={gammons:.3f} seat0_wins={first_wins:.3f}"
                )
                window.clear()
            if time.time() - last_save >= args.checkpoint * 60:
                save()
                last_save = time.time()
    finally:
        save()
        if log_file:
            log_file.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
