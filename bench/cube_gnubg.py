"""Cube decisions of the computer against GNU Backgammon's, on positions from played games.

    .venv/bin/python bench/cube_gnubg.py --positions 1000 --reference /tmp/cube_ref.json
    .venv/bin/python bench/cube_gnubg.py --reference bench/reference/cube_gnubg_2027.json  # no gnubg

Positions come from seeded Tavla games of ``club`` against itself (the board before a roll,
one or two picked at random from each game), half in money play (centred cube, or a cube of
2 owned by the side on roll; Jacoby off) and half in 5-point matches at random scores (the
Crawford game and cubes that are dead for the side on roll are left out: nobody can double
there). GNU Backgammon's command-line program (``gnubg -t``, Debian package ``gnubg``) is
asked for its cube analysis of each (``hint`` at its default evaluation, 2-ply), and its
"proper cube action" read: double or not, take or pass. The answers are kept in the
``--reference`` file, so a second run (or tuning) needs no gnubg.

Then the chosen level's ``should_double`` and ``should_take`` are compared with gnubg's.
Prints agreement on the double, on the take and on both, over all positions and over the
"live" ones (where gnubg or the player doubles or passes), and ends with a ``name=value``
line. ``--tune`` searches :mod:`core.ai.cube`'s two thresholds (``WINDOW``, ``OWNERSHIP``)
for the best agreement on these positions; check the result on another set (``--seed``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.ai import CubeState, player_for  # noqa: E402
from core.ai import cube as cube_module  # noqa: E402
from core.ai.network import flip  # noqa: E402
from core.ai.sim import opening  # noqa: E402
from core.dice import RandomDice  # noqa: E402
from core.gnubg import GAME_PLAYING, MatchIdInfo, match_id, position_from_id, position_id  # noqa: E402
from core.movegen import legal_plays  # noqa: E402
from core.position import CHECKERS, OFF, Position  # noqa: E402
from core.variants import variant_by_name  # noqa: E402

GNUBG = "/usr/games/gnubg"
MATCH_LENGTH = 5


def game_positions(variant, player, dice) -> list[Position]:
    """The boards before each roll of one game of ``player`` against itself."""
    _, roll = opening(variant, dice)
    side = variant.start_position()
    seen: list[Position] = []
    for ply in range(2000):
        if ply:
            seen.append(side)
        plays = legal_plays(variant, side, roll)
        if plays:
            after = player.choose_play(variant, side, plays).after
            if after.mover[OFF] == CHECKERS:
                return seen
            side = after.swapped()
        else:
            side = side.swapped()
        roll = dice.roll()
    return seen


def random_cube(rng: random.Random, money: bool) -> CubeState:
    """A cube state, from the side on roll, in which that side may double."""
    if money:
        value, owner = (1, 0) if rng.random() < 0.6 else (2, 1)
        return CubeState(value=value, owner=owner)
    while True:
        mine, theirs = rng.randrange(MATCH_LENGTH), rng.randrange(MATCH_LENGTH)
        away_me, away_opp = MATCH_LENGTH - mine, MATCH_LENGTH - theirs
        if away_me == 1:
            continue  # the leader at 1-away never doubles (or it is the Crawford game)
        value, owner = (1, 0) if rng.random() < 0.6 else (2, 1)
        if value >= away_me or value >= away_opp:
            continue  # a cube this high is dead for somebody: nothing to decide
        # With the opponent 1-away this is a post-Crawford game (the Crawford one is out).
        return CubeState(value, owner, MATCH_LENGTH, mine, theirs, crawford=False)


def sample(n: int, seed: int) -> list[dict]:
    """``n`` positions with cube states (half money, half 5-point match)."""
    variant = variant_by_name("tavla")
    player = player_for("tavla", "club", seed=seed)
    rng = random.Random(seed)
    out: list[dict] = []
    game = 0
    while len(out) < n:
        seen = game_positions(variant, player, RandomDice(seed * 7_919 + game))
        game += 1
        for position in rng.sample(seen, min(2, len(seen))):
            if len(out) >= n:
                break
            state = random_cube(rng, money=len(out) % 2 == 0)
            out.append({"position": position_id(position), **_state_dict(state)})
    return out


def _state_dict(state: CubeState) -> dict:
    return {
        "cube": state.value,
        "owner": state.owner,
        "match": state.match_length,
        "score": [state.my_score, state.opp_score],
    }


def state_of(case: dict) -> CubeState:
    mine, theirs = case["score"]
    return CubeState(case["cube"], case["owner"], case["match"], mine, theirs, crawford=False)


def gnubg_id(case: dict) -> str:
    """GNUbgID of a case: the side on roll is gnubg's player 1, before rolling."""
    mine, theirs = case["score"]
    owner = {0: None, 1: 1, -1: 0}[case["owner"]]
    info = MatchIdInfo(
        cube_value=case["cube"],
        cube_owner=owner,
        on_roll=1,
        turn=1,
        game_state=GAME_PLAYING,
        match_length=case["match"],
        score=(theirs, mine),
        jacoby=False,
    )
    return f"{case['position']}:{match_id(info)}"


_ACTION = re.compile(r"Proper cube action:\s*(.+)")


def ask_gnubg(cases: list[dict], batch: int = 50) -> None:
    """Fill in gnubg's ``action``, ``double`` and ``take`` for each case (in place)."""
    for start in range(0, len(cases), batch):
        chunk = cases[start : start + batch]
        script = ["set threads 1", "set jacoby off", "set player 0 human", "set player 1 human"]
        for case in chunk:
            script += [f"set gnubgid {gnubg_id(case)}", "hint"]
        run = subprocess.run(
            [GNUBG, "-t", "-q", "-r"],
            input="\n".join(script) + "\n",
            capture_output=True,
            text=True,
            timeout=3600,
            check=False,
        )
        # One "Setting GNUbg ID" per case, each followed by its hint.
        parts = run.stdout.split("Setting GNUbg ID")[1:]
        if len(parts) != len(chunk):
            raise RuntimeError(f"gnubg answered {len(parts)} of {len(chunk)} positions")
        for case, text in zip(chunk, parts, strict=True):
            found = _ACTION.search(text)
            action = found.group(1).strip() if found else ""
            case["action"] = action
            lower = action.lower()
            optional = lower.startswith("optional")
            case["double"] = None if optional else lower.startswith(("double", "redouble"))
            case["take"] = "pass" not in lower
        print(f"gnubg: {start + len(chunk)} of {len(cases)}", file=sys.stderr, flush=True)


def _agrees(mine: bool, gnubg: bool | None) -> bool:
    return gnubg is None or mine == gnubg  # None: gnubg calls the double optional


def compare(cases: list[dict], decide) -> dict[str, float]:
    """Agreement with gnubg over ``cases``; ``decide(case)`` gives (double, take)."""
    n = both = dbl = tak = live = live_both = 0
    for case in cases:
        if not case.get("action"):
            continue
        d, t = decide(case)
        agree_d, agree_t = _agrees(d, case["double"]), t == case["take"]
        n += 1
        dbl += agree_d
        tak += agree_t
        both += agree_d and agree_t
        if case["double"] or not case["take"] or d or not t:
            live += 1
            live_both += agree_d and agree_t
    return {
        "positions": n,
        "agree": both / max(1, n),
        "agree_double": dbl / max(1, n),
        "agree_take": tak / max(1, n),
        "live": live,
        "agree_live": live_both / max(1, live),
    }


def player_decisions(player):
    """``decide`` for :func:`compare`: the player's own ``should_double``/``should_take``."""
    variant = variant_by_name("tavla")

    def decide(case: dict) -> tuple[bool, bool]:
        position = position_from_id(case["position"])
        state = state_of(case)
        take = player.should_take(variant, position.swapped(), state.swapped())
        return player.should_double(variant, position, state), take

    return decide


def tune(cases: list[dict], player) -> tuple[float, float]:
    """The (WINDOW, OWNERSHIP) pair with the best agreement on ``cases``.

    The player's chances are computed once per position (``player.evaluate``, as its cube
    decisions do) and the thresholds searched on a grid.
    """
    outs = {id(c): player.evaluate(position_from_id(c["position"])) for c in cases}

    def decide(case: dict) -> tuple[bool, bool]:
        out, state = outs[id(case)], state_of(case)
        double = cube_module.double_decision(out, state)
        return double, cube_module.take_decision(flip(out), state.swapped())

    best = (-1.0, cube_module.WINDOW, cube_module.OWNERSHIP)
    for window in [w / 100 for w in range(41)]:
        for ownership in [o / 100 for o in range(13)]:
            cube_module.WINDOW, cube_module.OWNERSHIP = window, ownership
            score = compare(cases, decide)["agree"]
            if score > best[0]:
                best = (score, window, ownership)
    _, cube_module.WINDOW, cube_module.OWNERSHIP = best
    return best[1], best[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--level", default="expert")
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--reference", type=Path, required=True, help="gnubg's answers (JSON)")
    parser.add_argument("--tune", action="store_true", help="search the cube thresholds")
    parser.add_argument("--limit", type=int, default=0, help="compare only the first N")
    args = parser.parse_args(argv)

    start = time.time()
    if args.reference.exists():
        cases = json.loads(args.reference.read_text())["cases"]
    elif not Path(GNUBG).exists():
        print(f"no {args.reference} and no {GNUBG} (apt-get install gnubg)", file=sys.stderr)
        return 2
    else:
        cases = sample(args.positions, args.seed)
        ask_gnubg(cases)
        about = (
            f"Tavla cube decisions by GNU Backgammon (gnubg -t, hint, default 2-ply) on "
            f"positions from seeded club self-play games (bench/cube_gnubg.py, seed {args.seed})"
            "; cube/owner/score from the side on roll (owner 1: it owns the cube)."
        )
        lines = ",\n".join(json.dumps(case, separators=(",", ":")) for case in cases)
        args.reference.write_text(f'{{"about": {json.dumps(about)},\n"cases": [\n{lines}\n]}}\n')
    if args.limit:
        cases = cases[: args.limit]
    player = player_for("tavla", args.level, seed=args.seed)
    decide = player_decisions(player)
    money = [c for c in cases if not c["match"]]
    match = [c for c in cases if c["match"]]
    for kind, subset in (("money", money), ("match", match)):
        r = compare(subset, decide)
        print(
            f"{kind}: {r['positions']} positions, agree {r['agree']:.1%} (double "
            f"{r['agree_double']:.1%}, take {r['agree_take']:.1%}); live {r['live']}: "
            f"{r['agree_live']:.1%}"
        )
    if args.tune:
        before = compare(cases, decide)["agree"]
        window, ownership = tune(cases, player)
        print(
            f"tuned: WINDOW={window} OWNERSHIP={ownership}; agreement "
            f"{before:.1%} before, {compare(cases, decide)['agree']:.1%} after"
        )
    r = compare(cases, decide)
    print(f"elapsed {time.time() - start:.0f} s")
    print(
        f"level={args.level} positions={r['positions']} agree={r['agree']:.3f} "
        f"agree_double={r['agree_double']:.3f} agree_take={r['agree_take']:.3f} "
        f"live={r['live']} agree_live={r['agree_live']:.3f} "
        f"window={cube_module.WINDOW} ownership={cube_module.OWNERSHIP}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
