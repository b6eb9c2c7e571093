"""Tune Tavla's own ``master`` look-ahead offline, judged by GNU Backgammon's 2-ply.

    .venv/bin/python tools/tune_tavla_master.py collect --seed 7 --games 40 --out /tmp/tm.pkl
    .venv/bin/python tools/tune_tavla_master.py grid /tmp/tm.pkl

``collect`` plays seeded games of the shipped Tavla ``master`` without gnubg against gnubg's
0-ply (the dice of ``bench/ai_strength.py`` with that seed) and, at each of our master's
decisions with a choice, stores for a broad set of plays (≤ 14 within 0.40 by 0-ply)
their 0-ply, 1-ply, reduced 2-ply and full 2-ply values by our net, the boards each look
evaluates, gnubg's 0-ply equity of every legal play and gnubg's 2-ply equity of the set
(and of gnubg 0-ply's choice). ``grid`` replays filters on those decisions and prints the
mean equity each loses against the best of the set by gnubg's 2-ply (milli-points a
decision), the difference from gnubg 0-ply's loss and from the shipped filter's on the
first net (decision by decision, with a 95% interval), and the boards evaluated (mean, 95th
percentile): the boards stand for the time. ``addnet`` adds another net's values to the
same decisions.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from core.ai import player_for  # noqa: E402
from core.ai.gnubg_player import gnubg_board, load_gnubg  # noqa: E402
from core.ai.lookahead import replies  # noqa: E402
from core.ai.network import Network, equity  # noqa: E402
from core.ai.sim import play_game  # noqa: E402
from core.dice import RandomDice  # noqa: E402
from core.position import CHECKERS, OFF  # noqa: E402
from core.variants import variant_by_name  # noqa: E402
from tools.tune_lookahead import candidates  # noqa: E402
from tools.tune_lookahead import two_ply as lookahead_two_ply  # noqa: E402

TAVLA = variant_by_name("tavla")


def _value(outs: np.ndarray) -> np.ndarray:
    return equity(outs, True, True)


def net_values(net: Any, afters: list[Any]) -> dict[str, np.ndarray]:
    """Our net's looks at ``afters`` (none of them a won board)."""
    answers = replies(net, TAVLA, afters, _value, float)
    reduced = [lookahead_two_ply(net, a, False, TAVLA) for a in answers]
    return {
        "ones": np.array([a.value for a in answers]),
        "b1": np.array([a.boards for a in answers]),
        "red": np.array([r[0] for r in reduced]),
        "b2": np.array([r[1] for r in reduced]),
        "full": np.array([lookahead_two_ply(net, a, True, TAVLA)[0] for a in answers]),
    }


def collect(seed: int, games: int, out: Path, weights: list[Path], start: int) -> None:
    gnubg = load_gnubg()
    assert gnubg is not None
    cubeinfo = gnubg.cubeinfo()
    ctx = {p: gnubg.evalcontext(0, p, 0, 0, 0) for p in (0, 2)}

    def g_eq(after: Any, plies: int) -> float:
        if after.mover[OFF] == CHECKERS:
            return 3.0
        return -float(gnubg.evaluate(gnubg_board(after.swapped()), cubeinfo, ctx[plies])[5])

    nets = [Network.load(w) for w in weights]
    master = player_for("tavla", "master", seed=seed, net=nets[0], use_gnubg=False)
    opponent = player_for("tavla", "master", seed=seed + 1)
    records: list[dict[str, Any]] = []
    choose = master.choose_play

    def recording(variant, position, plays):  # type: ignore[no-untyped-def]
        found = candidates(master, variant, position, plays, most=14, within=0.40)
        if found is not None:
            _, keep = found
            afters = [plays[i].after for i in keep]
            g0 = np.array([g_eq(p.after, 0) for p in plays])
            gbest = int(np.argmax(g0))
            if gbest not in keep:
                keep.append(gbest)
                afters.append(plays[gbest].after)
            rec: dict[str, Any] = {
                "g0": g0[keep],
                "gpick": keep.index(gbest),
                "g2": np.array([g_eq(a, 2) for a in afters]),
                "nets": [],
                "afters": afters,
                "plays": [plays[i] for i in keep],
            }
            for net in nets:
                ev = player_for("tavla", "club", net=net).net  # type: ignore[attr-defined]
                vals = {"eqs": _play_equities(ev, [plays[i] for i in keep])}
                vals.update(net_values(ev, afters))
                rec["nets"].append(vals)
            records.append(rec)
        return choose(variant, position, plays)

    master.choose_play = recording  # type: ignore[method-assign]
    for g in range(start, start + games):
        players = [master, opponent] if g % 2 == 0 else [opponent, master]
        play_game(TAVLA, players, RandomDice(seed * 100_003 + g // 2))
        print(f"game {g + 1}: {len(records)} decisions", flush=True)
        with out.open("wb") as f:
            pickle.dump({"weights": [str(w) for w in weights], "records": records}, f)


def _play_equities(ev: Any, plays: list[Any]) -> np.ndarray:
    from core.ai.players import _play_equities as pe

    return pe(ev, TAVLA, plays)


def choose(vals: dict[str, Any], filt: tuple) -> tuple[int, int]:
    """(index chosen, boards evaluated) by a filter (candidates, threshold, deep,
    deep_threshold, full) on one net's values of a record."""
    candidates, threshold, deep, deep_threshold, full = filt
    eqs, ones = vals["eqs"], vals["ones"]
    order = list(np.argsort(-eqs, kind="stable"))
    best = eqs[order[0]]
    keep = [i for i in order[:candidates] if eqs[i] >= best - threshold]
    if len(keep) == 1:
        return keep[0], 0
    spent = int(vals["b1"][keep].sum())
    ranked = sorted(keep, key=lambda i: -ones[i])
    top = [i for i in ranked[:deep] if ones[i] >= ones[ranked[0]] - deep_threshold]
    if deep < 2 or len(top) < 2:
        return ranked[0], spent
    more = int(vals["b2"][top].sum()) * (7 if full else 1)
    key = vals["full"] if full else vals["red"]
    return max(top, key=lambda i: key[i]), spent + more


#: The shipped master's filter, (candidates, threshold, deep, deep_threshold, full).
SHIPPED = (12, 0.24, 3, 0.06, False)


def _ci(d: np.ndarray) -> str:
    return f"{1000 * d.mean():+.2f} ± {1960 * d.std() / np.sqrt(len(d)):.2f}"


def grid(paths: list[Path]) -> None:
    """Print each filter's mean loss and boards, for each net (see the module doc)."""
    records: list[dict[str, Any]] = []
    weights: list[str] = []
    for path in paths:
        with path.open("rb") as f:
            data = pickle.load(f)  # our own file, written by ``collect``
        records += data["records"]
        weights = data["weights"]
    print(f"{len(records)} decisions, nets {weights}")
    gnubg0 = np.array([r["g2"].max() - r["g2"][r["gpick"]] for r in records])
    print(f"gnubg 0-ply: loss_mpts={1000 * gnubg0.mean():.2f}")
    filters = [(1, 0.0, 0, 0.0, False), (8, 0.16, 0, 0.0, False), (12, 0.24, 0, 0.0, False)]
    for d, dt in [(3, 0.06), (4, 0.10), (5, 0.10), (5, 0.16), (8, 0.24)]:
        filters.append((12, 0.24, d, dt, False))
    for d, dt in [(3, 0.06), (5, 0.16)]:
        filters.append((12, 0.24, d, dt, True))

    def losses(k: int, filt: tuple) -> tuple[np.ndarray, list[int]]:
        picks = [choose(r["nets"][k], filt) for r in records]
        ls = [r["g2"].max() - r["g2"][i] for r, (i, _) in zip(records, picks, strict=True)]
        return np.array(ls), [n for _, n in picks]

    shipped, _ = losses(0, SHIPPED)
    for k in range(len(weights)):
        for filt in filters:
            ls, boards = losses(k, filt)
            print(
                f"net={k} filt={filt} loss_mpts={1000 * ls.mean():.2f} "
                f"vs_gnubg0={_ci(ls - gnubg0)} vs_shipped={_ci(ls - shipped)} "
                f"boards_mean={np.mean(boards):.0f} boards_p95={np.percentile(boards, 95):.0f}"
            )


def add_net(path: Path, weights: Path) -> None:
    """Add one more net's values to the decisions of ``path`` (the same plays)."""
    with path.open("rb") as f:
        data = pickle.load(f)  # our own file, written by ``collect``
    ev = player_for("tavla", "club", net=Network.load(weights)).net  # type: ignore[attr-defined]
    for rec in data["records"]:
        vals = {"eqs": _play_equities(ev, rec["plays"])}
        vals.update(net_values(ev, rec["afters"]))
        rec["nets"].append(vals)
    data["weights"].append(str(weights))
    with path.open("wb") as f:
        pickle.dump(data, f)


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--seed", type=int, default=7)
    c.add_argument("--games", type=int, default=40)
    c.add_argument("--start", type=int, default=0)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument(
        "--weights", type=Path, nargs="+", default=[Path("core/ai/weights/tavla-256.npz")]
    )
    a = sub.add_parser("addnet")
    a.add_argument("path", type=Path)
    a.add_argument("weights", type=Path)
    g = sub.add_parser("grid")
    g.add_argument("paths", type=Path, nargs="+")
    args = parser.parse_args()
    if args.cmd == "collect":
        collect(args.seed, args.games, args.out, args.weights, args.start)
    elif args.cmd == "addnet":
        add_net(args.path, args.weights)
    else:
        grid(args.paths)


if __name__ == "__main__":
    main()
