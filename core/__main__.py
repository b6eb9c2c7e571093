"""Command line of the game core (design.md, "Outside interfaces").

``python -m core legal --variant V --position ID --dice A B [--first-turn]`` prints every
legal play, one a line: the play in notation, a tab, and the Position ID after it (the mover
still counted as the player on roll). ``--jsonl`` instead reads JSON lines
``{"position": ID, "dice": [A, B], "first_turn": false}`` and answers each with one line
``{"position": ID, "dice": [A, B], "plays": [{"play": …, "position": …}, …]}``, flushed at
once, so one process can check thousands of positions.

``python -m core ai --variant V --level L --jsonl`` reads the same JSON lines and answers
``{"position": ID, "dice": [A, B], "play": …, "after": ID}`` with the computer's play (an
empty play and the same ID when the roll cannot be played). A line with ``"cube": true``
asks instead for the cube decisions on that position, gnubg-style: ``double`` (would the
side on roll double?) and ``take`` (would the other side take?); optional fields
``cube_value``, ``cube_owner`` (0 centred, 1 the side on roll, -1 the other),
``match_length``, ``score`` ([side on roll, other]), ``crawford`` and ``jacoby``.

``python -m core rollout --variant V POSITION [--dice A B] [--games N] [--seed S] [--level L]``
rolls a position out (cubeless, seeded, luck-adjusted; :mod:`core.ai.rollout`) with the
level's player on both sides and prints its value for the side on roll; with ``--dice``
each of the best ``--plays`` plays of that roll (by the network; the level's own choice
always among them, marked ``*``) is rolled out on the same dice. ``--json`` prints one
JSON object instead.

``python -m core compile`` compiles the move search and the Uzun inputs (Numba) and caches
them, so that the first decision of a new installation does not wait for it.

``python -m core analyse --variant V FILE.mat [--level L]`` scores every decision of a match
(see :mod:`core.analysis.cli`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .errors import TavlaError
from .gnubg import position_from_id, position_id
from .movegen import legal_plays
from .notation import format_play
from .variants import VARIANTS, Variant, variant_by_name


def _plays(variant: Variant, pid: str, dice: Sequence[int], first_turn: bool) -> list[Any]:
    if len(dice) != 2 or not all(
        isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice
    ):
        raise ValueError("dice must be two numbers from 1 to 6")
    position = position_from_id(pid)
    variant.validate(position)
    plays = legal_plays(variant, position, (dice[0], dice[1]), first_turn)
    return [{"play": format_play(p), "position": position_id(p.after)} for p in plays]


def _jsonl(variant: Variant, stdin: TextIO, stdout: TextIO) -> int:
    status = 0
    for line in stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            pid = request["position"]
            dice = request["dice"]
            answer = {
                "position": pid,
                "dice": dice,
                "plays": _plays(variant, pid, dice, bool(request.get("first_turn", False))),
            }
        except (ValueError, KeyError, TypeError, TavlaError) as exc:
            # One bad line must not end a long run: answer it with the error and go on.
            status = 1
            answer = {"error": str(exc), "input": line.strip()}
        stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        stdout.flush()
    return status


def _ai_answer(variant: Variant, player: Any, request: dict[str, Any]) -> dict[str, Any]:
    from .ai import CubeState

    pid = request["position"]
    position = position_from_id(pid)
    variant.validate(position)
    if request.get("cube"):
        score = request.get("score") or [0, 0]
        state = CubeState(
            value=int(request.get("cube_value", 1)),
            owner=int(request.get("cube_owner", 0)),
            match_length=int(request.get("match_length", 0)),
            my_score=int(score[0]),
            opp_score=int(score[1]),
            crawford=bool(request.get("crawford", False)),
            jacoby=bool(request.get("jacoby", False)),
        )
        return {
            "position": pid,
            "double": bool(player.should_double(variant, position, state)),
            "take": bool(player.should_take(variant, position.swapped(), state.swapped())),
        }
    dice = request["dice"]
    if len(dice) != 2 or not all(
        isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice
    ):
        raise ValueError("dice must be two numbers from 1 to 6")
    plays = legal_plays(variant, position, (dice[0], dice[1]), bool(request.get("first_turn")))
    if not plays:
        return {"position": pid, "dice": dice, "play": "", "after": pid}
    play = player.choose_play(variant, position, plays)
    return {
        "position": pid,
        "dice": dice,
        "play": format_play(play),
        "after": position_id(play.after),
    }


def _ai_jsonl(variant: Variant, player: Any, stdin: TextIO, stdout: TextIO) -> int:
    status = 0
    for line in stdin:
        if not line.strip():
            continue
        try:
            answer = _ai_answer(variant, player, json.loads(line))
        except (ValueError, KeyError, TypeError, IndexError, TavlaError) as exc:
            status = 1
            answer = {"error": str(exc), "input": line.strip()}
        stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        stdout.flush()
    return status


def _figures(result: Any) -> dict[str, Any]:
    return {
        "equity": round(result.equity, 4),
        "ci95": round(result.ci95, 4),
        "plain": round(result.plain, 4),
        "plain_ci95": round(result.plain_ci95, 4),
        "win": round(result.win, 4),
        "win_gammon": round(result.win_gammon, 4),
        "win_backgammon": round(result.win_backgammon, 4),
        "lose_gammon": round(result.lose_gammon, 4),
        "lose_backgammon": round(result.lose_backgammon, 4),
    }


def _rollout_line(result: Any) -> str:
    return (
        f"{result.equity:+.3f} ± {result.ci95:.3f} (plain {result.plain:+.3f} ± "
        f"{result.plain_ci95:.3f}); wins {result.win:.1%}, gammons won "
        f"{result.win_gammon:.1%}, lost {result.lose_gammon:.1%}"
    )


def _rollout(args: argparse.Namespace, variant: Variant) -> int:
    import numpy as np

    from .ai import player_for
    from .ai.lookahead import first_turn
    from .ai.network import network_kind, shipped_network
    from .ai.players import NeuralPlayer
    from .ai.race import BearoffEvaluator
    from .ai.rollout import rollout, rollout_plays

    try:
        position = position_from_id(args.position)
        variant.validate(position)
        if position.finished:
            raise ValueError("the game is over in this position")
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        if args.dice and not all(1 <= d <= 6 for d in args.dice):
            raise ValueError("dice must be two numbers from 1 to 6")
    except (ValueError, TavlaError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    net = shipped_network(network_kind(args.variant))
    luck = BearoffEvaluator(net) if net is not None and not args.no_luck else None
    player = player_for(args.variant, args.level, seed=args.seed)
    players = [player, player]
    head = (
        f"{variant.name}, {args.level} on both sides, {args.games} games, seed {args.seed}, "
        f"{'luck-adjusted' if luck else 'plain'}"
    )
    if not args.dice:
        result = rollout(variant, position, players, games=args.games, seed=args.seed, luck=luck)
        if args.json:
            print(json.dumps({"position": args.position, **_figures(result)}))
        else:
            print(f"{head}\n{args.position}: {_rollout_line(result)}")
        return 0
    dice = (args.dice[0], args.dice[1])
    plays = legal_plays(variant, position, dice, first_turn(variant, position))
    if not plays:
        print("error: the roll cannot be played", file=sys.stderr)
        return 2
    chosen = player.choose_play(variant, position, plays) if len(plays) > 1 else plays[0]
    if len(plays) > args.plays and net is not None:
        # The network's best few, and the level's own choice.
        order = np.argsort(-NeuralPlayer(BearoffEvaluator(net)).play_equities(variant, plays))
        keep = [plays[int(i)] for i in order[: args.plays]]
        plays = keep if chosen in keep else [*keep[:-1], chosen]
    else:
        plays = plays[: max(args.plays, 1)] if chosen in plays[: args.plays] else plays
    results = rollout_plays(variant, plays, players, games=args.games, seed=args.seed, luck=luck)
    ranked = sorted(zip(plays, results, strict=True), key=lambda pr: -pr[1].equity)
    if args.json:
        rows = [{"play": format_play(p), "chosen": p == chosen, **_figures(r)} for p, r in ranked]
        print(json.dumps({"position": args.position, "dice": list(dice), "plays": rows}))
        return 0
    print(f"{head}, the same dice for every play\n{args.position} {dice[0]}-{dice[1]}:")
    for play, result in ranked:
        mark = "*" if play == chosen else " "
        print(f"{mark} {format_play(play):<24} {_rollout_line(result)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m core", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    legal = commands.add_parser("legal", help="list the legal plays of a position and roll")
    legal.add_argument("--variant", choices=sorted(VARIANTS), default="tavla")
    legal.add_argument("--position", help="GNU Backgammon Position ID (player on roll second)")
    legal.add_argument("--dice", nargs=2, type=int, metavar=("A", "B"))
    legal.add_argument("--first-turn", action="store_true", help="the mover's first turn")
    legal.add_argument("--block-needs-home", action="store_true", help="Uzun option (U-6)")
    legal.add_argument("--jsonl", action="store_true", help="read JSON lines from stdin")
    ai = commands.add_parser("ai", help="the computer's play (or cube decision) for positions")
    ai.add_argument("--variant", choices=sorted(VARIANTS), default="tavla")
    ai.add_argument(
        "--level",
        default="club",
        choices=["random", "beginner", "club", "expert", "master", "pubeval", "heuristic"],
    )
    ai.add_argument("--seed", type=int, default=None, help="seed of the noisy levels")
    ai.add_argument("--block-needs-home", action="store_true", help="Uzun option (U-6)")
    ai.add_argument("--jsonl", action="store_true", help="read JSON lines from stdin")
    roll = commands.add_parser(
        "rollout", help="cubeless rollout of a position, or of each play of a roll"
    )
    roll.add_argument("--variant", choices=sorted(VARIANTS), default="tavla")
    roll.add_argument("position", help="GNU Backgammon Position ID (player on roll second)")
    roll.add_argument("--dice", nargs=2, type=int, metavar=("A", "B"), help="roll out each play")
    roll.add_argument("--games", type=int, default=360, help="games per rollout")
    roll.add_argument("--seed", type=int, default=1)
    roll.add_argument(
        "--level",
        default="club",
        choices=["random", "beginner", "club", "expert", "master", "pubeval", "heuristic"],
    )
    roll.add_argument("--plays", type=int, default=5, help="with --dice: how many plays")
    roll.add_argument("--no-luck", action="store_true", help="plain averages only")
    roll.add_argument("--block-needs-home", action="store_true", help="Uzun option (U-6)")
    roll.add_argument("--json", action="store_true", help="one JSON object")
    commands.add_parser(
        "compile", help="compile the move search and the Uzun inputs now (Numba caches them)"
    )
    from .analysis import cli as analysis_cli

    analysis_cli.add_parser(commands)
    args = parser.parse_args(argv)

    if args.command == "compile":
        from .ai.warm import warm_up

        seconds = warm_up()
        print(f"compiled in {seconds:.1f} s" if seconds else "Numba is not installed")
        return 0
    if args.command == "analyse":
        return analysis_cli.run(args)
    if args.command == "rollout":
        options = {"block_needs_home": True} if args.block_needs_home else {}
        if options and args.variant != "uzun":
            parser.error("--block-needs-home is an Uzun Tavla option")
        return _rollout(args, variant_by_name(args.variant, **options))
    if args.command == "ai":
        from .ai import player_for

        options = {"block_needs_home": True} if args.block_needs_home else {}
        if options and args.variant != "uzun":
            parser.error("--block-needs-home is an Uzun Tavla option")
        if not args.jsonl:
            parser.error("the ai command needs --jsonl")
        variant = variant_by_name(args.variant, **options)
        return _ai_jsonl(
            variant, player_for(args.variant, args.level, args.seed), sys.stdin, sys.stdout
        )

    options = {"block_needs_home": True} if args.block_needs_home else {}
    if options and args.variant != "uzun":
        parser.error("--block-needs-home is an Uzun Tavla option")
    variant = variant_by_name(args.variant, **options)
    if args.jsonl:
        return _jsonl(variant, sys.stdin, sys.stdout)
    if args.position is None or args.dice is None:
        parser.error("give --position and --dice, or --jsonl")
    try:
        plays = _plays(variant, args.position, args.dice, args.first_turn)
    except (ValueError, TavlaError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for play in plays:
        print(f"{play['play']}\t{play['position']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
