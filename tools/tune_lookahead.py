"""Tune the Uzun expert's look-ahead offline: how much equity each filter loses.

    .venv/bin/python tools/tune_lookahead.py collect --seed 7 --games 16 --out /tmp/decisions.pkl
    .venv/bin/python tools/tune_lookahead.py grid /tmp/decisions.pkl

``collect`` plays seeded games of the shipped Uzun ``expert`` against ``club`` (the dice of
``bench/ai_strength.py`` with that seed) and, at each of the expert's decisions with a
choice, stores for a broad set of plays (≤ 10 within 0.30 by 0-ply) their 0-ply, 1-ply,
reduced 2-ply and full 2-ply values and the boards each look evaluates. ``grid`` replays
the expert's filter (1-ply candidates and threshold, 2-ply count and threshold, budget of
boards) on those decisions and prints, per filter, the mean equity lost against the full
2-ply's best play (milli-points a decision) and the boards evaluated (mean, 95th
percentile): the boards stand for the time (about 2.3 µs each with the compiled search).

The full 2-ply is itself only the network two rolls deep, so a filter close to it is
better only as far as 2-ply is; matches (``bench/ai_strength.py``, another seed) decide.
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
from core.ai.lookahead import Replies, replies, two_ply_values  # noqa: E402
from core.ai.network import equity  # noqa: E402
from core.ai.sim import play_game  # noqa: E402
from core.dice import RandomDice  # noqa: E402
from core.position import CHECKERS, OFF  # noqa: E402
from core.variants import Variant, variant_by_name  # noqa: E402

UZUN = variant_by_name("uzun")


def _value(outs: np.ndarray, variant: Variant = UZUN) -> np.ndarray:
    return equity(outs, True, variant.backgammons)


def two_ply(net: Any, answer: Replies, full: bool, variant: Variant = UZUN) -> tuple[float, int]:
    """(value, boards evaluated) two rolls deep: all 21 of the mover's rolls after each
    answer (``full``) or a third of them, by ``core.ai.lookahead.two_ply_values``."""
    sizes: list[int] = []

    def value(outs: np.ndarray) -> np.ndarray:
        return _value(outs, variant)

    (got,) = two_ply_values(net, variant, [answer], value, float, full=full, sizes=sizes)
    return got, sizes[0]


def candidates(
    player: Any, variant: Variant, position: Any, plays: list[Any], most: int, within: float
) -> tuple[np.ndarray, list[int]] | None:
    """A decision worth recording: the player's 0-ply equities of ``plays`` and the indices
    of its best ``most`` within ``within`` of the best, best first; None when there is no
    choice (one play, a bear-off the database decides, one candidate, or a candidate that
    bears off the last checker)."""
    if len(plays) < 2 or player.bearoff_play(variant, position, plays) is not None:
        return None
    eqs = player.play_equities(variant, plays)
    order = np.argsort(-eqs)
    keep = [int(i) for i in order[:most] if eqs[i] >= eqs[order[0]] - within]
    if len(keep) < 2 or any(plays[i].after.mover[OFF] == CHECKERS for i in keep):
        return None
    return eqs, keep


def collect(seed: int, games: int, out: Path) -> None:
    """Store the expert's decisions of ``games`` seeded games (see the module doc)."""
    expert = player_for("uzun", "expert", seed=seed)
    club = player_for("uzun", "club", seed=seed + 1)
    net = expert.net  # type: ignore[attr-defined]
    records: list[dict[str, Any]] = []
    choose = expert.choose_play

    def recording(variant, position, plays):  # type: ignore[no-untyped-def]
        found = candidates(expert, variant, position, plays, most=10, within=0.30)
        if found is not None:
            eqs, keep = found
            answers = replies(net, UZUN, [plays[i].after for i in keep], _value, float)
            reduced = [two_ply(net, a, False) for a in answers]
            records.append(
                {
                    "eqs": eqs[keep],
                    "ones": np.array([a.value for a in answers]),
                    "b1": np.array([a.boards for a in answers]),
                    "red": np.array([r[0] for r in reduced]),
                    "b2": np.array([r[1] for r in reduced]),
                    "full": np.array([two_ply(net, a, True)[0] for a in answers]),
                }
            )
        return choose(variant, position, plays)

    expert.choose_play = recording  # type: ignore[method-assign]
    for g in range(games):
        players = [expert, club] if g % 2 == 0 else [club, expert]
        play_game(UZUN, players, RandomDice(seed * 100_003 + g // 2))
        print(f"game {g + 1}: {len(records)} decisions", flush=True)
    with out.open("wb") as f:
        pickle.dump(records, f)


def choose(record: dict[str, Any], filt: tuple[int, float, int, float, int]) -> tuple[int, int]:
    """(index of the play chosen, boards evaluated) by the expert's filter on a record."""
    candidates, threshold, deep, deep_threshold, budget = filt
    eqs, ones = record["eqs"], record["ones"]
    keep = [i for i in range(min(candidates, len(eqs))) if eqs[i] >= eqs[0] - threshold]
    if len(keep) == 1:
        return keep[0], 0
    spent = int(record["b1"][keep].sum())
    ranked = sorted(keep, key=lambda i: -ones[i])
    top = [i for i in ranked[:deep] if ones[i] >= ones[ranked[0]] - deep_threshold]
    if deep < 2 or len(top) < 2:
        return ranked[0], spent
    limit = budget - spent if budget else 10**12
    looked: list[int] = []
    more = 0  # boards of the 2-ply looks taken, best 1-ply first, while within the budget
    for i in top:
        if more + record["b2"][i] > limit:
            break
        more += int(record["b2"][i])
        looked.append(i)
    if len(looked) < 2:
        return ranked[0], spent
    return max(looked, key=lambda i: record["red"][i]), spent + more


def grid(path: Path) -> None:
    """Print each filter's mean loss and boards (see the module doc)."""
    with path.open("rb") as f:
        records = pickle.load(f)  # our own file, written by ``collect``
    print(f"{len(records)} decisions")
    filters = [(5, 0.16, 0, 0.0, 0), (8, 0.16, 0, 0.0, 0)]
    # Budgets up to 40,000 boards: the compiled search made a board about 2.7 times cheaper.
    for budget in (12000, 20000, 30000, 40000):
        for c, t, d, dt in [
            (3, 0.16, 3, 0.16),
            (4, 0.16, 4, 0.16),
            (5, 0.16, 5, 0.16),
            (6, 0.24, 4, 0.16),
            (8, 0.24, 5, 0.16),
        ]:
            filters.append((c, t, d, dt, budget))
    filters.append((12, 0.24, 5, 0.16, 0))
    for filt in filters:
        loss, boards = [], []
        for record in records:
            i, n = choose(record, filt)
            loss.append(record["full"].max() - record["full"][i])
            boards.append(n)
        print(
            f"candidates={filt[0]} threshold={filt[1]} deep={filt[2]} deep_threshold={filt[3]} "
            f"budget={filt[4]} loss_mpts={1000 * np.mean(loss):.2f} "
            f"boards_mean={np.mean(boards):.0f} boards_p95={np.percentile(boards, 95):.0f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--seed", type=int, default=7)
    c.add_argument("--games", type=int, default=16)
    c.add_argument("--out", type=Path, required=True)
    g = sub.add_parser("grid")
    g.add_argument("path", type=Path)
    args = parser.parse_args(argv)
    if args.command == "collect":
        collect(args.seed, args.games, args.out)
    else:
        grid(args.path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
