"""``python -m core analyse --variant V FILE.mat [--level L]`` (design.md, a contract).

Prints one JSON line per decision ``{"game", "move", "player", "kind", "dice", "position",
"played", "best", "loss"}`` (the loss in equity normalized to the cube), then one summary
line per player with ``"summary": true`` and ``error_per_decision`` (millipoints), ``pr``,
``doubtful``, ``bad``, ``very_bad``, ``luck``, ``rating`` and more.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from core.variants import VARIANTS, variant_by_name

from .analyse import analyse_actions
from .evaluators import evaluator_for
from .records import RecordError, parse_mat

LEVELS = ("best", "network", "gnubg")
# The variant names a .mat header may give, for a check against --variant.
_HEADER_NAMES = {"tavla": "tavla", "backgammon": "tavla", "turkish": "turkish", "uzun": "uzun"}


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``analyse`` command on ``python -m core``'s sub-commands."""
    parser = commands.add_parser("analyse", help="score every decision of a .mat match")
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="tavla")
    parser.add_argument("file", help="the match as a .mat file (- for standard input)")
    parser.add_argument(
        "--level",
        default="best",
        choices=LEVELS,
        help="best: gnubg 2-ply for Tavla when installed, else the network with look-ahead",
    )


def run(args: argparse.Namespace, stdout: TextIO | None = None) -> int:
    """Run the ``analyse`` command; returns the exit status."""
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        record = parse_mat(text)
        named = _HEADER_NAMES.get((record.variant or "tavla").strip().lower())
        if named is not None and named != args.variant:
            raise RecordError(f"the file is a {record.variant} match, not {args.variant}")
        variant = variant_by_name(args.variant)
        evaluator = evaluator_for(variant, args.level)
        analysis = analyse_actions(
            variant, record.games, length=record.length, names=record.names, evaluator=evaluator
        )
    except (RecordError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = stdout or sys.stdout
    for line in analysis.json_lines():
        out.write(line + "\n")
    out.flush()
    return 0
