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
    from .analysis import cli as analysis_cli

    analysis_cli.add_parser(commands)
    args = parser.parse_args(argv)

    if args.command == "analyse":
        return analysis_cli.run(args)
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
